//! A loaded plugin's tool groups as its manifest serves them: the groups the component
//! declares (`warden:plugin/groups`; one group, `default`, when it declares none), checked
//! against its tools; which are listed, offered to clients that turn them on, or not served
//! (not chosen by `tools.groups`, or needing only grants the plugin lacks); and the refusal of
//! a tool that is not served to the caller, with the group to turn on and how (given by
//! `Registry::not_served`, applied by the executor to every `tools/call`).

pub use super::super::call::Chosen;
use super::super::group_bindings::{CapabilityKind, ToolGroup};
use super::super::plugin::CallFailure;
use crate::manifest::{Grants, GroupChoice, GroupState};
use std::collections::HashMap;

/// The host's tool through which a client turns offered groups on and off.
pub const GROUPS_TOOL: &str = "tool_groups";

/// The group of the tools a plugin puts in none (all of them, when it declares no groups).
pub const DEFAULT_GROUP: &str = "default";

/// How one group is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Served {
    Listed,
    /// Listed for a client once it turns the group on (`tools.offer`).
    Offered,
    /// Not in `tools.groups` nor `tools.offer`.
    NotChosen,
    /// Every grant its tools use is missing: the grants (`grants.*` keys) that would list it.
    Ungranted(Vec<&'static str>),
}

/// One group of a loaded plugin.
#[derive(Debug, Clone)]
pub struct GroupReport {
    pub name: String,
    pub summary: String,
    /// The plugin's own names of its tools (after `tools.allow`/`tools.deny`).
    pub tools: Vec<String>,
    pub served: Served,
}

/// A plugin's groups, with the group of each of its tools.
#[derive(Debug, Clone, Default)]
pub struct PluginGroups {
    pub plugin: String,
    pub groups: Vec<GroupReport>,
    by_tool: HashMap<String, usize>,
}

/// The manifest key of the grant a capability kind needs.
pub fn grant_key(kind: CapabilityKind) -> &'static str {
    match kind {
        CapabilityKind::Browser => "grants.browser.origins",
        CapabilityKind::CaptureHttp => "grants.capture.http_hosts",
        CapabilityKind::CapturePage => "grants.capture.origins",
        CapabilityKind::Http => "grants.http.origins",
        CapabilityKind::Terminal => "grants.terminal.local or grants.terminal.ssh_hosts",
        CapabilityKind::Sftp => "grants.sftp.hosts",
        CapabilityKind::Rdp => "grants.rdp.hosts",
        CapabilityKind::Files => "grants.files",
    }
}

/// Whether `grants` can allow any use of `kind`.
fn granted(grants: &Grants, kind: CapabilityKind) -> bool {
    match kind {
        CapabilityKind::Browser => grants.browser.is_some(),
        CapabilityKind::CaptureHttp => grants
            .capture
            .as_ref()
            .is_some_and(|c| !c.http_hosts.patterns().is_empty()),
        CapabilityKind::CapturePage => grants
            .capture
            .as_ref()
            .is_some_and(|c| !c.origins.patterns().is_empty()),
        CapabilityKind::Http => grants.http.is_some(),
        CapabilityKind::Terminal => grants
            .terminal
            .as_ref()
            .is_some_and(|t| t.local || !t.ssh_hosts.is_empty()),
        CapabilityKind::Sftp => grants.sftp.as_ref().is_some_and(|s| !s.hosts.is_empty()),
        CapabilityKind::Rdp => grants.rdp.as_ref().is_some_and(|r| !r.hosts.is_empty()),
        CapabilityKind::Files => !grants.files.is_empty(),
    }
}

