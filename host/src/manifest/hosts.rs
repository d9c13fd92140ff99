//! `[ssh.hosts.NAME]` and `[rdp.hosts.NAME]`: the machines the terminal, SFTP and RDP
//! capabilities reach, by alias. They live only in the host; grants name them.

use super::owned::Reach;
use super::schema::{self, SecretSpec};
use super::secret::SecretSource;
use super::ssh_pattern::{SshAddress, SshName, SshNameError, dns_name};
use super::validate::{Validator, valid_name};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use toml::Spanned;

/// One validated `[ssh.hosts.NAME]`. Lives only in the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshHostConfig {
    pub address: SshAddress,
    pub user: String,
    pub identity_file: Option<PathBuf>,
    /// Decrypts `identity_file`; resolved when connecting, never shown.
    pub identity_passphrase: Option<SecretSource>,
    pub agent: bool,
    pub known_hosts: Option<PathBuf>,
    /// OpenSSH user certificate presented with `identity_file`'s key.
    pub certificate: Option<PathBuf>,
    /// The aliases to go through first, in order: the first is reached directly, each next
    /// one through the one before, and this host through the last.
    pub via: Vec<String>,
}

/// One validated `[rdp.hosts.NAME]`. Lives only in the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RdpHostConfig {
    pub address: String,
    pub user: String,
    pub domain: Option<String>,
    /// Resolved when connecting, never shown.
    pub password: SecretSource,
    /// Lowercase hex, 64 digits; `None`: every certificate is refused (its fingerprint shown).
    pub cert_sha256: Option<String>,
    /// Offer RemoteFX (else the server sends bitmap updates).
    pub remotefx: bool,
}

