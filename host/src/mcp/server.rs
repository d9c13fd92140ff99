//! [`WardenServer`]: the state one MCP server shares across its transports and sessions (the
//! served registry, connected clients, input rounds, subscriptions, tasks), the swap of a
//! reload, and how a request's call runs (directly, or in 2026-07-28 rounds and tasks).

use super::context::{access_of, call_context, http_client, is_stateless};
use super::served::Served;
use super::session_tasks::required as task_required;
use super::{asks, convert, subscriptions, tasks};
use crate::runtime::CallContext;
use crate::runtime::LogLevel;
use crate::runtime::bindings::TaskSupport;
use crate::runtime::executor::CallReport;
use crate::runtime::plugin::CallFailure;
use crate::runtime::registry::Registry;
use futures::future::BoxFuture;
use rmcp::model;
use rmcp::service::{RequestContext, SubscriptionSink};
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex, RwLock};

/// The MCP server over a loaded [`Registry`]. Clones share state: a manifest reload swaps the
/// registry for every transport and session at once.
#[derive(Clone)]
pub struct WardenServer {
    pub(super) current: Arc<RwLock<Arc<Served>>>,
    /// Connected clients, told when the tool list changes.
    pub(super) peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    /// Open 2026-07-28 `subscriptions/listen` streams that asked for tool-list changes.
    pub(super) listeners: Arc<Mutex<Vec<Listener>>>,
    /// Lowest plugin log level forwarded to the client (`logging/setLevel`), per session
    /// ([`WardenServer::for_session`]).
    pub(super) min_level: Arc<AtomicU8>,
    /// Seals the request state of 2026-07-28 input rounds.
    pub(super) rounds: Arc<asks::rounds::Rounds>,
    /// Who hears of which resource's changes.
    pub(super) subscriptions: Arc<subscriptions::Subscriptions>,
    /// Calls running as tasks (2026-07-28 tasks extension).
    pub(super) tasks: Arc<tasks::Tasks>,
    /// The offered tool groups each conversation turned on; kept across reloads.
    pub(super) choices: Arc<super::groups::GroupChoices>,
}

impl WardenServer {
    pub fn new(registry: Arc<Registry>) -> Self {
        let events = registry.services().resource_events.clone();
        let server = Self {
            current: Arc::new(RwLock::new(Served::new(registry))),
            peers: Arc::default(),
            listeners: Arc::default(),
            min_level: Arc::new(AtomicU8::new(LogLevel::Info as u8)),
            rounds: Arc::default(),
            subscriptions: Arc::default(),
            tasks: Arc::default(),
            choices: Arc::default(),
        };
        // Reloads keep the same bus (see HostServices::new), so one forwarder serves them all.
        subscriptions::forward(
            &events,
            server.subscriptions.clone(),
            server.current.clone(),
        );
        server
    }

    /// The handler of one new MCP session: the same server, with a log level of the
    /// session's own (`logging/setLevel` of one client never changes what another hears).
    pub fn for_session(&self) -> Self {
        Self {
            min_level: Arc::new(AtomicU8::new(LogLevel::Info as u8)),
            ..self.clone()
        }
    }

    pub(super) fn served(&self) -> Arc<Served> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The registry being served.
    pub fn registry(&self) -> Arc<Registry> {
        self.served().registry.clone()
    }

    /// Serve `registry` from now on and tell every connected client that the tools changed.
    pub async fn replace(&self, registry: Arc<Registry>) {
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Served::new(registry);
        let peers: Vec<_> = self.peers.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut alive = Vec::new();
        for peer in peers {
            match peer.notify_tool_list_changed().await {
                Ok(()) => alive.push(peer),
                Err(e) => tracing::debug!("dropping a client that left: {e}"),
            }
        }
        *self.peers.lock().unwrap_or_else(|p| p.into_inner()) = alive;

        self.tell_listeners(None).await;
    }

    /// Tell the open `subscriptions/listen` streams that asked for it that the tool list
    /// changed: every stream, or only those of one conversation (a choice of `tool_groups`
    /// changes that conversation's list alone). Closed streams are dropped.
    pub(super) async fn tell_listeners(&self, conversation: Option<&str>) {
        let listeners: Vec<_> = self
            .listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|l| conversation.is_none_or(|c| *l.conversation == *c))
            .cloned()
            .collect();
        let mut closed = Vec::new();
        for listener in listeners {
            if let Err(e) = listener.sink.notify_tool_list_changed().await {
                tracing::debug!("dropping a closed subscription: {e}");
                closed.push(listener.stream);
            }
        }
        // Streams opened meanwhile stay.
        self.listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|l| !closed.contains(&l.stream));
    }
}

