//! The one audit line of a `wasi:http` request, written when the request is over: refused
//! (a `capability_denied` line that names the grant to add), failed, or its response body
//! read to the end or dropped. Method, origin, path (never the query: it may carry a
//! credential), status, bytes sent and received, time; never a body or a header value. The
//! words of a failure or a refusal (the host log's, the audit's) pass through the request's
//! secrets first ([`Exchange::hide`]): whatever a client's error text or a server's header
//! carried, no credential the request had is in them.

use super::services::CAPABILITY;
use crate::audit::{GuestScope, Used};
use crate::scrub::Secrets;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Debug)]
pub struct Exchange {
    scope: GuestScope,
    pub method: String,
    /// `scheme://host[:port]/path`.
    target: String,
    started: Instant,
    /// Request body bytes sent (counted by the body as it streams out).
    pub sent: Arc<AtomicU64>,
    pub received: u64,
    pub status: Option<u16>,
    error: Option<&'static str>,
    written: bool,
    /// The credentials this request carried, masked in every text it writes.
    secrets: Secrets,
}

/// Longest detail a failure writes to the host log.
const DETAIL_MAX: usize = 1024;

impl Exchange {
    pub fn new(scope: &GuestScope, method: &str, target: String) -> Self {
        Self {
            scope: scope.clone(),
            method: method.to_string(),
            target,
            started: Instant::now(),
            sent: Arc::default(),
            received: 0,
            status: None,
            error: None,
            written: false,
            secrets: Secrets::default(),
        }
    }

    /// Mask `secrets` (and their encodings) in every text this request writes from now on.
    pub fn hide(&mut self, secrets: &[String]) {
        for s in secrets {
            self.secrets.add(s);
        }
    }

    /// What the request was, for a denial: `POST https://api.example.com/v1/items`.
    pub fn request_line(&self) -> String {
        format!("{} {}", self.method, self.target)
    }

    /// The request was refused: its line is the denial, with the grant to add in `reason`.
    pub fn deny(mut self, reason: &str) {
        self.written = true;
        let reason = self.secrets.bounded(reason, DETAIL_MAX);
        self.scope.denied(CAPABILITY, &self.request_line(), &reason);
    }

    /// The request ended in an error of `kind` (`timeout`, `io`, `body_too_large`, ...),
    /// with `detail` for the host log, scrubbed of the request's secrets.
    pub fn fail(&mut self, kind: &'static str, detail: &str) {
        if self.error.is_none() {
            let detail = self.secrets.bounded(detail, DETAIL_MAX);
            tracing::warn!(plugin = %self.scope.plugin, request = %self.request_line(), "wasi:http request failed ({kind}): {detail}");
            self.error = Some(kind);
        }
    }

    fn write(&mut self) {
        if std::mem::replace(&mut self.written, true) {
            return;
        }
        let status = self.status.map(|s| s.to_string());
        let detail = match &status {
            Some(s) => format!("{} {s}", self.method),
            None => self.method.clone(),
        };
        self.scope.used(&Used {
            capability: CAPABILITY,
            target: &self.target,
            error: self.error,
            duration: self.started.elapsed(),
            detail: Some(&detail),
            bytes: Some(self.received),
            method: Some(&self.method),
            status: self.status,
            bytes_sent: Some(self.sent.load(Ordering::Relaxed)),
            ..Used::default()
        });
    }
}

impl Drop for Exchange {
    fn drop(&mut self) {
        self.write();
    }
}
