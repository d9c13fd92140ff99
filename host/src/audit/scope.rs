//! Who a capability acts for: the plugin, the call in progress (tool, client, session,
//! cancellation) and the audit log its lines go to. Every capability context holds one, so
//! a refusal or a use is recorded with the same fields wherever it happens.

use super::log::AuditLog;
use super::record::{CallTrace, Outcome, Record, RecordingLink, millis, now};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Refusals written per call; the rest are counted and summed up in one line, so a guest
/// (or a page) that provokes refusals in a loop cannot flood the log.
pub const DENIAL_LINES_PER_CALL: u32 = 20;

/// Who is running (for audit lines written from places without the store, such as socket
/// checks) and the tail of what it last said on stderr (for trap messages).
#[derive(Debug, Clone)]
pub struct GuestScope {
    pub plugin: Arc<str>,
    pub audit: Arc<AuditLog>,
    pub tool: Arc<Mutex<String>>,
    /// Who made the call in progress.
    pub caller: Arc<Mutex<Caller>>,
    pub stderr_tail: Arc<Mutex<String>>,
    /// Cancelled when the client cancels the call in progress.
    pub cancel: Arc<Mutex<CancellationToken>>,
    /// Refusals in the call in progress.
    denials: Arc<AtomicU32>,
    /// The first refusal of the call in progress (capability, reason), for the tool error of
    /// a component that reports a refusal in its own words (`kinds.rs`).
    first_denial: Arc<Mutex<Option<(String, String)>>>,
}

/// The MCP client behind the call in progress, for audit lines.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    pub client: Option<Arc<str>>,
    pub session: Option<Arc<str>>,
    /// The caller's role, when roles are defined.
    pub role: Option<Arc<str>>,
    /// The call's trace, when traces are exported.
    pub trace: Option<CallTrace>,
}

/// An allowed host request a capability made for a plugin, for [`GuestScope::used`].
#[derive(Debug, Default)]
pub struct Used<'a> {
    pub capability: &'a str,
    /// Origin and path (no query: it may carry tokens), or a host, or a cookie domain.
    pub target: &'a str,
    /// The error kind when the request failed (`timeout`, `io`, ...).
    pub error: Option<&'a str>,
    pub duration: std::time::Duration,
    pub tabs_opened: Option<usize>,
    pub tabs_open: Option<usize>,
    /// What was done, where the target does not say it (never a secret).
    pub detail: Option<&'a str>,
    /// Bytes moved (for an HTTP request: received).
    pub bytes: Option<u64>,
    /// An HTTP request's method, status and request body bytes sent.
    pub method: Option<&'a str>,
    pub status: Option<u16>,
    pub bytes_sent: Option<u64>,
    /// The recording of the session this use acted in, at this moment.
    pub recording: Option<RecordingLink>,
}

/// How much of a guest's last stderr output is kept for trap messages.
const STDERR_TAIL: usize = 1024;

impl GuestScope {
    pub fn new(plugin: &str, audit: Arc<AuditLog>) -> Self {
        Self {
            plugin: Arc::from(plugin),
            audit,
            tool: Arc::default(),
            caller: Arc::default(),
            stderr_tail: Arc::default(),
            cancel: Arc::default(),
            denials: Arc::default(),
            first_denial: Arc::default(),
        }
    }

    /// Start a call: name it, say who made it, forget the previous call's stderr.
    pub fn begin(&self, tool: &str, caller: Caller, cancel: CancellationToken) {
        // A call that was abandoned (timeout, cancel) did not get to `finish`.
        self.finish();
        if let Ok(mut t) = self.tool.lock() {
            tool.clone_into(&mut t);
        }
        if let Ok(mut tail) = self.stderr_tail.lock() {
            tail.clear();
        }
        if let Ok(mut c) = self.caller.lock() {
            *c = caller;
        }
        if let Ok(mut c) = self.cancel.lock() {
            *c = cancel;
        }
        if let Ok(mut d) = self.first_denial.lock() {
            *d = None;
        }
    }

