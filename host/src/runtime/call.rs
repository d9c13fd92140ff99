//! The call in progress, as the runtime is handed it: who asked ([`CallContext`]) and where
//! its progress and log messages go ([`CallEvents`]).

use super::asks::{Capabilities, ClientRequests, WaitClock};
use futures::future::BoxFuture;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Log levels a plugin can write at (mirrors `warden:plugin/context.log-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Warning,
    Error,
}

/// Where a running call's progress and log messages go (the MCP layer implements it, so the
/// runtime does not depend on a transport).
pub trait CallEvents: Send + Sync {
    fn progress(
        &self,
        done: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()>;
    fn log(&self, plugin: &str, level: LogLevel, message: String) -> BoxFuture<'static, ()>;
}

/// The call in progress.
/// The offered tool groups one conversation turned on, as `plugin/group`.
pub type Chosen = Arc<std::collections::BTreeSet<String>>;

#[derive(Clone, Default)]
pub struct CallContext {
    /// The client to ask (the plugin's questions and the host's approvals); `None`: the
    /// call came from no MCP client, so nobody can be asked.
    pub client_requests: Option<Arc<dyn ClientRequests>>,
    /// What that client declared it can be asked.
    pub capabilities: Capabilities,
    /// Time spent waiting for the client's answers, which the time limit does not count.
    pub wait: Arc<WaitClock>,
    pub events: Option<Arc<dyn CallEvents>>,
    pub cancel: CancellationToken,
    /// The MCP client's identity, for audit lines.
    pub client: Option<Arc<str>>,
    /// The transport and session the call came in on, for audit lines.
    pub session: Option<Arc<str>>,
    /// The call's trace, when traces are exported.
    pub trace: Option<crate::audit::CallTrace>,
    /// The conversation the call belongs to: what browser sessions are scoped by.
    pub conversation: crate::capabilities::conversation::Conversation,
    /// The offered tool groups the caller turned on (`plugin/group`); `None`: none.
    pub groups: Option<Chosen>,
    /// What the caller's role lets it use, and the grants it narrows.
    pub access: crate::manifest::Access,
}
