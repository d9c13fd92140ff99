//! Services of the call in progress: progress, logging, cancellation, and asking the client
//! (its user through elicitation, its model through sampling). Always granted.

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

/// Why a request to the client ([`elicit`], [`sample`]) failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskError {
    /// The client cannot do this (no such capability), or the wire cannot carry it.
    Unsupported(String),
    /// This call already asked the client as often as it may.
    LimitReached(String),
    /// The request is malformed, or the client failed or did not answer in time.
    Failed(String),
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unsupported(m) => write!(f, "the client cannot do this: {m}"),
            Self::LimitReached(m) => write!(f, "limit reached: {m}"),
            Self::Failed(m) => write!(f, "failed: {m}"),
        }
    }
}

impl std::error::Error for AskError {}

impl From<wit::AskError> for AskError {
    fn from(e: wit::AskError) -> Self {
        match e {
            wit::AskError::Unsupported(m) => Self::Unsupported(m),
            wit::AskError::LimitReached(m) => Self::LimitReached(m),
            wit::AskError::Failed(m) => Self::Failed(m),
        }
    }
}

/// `?` in a tool: the message is kept, as a failure.
impl From<AskError> for crate::ToolError {
    fn from(e: AskError) -> Self {
        crate::ToolError::failed(e)
    }
}

/// What the user did with an [`elicit`] form.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    /// Submitted, with the form's values.
    Accept(serde_json::Value),
    Decline,
    Cancel,
}

/// Asks the user for input through the client (MCP elicitation, form mode). `schema` is the
/// form: a JSON Schema object whose properties are strings, numbers, booleans or enums.
pub fn elicit(message: &str, schema: &serde_json::Value) -> Result<ElicitAnswer, AskError> {
    let answer = wit::elicit(message, &schema.to_string())?;
    Ok(match answer.action {
        wit::ElicitAction::Accept => {
            let content = answer
                .content
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|e| AskError::Failed(format!("the answer is not JSON: {e}")))?
                .unwrap_or(serde_json::Value::Null);
            ElicitAnswer::Accept(content)
        }
        wit::ElicitAction::Decline => ElicitAnswer::Decline,
        wit::ElicitAction::Cancel => ElicitAnswer::Cancel,
    })
}

/// Asks the client's model (MCP sampling). `request` is the `sampling/createMessage` params
/// (`messages`, `maxTokens`, ...); the answer is its result (`role`, `content`, `model`, ...).
pub fn sample(request: &serde_json::Value) -> Result<serde_json::Value, AskError> {
    let answer = wit::sample(&request.to_string())?;
    serde_json::from_str(&answer)
        .map_err(|e| AskError::Failed(format!("the answer is not JSON: {e}")))
}

/// Asks the client's model one question and returns the text of its answer.
pub fn sample_text(prompt: &str, max_tokens: u32) -> Result<String, AskError> {
    let answer = sample(&serde_json::json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }))?;
    Ok(answer["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}
