//! [`NetError`]: why a target was refused by the private-network rule, or did not resolve,
//! with the grant that would open it.

use super::addr::{Class, classified};
use super::forbidden::Refused;
use super::lookup::LookupError;
use super::space::{Key, explicit_space};
use std::fmt;
use std::net::{IpAddr, SocketAddr};

/// Why a target was refused by the private-network rule.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NetError {
    /// Every address of `host` is private space no matched pattern names; `addr` the first.
    Private {
        host: String,
        addr: SocketAddr,
        class: Class,
        key: Key,
    },
    /// `host` did not resolve, and why.
    Resolve {
        host: String,
        why: LookupError,
    },
    NoAddress {
        host: String,
    },
    /// Every address of the host is one where Warden itself listens: no grant opens it.
    Own(Refused),
}

impl From<Refused> for NetError {
    fn from(refused: Refused) -> Self {
        Self::Own(refused)
    }
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Private {
                host,
                addr,
                class,
                key,
            } => write!(
                f,
                "{host} resolves to {}{} ({class} address space), which the grant does not name: private networks are closed unless {key} names them literally; {}",
                addr.ip(),
                carried_note(*addr),
                self.advice()
            ),
            Self::Resolve { host, why } => match why {
                LookupError::NoSuchHost => write!(
                    f,
                    "the name {host} does not resolve (DNS: no such host); check the spelling"
                ),
                LookupError::NoAddress => write!(
                    f,
                    "the name {host} has no address (DNS: the name exists, with no address record); check the name"
                ),
                LookupError::TryAgain => write!(
                    f,
                    "the name {host} could not be resolved now (DNS: {why}); try again, or check this machine's DNS"
                ),
                LookupError::Timeout(_) => write!(
                    f,
                    "the name {host} did not resolve in time (DNS: {why}); try again, or check this machine's DNS"
                ),
                LookupError::Failed(_) => write!(f, "cannot resolve {host} (DNS: {why})"),
            },
            Self::NoAddress { host } => write!(f, "{host} resolves to no address"),
            Self::Own(refused) => refused.fmt(f),
        }
    }
}

/// ` (6to4, carrying 127.0.0.1)` for an address classified by an IPv4 address it carries.
fn carried_note(addr: SocketAddr) -> String {
    match classified(addr.ip()) {
        (_, Some((carrier, v4))) => format!(" ({carrier}, carrying {v4})"),
        (_, None) => String::new(),
    }
}

impl NetError {
    /// Refused by a rule (private space no grant names, or Warden's own listener), rather
    /// than a name that did not resolve.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Self::Private { .. } | Self::Own(_))
    }

    /// The grant that would open a refused private target: `(key, pattern)`. For an IP
    /// literal or a `localhost` name, the pattern names that host; for any other name it
    /// names the address (a name never opens private space: where it points can change),
    /// so it allows the URL that uses the address instead of the name.
    pub fn suggestion(&self) -> Option<(&'static str, String)> {
        let Self::Private {
            host, addr, key, ..
        } = self
        else {
            return None;
        };
        let literal = explicit_space(host).is_some() || host.parse::<IpAddr>().is_ok();
        let named = if literal {
            key.pattern_for(host, addr.port())
        } else {
            key.pattern_for(&addr.ip().to_string(), addr.port())
        };
        Some((key.name, named))
    }

    fn advice(&self) -> String {
        let (Some((key, pattern)), Self::Private { host, addr, .. }) = (self.suggestion(), self)
        else {
            return String::new();
        };
        if pattern.contains(&addr.ip().to_string()) && host.parse::<IpAddr>().is_err() {
            format!(
                "a name never opens them, since where it points can change; if that server is meant to be reachable, use its address {} in the URL and add \"{pattern}\" to {key}",
                addr.ip()
            )
        } else {
            format!("if it is meant to be reachable, add \"{pattern}\" to {key}")
        }
    }
}
