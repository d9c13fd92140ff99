//! The browser's network guard: a filtering forward proxy Warden runs for every browser
//! context (and one for each launched browser's default context), through which Chromium
//! sends every connection any page, frame, worker or browser feature makes, loopback
//! included (`<-loopback>`). It is the one choke point for the browser's network; CDP Fetch
//! interception (`events.rs`) stays in front of it for documents only, for the clear
//! per-navigation message.
//!
//! | file | job |
//! |---|---|
//! | `proxy.rs` | the HTTP proxy server: CONNECT tunnels, absolute-form requests, 403 refusals |
//! | `policy.rs` | the decision: grants of the context's owners, private-network rule, Warden's own listeners (`crate::net::forbidden`); for the browser's requests and the host's ([`HostRequests`]) |
//! | `upstream.rs` | connecting to the checked address, directly or through an admin's upstream proxy |
//! | `deny_log.rs` | aggregated audit lines for refusals |
//! | `failures.rs` | why a connection was not carried, for the navigation that asked for it |
//! | `navigation.rs` | the one door for URLs a plugin sends a tab to (`javascript:`, `data:`, ...) |
//!
//! Whose grants apply is read from the browser's state at each connection (the context's
//! owner; in the capture browser's default context, the one plugin occupying it), so a
//! manifest reload applies to open sessions at once.

mod deny_log;
pub mod failures;
pub mod listen;
pub mod policy;
mod proxy;
pub mod upstream;

use super::model::owner::Owner;
use crate::net::forbidden::{Registration, Service};
use deny_log::DenyLog;
use policy::{Refusal, Target};
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock, Weak};
use tokio_util::sync::CancellationToken;
use upstream::Upstream;
use url::Url;

/// Chromium's bypass list for a guarded context: no implicit bypass of loopback, so requests
/// to 127.0.0.1 and `localhost` go through the guard like any other.
pub const BYPASS: &str = "<-loopback>";

pub use super::model::owner::Guard;

/// Where a guard reads whose grants apply to a connection of its context: the running
/// browser (`live/guarded.rs`), asked at each connection so a manifest reload applies at once.
pub trait Owners: Send + Sync {
    /// The owners whose grants a request of `context` (`None`: the default context) is
    /// checked against.
    fn owners_of(&self, context: Option<&str>) -> Vec<Owner>;
}

/// Which browser context a guard serves, filled in once the context exists.
#[derive(Default)]
struct OwnerSource {
    live: OnceLock<Weak<dyn Owners>>,
    /// The context id; unset for a launched browser's default context.
    context: OnceLock<String>,
}

impl OwnerSource {
    fn owners(&self) -> Vec<Owner> {
        self.live
            .get()
            .and_then(Weak::upgrade)
            .map(|live| live.owners_of(self.context.get().map(String::as_str)))
            .unwrap_or_default()
    }
}

/// What the proxy's connections share.
pub(super) struct Shared {
    guard: Guard,
    owners: OwnerSource,
    upstream: Option<Upstream>,
    /// Hosts that go around `upstream` (the profile's `proxy_bypass`), and whether loopback
    /// does too (Chromium's implicit rule, unless the list says `<-loopback>`).
    bypass: Option<globset::GlobSet>,
    bypass_loopback: bool,
    deny_log: DenyLog,
    /// Why recent connections were not carried, by `host:port`.
    failures: failures::Failures,
    /// Whom it serves.
    listen: listen::Listen,
    /// Cancelled (and replaced) to end every tunnel open now: they were admitted for
    /// owners that are gone (`occupancy.rs`).
    tunnels: std::sync::Mutex<CancellationToken>,
}

