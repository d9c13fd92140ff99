//! A running network guard ([`NetGuard`]) for one browser context, and its rules for the
//! host's own requests on that context's behalf ([`HostRequests`]).

use super::deny_log::DenyLog;
use super::failures;
use super::listen;
use super::policy::{Purpose, Refusal, Target};
use super::proxy;
use super::shared::{OwnerSource, Owners, Shared};
use super::upstream::Upstream;
use crate::capabilities::browser::model::owner::Guard;
use crate::net::forbidden::{Registration, Service};
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use tokio_util::sync::CancellationToken;
use url::Url;

/// Chromium's bypass list for a guarded context: no implicit bypass of loopback, so requests
/// to 127.0.0.1 and `localhost` go through the guard like any other.
pub const BYPASS: &str = "<-loopback>";

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
    /// The addresses `url` may be fetched from for a request for `purpose` (`kind` says
    /// what it is, for the audit line), or the guard's refusal.
    pub async fn admit(
        &self,
        url: &Url,
        purpose: Purpose,
        kind: &str,
    ) -> Result<Vec<SocketAddr>, Refusal> {
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
        let decided = self.shared.decide(&owners, &target, purpose).await;
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
        let listener = listen.bind().await.map_err(|e| {
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
