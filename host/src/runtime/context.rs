//! `warden:plugin/context`: progress, logs and cancellation of the call in progress. Log
//! and progress events are held to the call's budgets ([`super::budget`]).

use super::bindings::warden::plugin::context::{Host, LogLevel as WitLevel};
use super::bindings::warden::plugin::types;
use super::budget::{self, Verdict};
use super::state::{LogLevel, PluginState};

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
}
