//! What the MCP handler reads from one request: who sent it (client, session, conversation),
//! on which revision, and the [`CallContext`] a call it starts runs with (progress and logs
//! to that client, its questions to that client).

use super::asks;
use super::identity::{BoundSession, ClientIdentity};
use crate::capabilities::conversation::Conversation;
use crate::manifest::Access;
use crate::runtime::LogLevel;
use crate::runtime::asks::{Capabilities, ClientRequests};
use crate::runtime::registry::Registry;
use crate::runtime::{CallContext, CallEvents};
use futures::future::BoxFuture;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// True for a request of the stateless revisions (2026-07-28 on): it carries its protocol
/// version in `_meta` and has no initialize handshake behind it.
pub(super) fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|v| !v.has_initialize())
}

/// Which plugin logs a call forwards to its client.
pub(super) enum LogFloor {
    /// The session's level, set by `logging/setLevel` (initialize-era sessions).
    Session(Arc<AtomicU8>),
    /// The level in the request's own `_meta` (2026-07-28); none means no logs at all.
    Request(Option<LogLevel>),
}

impl LogFloor {
    fn admits(&self, level: LogLevel) -> bool {
        match self {
            Self::Session(min) => level as u8 >= min.load(Ordering::Relaxed),
            Self::Request(min) => min.is_some_and(|min| level >= min),
        }
    }
}

pub(super) fn log_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info | LoggingLevel::Notice => LogLevel::Info,
        LoggingLevel::Warning => LogLevel::Warning,
        _ => LogLevel::Error,
    }
}

/// Progress and log notifications of one call, sent to the client that made it.
struct PeerEvents {
    peer: Peer<RoleServer>,
    progress_token: Option<ProgressToken>,
    log_floor: LogFloor,
}

impl CallEvents for PeerEvents {
    fn progress(
        &self,
        done: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()> {
        let Some(token) = self.progress_token.clone() else {
            return Box::pin(async {});
        };
        let peer = self.peer.clone();
        Box::pin(async move {
            let mut param = ProgressNotificationParam::new(token, done);
            param.total = total;
            param.message = message;
            if let Err(e) = peer.notify_progress(param).await {
                tracing::debug!("progress notification not sent: {e}");
            }
        })
    }

    fn log(&self, plugin: &str, level: LogLevel, message: String) -> BoxFuture<'static, ()> {
        if !self.log_floor.admits(level) {
            return Box::pin(async {});
        }
        let peer = self.peer.clone();
        let level = match level {
            LogLevel::Debug => LoggingLevel::Debug,
            LogLevel::Info => LoggingLevel::Info,
            LogLevel::Warning => LoggingLevel::Warning,
            LogLevel::Error => LoggingLevel::Error,
        };
        let param = LoggingMessageNotificationParam::new(level, serde_json::Value::String(message))
            .with_logger(plugin);
        Box::pin(async move {
            if let Err(e) = peer.notify_logging_message(param).await {
                tracing::debug!("log notification not sent: {e}");
            }
        })
    }
}

/// Who is calling, for the audit log: the HTTP client's name (from its bearer token) and the
/// implementation the client reported in `initialize` (or in the request's own `_meta`).
pub(super) fn client_identity(context: &RequestContext<RoleServer>) -> Option<String> {
    let reported = context
        .client_info()
        .map(|info| format!("{} {}", info.name, info.version));
    let named = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ClientIdentity>())
        .map(|id| id.0.to_string());
    match (named, reported) {
        (Some(n), Some(r)) => Some(format!("{n} ({r})")),
        (n, r) => n.or(r),
    }
}

/// The transport a request came in on, with the HTTP session it belongs to, for the audit log.
pub(super) fn session_of(context: &RequestContext<RoleServer>) -> String {
    if context
        .extensions
        .get::<axum::http::request::Parts>()
        .is_none()
    {
        return "stdio".to_string();
    }
    match bound_session(context) {
        // A digest: it tells sessions apart in the log without handing out the id.
        Some(id) => format!(
            "http session {}",
            &crate::audit::digest(id.as_bytes())[..12]
        ),
        None => "http".to_string(),
    }
}

/// The MCP session of an HTTP request: only one the transport found to be the requesting
/// client's own (`session_owners.rs`); the header alone names nothing.
pub(super) fn bound_session(context: &RequestContext<RoleServer>) -> Option<&str> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .extensions
        .get::<BoundSession>()
        .map(|s| &*s.0)
}

