//! `warden:plugin/context`: progress, logs and cancellation of the call in progress.

use super::bindings::warden::plugin::context::{Host, LogLevel as WitLevel};
use super::bindings::warden::plugin::types;
use super::state::{LogLevel, PluginState};

impl types::Host for PluginState {}

impl Host for PluginState {
    async fn progress(&mut self, done: f64, total: Option<f64>, message: Option<String>) {
        if let Some(events) = &self.call.events {
            events.progress(done, total, message).await;
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
        match level {
            LogLevel::Debug => tracing::debug!(plugin, "{message}"),
            LogLevel::Info => tracing::info!(plugin, "{message}"),
            LogLevel::Warning => tracing::warn!(plugin, "{message}"),
            LogLevel::Error => tracing::error!(plugin, "{message}"),
        }
        if let Some(events) = &self.call.events {
            events.log(&plugin, level, message).await;
        }
    }

    async fn cancelled(&mut self) -> bool {
        self.call.cancel.is_cancelled()
    }
}
