//! An OpenSSH `known_hosts` file, read as OpenSSH reads it: host patterns with `*` and `?`,
//! `!` negation, `[host]:port` for ports other than 22, hashed names (`|1|salt|hash`),
//! `@cert-authority` lines (a CA whose host certificates are trusted for the hosts it names)
//! and `@revoked` lines (a key never accepted, plain, certified or as a CA).
//!
//! russh's own check compares the first field literally and skips marker lines, so a
//! wildcard entry never matched and a revoked key was not refused: this is Warden's own.

use hmac::{KeyInit, Mac};
use russh::keys::ssh_key::known_hosts::{Entry, HostPatterns, Marker};
use russh::keys::ssh_key::public::KeyData;
use russh::keys::ssh_key::{Certificate, certificate::CertType};
use std::path::Path;

/// What the file says of a plain host key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyCheck {
    Known,
    Unknown,
    /// The host has a key of this type on line `line`, and it is another.
    Changed {
        line: usize,
    },
    Revoked,
}

/// The entries of one file, with their line numbers.
#[derive(Debug, Default)]
pub struct KnownHosts {
    entries: Vec<(usize, Entry)>,
}

impl KnownHosts {
    /// Read `path`; a missing file has no entries. A line that does not parse is skipped
    /// (logged), as OpenSSH skips it.
    pub fn read(path: &Path) -> std::io::Result<Self> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(e),
        };
        Ok(Self::parse(&text))
    }

    pub fn parse(text: &str) -> Self {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.parse::<Entry>() {
                Ok(entry) => entries.push((i + 1, entry)),
                Err(e) => tracing::warn!(line = i + 1, "known_hosts line skipped: {e}"),
            }
        }
        Self { entries }
    }

    /// Entries for `host` on `port` with `marker`.
    fn for_host<'a>(
        &'a self,
        host: &'a str,
        port: u16,
        marker: Option<Marker>,
    ) -> impl Iterator<Item = &'a (usize, Entry)> + 'a {
        let name = if port == 22 {
            host.to_string()
        } else {
            format!("[{host}]:{port}")
        };
        self.entries.iter().filter(move |(_, e)| {
            e.marker().cloned() == marker && host_matches(e.host_patterns(), &name)
        })
    }

    /// Whether `key` is revoked (for any host: a revoked key is revoked everywhere).
    pub fn revoked(&self, key: &KeyData) -> bool {
        self.entries
            .iter()
            .any(|(_, e)| e.marker() == Some(&Marker::Revoked) && e.public_key().key_data() == key)
    }

    /// The verdict on `key`, presented by `host` on `port`.
    pub fn check_key(&self, host: &str, port: u16, key: &KeyData) -> KeyCheck {
        if self.revoked(key) {
            return KeyCheck::Revoked;
        }
        let mut changed = None;
        for (line, e) in self.for_host(host, port, None) {
            let recorded = e.public_key().key_data();
            if recorded == key {
                return KeyCheck::Known;
            }
            if recorded.algorithm() == key.algorithm() && changed.is_none() {
                changed = Some(*line);
            }
        }
        changed.map_or(KeyCheck::Unknown, |line| KeyCheck::Changed { line })
    }

    /// Whether any `@cert-authority` line names `host` on `port` (then the server is asked
    /// for a host certificate).
    pub fn has_authority(&self, host: &str, port: u16) -> bool {
        self.for_host(host, port, Some(Marker::CertAuthority))
            .next()
            .is_some()
    }

    /// Is `cert`, presented by `host` on `port` at `now` (Unix seconds), a host certificate
    /// signed by an authority the file trusts for that host, naming the host among its
    /// principals, with neither its key nor its CA revoked? `Err` says why not.
    pub fn check_certificate(
        &self,
        host: &str,
        port: u16,
        cert: &Certificate,
        now: u64,
    ) -> Result<(), String> {
        if self.revoked(cert.public_key()) {
            return Err("its key is marked @revoked in the known_hosts file".into());
        }
        if self.revoked(cert.signature_key()) {
            return Err(
                "its certificate authority is marked @revoked in the known_hosts file".into(),
            );
        }
        if cert.cert_type() != CertType::Host {
            return Err("it is a user certificate, not a host certificate".into());
        }
        let authorities: Vec<_> = self
            .for_host(host, port, Some(Marker::CertAuthority))
            .map(|(_, e)| e.public_key().fingerprint(Default::default()))
            .collect();
        if authorities.is_empty() {
            return Err("no @cert-authority line of the known_hosts file names this host".into());
        }
        cert.validate_at(now, &authorities).map_err(|e| {
            format!("it is not valid now or not signed by an authority trusted for this host ({e})")
        })?;
        if !cert.valid_principals().iter().any(|p| p == host) {
            return Err(format!(
                "its principals ({}) do not name the host it was reached as",
                cert.valid_principals().join(", ")
            ));
        }
        Ok(())
    }
}

