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

/// An opaque id of the conversation this call belongs to: one MCP session on the 2025-11-25
/// wire, the authenticated client on the stateless 2026-07-28 wire, empty for the one local
/// client (stdio, the CLI). [`crate::state`] is already scoped by it; a plugin needs it only
/// to tell conversations apart in what it sends elsewhere.
pub fn conversation() -> String {
    wit::conversation()
}

/// True once the client has cancelled the current call. Long loops should check it and
/// return early; a call that ignores cancellation is interrupted by the host.
pub fn cancelled() -> bool {
    wit::cancelled()
}

/// Go on as a task: the client gets a task handle now, the rest of this call runs in the
/// background and the client polls for its result (or cancels it). True if the call is a task
/// (now or already); false if it cannot be one: the tool is not marked
/// [`crate::TaskSupport::Optional`] or `Required`, the client did not declare tasks, or the
/// wire has none. The call goes on either way. Ask what must be asked before: on the
/// 2026-07-28 wire asks before this point are rounds of the request, replayed from the
/// start; asks after it wait for the client's `tasks/update`. On a 2025-11-25 session the
/// client decides instead: a call it made as a task is one from its start (true), any other
/// call never becomes one (false); asks there are requests to the client either way.
pub fn as_task() -> bool {
    wit::as_task()
}

/// Why a request to the client ([`ask`], [`elicit`], [`sample`], [`list_roots`]) failed.
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
    /// Submitted, with the form's values (`Null` for [`elicit_url`]: the user agreed to open
    /// the page).
    Accept(serde_json::Value),
    Decline,
    Cancel,
}

/// One question for the client, for [`ask`].
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// Ask the user: a message and a form (a JSON Schema object whose properties are strings,
    /// numbers, booleans or enums).
    Elicit {
        message: String,
        schema: serde_json::Value,
    },
    /// Send the user to a page (URL-mode elicitation): an `https://` URL (`http://` only on a
    /// loopback host), shown to the user, so never with a secret in it.
    ElicitUrl { message: String, url: String },
    /// Ask the client's model: `sampling/createMessage` params (`messages`, `maxTokens`, ...).
    Sample(serde_json::Value),
    /// Ask for the client's roots.
    ListRoots,
}

/// The client's answer to a [`Question`], of the same kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Elicit(ElicitAnswer),
    /// The sampling result (`role`, `content`, `model`, `stopReason`).
    Sample(serde_json::Value),
    Roots(Vec<Root>),
}

/// One of the client's roots.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Root {
    pub uri: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// What the client of this call can be asked (the capabilities it declared).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// Form elicitation ([`elicit`]).
    pub elicitation: bool,
    /// URL-mode elicitation ([`elicit_url`]).
    pub elicitation_url: bool,
    pub sampling: bool,
    pub roots: bool,
}

/// The client's capabilities: ask only what it can answer (else [`AskError::Unsupported`]).
pub fn client_capabilities() -> ClientCapabilities {
    let caps = wit::capabilities();
    ClientCapabilities {
        elicitation: caps.elicitation,
        elicitation_url: caps.elicitation_url,
        sampling: caps.sampling,
        roots: caps.roots,
    }
}

/// Asks the client several questions at once, each under a key of your choosing (unique);
/// the answers come back under the same keys, in the same order. The time spent waiting does
/// not count against the call's time limit.
///
/// Ask first, act after. On a 2025-11-25 session the call simply waits here. On the stateless
/// 2026-07-28 wire the client answers between two of its requests: this run of the call gets
/// an error from `ask` and is discarded, and the client's retry runs the call again from the
/// start, where this same `ask` returns the answers at once. So what the tool does before an
/// ask may run twice, and a tool must ask the same questions in the same order each time.
pub fn ask(questions: Vec<(String, Question)>) -> Result<Vec<(String, Answer)>, AskError> {
    let requests: Vec<(String, wit::InputRequest)> = questions
        .into_iter()
        .map(|(key, q)| {
            let request = match q {
                Question::Elicit { message, schema } => {
                    wit::InputRequest::Elicit(wit::ElicitForm {
                        message,
                        requested_schema: schema.to_string(),
                    })
                }
                Question::ElicitUrl { message, url } => {
                    wit::InputRequest::ElicitUrl(wit::ElicitUrl { message, url })
                }
                Question::Sample(params) => wit::InputRequest::Sample(params.to_string()),
                Question::ListRoots => wit::InputRequest::ListRoots,
            };
            (key, request)
        })
        .collect();
    wit::ask(&requests)?
        .into_iter()
        .map(|(key, answer)| Ok((key, read_answer(answer)?)))
        .collect()
}

