//! Addresses no request Warden makes for a plugin may reach, whatever the grants say:
//! Warden's own listeners (the MCP endpoint of `serve --http`, the admin listener, every
//! browser network guard), for as long as each listens, and the DevTools endpoints of the
//! remote browsers it drives. A plugin that reached one would call Warden's tools as another
//! client, read its metrics, have another context's guard decide its requests, or drive a
//! browser past every guard. No grant opens them: a grant names what a plugin may reach on
//! the network, and these are Warden itself.
//!
//! Each listener registers here when it binds ([`Registration`]) and is forgotten when the
//! registration drops. Every path that connects for a plugin asks [`keep_open`] about the
//! addresses it is about to connect to, after resolution: [`super::resolve_admitted`] (the
//! browser's network guard and the fast path through it, `wasi:http`, `http_get`, web search,
//! the OAuth token fetch of `[credentials]`), the registry client and the JWKS fetch.
//!
//! A service bound to loopback or to every address answers on every loopback address
//! (`127.0.0.2`, `::1`, `::ffff:127.0.0.1`, `0.0.0.0`), so those compare by port; one bound to
//! every address also answers on each of this machine's own addresses.

use super::addr::{Class, canonical, classify};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, RwLock};

/// What answers at a forbidden address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// The MCP endpoint of `warden serve --http`.
    Mcp,
    /// `[admin] listen`: metrics, liveness and readiness.
    Admin,
    /// A browser context's network guard (its proxy).
    NetworkGuard,
    /// A remote browser's DevTools endpoint (`[browser] endpoints`).
    BrowserControl,
}

impl Service {
    /// As messages and audit lines name it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Mcp => "Warden's own MCP endpoint (serve --http)",
            Self::Admin => "Warden's own admin listener (metrics and health probes)",
            Self::NetworkGuard => "Warden's own network guard (a browser's proxy)",
            Self::BrowserControl => "the browser's own control endpoint (a DevTools port)",
        }
    }
}

/// Where a registered service answers.
#[derive(Debug, Clone)]
enum Place {
    Addr(SocketAddr),
    /// A name, resolved when a request goes to its port (a DevTools endpoint written with a
    /// name: where it points can change).
    Name(String, u16),
}

impl Place {
    fn port(&self) -> u16 {
        match self {
            Self::Addr(a) => a.port(),
            Self::Name(_, port) => *port,
        }
    }
}

struct Entry {
    id: u64,
    place: Place,
    service: Service,
}

static ENTRIES: LazyLock<RwLock<Vec<Entry>>> = LazyLock::new(RwLock::default);
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A place in the forbidden list, given up when dropped.
#[derive(Debug)]
#[must_use = "the address is forbidden only while its registration is held"]
pub struct Registration(u64);

impl Registration {
    /// `addr` (as the listener's `local_addr` says) is `service`'s from now on.
    pub fn listening(addr: SocketAddr, service: Service) -> Self {
        Self::add(Place::Addr(addr), service)
    }

    /// `host:port` (a name or an IP literal, IPv6 with or without brackets) is `service`'s.
    pub fn named(host: &str, port: u16, service: Service) -> Self {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let place = match bare.parse::<IpAddr>() {
            Ok(ip) => Place::Addr(SocketAddr::new(ip, port)),
            Err(_) => Place::Name(bare.to_ascii_lowercase(), port),
        };
        Self::add(place, service)
    }

    fn add(place: Place, service: Service) -> Self {
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        ENTRIES
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Entry { id, place, service });
        Self(id)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut entries = ENTRIES.write().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = entries.iter().position(|e| e.id == self.0) {
            entries.swap_remove(at);
        }
    }
}

/// A destination refused because `service` answers at `addr`, whatever the grants say.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct Refused {
    /// As the request named it (a name or an IP literal, IPv6 without brackets).
    pub host: String,
    pub addr: SocketAddr,
    pub service: Service,
}

impl Refused {
    fn message(&self) -> String {
        let at = if self.host.parse::<IpAddr>().ok() == Some(self.addr.ip()) {
            self.addr.to_string()
        } else {
            format!("{} (at {})", self.host, self.addr)
        };
        format!(
            "{at} is {}, which no request Warden sends (for a page, a plugin or its own configuration) may reach, whatever the grants say: no grant can open it",
            self.service.describe()
        )
    }
}

/// `addrs` (the resolved addresses of `host`) without those a registered service answers at;
/// refused when that leaves none of them.
pub async fn keep_open(host: &str, addrs: Vec<SocketAddr>) -> Result<Vec<SocketAddr>, Refused> {
    let entries = snapshot();
    if entries.is_empty() {
        return Ok(addrs);
    }
    let mut mine = Mine::default();
    let mut open = Vec::with_capacity(addrs.len());
    let mut first = None;
    for addr in addrs {
        match service_at(&entries, addr, &mut mine).await {
            Some(service) => {
                first.get_or_insert((addr, service));
            }
            None => open.push(addr),
        }
    }
    match (open.is_empty(), first) {
        (true, Some((addr, service))) => Err(Refused {
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string(),
            addr,
            service,
        }),
        _ => Ok(open),
    }
}

/// Which registered service answers at `addr`, if any.
pub async fn service_of(addr: SocketAddr) -> Option<Service> {
    service_at(&snapshot(), addr, &mut Mine::default()).await
}

