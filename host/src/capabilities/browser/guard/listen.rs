//! Where a network guard listens, and whom it serves. A guard on loopback (the default)
//! serves this machine, where the browser runs. For a fleet member on another machine,
//! `[browser] guard_address` names an address of this machine the member can reach: the
//! guard listens there and serves only that member's addresses (and this machine's own),
//! so the address is not a proxy into the granted origins for anyone else on the network.

use crate::capabilities::browser::netns::Netns;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

/// A guard's listening address and the peers it serves.
#[derive(Debug, Clone)]
pub struct Listen {
    ip: IpAddr,
    /// `None`: every peer (a loopback guard: only this machine reaches it).
    peers: Option<Vec<IpAddr>>,
    /// The launched browser's network namespace, where a loopback guard listens (its only
    /// way out); `None`: the host's network.
    netns: Option<Arc<Netns>>,
}

impl Default for Listen {
    fn default() -> Self {
        Self::loopback()
    }
}

impl Listen {
    pub fn loopback() -> Self {
        Self {
            ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
            peers: None,
            netns: None,
        }
    }

    /// On loopback inside `netns`, the launched browser's network.
    pub fn loopback_in(netns: Option<Arc<Netns>>) -> Self {
        Self {
            netns,
            ..Self::loopback()
        }
    }

    /// A listener for a guard: on a free port of this address, inside the browser's
    /// network when it has one of its own.
    pub async fn bind(&self) -> std::io::Result<tokio::net::TcpListener> {
        match &self.netns {
            None => tokio::net::TcpListener::bind(self.addr()).await,
            Some(netns) => {
                let netns = netns.clone();
                let addr = self.addr();
                let listener = tokio::task::spawn_blocking(move || netns.bind(addr))
                    .await
                    .map_err(std::io::Error::other)??;
                listener.set_nonblocking(true)?;
                tokio::net::TcpListener::from_std(listener)
            }
        }
    }

    /// On `ip`, serving only `member` (the addresses its endpoint resolves to) and `ip`
    /// itself (a connection from this machine to this address comes from it).
    pub fn for_member(ip: IpAddr, member: Vec<IpAddr>) -> Self {
        let mut peers: Vec<IpAddr> = member.into_iter().map(canonical).collect();
        peers.push(canonical(ip));
        Self {
            ip,
            peers: Some(peers),
            netns: None,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::new(self.ip, 0)
    }

    /// Whether a connection from `peer` is served.
    pub fn admits(&self, peer: IpAddr) -> bool {
        self.peers
            .as_ref()
            .is_none_or(|peers| peers.contains(&canonical(peer)))
    }
}

fn canonical(ip: IpAddr) -> IpAddr {
    crate::net::addr::canonical(ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("an address")
    }

    #[test]
    fn a_guard_for_a_member_serves_that_member_and_this_machine_only() {
        let guard = Listen::for_member(ip("10.0.0.1"), vec![ip("10.0.0.5")]);
        assert!(guard.admits(ip("10.0.0.5")));
        assert!(guard.admits(ip("::ffff:10.0.0.5")));
        assert!(guard.admits(ip("10.0.0.1")));
        assert!(!guard.admits(ip("10.0.0.6")));
        assert!(!guard.admits(ip("127.0.0.1")));
        assert!(Listen::loopback().admits(ip("127.0.0.1")));
    }
}