/// An open `subscriptions/listen` stream that hears of tool-list changes, and whose it is.
#[derive(Clone)]
pub(super) struct Listener {
    pub(super) stream: u64,
    /// [`Conversation::key`](crate::capabilities::conversation::Conversation::key) of the
    /// client that opened it.
    pub(super) conversation: Arc<str>,
    pub(super) sink: SubscriptionSink,
}

/// How long a task-supporting call runs before it becomes a task by itself (when the client
/// declared tasks): long enough that quick calls answer in their own request.
const TASK_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// The tool result an agent reads for a call's report.
pub(super) fn tool_result(report: CallReport) -> model::CallToolResult {
    match report.result {
        Ok(output) => convert::success(output),
        Err(failure) => convert::error(failure.message(&report.plugin)),
    }
}

/// A task's result: the tool's result (a tool error too); `failed` only when the plugin could
/// produce none (it crashed or ran out of memory), as the tasks extension reserves it.
pub(super) fn finish_task(
    ended: Result<Option<CallReport>, tokio::task::JoinError>,
) -> tasks::Finished {
    let failed = |message: String| {
        let error = McpError::internal_error(message, None);
        match serde_json::to_value(error) {
            Ok(serde_json::Value::Object(object)) => tasks::Finished::Failed(object),
            _ => tasks::Finished::Failed(model::JsonObject::new()),
        }
    };
    let report = match ended {
        Ok(Some(report)) => report,
        Ok(None) => return failed("the tool is gone (the manifest was reloaded)".into()),
        Err(e) => return failed(format!("the call failed: {e}")),
    };
    if let Err(failure @ (CallFailure::Crashed(_) | CallFailure::MemoryLimit(_))) = &report.result {
        return failed(failure.message(&report.plugin));
    }
    match serde_json::to_value(tool_result(report)) {
        Ok(serde_json::Value::Object(object)) => tasks::Finished::Completed(object),
        _ => failed("the result could not be encoded".into()),
    }
}

/// For entry points that never become tasks.
pub(super) fn not_a_task() -> McpError {
    McpError::internal_error("only a tool call can become a task", None)
}

impl WardenServer {
    /// Whether this call may become a task: the tool supports tasks, the request came on the
    /// 2026-07-28 wire from a client that declared them, and another task fits. A tool that
    /// runs only as a task refuses a client that did not declare them, before it runs.
    pub(super) fn task_offer(
        &self,
        support: TaskSupport,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<asks::rounds::Offer>, McpError> {
        let declared = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        if support == TaskSupport::Required && !is_stateless(context) {
            return Err(task_required());
        }
        if support == TaskSupport::Required && !declared {
            return Err(McpError::missing_required_client_capability(
                model::ClientCapabilities::builder().enable_tasks().build(),
            ));
        }
        let offered = support != TaskSupport::Never
            && declared
            && is_stateless(context)
            && self.tasks.has_room();
        Ok(offered.then_some(asks::rounds::Offer { after: TASK_AFTER }))
    }

    /// Run `start` for a request: directly on a session; through [`asks::rounds::Rounds`] on
    /// 2026-07-28, where a call that asks the client pauses until the client's retry.
    /// `request` is the method, the tool or prompt name (or URI) and the arguments, which bind
    /// a 2026-07-28 request state to its request; `retry` its `requestState` and
    /// `inputResponses`.
    pub(super) async fn run<T, F>(
        &self,
        context: &RequestContext<RoleServer>,
        request: (&'static str, &str, &str),
        retry: (Option<&str>, Option<&model::InputResponses>),
        offer: Option<asks::rounds::Offer>,
        start: F,
    ) -> Result<asks::rounds::Step<T>, McpError>
    where
        T: Send + 'static,
        F: FnOnce(CallContext) -> BoxFuture<'static, T>,
    {
        let (method, name, arguments) = request;
        let binding = asks::rounds::Binding {
            method,
            name: name.to_string(),
            arguments: arguments.to_string(),
            client: http_client(context),
        };
        let access = access_of(&self.served().registry, context);
        let call = call_context(&self.min_level, context, true, access);
        if !is_stateless(context) {
            return Ok(asks::rounds::Step::Done(start(call).await));
        }
        let retry = asks::rounds::Retry {
            state: retry.0,
            responses: retry.1,
            declared: context.client_capabilities(),
            cancelled: context.ct.clone(),
            offer,
        };
        self.rounds
            .serve(binding, retry, move |client, cancel| {
                let mut call = call;
                call.client_requests = Some(client);
                call.cancel = cancel;
                start(call)
            })
            .await
    }
}
