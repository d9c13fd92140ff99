//! Audit lines for the network guard's refusals, aggregated: a page can start thousands of
//! requests a second, so refusals of one origin and request type within a short window
//! become one `capability_denied` line with a count, written when the window closes.

use super::policy::Refusal;
use crate::audit::GuestScope;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long refusals of one (plugin, origin, type) are counted before their line is written.
const WINDOW: Duration = Duration::from_millis(500);

struct Pending {
    scope: GuestScope,
    reason: String,
    count: u64,
}

/// What refusals are counted by: (plugin, tool, origin, request type).
type Key = (String, String, String, String);

/// Refusals waiting for their window to close.
#[derive(Clone, Default)]
pub struct DenyLog {
    capability: &'static str,
    pending: Arc<Mutex<HashMap<Key, Pending>>>,
}

impl DenyLog {
    pub fn new(capability: &'static str) -> Self {
        Self {
            capability,
            pending: Arc::default(),
        }
    }

    /// Count one refusal of a `kind` request (`image`, `script`, `tunnel`, ...).
    pub fn record(&self, refusal: &Refusal, kind: &str) {
        tracing::debug!(origin = %refusal.origin, kind, "network guard refused: {}", refusal.reason);
        for scope in &refusal.scopes {
            let key = (
                scope.plugin.to_string(),
                scope.current_tool(),
                refusal.origin.clone(),
                kind.to_string(),
            );
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(p) = pending.get_mut(&key) {
                p.count += 1;
                continue;
            }
            pending.insert(
                key.clone(),
                Pending {
                    scope: scope.clone(),
                    reason: refusal.reason.clone(),
                    count: 1,
                },
            );
            drop(pending);
            let (log, capability) = (self.pending.clone(), self.capability);
            tokio::spawn(async move {
                tokio::time::sleep(WINDOW).await;
                let done = log.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
                if let Some(p) = done {
                    let (_, _, origin, kind) = key;
                    p.scope.denied(
                        capability,
                        &origin,
                        &format!(
                            "network guard refused {} {kind} request(s): {}",
                            p.count, p.reason
                        ),
                    );
                }
            });
        }
    }

    /// Write every pending line now (the browser is closing).
    pub fn flush(&self) {
        let drained: Vec<_> = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .collect();
        for ((_, _, origin, kind), p) in drained {
            p.scope.denied(
                self.capability,
                &origin,
                &format!(
                    "network guard refused {} {kind} request(s): {}",
                    p.count, p.reason
                ),
            );
        }
    }
}
