//! Why an SSH connection could not be made, worded for the agent: the alias and what the
//! admin should do, never key material, passphrases, paths or addresses.

use super::fleet::FleetError;
use crate::manifest::SshNameError;

/// Why a connection could not be made. The text is shown to agents: it names the alias and
/// says what the admin should do, never a secret.
#[derive(Debug, thiserror::Error)]
pub enum SshError {
    #[error("ssh host '{0}' is not defined in the manifest")]
    UnknownAlias(String),
    #[error(
        "the host key of ssh host '{alias}' ({fingerprint}) is not in its known_hosts file, so the connection was refused; the admin should verify the key and add it to the known_hosts file named in [ssh.hosts.{alias}]"
    )]
    UnknownHostKey { alias: String, fingerprint: String },
    #[error(
        "the host key of ssh host '{alias}' CHANGED ({fingerprint} does not match line {line} of its known_hosts file): the connection was refused; this may be an attack, or the server was reinstalled: the admin must check before updating known_hosts"
    )]
    HostKeyChanged {
        alias: String,
        fingerprint: String,
        line: usize,
    },
    #[error(
        "the host key of ssh host '{alias}' ({fingerprint}) is marked @revoked in its known_hosts file: the connection was refused; the admin must give the server a new host key"
    )]
    HostKeyRevoked { alias: String, fingerprint: String },
    #[error(
        "ssh host '{alias}' presented a host certificate that was refused: {why}; the admin should check the server's HostCertificate and the @cert-authority lines of the alias's known_hosts file"
    )]
    HostCertificate { alias: String, why: String },
    #[error("ssh host '{alias}' refused authentication as the configured user ({detail})")]
    AuthFailed { alias: String, detail: String },
    #[error("cannot load the credentials of ssh host '{0}'; the host log has the details")]
    Credentials(String),
    /// The identity file is encrypted and its passphrase is missing or wrong. `key` is the
    /// key's public fingerprint (never the file's path or text).
    #[error("cannot decrypt the identity_file of ssh host '{alias}' (key {key}): {detail}")]
    Passphrase {
        alias: String,
        key: String,
        detail: String,
    },
    #[error("cannot connect to ssh host '{alias}': {detail}")]
    Connect { alias: String, detail: String },
    /// The user certificate cannot be used now: expired, not yet valid, or not of the key.
    #[error(
        "the certificate of ssh host '{alias}' {why}; the admin should have a new one signed (ssh-keygen -s) and put it in place"
    )]
    Certificate { alias: String, why: String },
    #[error("ssh host '{0}' did not finish connecting within 15 s per hop")]
    Timeout(String),
    /// A hop of `alias`'s `via` chain failed; `source` says how, naming the hop.
    #[error("cannot reach ssh host '{alias}' through '{hop}': {source}")]
    Hop {
        alias: String,
        hop: String,
        source: Box<SshError>,
    },
    /// The name is a pattern host's alias, or no single entry's.
    #[error(transparent)]
    Name(#[from] SshNameError),
    /// A pattern host's member resolved to no address its entry allows.
    #[error(transparent)]
    Fleet(#[from] FleetError),
    /// The hop before reached, but would not open a channel to the next.
    #[error(
        "ssh host '{hop}' would not forward a connection to the next hop '{next}' ({detail}); the admin should check that '{hop}' allows TCP forwarding (AllowTcpForwarding) and can reach '{next}'"
    )]
    Forward {
        hop: String,
        next: String,
        detail: String,
    },
}

impl SshError {
    /// A refusal by the manifest's rules (not a failure of the network or the server): the
    /// caller audits it as denied.
    pub fn is_refusal(&self) -> bool {
        match self {
            Self::Name(_) | Self::Fleet(FleetError::Outside { .. }) => true,
            Self::Hop { source, .. } => source.is_refusal(),
            _ => false,
        }
    }
}