impl Validator<'_> {
    /// `[ssh.hosts]`: aliases, `host:port` addresses, a way to authenticate, and a passphrase
    /// only for an identity file.
    pub(super) fn ssh_hosts(
        &mut self,
        hosts: BTreeMap<String, Spanned<schema::SshHost>>,
    ) -> BTreeMap<String, SshHostConfig> {
        let mut ssh_hosts = BTreeMap::new();
        let chains: BTreeMap<String, Vec<Spanned<String>>> = hosts
            .iter()
            .map(|(alias, host)| (alias.clone(), host.get_ref().via.clone()))
            .collect();
        let patterns: BTreeSet<&str> = hosts
            .iter()
            .filter(|(_, h)| h.get_ref().pattern.is_some())
            .map(|(alias, _)| alias.as_str())
            .collect();
        for (alias, via) in &chains {
            self.ssh_via(alias, via, &chains, &patterns);
        }
        for (alias, host) in hosts {
            let span = host.span();
            let host = host.into_inner();
            let address = self.ssh_address(&alias, span.clone(), &host);
            if host.identity_file.is_none() && !host.agent {
                self.error(span.clone(), format!("ssh.hosts.{alias}: set identity_file or agent = true so the host can authenticate"));
            }
            let identity_passphrase = host.identity_passphrase.and_then(|spec| {
                let span = spec.span();
                let spec = spec.into_inner();
                if host.identity_file.is_none() {
                    self.error(span.clone(), format!("ssh.hosts.{alias}.identity_passphrase: it decrypts identity_file, which is not set"));
                }
                match (spec.env, spec.value) {
                    (Some(var), None) => Some(SecretSource::Env(var)),
                    (None, Some(value)) => Some(SecretSource::Literal(value)),
                    _ => {
                        self.error(span, format!("ssh.hosts.{alias}.identity_passphrase: set exactly one of env (preferred) or value"));
                        None
                    }
                }
            });
            let certificate = host.certificate.and_then(|path| {
                if host.identity_file.is_none() {
                    self.error(path.span(), format!("ssh.hosts.{alias}.certificate: it certifies identity_file's key, which is not set; set identity_file to the certificate's private key"));
                    return None;
                }
                Some(self.resolve_owned(
                    path.get_ref(),
                    &format!("ssh.hosts.{alias}.certificate"),
                    Reach::Integrity,
                ))
            });
            let identity_file = host.identity_file.map(|p| {
                self.resolve_owned(
                    &p,
                    &format!("ssh.hosts.{alias}.identity_file"),
                    Reach::Secret,
                )
            });
            let known_hosts = host.known_hosts.map(|p| {
                self.resolve_owned(
                    &p,
                    &format!("ssh.hosts.{alias}.known_hosts"),
                    Reach::Integrity,
                )
            });
            ssh_hosts.insert(
                alias,
                SshHostConfig {
                    address,
                    user: host.user,
                    identity_file,
                    identity_passphrase,
                    agent: host.agent,
                    known_hosts,
                    certificate,
                    via: host.via.into_iter().map(Spanned::into_inner).collect(),
                },
            );
        }
        ssh_hosts
    }

    /// `ssh.hosts.ALIAS.via`: each hop another alias, listed once, with no `via` of its own
    /// (the host names its whole chain, so a chain cannot loop or hide a hop).
    fn ssh_via(
        &mut self,
        alias: &str,
        via: &[Spanned<String>],
        chains: &BTreeMap<String, Vec<Spanned<String>>>,
        patterns: &BTreeSet<&str>,
    ) {
        for (i, hop) in via.iter().enumerate() {
            let (span, name) = (hop.span(), hop.get_ref());
            let fix = match chains.get(name) {
                _ if name == alias => Some(format!(
                    "a host cannot go through itself; remove \"{name}\""
                )),
                None => Some(format!(
                    "there is no [ssh.hosts.{name}]; define it, or remove \"{name}\""
                )),
                Some(_) if patterns.contains(name.as_str()) => Some(format!(
                    "[ssh.hosts.{name}] is a pattern for many hosts; a hop must be one machine (address = \"host:port\")"
                )),
                Some(own) if !own.is_empty() => Some(format!(
                    "[ssh.hosts.{name}] has a via of its own; list the whole chain here instead (via = [{}])",
                    own.iter()
                        .map(|h| format!("\"{}\"", h.get_ref()))
                        .chain(std::iter::once(format!("\"{name}\"")))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                Some(_) if via[..i].iter().any(|h| h.get_ref() == name) => {
                    Some(format!("\"{name}\" is listed twice; list each hop once"))
                }
                Some(_) => None,
            };
            if let Some(fix) = fix {
                self.error(span, format!("ssh.hosts.{alias}.via: {fix}"));
            }
        }
    }

    /// A `[ssh.hosts]` or `[rdp.hosts]` entry's alias and `host:port` address; `hint` ends the
    /// address error.
    pub(super) fn remote_host(
        &mut self,
        kind: &str,
        alias: &str,
        span: std::ops::Range<usize>,
        address: &Spanned<String>,
        hint: &str,
    ) {
        self.remote_host_alias(kind, alias, span);
        if address
            .get_ref()
            .rsplit_once(':')
            .is_none_or(|(h, p)| h.is_empty() || p.parse::<u16>().is_err())
        {
            self.error(
                address.span(),
                format!(
                    "{kind}.hosts.{alias}.address: \"{}\" must be host:port{hint}",
                    address.get_ref()
                ),
            );
        }
    }

    /// A `[ssh.hosts]` or `[rdp.hosts]` alias: a name grants can write.
    pub(super) fn remote_host_alias(
        &mut self,
        kind: &str,
        alias: &str,
        span: std::ops::Range<usize>,
    ) {
        if !valid_name(alias) {
            self.error(
                span,
                format!("{kind} host alias \"{alias}\" must match [a-zA-Z0-9_-]{{1,32}}"),
            );
        }
    }

    /// `[rdp.hosts]`: aliases, `host:port` addresses, one password source, and a well-formed
    /// certificate fingerprint.
    pub(super) fn rdp_hosts(
        &mut self,
        hosts: BTreeMap<String, Spanned<schema::RdpHost>>,
    ) -> BTreeMap<String, RdpHostConfig> {
        let mut out = BTreeMap::new();
        for (alias, host) in hosts {
            let span = host.span();
            let host = host.into_inner();
            self.remote_host(
                "rdp",
                &alias,
                span.clone(),
                &host.address,
                " (RDP's port is usually 3389)",
            );
            let password_span = host.password.span();
            let password = match host.password.into_inner() {
                SecretSpec {
                    env: Some(var),
                    value: None,
                } => SecretSource::Env(var),
                SecretSpec {
                    env: None,
                    value: Some(value),
                } => SecretSource::Literal(value),
                _ => {
                    self.error(password_span, format!("rdp.hosts.{alias}.password: set exactly one of env (preferred) or value"));
                    SecretSource::Literal(String::new())
                }
            };
            let cert_sha256 = host.cert_sha256.and_then(|pin| {
                let normalized = normalize_fingerprint(pin.get_ref());
                if normalized.is_none() {
                    self.error(pin.span(), format!("rdp.hosts.{alias}.cert_sha256: \"{}\" is not a SHA-256 fingerprint (64 hex digits, colons allowed); connect once without it to see the server's", pin.get_ref()));
                }
                normalized
            });
            out.insert(
                alias,
                RdpHostConfig {
                    address: host.address.into_inner(),
                    user: host.user,
                    domain: host.domain,
                    password,
                    cert_sha256,
                    remotefx: host.remotefx.unwrap_or(true),
                },
            );
        }
        out
    }
}

/// A SHA-256 fingerprint as lowercase hex without separators, or `None` when `text` is not one.
pub fn normalize_fingerprint(text: &str) -> Option<String> {
    let hex: String = text
        .chars()
        .filter(|c| *c != ':' && !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (hex.len() == 64 && hex.chars().all(|c| c.is_ascii_hexdigit())).then_some(hex)
}

/// The entry `name` stands for: an alias of a fixed host first, then the one pattern that
/// matches it (as a lowercase DNS name).
pub fn ssh_name(
    hosts: &BTreeMap<String, SshHostConfig>,
    name: &str,
) -> Result<SshName, SshNameError> {
    if let Some(config) = hosts.get(name) {
        return match &config.address {
            SshAddress::Fixed(_) => Ok(SshName {
                alias: name.to_string(),
                member: None,
            }),
            SshAddress::Pattern(p) => Err(SshNameError::PatternAlias {
                alias: name.to_string(),
                pattern: p.source().to_string(),
            }),
        };
    }
    let unknown = || SshName {
        alias: name.to_string(),
        member: None,
    };
    let Some(host) = dns_name(name) else {
        return Ok(unknown());
    };
    let matching: Vec<&String> = hosts
        .iter()
        .filter(|(_, c)| matches!(&c.address, SshAddress::Pattern(p) if p.matches(&host)))
        .map(|(alias, _)| alias)
        .collect();
    match matching.as_slice() {
        // A name with a dot is no alias: say it matched no pattern. Other names fall to the
        // grant check, which refuses an unknown alias with the defined ones.
        [] if host.contains('.') => Err(SshNameError::NoMatch { name: host }),
        [] => Ok(unknown()),
        [alias] => Ok(SshName {
            alias: (*alias).clone(),
            member: Some(host),
        }),
        many => Err(SshNameError::Ambiguous {
            name: host,
            aliases: many.iter().map(|a| (*a).clone()).collect(),
        }),
    }
}
