//! The private-network rule, shared by everything that connects on a plugin's behalf (the
//! browser's network guard and `capture`'s `http_get`): a name is resolved here, every
//! address it resolves to is classified, and an address in private space (loopback, private,
//! link-local, unique-local) is used only when a grant pattern that matched names that space
//! explicitly: an IP literal, `localhost` or `*.localhost`. A glob such as `https://*` or
//! `*.example.com` never opens private space, even when the name resolves into it (DNS
//! rebinding). The caller connects to the addresses returned here, never to the name again.

pub mod addr;
pub mod chain;

use addr::{Class, canonical, classify};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The private space a grant pattern names explicitly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// One IP address, written as a literal (`http://127.0.0.1:*`, `10.0.0.5:8080`).
    Ip(IpAddr),
    /// `localhost` or `*.localhost`: the loopback addresses (RFC 6761 reserves the name).
    Loopback,
}

impl Space {
    fn admits(self, ip: IpAddr) -> bool {
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

/// Why a target was refused by the private-network rule.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NetError {
    #[error(
        "{host} resolves to {addr} ({class} address space), which the grant does not name: private networks are closed unless {key} names them explicitly (an IP literal such as \"http://127.0.0.1:8080\", \"localhost\" or \"*.localhost\")"
    )]
    Private {
        host: String,
        addr: IpAddr,
        class: Class,
        key: &'static str,
    },
    #[error("cannot resolve {host}: {message}")]
    Resolve { host: String, message: String },
    #[error("{host} resolves to no address")]
    NoAddress { host: String },
}

/// Resolve `host` (a name or an IP literal, IPv6 without brackets) to socket addresses.
/// `localhost` names are loopback without a DNS query, as in Chromium.
pub async fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>, NetError> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    if is_localhost_name(bare) {
        return Ok(vec![
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
        ]);
    }
    let found = tokio::net::lookup_host((bare, port))
        .await
        .map_err(|e| NetError::Resolve {
            host: bare.to_string(),
            message: e.to_string(),
        })?;
    let mut addrs: Vec<SocketAddr> = Vec::new();
    for a in found {
        if !addrs.contains(&a) {
            addrs.push(a);
        }
    }
    Ok(addrs)
}

/// The addresses of `host` that may be connected to, given the grant patterns that matched
/// its origin: public addresses, and private ones a matched pattern names explicitly. When
/// none is left the first refused address is reported. `key` names the grant for the message.
pub fn admit(
    host: &str,
    addrs: &[SocketAddr],
    matched: &[&str],
    key: &'static str,
) -> Result<Vec<SocketAddr>, NetError> {
    let spaces: Vec<Space> = matched.iter().filter_map(|p| explicit_space(p)).collect();
    let admitted: Vec<SocketAddr> = addrs
        .iter()
        .copied()
        .filter(|a| classify(a.ip()).is_public() || spaces.iter().any(|s| s.admits(a.ip())))
        .collect();
    match (admitted.is_empty(), addrs.first()) {
        (false, _) => Ok(admitted),
        (true, None) => Err(NetError::NoAddress {
            host: host.to_string(),
        }),
        (true, Some(first)) => Err(NetError::Private {
            host: host.to_string(),
            addr: first.ip(),
            class: classify(first.ip()),
            key,
        }),
    }
}