impl Shared {
    /// What ends a tunnel admitted from now on; take it before reading the owners.
    fn tunnel_end(&self) -> CancellationToken {
        self.tunnels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn decide(&self, owners: &[Owner], target: &Target) -> Result<Vec<SocketAddr>, Refusal> {
        policy::decide(self.guard, owners, target).await
    }

    /// The upstream proxy for a connection to `host` at `addrs`, if it takes that one.
    fn upstream_for(&self, host: &str, addrs: &[SocketAddr]) -> Option<&Upstream> {
        let upstream = self.upstream.as_ref()?;
        let loopback = addrs
            .iter()
            .all(|a| crate::net::addr::canonical(a.ip()).is_loopback());
        let bypassed = (self.bypass_loopback && loopback)
            || self
                .bypass
                .as_ref()
                .is_some_and(|b| b.is_match(host.to_ascii_lowercase()));
        (!bypassed).then_some(upstream)
    }
}

/// A running guard; dropping it stops accepting connections.
pub struct NetGuard {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
    /// Its socket, forbidden to every request made for a plugin while it listens.
    _listening: Registration,
}

/// The guard's rules for a request the host sends itself on behalf of the guard's context:
/// the no-JavaScript fast path's document and style sheets. Decided by the same
/// [`policy::decide`] as the browser's connections, with the same owners, and a refusal is audited (and kept for the navigation's message) as the guard's
/// own; the request then goes to the checked addresses only.
#[derive(Clone)]
pub struct HostRequests {
    shared: Arc<Shared>,
}

impl HostRequests {
    /// The addresses `url` may be fetched from for a `kind` request (`document`,
    /// `stylesheet`), or the guard's refusal.
    pub async fn admit(&self, url: &Url, kind: &str) -> Result<Vec<SocketAddr>, Refusal> {
        let owners = self.shared.owners.owners();
        let Some(target) = Target::of(url) else {
            let refusal = Refusal {
                origin: url.origin().ascii_serialization(),
                reason: format!("{url} is not an http(s) URL"),
                scopes: owners.iter().map(|o| o.scope.clone()).collect(),
                failure: failures::Failure::Refused(format!("{url} is not an http(s) URL")),
            };
            self.shared.deny_log.record(&refusal, kind);
            return Err(refusal);
        };
        let decided = self.shared.decide(&owners, &target).await;
        if let Err(refusal) = &decided {
            self.shared.deny_log.record(refusal, kind);
            self.shared
                .failures
                .record(&target.host, target.port, refusal.failure.clone());
        }
        decided
    }
}

impl NetGuard {
    /// Start a guard on a free port of `listen`'s address. `upstream`: an admin's proxy URL
    /// to chain to, with its bypass rules.
    pub async fn start(
        guard: Guard,
        upstream: Option<(&str, &[String])>,
        listen: &listen::Listen,
    ) -> Result<Self, String> {
        let (upstream, bypass, bypass_loopback) = match upstream {
            None => (None, None, false),
            Some((url, rules)) => {
                let mut set = globset::GlobSetBuilder::new();
                for rule in rules.iter().filter(|r| !r.starts_with('<')) {
                    let glob = globset::GlobBuilder::new(&rule.to_ascii_lowercase())
                        .literal_separator(false)
                        .build()
                        .map_err(|e| format!("proxy_bypass rule \"{rule}\": {e}"))?;
                    set.add(glob);
                }
                let set = set.build().map_err(|e| format!("proxy_bypass: {e}"))?;
                let loopback = !rules.iter().any(|r| r == BYPASS);
                (Some(Upstream::parse(url)?), Some(set), loopback)
            }
        };
        let listener = tokio::net::TcpListener::bind(listen.addr())
            .await
            .map_err(|e| {
                format!(
                    "cannot start the browser's network guard on {}: {e}",
                    listen.addr().ip()
                )
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot start the browser's network guard: {e}"))?;
        // No page reaches the guard itself through a guard, nor any plugin's request.
        let listening = Registration::listening(addr, Service::NetworkGuard);
        let shared = Arc::new(Shared {
            guard,
            owners: OwnerSource::default(),
            upstream,
            bypass,
            bypass_loopback,
            deny_log: DenyLog::new(guard.capability()),
            failures: failures::Failures::default(),
            listen: listen.clone(),
            tunnels: std::sync::Mutex::new(CancellationToken::new()),
        });
        let task = tokio::spawn(proxy::serve(listener, shared.clone()));
        Ok(Self {
            addr,
            shared,
            task,
            _listening: listening,
        })
    }

    /// The guard's rules for the host's own requests on behalf of its context.
    pub fn host_requests(&self) -> HostRequests {
        HostRequests {
            shared: self.shared.clone(),
        }
    }

    /// The proxy as Chromium's `--proxy-server` and `proxyServer` take it.
    pub fn proxy_server(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Why the guard did not carry the last connection to `host:port` (within a minute).
    pub fn failure(&self, host: &str, port: u16) -> Option<failures::Failure> {
        self.shared.failures.latest(host, port)
    }

    /// End every tunnel (CONNECT, WebSocket) open now; requests decided one by one are not
    /// affected.
    pub fn drop_tunnels(&self) {
        let old = std::mem::replace(
            &mut *self
                .shared
                .tunnels
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
            CancellationToken::new(),
        );
        old.cancel();
    }

    /// Serve the browser context `context` of `live` (`None`: its default context).
    pub fn bind(&self, live: Weak<dyn Owners>, context: Option<String>) {
        let _ = self.shared.owners.live.set(live);
        if let Some(context) = context {
            let _ = self.shared.owners.context.set(context);
        }
    }
}

impl Drop for NetGuard {
    fn drop(&mut self) {
        self.task.abort();
        self.shared.deny_log.flush();
    }
}
