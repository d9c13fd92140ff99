//! The addresses a pattern host's member may be reached at: its name resolved here (once, by
//! Warden, also when the connection goes through a bastion), the addresses where Warden itself
//! listens taken out (`net::forbidden`, as for every connection made for a plugin), then only
//! those the entry's `allow` names, or without `allow` only public ones. The connection goes
//! to an address returned here, never to the name again (no second lookup to rebind).

use crate::manifest::HostPattern;
use crate::net::{self, addr};
use std::net::SocketAddr;

/// Why a member's name gives no address to connect to. Shown to the plugin: it names the
/// host and the entry, never an address (those go to the host log and the audit line).
#[derive(Debug, Clone, thiserror::Error)]
pub enum FleetError {
    #[error(
        "ssh host '{name}' (of [ssh.hosts.{alias}]) resolves to no address [ssh.hosts.{alias}] allows, so nothing was connected; {fix}"
    )]
    Outside {
        name: String,
        alias: String,
        fix: String,
        /// For the host log and the audit line.
        seen: Vec<SocketAddr>,
    },
    #[error("ssh host '{name}' (of [ssh.hosts.{alias}]) does not resolve: {why}")]
    Resolve {
        name: String,
        alias: String,
        why: String,
    },
}

/// The addresses of `name` (a member of `alias`'s `pattern`) Warden may connect to.
pub async fn admitted(
    alias: &str,
    name: &str,
    pattern: &HostPattern,
) -> Result<Vec<SocketAddr>, FleetError> {
    let resolved = net::resolve(name, pattern.port)
        .await
        .map_err(|e| FleetError::Resolve {
            name: name.to_string(),
            alias: alias.to_string(),
            why: e.to_string(),
        })?;
    let outside = |seen: Vec<SocketAddr>, fix: String| FleetError::Outside {
        name: name.to_string(),
        alias: alias.to_string(),
        fix,
        seen,
    };
    let open = net::forbidden::keep_open(name, resolved.clone())
        .await
        .map_err(|_| {
            outside(
                resolved.clone(),
                "it is where Warden itself listens, which no setting opens".into(),
            )
        })?;
    let ok: Vec<SocketAddr> = open
        .iter()
        .copied()
        .filter(|a| allows(pattern, a.ip()))
        .collect();
    if ok.is_empty() {
        let fix = if pattern.allow.is_empty() {
            format!(
                "without allow only public addresses are; if the host is on a private network, the admin can name it in allow (allow = [\"10.0.0.0/8\"]) in [ssh.hosts.{alias}]"
            )
        } else {
            format!(
                "the admin can add its network to allow in [ssh.hosts.{alias}] if it belongs there"
            )
        };
        return Err(outside(resolved, fix));
    }
    Ok(ok)
}

/// Does the entry allow `ip`? Its `allow` list when set, else public space only; an IPv4
/// address carried in IPv6 counts as the IPv4 address it is.
fn allows(pattern: &HostPattern, ip: std::net::IpAddr) -> bool {
    let ip = addr::canonical(ip);
    if pattern.allow.is_empty() {
        addr::classify(ip).is_public()
    } else {
        pattern.allow_names(ip)
    }
}
