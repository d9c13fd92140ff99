//! `grants.terminal.members` and `grants.sftp.members`: which members of a pattern host (a
//! fleet, `[ssh.hosts.NAME] pattern`) a grant reaches, as host name globs. A role narrows a
//! fleet by naming fewer members (`role_grants.rs`); a plugin's own grant may too.

use super::glob::GlobList;
use super::grants::Members;
use super::hosts::SshHostConfig;
use super::ssh_pattern::SshAddress;
use super::validate::Validator;
use std::collections::BTreeMap;
use toml::Spanned;

/// Characters a member glob may hold: those of a DNS name, and glob syntax.
fn is_host_glob(glob: &str) -> bool {
    !glob.is_empty()
        && glob
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-.*?[]{}!,".contains(c))
}

impl Validator<'_> {
    /// `grants.KIND.members` as written, checked against the hosts the same grant names
    /// (`granted`, under `hosts_key`) and the `[ssh.hosts]` entries (`known`).
    pub(super) fn members(
        &mut self,
        kind: &str,
        hosts_key: &str,
        written: &BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
        granted: &[String],
        known: &BTreeMap<String, SshHostConfig>,
    ) -> Members {
        let mut members = BTreeMap::new();
        for (alias, globs) in written {
            let key = format!("grants.{kind}.members.{alias}");
            if !granted.contains(alias) {
                self.error(
                    globs.span(),
                    format!("{key}: \"{alias}\" is not in grants.{kind}.{hosts_key}; members narrow a fleet the grant names, so add it there or remove this entry"),
                );
                continue;
            }
            if let Some(SshAddress::Fixed(_)) = known.get(alias).map(|c| &c.address) {
                self.error(
                    globs.span(),
                    format!("{key}: [ssh.hosts.{alias}] is one machine (address), and members narrow only a fleet (pattern); remove this entry"),
                );
                continue;
            }
            if globs.get_ref().is_empty() {
                self.error(
                    globs.span(),
                    format!("{key} is empty, which would reach no member; name the members (globs such as \"*.staging.internal\"), or take \"{alias}\" out of grants.{kind}.{hosts_key}"),
                );
                continue;
            }
            let mut good = Vec::new();
            for glob in globs.get_ref() {
                if is_host_glob(glob.get_ref()) {
                    good.push(glob.clone());
                } else {
                    self.error(
                        glob.span(),
                        format!("{key}: \"{}\" must be a host name glob (letters, digits, '-', '.' and glob characters such as '*'), like \"web-*.staging.internal\"", glob.get_ref()),
                    );
                }
            }
            let list: GlobList = self.globs(&key, &good);
            members.insert(alias.clone(), list);
        }
        Members::new(members)
    }
}

#[cfg(test)]
mod tests {
    use super::is_host_glob;

    #[test]
    fn member_globs_are_host_names_with_glob_syntax() {
        assert!(is_host_glob("web-*.staging.internal"));
        assert!(is_host_glob("web-[12].fleet.internal"));
        assert!(is_host_glob("{a,b}.internal"));
        assert!(!is_host_glob(""));
        assert!(!is_host_glob("https://web-1"));
        assert!(!is_host_glob("web-1:22"));
        assert!(!is_host_glob("web 1"));
    }
}
