//! `[ssh.hosts.NAME]` with `pattern` instead of `address`: one table for a fleet. A plugin
//! granted `NAME` names a concrete host that matches the pattern (`web-12.prod.internal`);
//! the terminal connects to it only at an address `allow` names (without `allow`, only a
//! public one: `capabilities/terminal/fleet.rs`).
//!
//! Which table a name the plugin gives belongs to is decided from the manifest alone
//! (`hosts.rs`, `ssh_name`), so every door (terminal, SFTP, a reload's re-check) decides it
//! the same way.

use super::validate::Validator;
use ipnet::IpNet;
use std::net::IpAddr;
use toml::Spanned;

/// SSH's port, when a pattern host does not name one.
const SSH_PORT: u16 = 22;

/// A validated host pattern: the regular expression (matched against the whole lowercase
/// name), the port, and the networks the names may resolve into.
#[derive(Debug, Clone)]
pub struct HostPattern {
    source: String,
    regex: regex::Regex,
    pub port: u16,
    /// Empty: only public addresses.
    pub allow: Vec<IpNet>,
}

impl PartialEq for HostPattern {
    fn eq(&self, other: &Self) -> bool {
        (&self.source, self.port, &self.allow) == (&other.source, other.port, &other.allow)
    }
}

impl Eq for HostPattern {}

impl HostPattern {
    /// The pattern as the admin wrote it.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn matches(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }

    /// Does `allow` name `ip`? (An address `allow` does not name may still be public: the
    /// caller applies the public-only default when `allow` is empty.)
    pub fn allow_names(&self, ip: IpAddr) -> bool {
        self.allow.iter().any(|net| net.contains(&ip))
    }
}

/// Where an `[ssh.hosts.NAME]` entry reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SshAddress {
    /// `address = "host:port"`: the one machine the alias names.
    Fixed(String),
    /// `pattern = '...'`: any host the plugin names that matches.
    Pattern(HostPattern),
}

/// What a name a plugin gives (`terminal_open`'s or `sftp_*`'s `host`) stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshName {
    /// The `[ssh.hosts]` entry whose settings and grant apply. A name that is neither an
    /// alias nor a match of any pattern is kept as is: the grant check refuses it as unknown.
    pub alias: String,
    /// The concrete host of a pattern entry (lowercase), `None` for an alias.
    pub member: Option<String>,
}

impl SshName {
    /// The name connections, sessions and audit lines go by: the member, or the alias.
    pub fn key(&self) -> &str {
        self.member.as_deref().unwrap_or(&self.alias)
    }
}

/// Why a name cannot stand for one host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SshNameError {
    #[error(
        "ssh host '{alias}' is a pattern for many hosts: name one of them (a name that matches {pattern})"
    )]
    PatternAlias { alias: String, pattern: String },
    #[error(
        "'{name}' is not an ssh host alias and matches no host pattern of [ssh.hosts]; the admin can add a pattern host (pattern = '...') or widen one to cover it"
    )]
    NoMatch { name: String },
    #[error(
        "'{name}' matches the patterns of more than one ssh host ({}); the admin should make the patterns in [ssh.hosts] disjoint", aliases.join(", ")
    )]
    Ambiguous { name: String, aliases: Vec<String> },
}

/// `name` as a lowercase DNS name (labels of letters, digits and inner hyphens, at most 63
/// bytes each, 253 in all, one trailing dot dropped), or `None` when it is not one: a
/// pattern is only ever matched against a name DNS could resolve, never an address or a URL.
pub fn dns_name(name: &str) -> Option<String> {
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    let label_ok = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    (name.len() <= 253 && name.split('.').all(label_ok)).then_some(name)
}

impl Validator<'_> {
    /// `[ssh.hosts.ALIAS]`'s `address` or `pattern` (with `port` and `allow`), exactly one.
    pub(super) fn ssh_address(
        &mut self,
        alias: &str,
        span: std::ops::Range<usize>,
        host: &super::schema::SshHost,
    ) -> SshAddress {
        let fixed_only = |key: &str| {
            format!(
                "ssh.hosts.{alias}.{key}: it applies to a pattern; remove it, or use pattern instead of address"
            )
        };
        match (&host.address, &host.pattern) {
            (Some(address), None) => {
                self.remote_host("ssh", alias, span, address, "");
                if let Some(port) = &host.port {
                    self.error(port.span(), fixed_only("port"));
                }
                if let Some(first) = host.allow.first() {
                    self.error(first.span(), fixed_only("allow"));
                }
                SshAddress::Fixed(address.get_ref().clone())
            }
            (None, Some(pattern)) => {
                self.remote_host_alias("ssh", alias, span);
                SshAddress::Pattern(self.host_pattern(alias, pattern, host))
            }
            (Some(_), Some(pattern)) => {
                self.error(
                    pattern.span(),
                    format!(
                        "ssh.hosts.{alias}: set address (one host) or pattern (many), not both"
                    ),
                );
                SshAddress::Fixed(String::new())
            }
            (None, None) => {
                self.error(span, format!("ssh.hosts.{alias}: set address = \"host:port\" (one host) or pattern = '...' (a fleet)"));
                SshAddress::Fixed(String::new())
            }
        }
    }

    fn host_pattern(
        &mut self,
        alias: &str,
        pattern: &Spanned<String>,
        host: &super::schema::SshHost,
    ) -> HostPattern {
        // Anchored: the pattern is the whole name, as an admin reading it expects.
        let regex = regex::RegexBuilder::new(&format!("^(?:{})$", pattern.get_ref()))
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .unwrap_or_else(|e| {
                // The parser's message draws a caret under the pattern; its last line says what.
                let text = e.to_string();
                let why = text.lines().last().unwrap_or_default().trim_start_matches("error: ");
                self.error(pattern.span(), format!("ssh.hosts.{alias}.pattern: not a regular expression ({why}); example: pattern = 'web-[0-9]+\\.prod\\.internal'"));
                regex::Regex::new("^$").unwrap_or_else(|_| unreachable!("a constant pattern"))
            });
        let port = match &host.port {
            None => SSH_PORT,
            Some(p) => u16::try_from(*p.get_ref())
                .ok()
                .filter(|p| *p > 0)
                .unwrap_or_else(|| {
                    self.error(
                        p.span(),
                        format!(
                            "ssh.hosts.{alias}.port: {} is not a TCP port (1-65535)",
                            p.get_ref()
                        ),
                    );
                    SSH_PORT
                }),
        };
        let allow = host
            .allow
            .iter()
            .filter_map(|entry| {
                let text = entry.get_ref();
                let parsed = text
                    .parse::<IpNet>()
                    .or_else(|_| text.parse::<IpAddr>().map(IpNet::from));
                match parsed {
                    Ok(net) => Some(net.trunc()),
                    Err(_) => {
                        self.error(entry.span(), format!("ssh.hosts.{alias}.allow: \"{text}\" is not an address or a network (write 10.20.0.0/16, 192.0.2.7 or fd00::/8)"));
                        None
                    }
                }
            })
            .collect();
        HostPattern {
            source: pattern.get_ref().clone(),
            regex,
            port,
            allow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_names_only() {
        assert_eq!(
            dns_name("Web-12.Prod.Internal."),
            Some("web-12.prod.internal".into())
        );
        for bad in [
            "", "a..b", "-a.b", "a-.b", "a b", "a/b", "a:22", "[::1]", "a_b", "é.b",
        ] {
            assert_eq!(dns_name(bad), None, "{bad}");
        }
        assert_eq!(dns_name(&"a".repeat(64)), None);
    }
}
