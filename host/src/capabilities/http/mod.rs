//! Standard `wasi:http/outgoing-handler` for plugins, under `grants.http`. wasmtime-wasi-http
//! implements the interfaces; the host owns the one hook that sends ([`HttpCtx`] as its
//! `WasiHttpHooks`), built without a client of its own, so no request leaves another way.
//!
//! | file | job |
//! |---|---|
//! | `send.rs` | one request: grant check (origin, method), body and time caps, credential, the private-network rule, the pinned client, the typed `error-code` of a refusal |
//! | `body.rs` | the request body capped while it streams out; the response body capped, timed and scrubbed while it streams in |
//! | `exchange.rs` | the one audit line of a request: method, origin, path (never the query), status, bytes each way, time |
//! | `credentials.rs` | `[credentials.NAME]` put into a request after the plugin handed it over; OAuth 2 tokens fetched, kept and refreshed |
//!
//! wasi:http follows no redirect: a 3xx goes to the plugin, and whatever it asks next is a
//! new request, checked as the first. A credential goes only to the origins it is bound to,
//! so a redirect elsewhere never carries it.

mod body;
pub mod credentials;
mod exchange;
mod send;

use crate::audit::GuestScope;
use crate::manifest::grants::Grants;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpHooks};

/// What the audit lines of `wasi:http` requests name as their capability.
pub const CAPABILITY: &str = "wasi:http";

/// State shared by every instance of every plugin: requests in flight per plugin, OAuth
/// tokens per credential. Kept across manifest reloads.
#[derive(Default)]
pub struct HttpServices {
    in_flight: Mutex<HashMap<String, Arc<AtomicUsize>>>,
    pub tokens: credentials::Tokens,
    /// Scrubbers by the secrets they mask: the same credentials, request after request.
    scrubbers: Mutex<HashMap<Vec<String>, crate::scrub::Scrubber>>,
}

/// Never prints a secret: the scrubbers are keyed by them.
impl std::fmt::Debug for HttpServices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServices").finish_non_exhaustive()
    }
}

/// Scrubbers kept at most; past it the cache starts again (secrets that change often, such
/// as OAuth tokens, would otherwise pile up).
const SCRUBBERS_KEPT: usize = 64;

impl HttpServices {
    /// A scrubber of `secrets` and their encodings, built once per set of secrets.
    fn scrubber(&self, mut secrets: Vec<String>, mask: &str) -> crate::scrub::Scrubber {
        secrets.sort();
        secrets.dedup();
        let mut cache = self.scrubbers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = cache.get(&secrets) {
            return s.clone();
        }
        let mut variants: Vec<String> = secrets
            .iter()
            .flat_map(|s| crate::scrub::variants(s))
            .collect();
        variants.sort();
        variants.dedup();
        let scrubber = crate::scrub::Scrubber::new(&variants, mask);
        if cache.len() >= SCRUBBERS_KEPT {
            cache.clear();
        }
        cache.insert(secrets, scrubber.clone());
        scrubber
    }

    /// The counter of `plugin`'s requests in flight, shared by its instances.
    fn in_flight(&self, plugin: &str) -> Arc<AtomicUsize> {
        let mut map = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(plugin.to_string()).or_default().clone()
    }
}

/// One plugin instance's `wasi:http` context: whose grants, where audit lines go.
pub struct HttpCtx {
    grants: Arc<Grants>,
    scope: GuestScope,
    services: Arc<HttpServices>,
    in_flight: Arc<AtomicUsize>,
}

impl HttpCtx {
    pub fn new(grants: &Arc<Grants>, scope: &GuestScope, services: &Arc<HttpServices>) -> Self {
        Self {
            in_flight: services.in_flight(&grants.plugin),
            grants: grants.clone(),
            scope: scope.clone(),
            services: services.clone(),
        }
    }
}

/// A request in flight, counted against `grants.http.concurrency` until dropped (with the
/// response body, or with the request that failed).
#[derive(Debug)]
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(counter: &Arc<AtomicUsize>, max: usize) -> Option<Self> {
        let mut now = counter.load(Ordering::Relaxed);
        loop {
            if now >= max {
                return None;
            }
            match counter.compare_exchange_weak(now, now + 1, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return Some(Self(counter.clone())),
                Err(actual) => now = actual,
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

type SendFuture = Box<
    dyn Future<
            Output = Result<
                (
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                ),
                Error,
            >,
        > + Send,
>;

impl WasiHttpHooks for HttpCtx {
    // The host names the server: `Host` comes from the checked URL, never from the plugin.
    fn set_host_header(&mut self) -> bool {
        false
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> SendFuture {
        let job = send::Outgoing {
            grants: self.grants.clone(),
            scope: self.scope.clone(),
            services: self.services.clone(),
            in_flight: self.in_flight.clone(),
            options: options.unwrap_or_default(),
        };
        Box::new(async move {
            let response = job.run(request).await?;
            let done: Box<dyn Future<Output = Result<(), Error>> + Send> =
                Box::new(async { Ok(()) });
            Ok((response, done))
        })
    }
}