impl PluginGroups {
    /// How `choice` and `grants` serve the `declared` groups over `tools` (the ones the
    /// manifest's filter keeps). An unknown group in `choice` is an error naming the real ones.
    pub fn resolve(
        plugin: &str,
        declared: &[ToolGroup],
        tools: &[&str],
        choice: &GroupChoice,
        grants: &Grants,
    ) -> Result<Self, String> {
        let mut groups: Vec<(String, String, Vec<String>, &[CapabilityKind])> = declared
            .iter()
            .map(|g| {
                let members = g
                    .tools
                    .iter()
                    .filter(|t| tools.contains(&t.as_str()))
                    .cloned()
                    .collect();
                (
                    g.name.clone(),
                    g.summary.clone(),
                    members,
                    g.needs.as_slice(),
                )
            })
            .collect();
        let loose: Vec<String> = tools
            .iter()
            .filter(|t| !declared.iter().any(|g| g.tools.iter().any(|n| n == *t)))
            .map(|t| (*t).to_string())
            .collect();
        if !loose.is_empty() && !groups.iter().any(|g| g.0 == DEFAULT_GROUP) {
            groups.push((
                DEFAULT_GROUP.to_string(),
                "tools in no other group".to_string(),
                loose,
                &[],
            ));
        } else if let Some(default) = groups.iter_mut().find(|g| g.0 == DEFAULT_GROUP) {
            default.2.extend(loose);
        }
        let names: Vec<&str> = groups.iter().map(|g| g.0.as_str()).collect();
        let unknown = choice.unknown(&names);
        if !unknown.is_empty() {
            let list = groups
                .iter()
                .map(|g| format!("{} ({})", g.0, g.1))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(format!(
                "tools.groups/tools.offer: {} {} not a tool group of plugin '{plugin}'; its groups are: {list}",
                unknown
                    .iter()
                    .map(|g| format!("\"{g}\""))
                    .collect::<Vec<_>>()
                    .join(", "),
                if unknown.len() == 1 { "is" } else { "are" },
            ));
        }
        let mut by_tool = HashMap::new();
        let groups = groups
            .into_iter()
            .enumerate()
            .map(|(i, (name, summary, members, needs))| {
                for tool in &members {
                    by_tool.insert(tool.clone(), i);
                }
                let state = choice.state(&name);
                let served = if !needs.is_empty() && !needs.iter().any(|k| granted(grants, *k)) {
                    Served::Ungranted(needs.iter().map(|k| grant_key(*k)).collect())
                } else {
                    match state {
                        GroupState::Listed => Served::Listed,
                        GroupState::Offered => Served::Offered,
                        GroupState::Off => Served::NotChosen,
                    }
                };
                GroupReport {
                    name,
                    summary,
                    tools: members,
                    served,
                }
            })
            .collect();
        Ok(Self {
            plugin: plugin.to_string(),
            groups,
            by_tool,
        })
    }

    /// The group of the plugin's own tool `tool`.
    pub fn of_tool(&self, tool: &str) -> Option<&GroupReport> {
        self.groups.get(*self.by_tool.get(tool)?)
    }

    /// The start-up log's and `warden check`'s lines for this plugin: what is listed,
    /// offered, and not listed with what would list it. Empty for a plugin of one group
    /// that is listed.
    pub fn describe(&self) -> Vec<String> {
        if let [only] = self.groups.as_slice()
            && only.served == Served::Listed
        {
            return Vec::new();
        }
        let names = |want: fn(&Served) -> bool| -> Vec<&str> {
            self.groups
                .iter()
                .filter(|g| want(&g.served))
                .map(|g| g.name.as_str())
                .collect()
        };
        let mut lines = Vec::new();
        let listed = names(|s| *s == Served::Listed);
        lines.push(format!(
            "groups listed: {}",
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            }
        ));
        let offered = names(|s| *s == Served::Offered);
        if !offered.is_empty() {
            lines.push(format!(
                "groups offered (a client turns them on with the {} tool): {}",
                GROUPS_TOOL,
                offered.join(", ")
            ));
        }
        for g in &self.groups {
            match &g.served {
                Served::NotChosen => lines.push(format!(
                    "group {} not listed ({}: {}): add \"{}\" to tools.groups to list it",
                    g.name,
                    g.summary,
                    g.tools.join(", "),
                    g.name
                )),
                Served::Ungranted(keys) => lines.push(format!(
                    "group {} not listed ({}): every call would be refused; {} would list it",
                    g.name,
                    g.tools.join(", "),
                    keys.join(" or ")
                )),
                Served::Listed | Served::Offered => {}
            }
        }
        lines
    }
}

/// Why a tool is not served to a caller.
#[derive(Debug, Clone)]
pub(super) struct Refusal {
    /// Its group lacks every grant it uses (an access denial), rather than being off.
    ungranted: bool,
    /// What the agent reads: the group, and what would serve it.
    message: String,
}

impl Refusal {
    pub(super) fn failure(&self) -> CallFailure {
        if self.ungranted {
            CallFailure::Ungranted(self.message.clone())
        } else {
            CallFailure::GroupOff(self.message.clone())
        }
    }
}

/// Why public tool `public` of `group` is not served to a caller.
pub(super) fn refusal(groups: &PluginGroups, group: &GroupReport, public: &str) -> Refusal {
    Refusal {
        ungranted: matches!(group.served, Served::Ungranted(_)),
        message: refusal_text(groups, group, public),
    }
}