    /// End a call: one line for the refusals over [`DENIAL_LINES_PER_CALL`], if any.
    pub fn finish(&self) {
        let n = self.denials.swap(0, Ordering::Relaxed);
        if n > DENIAL_LINES_PER_CALL {
            let more = n - DENIAL_LINES_PER_CALL;
            self.write_denial(
                "(repeated)",
                &format!("{more} more"),
                &format!("{more} more refusals in this call were counted but not written one by one (at most {DENIAL_LINES_PER_CALL} lines per call)"),
            );
        }
    }

    /// The first refusal of the call in progress: its capability and reason (which names
    /// the grant to add, never a secret, as every audit reason).
    pub fn first_denial(&self) -> Option<(String, String)> {
        self.first_denial.lock().ok().and_then(|d| d.clone())
    }

    /// The cancellation token of the call in progress.
    pub fn cancel(&self) -> CancellationToken {
        self.cancel.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// What the guest wrote to stderr during the current call (its panic message, say).
    pub fn last_stderr(&self) -> String {
        self.stderr_tail
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    pub(crate) fn remember_stderr(&self, line: &str) {
        if let Ok(mut tail) = self.stderr_tail.lock() {
            tail.push_str(line);
            tail.push('\n');
            if tail.len() > STDERR_TAIL {
                let cut = tail.len() - STDERR_TAIL;
                let cut = (cut..tail.len())
                    .find(|&i| tail.is_char_boundary(i))
                    .unwrap_or(tail.len());
                tail.drain(..cut);
            }
        }
    }

    pub fn current_tool(&self) -> String {
        self.tool.lock().map(|t| t.clone()).unwrap_or_default()
    }

    pub fn caller(&self) -> Caller {
        self.caller.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Record an allowed host request with its outcome; never a cookie or a header value.
    pub fn used(&self, used: &Used<'_>) {
        let caller = self.caller();
        let outcome = match used.error {
            None => Outcome::Ok,
            Some("timeout") => Outcome::Timeout,
            Some("access_denied") => Outcome::Denied,
            Some(_) => Outcome::ToolError,
        };
        self.audit.write(&Record {
            ts: now(),
            event: "capability_used",
            plugin: &self.plugin,
            tool: &self.current_tool(),
            args_sha256: None,
            args_bytes: None,
            decision: "allowed",
            outcome,
            duration_ms: Some(millis(used.duration)),
            capability: Some(used.capability),
            target: Some(used.target),
            reason: None,
            client: caller.client.as_deref(),
            session: caller.session.as_deref(),
            role: caller.role.as_deref(),
            error: used.error,
            tabs_opened: used.tabs_opened,
            tabs_open: used.tabs_open,
            detail: used.detail,
            bytes: used.bytes,
            method: used.method,
            status: used.status,
            bytes_sent: used.bytes_sent,
            recording: used.recording.clone(),
            trace: caller.trace,
        });
    }

    /// Record a refused capability use.
    pub fn denied(&self, capability: &str, target: &str, reason: &str) {
        if let Ok(mut d) = self.first_denial.lock()
            && d.is_none()
        {
            *d = Some((capability.to_string(), reason.to_string()));
        }
        if self.denials.fetch_add(1, Ordering::Relaxed) >= DENIAL_LINES_PER_CALL {
            return;
        }
        self.write_denial(capability, target, reason);
    }

    fn write_denial(&self, capability: &str, target: &str, reason: &str) {
        tracing::warn!(plugin = %self.plugin, capability, target, "denied: {reason}");
        let caller = self.caller();
        self.audit.write(&Record {
            ts: now(),
            event: "capability_denied",
            plugin: &self.plugin,
            tool: &self.current_tool(),
            args_sha256: None,
            args_bytes: None,
            decision: "denied",
            outcome: Outcome::Denied,
            duration_ms: None,
            capability: Some(capability),
            target: Some(target),
            reason: Some(reason),
            client: caller.client.as_deref(),
            session: caller.session.as_deref(),
            role: caller.role.as_deref(),
            error: None,
            tabs_opened: None,
            tabs_open: None,
            trace: caller.trace,
            ..Record::default()
        });
    }
}
