//! `warden:plugin/context`: progress, logs and cancellation of the call in progress. Log
//! and progress events are held to the call's budgets ([`super::budget`]).

use super::asks::{Answer, AskFailure, ClientRequests, FormAnswer, Question, Questions};
use super::bindings::warden::plugin::context::{
    AskError, ClientCapabilities, ElicitAction, ElicitAnswer, Host, InputAnswer, InputRequest,
    LogLevel as WitLevel,
};
use super::bindings::warden::plugin::types;
use super::budget;
use super::call::LogLevel;
use super::notify;
use super::store_data::PluginState;
use crate::audit::Used;

impl types::Host for PluginState {}

impl Host for PluginState {
    async fn progress(&mut self, done: f64, total: Option<f64>, message: Option<String>) {
        let plugin = self.grants.plugin.clone();
        let events = self.call.events.clone();
        notify::progress(
            &mut self.events,
            events.as_ref(),
            &plugin,
            (done, total),
            message,
        )
        .await;
    }

    async fn log(&mut self, level: WitLevel, message: String) {
        let level = match level {
            WitLevel::Debug => LogLevel::Debug,
            WitLevel::Info => LogLevel::Info,
            WitLevel::Warning => LogLevel::Warning,
            WitLevel::Error => LogLevel::Error,
        };
        let plugin = self.grants.plugin.clone();
        let events = self.call.events.clone();
        notify::log(&mut self.events, events.as_ref(), &plugin, level, message).await;
    }

    async fn conversation(&mut self) -> String {
        self.call.conversation.key().to_string()
    }

    async fn cancelled(&mut self) -> bool {
        self.call.cancel.is_cancelled()
    }

    async fn capabilities(&mut self) -> ClientCapabilities {
        let caps = self.call.capabilities;
        ClientCapabilities {
            elicitation: caps.elicitation,
            elicitation_url: caps.elicitation_url,
            sampling: caps.sampling,
            roots: caps.roots,
        }
    }

    async fn ask(
        &mut self,
        requests: Vec<(String, InputRequest)>,
    ) -> Result<Vec<(String, InputAnswer)>, AskError> {
        let questions = questions(requests)?;
        let client = self.ask_client(&questions)?;
        let wait = self.call.wait.clone();
        let answers = {
            let _waiting = wait.wait();
            client.ask(questions).await.map_err(ask_error)?
        };
        Ok(answers
            .into_iter()
            .map(|(key, answer)| (key, input_answer(answer)))
            .collect())
    }

    async fn as_task(&mut self) -> bool {
        let Some(client) = &self.call.client_requests else {
            return false;
        };
        let task = client.as_task();
        if task {
            self.scope.used(&Used {
                capability: "client.task",
                target: "the client",
                ..Used::default()
            });
        }
        task
    }
}

/// The plugin's requests as questions: keys unique and non-empty.
fn questions(requests: Vec<(String, InputRequest)>) -> Result<Questions, AskError> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(requests.len());
    if requests.is_empty() {
        return Err(AskError::Failed("ask needs at least one request".into()));
    }
    for (key, request) in requests {
        if key.is_empty()
            || key.len() > 64
            || key.starts_with("warden_")
            || !seen.insert(key.clone())
        {
            return Err(AskError::Failed(format!(
                "request keys must be unique, 1 to 64 bytes long and not start with `warden_`; `{key}` is not"
            )));
        }
        let question = match request {
            InputRequest::Elicit(form) => Question::Elicit {
                message: form.message,
                schema: form.requested_schema,
            },
            InputRequest::ElicitUrl(link) => Question::ElicitUrl {
                url: checked_url(&link.url)?,
                message: link.message,
            },
            InputRequest::Sample(params) => Question::Sample(params),
            InputRequest::ListRoots => Question::ListRoots,
        };
        out.push((key, question));
    }
    Ok(out)
}

/// Longest URL a plugin may send the user to.
const MAX_URL: usize = 2048;

/// A URL the user may be sent to: https, or http on a loopback host (a local sign-in helper),
/// absolute, without credentials in it, at most [`MAX_URL`] bytes.
fn checked_url(raw: &str) -> Result<String, AskError> {
    let refuse = |why: &str| {
        Err(AskError::Failed(format!(
            "cannot send the user to this URL: {why}; give an absolute https:// URL of at most {MAX_URL} bytes"
        )))
    };
    if raw.len() > MAX_URL {
        return refuse("it is too long");
    }
    let Ok(url) = url::Url::parse(raw) else {
        return refuse("it is not an absolute URL");
    };
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if !(url.scheme() == "https" || (url.scheme() == "http" && loopback)) {
        return refuse("its scheme is not https (http only on a loopback host)");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return refuse("it carries credentials");
    }
    Ok(url.to_string())
}

fn input_answer(answer: Answer) -> InputAnswer {
    match answer {
        Answer::Elicit(form) => InputAnswer::Elicit(match form {
            FormAnswer::Accept(content) => ElicitAnswer {
                action: ElicitAction::Accept,
                content: Some(content),
            },
            FormAnswer::Opened => ElicitAnswer {
                action: ElicitAction::Accept,
                content: None,
            },
            FormAnswer::Decline => ElicitAnswer {
                action: ElicitAction::Decline,
                content: None,
            },
            FormAnswer::Cancel => ElicitAnswer {
                action: ElicitAction::Cancel,
                content: None,
            },
        }),
        Answer::Sample(result) => InputAnswer::Sample(result),
        Answer::Roots(roots) => InputAnswer::Roots(roots),
    }
}

fn ask_error(f: AskFailure) -> AskError {
    match f {
        AskFailure::Unsupported(m) => AskError::Unsupported(m),
        AskFailure::Failed(m) => AskError::Failed(m),
    }
}

impl PluginState {
    /// The client to ask, within the call's budget (each question counts); each question is
    /// an audit line.
    fn ask_client(
        &mut self,
        questions: &Questions,
    ) -> Result<std::sync::Arc<dyn ClientRequests>, AskError> {
        for _ in questions {
            if !self.events.ask() {
                return Err(AskError::LimitReached(format!(
                    "a call may ask the client at most {} questions",
                    budget::CLIENT_REQUESTS
                )));
            }
        }
        let client = self.call.client_requests.clone().ok_or_else(|| {
            AskError::Unsupported("this call came from no MCP client (the CLI)".into())
        })?;
        for (_, question) in questions {
            self.scope.used(&Used {
                capability: question.audit_name(),
                target: "the client",
                bytes: Some(question.bytes() as u64),
                ..Used::default()
            });
        }
        Ok(client)
    }
}