fn json(text: &str) -> Result<serde_json::Value, AskError> {
    serde_json::from_str(text).map_err(|e| AskError::Failed(format!("the answer is not JSON: {e}")))
}

fn read_answer(answer: wit::InputAnswer) -> Result<Answer, AskError> {
    Ok(match answer {
        wit::InputAnswer::Elicit(form) => Answer::Elicit(match form.action {
            wit::ElicitAction::Accept => ElicitAnswer::Accept(
                form.content
                    .as_deref()
                    .map(json)
                    .transpose()?
                    .unwrap_or(serde_json::Value::Null),
            ),
            wit::ElicitAction::Decline => ElicitAnswer::Decline,
            wit::ElicitAction::Cancel => ElicitAnswer::Cancel,
        }),
        wit::InputAnswer::Sample(result) => Answer::Sample(json(&result)?),
        wit::InputAnswer::Roots(roots) => Answer::Roots(
            serde_json::from_str(&roots)
                .map_err(|e| AskError::Failed(format!("the roots are not a list: {e}")))?,
        ),
    })
}

/// Asks one question (see [`ask`]).
fn ask_one(question: Question) -> Result<Answer, AskError> {
    ask(vec![("q".to_string(), question)])?
        .into_iter()
        .next()
        .map(|(_, answer)| answer)
        .ok_or_else(|| AskError::Failed("the client gave no answer".into()))
}

/// Asks the user for input through the client (MCP elicitation, form mode). `schema` is the
/// form: a JSON Schema object whose properties are strings, numbers, booleans or enums.
pub fn elicit(message: &str, schema: &serde_json::Value) -> Result<ElicitAnswer, AskError> {
    match ask_one(Question::Elicit {
        message: message.to_string(),
        schema: schema.clone(),
    })? {
        Answer::Elicit(answer) => Ok(answer),
        _ => Err(AskError::Failed(
            "the client answered another question".into(),
        )),
    }
}

/// Sends the user to a web page (MCP elicitation, URL mode), for what must not pass through
/// the client: a third party's sign-in, a payment. [`ElicitAnswer::Accept`] means the user
/// agreed to open it, not that they finished there; check that on your side.
pub fn elicit_url(message: &str, url: &str) -> Result<ElicitAnswer, AskError> {
    match ask_one(Question::ElicitUrl {
        message: message.to_string(),
        url: url.to_string(),
    })? {
        Answer::Elicit(answer) => Ok(answer),
        _ => Err(AskError::Failed(
            "the client answered another question".into(),
        )),
    }
}

/// Asks the client's model (MCP sampling). `request` is the `sampling/createMessage` params
/// (`messages`, `maxTokens`, ...); the answer is its result (`role`, `content`, `model`, ...).
pub fn sample(request: &serde_json::Value) -> Result<serde_json::Value, AskError> {
    match ask_one(Question::Sample(request.clone()))? {
        Answer::Sample(result) => Ok(result),
        _ => Err(AskError::Failed(
            "the client answered another question".into(),
        )),
    }
}

/// The client's roots (MCP `roots/list`).
pub fn list_roots() -> Result<Vec<Root>, AskError> {
    match ask_one(Question::ListRoots)? {
        Answer::Roots(roots) => Ok(roots),
        _ => Err(AskError::Failed(
            "the client answered another question".into(),
        )),
    }
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
