//! Append-only JSONL audit log: one line per tool call, one per host request a capability
//! made for a plugin (capture pages, cookies, HTTP), and one per denied capability use.
//! A line is written with a single `write` on an unbuffered file, so it is in the kernel
//! before the response that it describes is sent. Arguments are recorded only as a sha256
//! digest and a size: secret values never reach this file.

pub mod query;
pub mod scope;

pub use scope::{Caller, GuestScope, Used};

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
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
    /// The call's trace, when traces are exported (not written to the log).
    #[serde(skip)]
    pub trace: Option<crate::trace::CallTrace>,
}

/// The audit log. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<File>,
}

/// The audit log could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the audit log {path}: {source}; fix [server] audit_log in the manifest")]
pub struct AuditOpenError {
    path: PathBuf,
    source: std::io::Error,
}

impl AuditLog {
    pub fn open(path: &Path) -> Result<Self, AuditOpenError> {
        let err = |source| AuditOpenError {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(err)?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one record, and count it in the metrics (so they agree with this log). A
    /// failure to write is logged, not fatal: the call it describes has already happened.
    pub fn write(&self, record: &Record<'_>) {
        crate::metrics::observe(record);
        crate::trace::observe(record);
        let mut line = match serde_json::to_vec(record) {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("audit record not serializable: {e}");
                return;
            }
        };
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = file.write_all(&line) {
            tracing::error!(path = %self.path.display(), "audit write failed: {e}");
        }
    }
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
