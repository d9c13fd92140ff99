//! What a grant pattern says about private space: the grant list a refusal names ([`Key`])
//! and the private space a pattern names explicitly ([`Space`], [`explicit_space`]).

use super::addr::{Class, canonical, classify};
use std::fmt;
use std::net::IpAddr;

/// The grant list a private-network refusal is about, and how its patterns are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// `grants.browser.origins`, `grants.capture.http_hosts`, ...
    pub name: &'static str,
    /// The scheme origin patterns start with; `None` for `host:port` patterns.
    pub scheme: Option<&'static str>,
}

impl Key {
    /// The pattern of this list that names exactly `host` (a name or an IP literal, IPv6
    /// without brackets) on `port`: `http://[::1]:8080`, or `10.0.0.5:8080`.
    pub fn pattern_for(&self, host: &str, port: u16) -> String {
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_ascii_lowercase()
        };
        match self.scheme {
            Some(scheme) => format!("{scheme}://{host}:{port}"),
            None => format!("{host}:{port}"),
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The private space a grant pattern names explicitly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// One IP address, written as a literal (`http://127.0.0.1:*`, `10.0.0.5:8080`).
    Ip(IpAddr),
    /// `localhost` or `*.localhost`: the loopback addresses (RFC 6761 reserves the name).
    Loopback,
}

impl Space {
    pub(super) fn admits(self, ip: IpAddr) -> bool {
        match self {
            Self::Ip(named) => canonical(named) == canonical(ip),
            Self::Loopback => classify(ip) == Class::Loopback,
        }
    }
}

/// Is `host` a `localhost` name, which resolves to loopback without asking DNS?
pub fn is_localhost_name(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost")
}

/// The host part of a grant pattern: `https://*.example.com:8443` -> `*.example.com`,
/// `127.0.0.1:*` -> `127.0.0.1`, `http://[::1]:8080` -> `::1`.
pub fn pattern_host(pattern: &str) -> String {
    let rest = pattern.split_once("://").map_or(pattern, |(_, r)| r);
    let rest = rest.split('/').next().unwrap_or(rest);
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split_once(']').map_or(rest, |(h, _)| h)
    } else {
        match rest.rsplit_once(':') {
            Some((h, port)) if port == "*" || port.chars().all(|c| c.is_ascii_digit()) => h,
            _ => rest,
        }
    };
    host.to_ascii_lowercase()
}

/// The private space `pattern` names explicitly, if any. Only a literal can: a glob over
/// names (`*`, `*.corp`) or over digits (`10.*`, which also matches `10.evil.test`) cannot,
/// except `*.localhost`, whose names are loopback by definition.
pub fn explicit_space(pattern: &str) -> Option<Space> {
    let host = pattern_host(pattern);
    if let Some(rest) = host.strip_prefix("*.")
        && rest == "localhost"
    {
        return Some(Space::Loopback);
    }
    if host.contains(['*', '?', '[', ']', '{', '}']) {
        return None;
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Some(Space::Ip(ip));
    }
    is_localhost_name(&host).then_some(Space::Loopback)
}