/// [`resolve`] then [`admit`].
pub async fn resolve_admitted(
    host: &str,
    port: u16,
    matched: &[&str],
    key: &'static str,
) -> Result<Vec<SocketAddr>, NetError> {
    let addrs = resolve(host, port).await?;
    admit(host, &addrs, matched, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sa(s: &str) -> SocketAddr {
        s.parse().expect("a socket address")
    }

    #[test]
    fn only_literals_name_private_space() {
        let ip = |s: &str| Some(Space::Ip(s.parse().expect("ip")));
        assert_eq!(explicit_space("http://127.0.0.1:*"), ip("127.0.0.1"));
        assert_eq!(explicit_space("http://127.0.0.1"), ip("127.0.0.1"));
        assert_eq!(explicit_space("10.0.0.5:8080"), ip("10.0.0.5"));
        assert_eq!(explicit_space("http://[::1]:8080"), ip("::1"));
        assert_eq!(explicit_space("http://localhost:*"), Some(Space::Loopback));
        assert_eq!(explicit_space("localhost"), Some(Space::Loopback));
        assert_eq!(
            explicit_space("http://*.localhost:*"),
            Some(Space::Loopback)
        );
        assert_eq!(
            explicit_space("http://app.localhost:3000"),
            Some(Space::Loopback)
        );
        // Globs never do, even over digits.
        assert_eq!(explicit_space("https://*"), None);
        assert_eq!(explicit_space("http://*:*"), None);
        assert_eq!(explicit_space("http://10.*"), None);
        assert_eq!(explicit_space("http://127.0.0.?:80"), None);
        assert_eq!(explicit_space("https://*.example.com"), None);
        assert_eq!(explicit_space("*.localhost.evil.test"), None);
        assert_eq!(explicit_space("https://intranet.corp"), None);
    }

    #[test]
    fn public_addresses_pass_private_ones_need_a_literal() {
        let public = [sa("93.184.216.34:443")];
        assert_eq!(
            admit("example.com", &public, &["https://*"], "k").expect("public"),
            public
        );
        // A public glob resolving to loopback (rebinding, *.localhost): refused.
        let loop4 = [sa("127.0.0.1:8000")];
        let err = admit(
            "x.localtest.me",
            &loop4,
            &["http://*:*"],
            "grants.browser.origins",
        )
        .expect_err("private");
        assert!(
            matches!(
                err,
                NetError::Private {
                    class: Class::Loopback,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("grants.browser.origins"), "{err}");
        // The literal that was granted opens exactly that address.
        assert!(admit("127.0.0.1", &loop4, &["http://127.0.0.1:*"], "k").is_ok());
        assert!(
            admit(
                "127.0.0.2",
                &[sa("127.0.0.2:80")],
                &["http://127.0.0.1:*"],
                "k"
            )
            .is_err()
        );
        // v4-mapped is the same address.
        assert!(
            admit(
                "h",
                &[sa("[::ffff:127.0.0.1]:80")],
                &["http://127.0.0.1:*"],
                "k"
            )
            .is_ok()
        );
        assert!(admit("h", &[sa("[::ffff:127.0.0.1]:80")], &["http://*:*"], "k").is_err());
        // localhost names: loopback only.
        assert!(admit("a.localhost", &loop4, &["http://*.localhost:*"], "k").is_ok());
        assert!(
            admit(
                "a.localhost",
                &[sa("10.0.0.1:80")],
                &["http://*.localhost:*"],
                "k"
            )
            .is_err()
        );
        // Mixed answers keep only what is admitted.
        let mixed = [sa("10.0.0.1:443"), sa("93.184.216.34:443")];
        assert_eq!(
            admit("m.test", &mixed, &["https://*"], "k").expect("public part"),
            vec![sa("93.184.216.34:443")]
        );
        // Link-local (cloud metadata) and unique-local are closed too.
        assert!(admit("m", &[sa("169.254.169.254:80")], &["http://*"], "k").is_err());
        assert!(admit("m", &[sa("[fd00::1]:80")], &["http://*"], "k").is_err());
        assert!(matches!(
            admit("none", &[], &["http://*"], "k"),
            Err(NetError::NoAddress { .. })
        ));
    }

    #[tokio::test]
    async fn localhost_names_resolve_to_loopback_without_dns() {
        let addrs = resolve("evil.localhost", 8080).await.expect("resolved");
        assert!(addrs.iter().all(|a| classify(a.ip()) == Class::Loopback));
        let literal = resolve("[::1]", 80).await.expect("literal");
        assert_eq!(literal, vec![sa("[::1]:80")]);
    }
}
