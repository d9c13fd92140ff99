//! The private-network rule, shared by everything that connects on a plugin's behalf (the
//! browser's network guard and `capture`'s `http_get`): a name is resolved here, every
//! address it resolves to is classified, and an address in private space (loopback, private,
//! link-local, unique-local) is used only when a grant pattern that matched names that space
//! explicitly: an IP literal, `localhost` or `*.localhost`. A glob such as `https://*` or
//! `*.example.com` never opens private space, even when the name resolves into it (DNS
//! rebinding). The caller connects to the addresses returned here, never to the name again.
//!
//! What such a server answers is read through [`body`]: bounded in size and in time; a URL
//! the admin configured is named in logs as [`shown`] gives it, without its credentials.

//! Before any grant is asked, an address where Warden itself listens is taken out
//! ([`forbidden`]): no grant opens those.

pub mod addr;
pub mod body;
pub mod chain;
pub mod forbidden;
pub mod interfaces;
pub mod lookup;
pub mod pinned;
pub mod shown;

use addr::{Class, canonical, classified, classify};
use lookup::LookupError;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

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
    Own(forbidden::Refused),
}

impl From<forbidden::Refused> for NetError {
    fn from(refused: forbidden::Refused) -> Self {
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
    lookup::lookup(bare, port)
        .await
        .map_err(|why| NetError::Resolve {
            host: bare.to_string(),
            why,
        })
}

/// The addresses of `host` that may be connected to, given the grant patterns that matched
/// its origin: public addresses, and private ones a matched pattern names explicitly. When
/// none is left the first refused address is reported. `key` names the grant for the message.
pub fn admit(
    host: &str,
    addrs: &[SocketAddr],
    matched: &[&str],
    key: Key,
) -> Result<Vec<SocketAddr>, NetError> {
    // An IPv6 literal as a URL writes it (`[::1]`) is the address without its brackets.
    let host = host.trim_start_matches('[').trim_end_matches(']');
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
            addr: *first,
            class: classify(first.ip()),
            key,
        }),
    }
}

/// [`resolve`], the addresses where Warden itself listens taken out ([`forbidden`]; first,
/// so that no message suggests a grant for them), then [`admit`].
pub async fn resolve_admitted(
    host: &str,
    port: u16,
    matched: &[&str],
    key: Key,
) -> Result<Vec<SocketAddr>, NetError> {
    let addrs = resolve(host, port).await?;
    let open = forbidden::keep_open(host, addrs).await?;
    admit(host, &open, matched, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: Key = Key {
        name: "k",
        scheme: Some("http"),
    };
    const BROWSER: Key = Key {
        name: "grants.browser.origins",
        scheme: Some("http"),
    };

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
            admit("example.com", &public, &["https://*"], K).expect("public"),
            public
        );
        // A public glob resolving to loopback (rebinding, *.localhost): refused.
        let loop4 = [sa("127.0.0.1:8000")];
        let err = admit("x.localtest.me", &loop4, &["http://*:*"], BROWSER).expect_err("private");
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
        // A name never opens private space: the advice is the address, in the list's form.
        assert_eq!(
            err.suggestion(),
            Some((
                "grants.browser.origins",
                "http://127.0.0.1:8000".to_string()
            ))
        );
        // The literal that was granted opens exactly that address.
        assert!(admit("127.0.0.1", &loop4, &["http://127.0.0.1:*"], K).is_ok());
        assert!(
            admit(
                "127.0.0.2",
                &[sa("127.0.0.2:80")],
                &["http://127.0.0.1:*"],
                K
            )
            .is_err()
        );
        // v4-mapped is the same address.
        assert!(
            admit(
                "h",
                &[sa("[::ffff:127.0.0.1]:80")],
                &["http://127.0.0.1:*"],
                K
            )
            .is_ok()
        );
        assert!(admit("h", &[sa("[::ffff:127.0.0.1]:80")], &["http://*:*"], K).is_err());
        // localhost names: loopback only.
        assert!(admit("a.localhost", &loop4, &["http://*.localhost:*"], K).is_ok());
        assert!(
            admit(
                "a.localhost",
                &[sa("10.0.0.1:80")],
                &["http://*.localhost:*"],
                K
            )
            .is_err()
        );
        // Mixed answers keep only what is admitted.
        let mixed = [sa("10.0.0.1:443"), sa("93.184.216.34:443")];
        assert_eq!(
            admit("m.test", &mixed, &["https://*"], K).expect("public part"),
            vec![sa("93.184.216.34:443")]
        );
        // Link-local (cloud metadata) and unique-local are closed too.
        assert!(admit("m", &[sa("169.254.169.254:80")], &["http://*"], K).is_err());
        assert!(admit("m", &[sa("[fd00::1]:80")], &["http://*"], K).is_err());
        assert!(matches!(
            admit("none", &[], &["http://*"], K),
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

    #[test]
    fn a_refusal_suggests_the_literal_in_the_form_its_list_takes() {
        let hosts = Key {
            name: "grants.capture.http_hosts",
            scheme: None,
        };
        let v6 = [sa("[2002:7f00:1::1]:8080")];
        // As a URL's host (`url.host_str()`) writes it: in brackets.
        let err = admit("[2002:7f00:1::1]", &v6, &["*:*"], hosts).expect_err("6to4 loopback");
        assert!(
            err.to_string().starts_with("2002:7f00:1::1 resolves to"),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("(6to4, carrying 127.0.0.1) (loopback address space)"),
            "{err}"
        );
        assert_eq!(
            err.suggestion(),
            Some((
                "grants.capture.http_hosts",
                "[2002:7f00:1::1]:8080".to_string()
            ))
        );
        let err = admit(
            "app.localhost",
            &[sa("127.0.0.1:3000")],
            &["http://*"],
            BROWSER,
        )
        .expect_err("loopback by a glob");
        assert_eq!(
            err.suggestion(),
            Some((
                "grants.browser.origins",
                "http://app.localhost:3000".to_string()
            ))
        );
    }
}
