//! Why the guard did not carry a connection, kept for a short while by `host:port`. The
//! browser learns only that its proxy failed (`net::ERR_TUNNEL_CONNECTION_FAILED`,
//! `ERR_EMPTY_RESPONSE`); the navigation that asked for the connection reads the reason
//! here and reports it in words an agent can act on.

use crate::net::NetError;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many reasons are kept, and for how long.
const KEPT: usize = 64;
const FRESH: Duration = Duration::from_secs(60);

/// Why a connection was not carried.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Failure {
    /// The grants refuse it (the reason names the grant).
    #[error("Warden's network guard refused it: {0}")]
    Refused(String),
    /// The name did not resolve.
    #[error("{0}")]
    Lookup(NetError),
    /// Nothing listens there.
    #[error(
        "{target} ({addr}) refused the connection: nothing listens on that port; check the port, or that the server runs"
    )]
    ConnectionRefused { target: String, addr: SocketAddr },
    /// No answer to the connection.
    #[error(
        "{target} did not answer the connection in time; check that the server runs and is reachable from this machine"
    )]
    TimedOut { target: String },
    /// No route to it.
    #[error(
        "{target} is unreachable from this machine ({why}); check the address and this machine's network"
    )]
    Unreachable { target: String, why: String },
    /// Anything else connecting said.
    #[error("connecting to {target} failed: {why}")]
    Connect { target: String, why: String },
}

impl Failure {
    /// The failure of connecting to `target` (`host:port`) with `error`.
    pub fn connect(target: String, addrs: &[SocketAddr], error: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        match error.kind() {
            ErrorKind::ConnectionRefused => Self::ConnectionRefused {
                target,
                addr: addrs
                    .first()
                    .copied()
                    .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0))),
            },
            ErrorKind::TimedOut => Self::TimedOut { target },
            ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable => Self::Unreachable {
                target,
                why: error.to_string(),
            },
            _ => Self::Connect {
                target,
                why: error.to_string(),
            },
        }
    }
}

/// The recent failures of one guard.
#[derive(Default)]
pub struct Failures {
    recent: Mutex<VecDeque<(String, u16, Instant, Failure)>>,
}

impl Failures {
    pub fn record(&self, host: &str, port: u16, failure: Failure) {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() >= KEPT {
            recent.pop_front();
        }
        recent.push_back((host.to_ascii_lowercase(), port, Instant::now(), failure));
    }

    /// The latest failure for `host:port` within the last minute.
    pub fn latest(&self, host: &str, port: u16) -> Option<Failure> {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        recent
            .iter()
            .rev()
            .find(|(h, p, at, _)| *h == host && *p == port && at.elapsed() < FRESH)
            .map(|(_, _, _, f)| f.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_reason_for_a_target_is_kept() {
        let f = Failures::default();
        assert!(f.latest("shop.example", 443).is_none());
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let addr: SocketAddr = "127.0.0.1:9".parse().expect("addr");
        f.record(
            "Shop.Example",
            443,
            Failure::connect("shop.example:443".into(), &[addr], &refused),
        );
        f.record("other.example", 443, Failure::Refused("no".into()));
        let got = f.latest("shop.example", 443).expect("kept");
        assert!(got.to_string().contains("nothing listens"), "{got}");
        assert!(f.latest("shop.example", 80).is_none());
        f.record("::1", 8080, Failure::Refused("no".into()));
        assert!(f.latest("[::1]", 8080).is_some());
    }
}