fn snapshot() -> Vec<(Place, Service)> {
    ENTRIES
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|e| (e.place.clone(), e.service))
        .collect()
}

async fn service_at(
    entries: &[(Place, Service)],
    addr: SocketAddr,
    mine: &mut Mine,
) -> Option<Service> {
    for (place, service) in entries {
        // Only a request to a registered port can reach a registered service.
        if place.port() != addr.port() {
            continue;
        }
        let found = match place {
            Place::Addr(listener) => same_service(*listener, addr, mine),
            Place::Name(host, port) => super::resolve::addresses(host, *port)
                .await
                .unwrap_or_default()
                .into_iter()
                .any(|listener| same_service(listener, addr, mine)),
        };
        if found {
            return Some(*service);
        }
    }
    None
}

/// This machine's own addresses, read once per check and only when needed.
#[derive(Default)]
struct Mine(Option<Vec<IpAddr>>);

impl Mine {
    fn contains(&mut self, ip: IpAddr) -> bool {
        self.0
            .get_or_insert_with(|| {
                super::interfaces::addresses()
                    .into_iter()
                    .map(canonical)
                    .collect()
            })
            .contains(&ip)
    }
}

/// Does a service listening on `listener` answer a connection to `addr`?
fn same_service(listener: SocketAddr, addr: SocketAddr, mine: &mut Mine) -> bool {
    if listener.port() != addr.port() {
        return false;
    }
    let (l, a) = (canonical(listener.ip()), canonical(addr.ip()));
    let local = |ip: IpAddr| matches!(classify(ip), Class::Loopback | Class::Unspecified);
    l == a || (local(l) && local(a)) || (l.is_unspecified() && mine.contains(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sa(s: &str) -> SocketAddr {
        s.parse().expect("a socket address")
    }

    // Each test uses ports of its own: registrations are process-wide.

    #[tokio::test]
    async fn a_loopback_listener_answers_on_every_loopback_spelling() {
        let held = Registration::listening(sa("127.0.0.1:41001"), Service::Mcp);
        for addr in [
            "127.0.0.1:41001",
            "127.0.0.2:41001",
            "[::1]:41001",
            "[::ffff:127.0.0.1]:41001",
            "0.0.0.0:41001",
            "[::]:41001",
        ] {
            assert_eq!(service_of(sa(addr)).await, Some(Service::Mcp), "{addr}");
        }
        assert_eq!(service_of(sa("127.0.0.1:41002")).await, None);
        assert_eq!(service_of(sa("93.184.216.34:41001")).await, None);
        drop(held);
        assert_eq!(service_of(sa("127.0.0.1:41001")).await, None);
    }

    #[tokio::test]
    async fn a_listener_on_every_address_answers_on_this_machines_own() {
        let _held = Registration::listening(sa("0.0.0.0:41011"), Service::Admin);
        assert_eq!(
            service_of(sa("[::1]:41011")).await,
            Some(Service::Admin),
            "loopback"
        );
        for ip in super::super::interfaces::addresses() {
            assert_eq!(
                service_of(SocketAddr::new(ip, 41011)).await,
                Some(Service::Admin),
                "{ip}"
            );
        }
        // A listener on one address of another host is that address only.
        let _other = Registration::listening(sa("10.255.0.7:41012"), Service::NetworkGuard);
        assert_eq!(
            service_of(sa("10.255.0.7:41012")).await,
            Some(Service::NetworkGuard)
        );
        assert_eq!(service_of(sa("127.0.0.1:41012")).await, None);
        assert_eq!(service_of(sa("10.255.0.8:41012")).await, None);
    }

    #[tokio::test]
    async fn a_named_endpoint_is_resolved_when_its_port_is_asked_for() {
        let _held = Registration::named("localhost", 41021, Service::BrowserControl);
        let _literal = Registration::named("[::1]", 41022, Service::BrowserControl);
        assert_eq!(
            service_of(sa("127.0.0.1:41021")).await,
            Some(Service::BrowserControl)
        );
        assert_eq!(
            service_of(sa("127.0.0.3:41022")).await,
            Some(Service::BrowserControl)
        );
    }

    #[tokio::test]
    async fn what_is_left_open_is_kept_and_a_refusal_says_no_grant_opens_it() {
        let _held = Registration::listening(sa("127.0.0.1:41031"), Service::Mcp);
        let mixed = vec![sa("93.184.216.34:41031"), sa("127.0.0.1:41031")];
        assert_eq!(
            keep_open("mixed.test", mixed).await.expect("one open"),
            vec![sa("93.184.216.34:41031")]
        );
        let refused = keep_open("localhost", vec![sa("127.0.0.1:41031"), sa("[::1]:41031")])
            .await
            .expect_err("all Warden's");
        assert_eq!(refused.service, Service::Mcp);
        let text = refused.to_string();
        assert!(
            text.starts_with("localhost (at 127.0.0.1:41031) is Warden's own MCP endpoint"),
            "{text}"
        );
        assert!(text.contains("no grant can open it"), "{text}");
        let literal = keep_open("[::1]", vec![sa("[::1]:41031")])
            .await
            .expect_err("literal");
        assert!(
            literal.to_string().starts_with("[::1]:41031 is Warden's"),
            "{literal}"
        );
        assert!(keep_open("x", Vec::new()).await.expect("none").is_empty());
    }
}
