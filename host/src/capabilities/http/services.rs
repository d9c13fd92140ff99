//! What every instance's `wasi:http` shares: requests in flight per plugin, OAuth tokens,
//! scrubbers ([`HttpServices`]), and a request's place under `grants.http.concurrency`
//! ([`Slot`]).

use super::credentials;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    /// A scrubber of `secrets` and their encodings and escapes, built once per set of secrets.
    pub(super) fn scrubber(&self, mut secrets: Vec<String>, mask: &str) -> crate::scrub::Scrubber {
        secrets.sort();
        secrets.dedup();
        let mut cache = self.scrubbers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = cache.get(&secrets) {
            return s.clone();
        }
        let scrubber = crate::scrub::Scrubber::of_secrets(&secrets, mask);
        if cache.len() >= SCRUBBERS_KEPT {
            cache.clear();
        }
        cache.insert(secrets, scrubber.clone());
        scrubber
    }

    /// The counter of `plugin`'s requests in flight, shared by its instances.
    pub(super) fn in_flight(&self, plugin: &str) -> Arc<AtomicUsize> {
        let mut map = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(plugin.to_string()).or_default().clone()
    }
}

/// A request in flight, counted against `grants.http.concurrency` until dropped (with the
/// response body, or with the request that failed).
#[derive(Debug)]
pub(super) struct Slot(Arc<AtomicUsize>);

impl Slot {
    pub(super) fn take(counter: &Arc<AtomicUsize>, max: usize) -> Option<Self> {
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
