//! Services of the call in progress: progress, logging, cancellation. Always granted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::bindings::warden::plugin::context as wit;

/// Severity of a log line: `debug`, `info`, `warning` or `error` (lowercase in JSON).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warning,
    Error,
}

impl From<Level> for wit::LogLevel {
    fn from(level: Level) -> Self {
        match level {
            Level::Debug => Self::Debug,
            Level::Info => Self::Info,
            Level::Warning => Self::Warning,
            Level::Error => Self::Error,
        }
    }
}

/// Reports progress of the current call: `done` out of `total` (if known), with an optional
/// message. Forwarded to the client as an MCP progress notification when it asked for
/// progress; otherwise dropped. `done` should increase from one report to the next.
pub fn progress(done: f64, total: Option<f64>, message: Option<&str>) {
    wit::progress(done, total, message);
}

/// Writes a log line into the host's log (tagged with the plugin) and to the client as an
/// MCP logging notification when at or above the level it asked for.
pub fn log(level: Level, message: impl AsRef<str>) {
    wit::log(level.into(), message.as_ref());
}

/// True once the client has cancelled the current call. Long loops should check it and
/// return early; a call that ignores cancellation is interrupted by the host.
pub fn cancelled() -> bool {
    wit::cancelled()
}
