//! One line of the audit log ([`Record`]) and the helpers that fill its fields.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime};

/// How a tool call ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    #[default]
    Ok,
    ToolError,
    Timeout,
    Trap,
    Cancelled,
    Denied,
}

/// One line of the audit log.
#[derive(Debug, Default, Serialize)]
pub struct Record<'a> {
    pub ts: String,
    /// `tool_call`, `capability_used` (an allowed host request) or `capability_denied`.
    pub event: &'static str,
    pub plugin: &'a str,
    pub tool: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args_sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args_bytes: Option<usize>,
    /// `allowed` or `denied`.
    pub decision: &'static str,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// For capability lines: which capability, e.g. `capture.http`, `wasi:sockets`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capability: Option<&'a str>,
    /// What was asked for (a host:port, an alias). Never a secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// Who asked (the MCP client's identity), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<&'a str>,
    /// The transport and session the request came in on (`stdio`, `http session ID`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<&'a str>,
    /// The caller's role (`[roles.NAME]`), when roles are defined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'a str>,
    /// For capability lines that end in an error: its kind (`timeout`, `io`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    /// For browser-backed requests: tabs the request opened, and tabs still open after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tabs_opened: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tabs_open: Option<usize>,
    /// For capability lines: what was done, where the target alone does not say it (the
    /// text written to a terminal, escaped and bounded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<&'a str>,
    /// For capability lines: bytes moved (read, written, output produced).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// For HTTP requests a plugin made: the method, the response status, and the request
    /// body bytes sent (`bytes` is what was received).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_sent: Option<u64>,
    /// For lines of a recorded session: its recording and the offset in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording: Option<RecordingLink>,
    /// The call's trace, when traces are exported (not written to the log).
    #[serde(skip)]
    pub trace: Option<CallTrace>,
}

/// Where in a recording an audit line's moment is: the file, and seconds since the recording
/// began (`{"file": "recordings/2026-11-28/local-1a2b3c.cast", "t": 12.345}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordingLink {
    pub file: std::sync::Arc<str>,
    /// Seconds since the recording began, to the millisecond.
    pub t: f64,
}

/// The trace a call belongs to and its own span (W3C Trace Context ids), carried on the
/// records of a traced call so a trace sink can place each record's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallTrace {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    /// The caller's span, from its `traceparent`.
    pub parent: Option<[u8; 8]>,
}

/// RFC 3339 timestamp with milliseconds, UTC.
pub fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// sha256 of the arguments, hex.
pub fn digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