fn refusal_text(groups: &PluginGroups, group: &GroupReport, public: &str) -> String {
    let plugin = &groups.plugin;
    match &group.served {
        Served::Offered => format!(
            "tool \"{public}\" is in tool group \"{plugin}/{}\", which is offered but not turned on for this client: call {} with {{\"enable\": [\"{plugin}/{}\"]}} first",
            group.name, GROUPS_TOOL, group.name
        ),
        Served::Ungranted(keys) => format!(
            "tool \"{public}\" is not served: plugin '{plugin}' has no grant its group \"{}\" uses; an admin adds {} to its [[plugin]] in the manifest",
            group.name,
            keys.join(" or ")
        ),
        Served::NotChosen | Served::Listed => format!(
            "tool \"{public}\" is in tool group \"{}\" of plugin '{plugin}', which the manifest does not serve: an admin adds \"{}\" to tools.groups (or tools.offer) of plugin '{plugin}'",
            group.name, group.name
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::grants::TerminalGrant;
    use crate::runtime::bindings::ToolInfo;

    fn tool(name: &str) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            title: None,
            description: String::new(),
            input_schema: r#"{"type":"object"}"#.into(),
            output_schema: None,
            annotations: crate::runtime::bindings::Annotations {
                read_only: false,
                destructive: false,
                idempotent: false,
                open_world: false,
            },
            task: crate::runtime::bindings::TaskSupport::Never,
        }
    }

    fn group(name: &str, tools: &[&str], needs: &[CapabilityKind]) -> ToolGroup {
        ToolGroup {
            name: name.into(),
            summary: format!("{name} tools"),
            tools: tools.iter().map(|t| (*t).to_string()).collect(),
            needs: needs.to_vec(),
        }
    }

    fn choice(groups: Option<&[&str]>, offer: &[&str]) -> GroupChoice {
        GroupChoice {
            groups: groups.map(|g| g.iter().map(|s| (*s).to_string()).collect()),
            offer: offer.iter().map(|s| (*s).to_string()).collect(),
        }
    }

    #[test]
    fn a_plugin_cannot_put_a_tool_it_lacks_or_one_tool_in_two_groups() {
        use crate::runtime::group_check::validate;
        let tools = [tool("a"), tool("b")];
        assert!(validate(&[group("x", &["a"], &[]), group("y", &["b"], &[])], &tools).is_ok());
        let stranger = validate(&[group("x", &["c"], &[])], &tools).expect_err("refused");
        assert!(stranger.contains("no such tool"), "{stranger}");
        let twice = validate(&[group("x", &["a"], &[]), group("y", &["a"], &[])], &tools)
            .expect_err("refused");
        assert!(twice.contains("two groups"), "{twice}");
        let dup =
            validate(&[group("x", &[], &[]), group("x", &[], &[])], &tools).expect_err("refused");
        assert!(dup.contains("twice"), "{dup}");
        let bad = validate(&[group("X Y", &[], &[])], &tools).expect_err("refused");
        assert!(bad.contains("[a-z0-9_-]"), "{bad}");
    }

    #[test]
    fn groups_are_listed_offered_off_or_ungranted() {
        let declared = [
            group("core", &["a"], &[CapabilityKind::Terminal]),
            group("more", &["b"], &[CapabilityKind::Terminal]),
            group("rest", &["c"], &[CapabilityKind::Terminal]),
        ];
        let tools = ["a", "b", "c", "loose"];
        let granted = Grants {
            terminal: Some(TerminalGrant {
                local: true,
                ssh_hosts: Vec::new(),
                members: Default::default(),
                read_only: false,
            }),
            ..Grants::default()
        };
        let g = PluginGroups::resolve(
            "p",
            &declared,
            &tools,
            &choice(Some(&["core", "default"]), &["more"]),
            &granted,
        )
        .expect("resolves");
        let served = |t: &str| g.of_tool(t).map(|g| g.served.clone());
        assert_eq!(served("a"), Some(Served::Listed));
        assert_eq!(served("b"), Some(Served::Offered));
        assert_eq!(served("c"), Some(Served::NotChosen));
        // A tool in no group is in `default`, which the manifest may name.
        assert_eq!(
            g.of_tool("loose").map(|g| g.name.as_str()),
            Some(DEFAULT_GROUP)
        );
        assert_eq!(served("loose"), Some(Served::Listed));

        // Without the grant nothing that needs it is listed, whatever the manifest chose.
        let none = PluginGroups::resolve(
            "p",
            &declared,
            &tools,
            &choice(None, &[]),
            &Grants::default(),
        )
        .expect("resolves");
        assert!(matches!(
            none.of_tool("a").map(|g| &g.served),
            Some(Served::Ungranted(_))
        ));
        assert_eq!(
            none.of_tool("loose").map(|g| g.served.clone()),
            Some(Served::Listed)
        );
        let lines = none.describe().join("\n");
        assert!(lines.contains("grants.terminal.local"), "{lines}");

        let unknown = PluginGroups::resolve(
            "p",
            &declared,
            &tools,
            &choice(Some(&["cor"]), &[]),
            &granted,
        )
        .expect_err("refused");
        assert!(
            unknown.contains("\"cor\" is not a tool group of plugin 'p'")
                && unknown.contains("core (core tools)"),
            "{unknown}"
        );
    }
}
