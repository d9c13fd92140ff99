//! A call's log messages and progress passed on under its budgets ([`super::budget`]): to the
//! host log, and to the client that made the call. One path for every way a plugin reports:
//! `warden:plugin/context` (`context.rs`) and the notifications of an MCP server component
//! (`mcp_server/`).

use super::budget::{self, EventBudget, Verdict};
use super::call::{CallEvents, LogLevel};
use std::sync::Arc;

/// Pass on one progress report of `plugin`'s call.
pub async fn progress(
    budget: &mut EventBudget,
    events: Option<&Arc<dyn CallEvents>>,
    plugin: &str,
    (done, total): (f64, Option<f64>),
    message: Option<String>,
) {
    let last = total.is_some_and(|t| done >= t);
    match budget.progress(last) {
        Verdict::Pass { .. } => {
            if let Some(events) = events {
                events.progress(done, total, message.map(budget::cut)).await;
            }
        }
        Verdict::DropFirst => tracing::warn!(
            plugin,
            "progress notifications of this call over budget ({} per call, {}/s); the rest are dropped",
            budget::PROGRESS_EVENTS,
            budget::RATE_PER_SECOND
        ),
        Verdict::Drop => {}
    }
}

/// Pass on one log message of `plugin`'s call.
pub async fn log(
    budget: &mut EventBudget,
    events: Option<&Arc<dyn CallEvents>>,
    plugin: &str,
    level: LogLevel,
    message: String,
) {
    let notify = match budget.log(message.len()) {
        Verdict::Pass { notify } => notify,
        Verdict::DropFirst => {
            let note = format!(
                "log messages of this call over budget ({} messages or {} bytes per call); the rest are dropped",
                budget::LOG_MESSAGES,
                budget::LOG_BYTES
            );
            tracing::warn!(plugin, "{note}");
            if let Some(events) = events {
                events.log(plugin, LogLevel::Warning, note).await;
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
    if notify && let Some(events) = events {
        events.log(plugin, level, message).await;
    }
}