/// OpenSSH's rule for a pattern list: a negated pattern that matches rejects the name, else
/// any plain pattern that matches accepts it.
fn host_matches(patterns: &HostPatterns, name: &str) -> bool {
    match patterns {
        HostPatterns::HashedName { salt, hash } => hmac::Hmac::<sha1::Sha1>::new_from_slice(salt)
            .map(|mac| mac.chain_update(name).verify_slice(hash).is_ok())
            .unwrap_or(false),
        HostPatterns::Patterns(list) => {
            let mut accepted = false;
            for pattern in list {
                match pattern.strip_prefix('!') {
                    Some(negated) if wildcard(negated, name) => return false,
                    Some(_) => {}
                    None => accepted |= wildcard(pattern, name),
                }
            }
            accepted
        }
    }
}

/// `*` (any run) and `?` (any one character) matching, case-insensitive as host names are.
fn wildcard(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (
        pattern.to_ascii_lowercase().chars().collect(),
        name.to_ascii_lowercase().chars().collect(),
    );
    // Iterative matching with one backtrack point (the last `*`).
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY_A: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIcxEDWIJaU404qceH+K+P6Rw1vv/LNx7/yQTqPCyMFu";
    const KEY_B: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDlafNr8AZkGO6dtX7fBHywzeUHtDfaXtSfiQFjz/fRA";

    fn key(text: &str) -> KeyData {
        text.parse::<russh::keys::PublicKey>()
            .expect("test key")
            .key_data()
            .clone()
    }

    #[test]
    fn patterns_follow_openssh() {
        for (pattern, name, expected) in [
            ("web-*.prod", "web-12.prod", true),
            ("web-?.prod", "web-12.prod", false),
            ("WEB1", "web1", true),
            ("*.prod,!db*.prod", "db1.prod", false),
            ("*.prod,!db*.prod", "web1.prod", true),
            ("[10.0.0.5]:2222", "[10.0.0.5]:2222", true),
            ("10.0.0.5", "[10.0.0.5]:2222", false),
        ] {
            let patterns = HostPatterns::Patterns(pattern.split(',').map(String::from).collect());
            assert_eq!(
                host_matches(&patterns, name),
                expected,
                "{pattern} vs {name}"
            );
        }
    }

    #[test]
    fn keys_are_known_unknown_changed_or_revoked() {
        let file = KnownHosts::parse(&format!(
            "# comment\n*.prod {KEY_A}\nnot a line\n[web1]:2222 {KEY_B}\n@revoked * {KEY_B}\n"
        ));
        assert_eq!(
            file.check_key("web9.prod", 22, &key(KEY_A)),
            KeyCheck::Known
        );
        assert_eq!(
            file.check_key("web9.test", 22, &key(KEY_A)),
            KeyCheck::Unknown
        );
        // Revoked wins over a plain line that lists it.
        assert_eq!(file.check_key("web1", 2222, &key(KEY_B)), KeyCheck::Revoked);
        let other = KnownHosts::parse(&format!("web1 {KEY_A}\n"));
        assert_eq!(
            other.check_key("web1", 22, &key(KEY_B)),
            KeyCheck::Changed { line: 1 }
        );
    }

    #[test]
    fn authorities_are_per_host() {
        let file = KnownHosts::parse(&format!("@cert-authority *.prod,!db*.prod {KEY_A}\n"));
        assert!(file.has_authority("web1.prod", 22));
        assert!(!file.has_authority("db1.prod", 22));
        assert!(!file.has_authority("web1.test", 22));
    }
}
