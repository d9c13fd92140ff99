//! `tools = { groups = [...], offer = [...] }` of a `[[plugin]]`: which of the plugin's tool
//! groups (`warden:plugin/groups`) are listed, and which a client may turn on while it runs.
//! Group names are checked here for form; against the plugin's own groups when it loads
//! (`runtime::registry::groups`), since only the component knows them.

use super::schema::ToolFilterSpec;
use super::validate::Validator;

/// How one of a plugin's groups is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupState {
    /// In every client's `tools/list`.
    Listed,
    /// Listed for a client once it turns the group on.
    Offered,
    /// Not served: the manifest chose other groups.
    Off,
}

/// A plugin's `tools.groups` and `tools.offer`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupChoice {
    /// The listed groups; `None`: every group (the manifest chose none).
    pub groups: Option<Vec<String>>,
    /// Groups a client may turn on at run time, for itself.
    pub offer: Vec<String>,
}

impl GroupChoice {
    pub fn state(&self, group: &str) -> GroupState {
        match &self.groups {
            None => GroupState::Listed,
            Some(listed) if listed.iter().any(|g| g == group) => GroupState::Listed,
            Some(_) if self.offer.iter().any(|g| g == group) => GroupState::Offered,
            Some(_) => GroupState::Off,
        }
    }

    /// The names the manifest gives that are none of `real` (the plugin's groups).
    pub fn unknown<'a>(&'a self, real: &[&str]) -> Vec<&'a str> {
        self.groups
            .iter()
            .flatten()
            .chain(&self.offer)
            .map(String::as_str)
            .filter(|g| !real.contains(g))
            .collect()
    }
}

/// `[a-z0-9_-]{1,32}`, as `warden:plugin/groups` requires of a group's name.
pub fn valid_group_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

impl Validator<'_> {
    pub(super) fn group_choice(&mut self, spec: &ToolFilterSpec) -> GroupChoice {
        let mut seen: Vec<String> = Vec::new();
        let mut names = |v: &mut Self, key: &str, list: &[toml::Spanned<String>]| {
            let mut out = Vec::new();
            for name in list {
                let n = name.get_ref();
                if !valid_group_name(n) {
                    v.error(
                        name.span(),
                        format!("tools.{key}: \"{n}\" is not a group name ([a-z0-9_-]{{1,32}})"),
                    );
                } else if seen.contains(n) {
                    v.error(
                        name.span(),
                        format!("tools.{key}: group \"{n}\" is named twice in tools.groups and tools.offer; a group is listed or offered, not both"),
                    );
                } else {
                    seen.push(n.clone());
                    out.push(n.clone());
                }
            }
            out
        };
        let groups = spec.groups.as_ref().map(|g| names(self, "groups", g));
        let offer = names(self, "offer", &spec.offer);
        if groups.is_none()
            && let Some(first) = spec.offer.first()
        {
            self.error(
                first.span(),
                "tools.offer needs tools.groups: without it every group is listed already; name the groups to list, as tools = { groups = [\"core\"], offer = [\"flows\"] }".to_string(),
            );
        }
        GroupChoice { groups, offer }
    }
}
