//! `warden:plugin/context`: progress, logs and cancellation of the call in progress. Log
//! and progress events are held to the call's budgets ([`super::budget`]).

use super::bindings::warden::plugin::context::{
    AskError, ElicitAction, ElicitAnswer, Host, LogLevel as WitLevel,
};
use super::bindings::warden::plugin::types;
use super::budget::{self, Verdict};
use super::state::{AskFailure, FormAnswer};
use super::state::{LogLevel, PluginState};
use crate::audit::Used;

impl types::Host for PluginState {}

impl Host for PluginState {
    async fn progress(&mut self, done: f64, total: Option<f64>, message: Option<String>) {
        let last = total.is_some_and(|t| done >= t);
        match self.events.progress(last) {
            Verdict::Pass { .. } => {
                if let Some(events) = &self.call.events {
                    events.progress(done, total, message.map(budget::cut)).await;
                }
            }
            Verdict::DropFirst => tracing::warn!(
                plugin = self.plugin(),
                "progress notifications of this call over budget ({} per call, {}/s); the rest are dropped",
                budget::PROGRESS_EVENTS,
                budget::RATE_PER_SECOND
            ),
            Verdict::Drop => {}
        }
    }

    async fn log(&mut self, level: WitLevel, message: String) {
        let level = match level {
            WitLevel::Debug => LogLevel::Debug,
            WitLevel::Info => LogLevel::Info,
            WitLevel::Warning => LogLevel::Warning,
            WitLevel::Error => LogLevel::Error,
        };
        let plugin = self.plugin().to_string();
        let notify = match self.events.log(message.len()) {
            Verdict::Pass { notify } => notify,
            Verdict::DropFirst => {
                let note = format!(
                    "log messages of this call over budget ({} messages or {} bytes per call); the rest are dropped",
                    budget::LOG_MESSAGES,
                    budget::LOG_BYTES
                );
                tracing::warn!(plugin, "{note}");
                if let Some(events) = &self.call.events {
                    events.log(&plugin, LogLevel::Warning, note).await;
                }
                return;
            }
            Verdict::Drop => return,
        };
        let message = budget::cut(message);
        match level {
            LogLevel::Debug => tracing::debug!(plugin, "{message}"),
            LogLevel::Info => tracing::info!(plugin, "{message}"),
            LogLevel::Warning => tracing::warn!(plugin, "{message}"),
            LogLevel::Error => tracing::error!(plugin, "{message}"),
        }
        if notify && let Some(events) = &self.call.events {
            events.log(&plugin, level, message).await;
        }
    }

    async fn cancelled(&mut self) -> bool {
        self.call.cancel.is_cancelled()
    }

    async fn elicit(
        &mut self,
        message: String,
        requested_schema: String,
    ) -> Result<ElicitAnswer, AskError> {
        let client = self.ask_client("client.elicit", message.len())?;
        let answer = client
            .elicit(message, requested_schema)
            .await
            .map_err(ask_error)?;
        Ok(match answer {
            FormAnswer::Accept(content) => ElicitAnswer {
                action: ElicitAction::Accept,
                content: Some(content),
            },
            FormAnswer::Decline => ElicitAnswer {
                action: ElicitAction::Decline,
                content: None,
            },
            FormAnswer::Cancel => ElicitAnswer {
                action: ElicitAction::Cancel,
                content: None,
            },
        })
    }

    async fn sample(&mut self, request: String) -> Result<String, AskError> {
        let client = self.ask_client("client.sample", request.len())?;
        client.sample(request).await.map_err(ask_error)
    }
}

fn ask_error(f: AskFailure) -> AskError {
    match f {
        AskFailure::Unsupported(m) => AskError::Unsupported(m),
        AskFailure::Failed(m) => AskError::Failed(m),
    }
}

impl PluginState {
    /// The client to ask, within the call's budget; each request is an audit line.
    fn ask_client(
        &mut self,
        capability: &str,
        bytes: usize,
    ) -> Result<std::sync::Arc<dyn super::state::ClientRequests>, AskError> {
        if !self.events.ask() {
            return Err(AskError::LimitReached(format!(
                "a call may ask the client at most {} times",
                budget::CLIENT_REQUESTS
            )));
        }
        let client = self.call.client_requests.clone().ok_or_else(|| {
            AskError::Unsupported("this call came from no MCP client (the CLI)".into())
        })?;
        self.scope.used(&Used {
            capability,
            target: "the client",
            bytes: Some(bytes as u64),
            ..Used::default()
        });
        Ok(client)
    }
}