/// A failed prompts/get or completion/complete as JSON-RPC: the plugin's own "bad arguments"
/// or "no such" is the client's -32602; anything else is the server's -32603.
pub(super) fn request_error(
    failure: crate::runtime::plugin::CallFailure,
    plugin: &str,
) -> McpError {
    use crate::runtime::bindings::ToolError;
    use crate::runtime::plugin::CallFailure;
    match failure {
        CallFailure::Tool(ToolError::InvalidArguments(m) | ToolError::NotFound(m)) => {
            McpError::invalid_params(m, None)
        }
        other => McpError::internal_error(other.message(plugin), None),
    }
}

/// The context of a call a request starts. On a session (2025-11-25) the plugin's questions
/// go to the session's client as requests; a stateless request's client is set by
/// [`asks::rounds::Rounds`]. `ask` false: the entry may not ask at all (completions).
pub(super) fn call_context(
    min_level: &Arc<AtomicU8>,
    context: &RequestContext<RoleServer>,
    ask: bool,
    access: Access,
) -> CallContext {
    let client = client_identity(context);
    let client_requests: Option<Arc<dyn ClientRequests>> =
        (ask && !is_stateless(context)).then(|| {
            Arc::new(asks::peer::PeerAsker {
                peer: context.peer.clone(),
                task: None,
            }) as _
        });
    CallContext {
        events: Some(Arc::new(PeerEvents {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            log_floor: if is_stateless(context) {
                LogFloor::Request(context.meta.log_level().map(log_level))
            } else {
                LogFloor::Session(min_level.clone())
            },
        })),
        client_requests,
        capabilities: context
            .client_capabilities()
            .filter(|_| ask)
            .map(|caps| Capabilities {
                elicitation: asks::elicitation_modes(&caps).0,
                elicitation_url: asks::elicitation_modes(&caps).1,
                sampling: caps.sampling.is_some(),
                roots: caps.roots.is_some(),
            })
            .unwrap_or_default(),
        wait: Arc::default(),
        cancel: context.ct.clone(),
        client: client.map(Arc::from),
        session: Some(Arc::from(session_of(context))),
        trace: crate::trace::for_call(context),
        conversation: conversation_of(context),
        groups: None,
        access,
    }
}

/// What the caller's role lets it use under `registry`'s roles: an HTTP client by its
/// authenticated name, stdio and unauthenticated HTTP as the local operator.
pub(super) fn access_of(registry: &Registry, context: &RequestContext<RoleServer>) -> Access {
    registry.access(http_client(context).as_deref())
}

/// The conversation a request belongs to: its MCP session (ended when the session's
/// transport closes), else the authenticated client of a stateless request; stdio has one.
pub(super) fn conversation_of(context: &RequestContext<RoleServer>) -> Conversation {
    if context
        .extensions
        .get::<axum::http::request::Parts>()
        .is_none()
    {
        return Conversation::default();
    }
    let client = http_client(context);
    match bound_session(context) {
        Some(id) => {
            let peer = context.peer.clone();
            let alive = Arc::new(move || !peer.is_transport_closed());
            Conversation::session(id, client.as_deref(), alive)
        }
        None => Conversation::client(client.as_deref()),
    }
}

/// What binds a paused call to the requests that may resume it: the authenticated HTTP client.
pub(super) fn http_client(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ClientIdentity>())
        .map(|id| id.0.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stateless_request_gets_logs_only_at_the_level_it_asked_for() {
        assert!(!LogFloor::Request(None).admits(LogLevel::Error));
        let warning = LogFloor::Request(Some(LogLevel::Warning));
        assert!(warning.admits(LogLevel::Warning) && warning.admits(LogLevel::Error));
        assert!(!warning.admits(LogLevel::Info));
    }

    #[test]
    fn a_session_follows_its_set_level() {
        let level = Arc::new(AtomicU8::new(LogLevel::Info as u8));
        let floor = LogFloor::Session(level.clone());
        assert!(floor.admits(LogLevel::Info) && !floor.admits(LogLevel::Debug));
        level.store(log_level(LoggingLevel::Debug) as u8, Ordering::Relaxed);
        assert!(floor.admits(LogLevel::Debug));
    }
}
