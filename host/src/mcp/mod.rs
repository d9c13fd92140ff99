//! The MCP face of Warden: one rmcp [`ServerHandler`] over all loaded plugins. It serves the
//! aggregated tool list, routes calls, forwards resources, progress, logs and cancellation,
//! and declares only the capabilities it serves. Transports live beside it (`stdio`).

// MCP logging is deprecated for 2026-07-28 (SEP-2577) but is part of 2025-11-25, which we
// serve; plugin logs reach clients that negotiated it.
#![allow(deprecated)]

mod asks;
pub(crate) mod convert;
pub mod http;
pub mod limits;
pub mod oauth;
mod session_owners;
mod session_tasks;
pub mod stdio;
mod subscriptions;
mod tasks;

use crate::capabilities::conversation::{Conversation, Owner};
use crate::runtime::LogLevel;
use crate::runtime::asks::{Capabilities, ClientRequests};
use crate::runtime::bindings::TaskSupport;
use crate::runtime::executor::CallReport;
use crate::runtime::executor::CompletionTarget;
use crate::runtime::plugin::CallFailure;
use crate::runtime::registry::{Backend, Registry};
use crate::runtime::state::{CallContext, CallEvents};
use futures::future::BoxFuture;
use rmcp::model::{
    self, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, LoggingLevel, LoggingMessageNotificationParam,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
    SetLevelRequestParams, SubscriptionFilter,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// MCP request methods (any revision we serve).
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

/// The MCP server over a loaded [`Registry`]. Clones share state: a manifest reload swaps the
/// registry for every transport and session at once.
#[derive(Clone)]
pub struct WardenServer {
    current: Arc<RwLock<Arc<Served>>>,
    /// Connected clients, told when the tool list changes.
    peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    /// Open 2026-07-28 `subscriptions/listen` streams that asked for tool-list changes.
    listeners: Arc<Mutex<Vec<(u64, SubscriptionSink)>>>,
    /// Lowest plugin log level forwarded to the client (`logging/setLevel`), per session
    /// ([`WardenServer::for_session`]).
    min_level: Arc<AtomicU8>,
    /// Seals the request state of 2026-07-28 input rounds.
    rounds: Arc<asks::rounds::Rounds>,
    /// Who hears of which resource's changes.
    subscriptions: Arc<subscriptions::Subscriptions>,
    /// Calls running as tasks (2026-07-28 tasks extension).
    tasks: Arc<tasks::Tasks>,
}

/// One registry and its MCP tool list. Calls in flight keep the one they started on.
struct Served {
    registry: Arc<Registry>,
    tools: Vec<model::Tool>,
}

impl Served {
    fn new(registry: Arc<Registry>) -> Arc<Self> {
        let tools = registry.tools().iter().map(convert::tool).collect();
        Arc::new(Self { registry, tools })
    }

    fn serves_resources(&self) -> bool {
        self.registry.plugins().iter().any(|p| p.serves_resources())
    }

    /// Tasks exist when a tool may run as one.
    fn serves_tasks(&self) -> bool {
        self.registry
            .tools()
            .iter()
            .any(|t| t.info.task != TaskSupport::Never)
    }

    fn serves_prompts(&self) -> bool {
        !self.registry.prompts().is_empty()
    }

    /// Completions exist for prompt arguments and resource-template variables.
    fn serves_completions(&self) -> bool {
        self.serves_prompts()
            || self
                .registry
                .plugins()
                .iter()
                .any(|p| matches!(&p.backend, Backend::Wasm(w) if !w.templates.is_empty()))
    }
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

    fn served(&self) -> Arc<Served> {
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

        let listeners: Vec<_> = self
            .listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let mut closed = Vec::new();
        for (id, sink) in listeners {
            if let Err(e) = sink.notify_tool_list_changed().await {
                tracing::debug!("dropping a closed subscription: {e}");
                closed.push(id);
            }
        }
        // Streams opened meanwhile stay.
        self.listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(id, _)| !closed.contains(id));
    }
}

/// Methods that 2026-07-28 removed; a request of that revision naming one gets -32601 (which
/// the HTTP transport turns into 404), not the invalid-params answer of a malformed request.
const REMOVED_IN_2026: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// True for a request of the stateless revisions (2026-07-28 on): it carries its protocol
/// version in `_meta` and has no initialize handshake behind it.
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|v| !v.has_initialize())
}

/// Which plugin logs a call forwards to its client.
enum LogFloor {
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

fn log_level(level: LoggingLevel) -> LogLevel {
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
fn client_identity(context: &RequestContext<RoleServer>) -> Option<String> {
    let reported = context
        .client_info()
        .map(|info| format!("{} {}", info.name, info.version));
    let named = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<http::ClientIdentity>())
        .map(|id| id.0.to_string());
    match (named, reported) {
        (Some(n), Some(r)) => Some(format!("{n} ({r})")),
        (n, r) => n.or(r),
    }
}

/// The transport a request came in on, with the HTTP session it belongs to, for the audit log.
fn session_of(context: &RequestContext<RoleServer>) -> String {
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
/// client's own (`session_owners`); the header alone names nothing.
fn bound_session(context: &RequestContext<RoleServer>) -> Option<&str> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .extensions
        .get::<session_owners::BoundSession>()
        .map(|s| &*s.0)
}

/// A failed prompts/get or completion/complete as JSON-RPC: the plugin's own "bad arguments"
/// or "no such" is the client's -32602; anything else is the server's -32603.
fn request_error(failure: crate::runtime::plugin::CallFailure, plugin: &str) -> McpError {
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
fn call_context(
    server: &WardenServer,
    context: &RequestContext<RoleServer>,
    ask: bool,
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
                LogFloor::Session(server.min_level.clone())
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
    }
}

/// The conversation a request belongs to: its MCP session (ended when the session's
/// transport closes), else the authenticated client of a stateless request; stdio has one.
fn conversation_of(context: &RequestContext<RoleServer>) -> Conversation {
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
fn http_client(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<http::ClientIdentity>())
        .map(|id| id.0.to_string())
}

/// How long a task-supporting call runs before it becomes a task by itself (when the client
/// declared tasks): long enough that quick calls answer in their own request.
const TASK_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// The tool result an agent reads for a call's report.
fn tool_result(report: CallReport) -> model::CallToolResult {
    match report.result {
        Ok(output) => convert::success(output),
        Err(failure) => convert::error(failure.message(&report.plugin)),
    }
}

/// A task's result: the tool's result (a tool error too); `failed` only when the plugin could
/// produce none (it crashed or ran out of memory), as the tasks extension reserves it.
fn finish_task(ended: Result<Option<CallReport>, tokio::task::JoinError>) -> tasks::Finished {
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
fn not_a_task() -> McpError {
    McpError::internal_error("only a tool call can become a task", None)
}

impl WardenServer {
    /// Whether this call may become a task: the tool supports tasks, the request came on the
    /// 2026-07-28 wire from a client that declared them, and another task fits. A tool that
    /// runs only as a task refuses a client that did not declare them, before it runs.
    fn task_offer(
        &self,
        support: TaskSupport,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<asks::rounds::Offer>, McpError> {
        let declared = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        if support == TaskSupport::Required && !is_stateless(context) {
            return Err(session_tasks::required());
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
    async fn run<T, F>(
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
        let call = call_context(self, context, true);
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

impl ServerHandler for WardenServer {
    fn get_info(&self) -> ServerConfig {
        let builder = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed();
        let served = self.served();
        let mut capabilities = if served.serves_resources() {
            builder
                .enable_resources()
                .enable_resources_subscribe()
                .build()
        } else {
            builder.build()
        };
        // Declared only when a plugin serves them: an undeclared method answers -32601.
        if served.serves_prompts() {
            capabilities.prompts = Some(model::PromptsCapability::default());
        }
        if served.serves_completions() {
            capabilities.completions = Some(model::JsonObject::new());
        }
        if served.serves_tasks() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    model::TASKS_EXTENSION_ID.to_string(),
                    model::JsonObject::new(),
                );
        }
        ServerConfig::new(capabilities)
            .with_server_info(model::Implementation::new("warden", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Warden serves sandboxed plugin tools. Tool errors say what to do next; an 'access denied' \
                 error names the manifest grant an administrator would have to add.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.served().tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<model::Tool> {
        self.served().tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.as_ref();
        let served = self.served();
        let Some(entry) = served.registry.tool(name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool \"{name}\"; tools/list shows the tools this server serves"),
                None,
            ));
        };
        let offer = self.task_offer(entry.info.task, &context)?;
        let arguments = match &request.arguments {
            Some(args) => serde_json::to_string(args).map_err(|e| {
                McpError::invalid_params(format!("arguments are not serializable: {e}"), None)
            })?,
            None => "{}".to_string(),
        };
        let bound = arguments.clone();
        let registry = served.registry.clone();
        let tool = name.to_string();
        let step = self
            .run(
                &context,
                ("tools/call", name, &bound),
                (
                    request.request_state.as_deref(),
                    request.input_responses.as_ref(),
                ),
                offer,
                move |call| Box::pin(async move { registry.call(&tool, &arguments, call).await }),
            )
            .await?;
        let report = match step {
            asks::rounds::Step::Done(report) => report,
            asks::rounds::Step::Input(more) => return Ok(more.into()),
            asks::rounds::Step::Task(escalated) => {
                let task = self
                    .tasks
                    .start(http_client(&context), escalated, finish_task);
                return Ok(CallToolResponse::Task(model::CreateTaskResult::new(task)));
            }
        };
        match report {
            Some(report) => Ok(tool_result(report).into()),
            None => Err(McpError::invalid_params(
                format!("unknown tool \"{name}\""),
                None,
            )),
        }
    }

    async fn get_task(
        &self,
        request: model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<model::GetTaskResult, McpError> {
        let owner = http_client(&context);
        let task = self.tasks.get(owner.as_deref(), &request.task_id)?;
        Ok(model::GetTaskResult::new(task))
    }

    async fn update_task(
        &self,
        request: model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let owner = http_client(&context);
        self.tasks
            .update(owner.as_deref(), &request.task_id, &request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let owner = http_client(&context);
        self.tasks.cancel(owner.as_deref(), &request.task_id)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let served = self.served();
        if !served.serves_resources() {
            return Err(McpError::method_not_found::<
                model::ListResourcesRequestMethod,
            >());
        }
        let resources = served
            .registry
            .plugins()
            .iter()
            .filter_map(|p| match &p.backend {
                Backend::Wasm(w) => Some(w.resources.iter().map(convert::resource)),
                Backend::Native => None,
            })
            .flatten()
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let served = self.served();
        if !served.serves_resources() {
            return Err(McpError::method_not_found::<
                model::ListResourceTemplatesRequestMethod,
            >());
        }
        let templates = served
            .registry
            .plugins()
            .iter()
            .filter_map(|p| match &p.backend {
                Backend::Wasm(w) => Some(w.templates.iter().map(convert::template)),
                Backend::Native => None,
            })
            .flatten()
            .collect();
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let served = self.served();
        if !served.serves_resources() {
            return Err(McpError::method_not_found::<model::ReadResourceRequestMethod>());
        }
        let uri = request.uri.as_str();
        // SEP-2164: the error names the URI in `data.uri`.
        let data = || Some(serde_json::json!({ "uri": uri }));
        let not_found =
            || McpError::resource_not_found(format!("no plugin serves the resource {uri}"), data());
        let registry = served.registry.clone();
        let target = uri.to_string();
        let step = self
            .run(
                &context,
                ("resources/read", uri, ""),
                (
                    request.request_state.as_deref(),
                    request.input_responses.as_ref(),
                ),
                None,
                move |call| Box::pin(async move { registry.read_resource(&target, call).await }),
            )
            .await?;
        let report = match step {
            asks::rounds::Step::Done(report) => report.ok_or_else(not_found)?,
            asks::rounds::Step::Input(more) => return Ok(more.into()),
            asks::rounds::Step::Task(_) => return Err(not_a_task()),
        };
        match report.result {
            Ok(list) => Ok(ReadResourceResult::new(convert::resource_contents(list)).into()),
            Err(crate::runtime::plugin::CallFailure::Tool(
                crate::runtime::bindings::ToolError::NotFound(m),
            )) => Err(McpError::resource_not_found(m, data())),
            Err(failure) => Err(McpError::internal_error(
                failure.message(&report.plugin),
                None,
            )),
        }
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.min_level
            .store(log_level(request.level) as u8, Ordering::Relaxed);
        Ok(())
    }

    /// 2026-07-28 clients learn of tool-list changes (manifest reloads) and of changes of the
    /// resources they name (`resourceSubscriptions`, kept to URIs a plugin serves) by
    /// subscription. rmcp narrows this to what the client asked for.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::builder().tools_list_changed().build();
        if let Some(uris) = &requested.resource_subscriptions {
            let served = self.served();
            let served_uris: Vec<String> = uris
                .iter()
                .filter(|uri| served.registry.resource_owner(uri).is_some())
                .take(subscriptions::MAX_SUBSCRIPTIONS)
                .cloned()
                .collect();
            if !served_uris.is_empty() {
                accepted.resource_subscriptions = Some(served_uris);
            }
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        static STREAMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let stream = STREAMS.fetch_add(1, Ordering::Relaxed);
        // Resource subscriptions first: when they are refused, nothing of this stream stays.
        let listen = match &context.accepted().resource_subscriptions {
            Some(uris) => Some(
                self.subscriptions
                    .listen(
                        uris,
                        context.sink(),
                        &Owner::client(http_client(context.request_context()).as_deref()),
                    )
                    .map_err(|e| McpError::invalid_params(e.to_string(), None))?,
            ),
            None => None,
        };
        if context.accepted().tools_list_changed == Some(true) {
            self.listeners
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((stream, context.sink().clone()));
        }
        context.cancelled().await;
        // The stream ended: nothing is sent to it any more.
        self.listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(id, _)| *id != stream);
        if let Some(listen) = listen {
            self.subscriptions.end(listen);
        }
        Ok(())
    }

    async fn subscribe(
        &self,
        request: model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let uri = request.uri.as_str();
        if self.served().registry.resource_owner(uri).is_none() {
            return Err(McpError::resource_not_found(
                format!(
                    "no plugin serves the resource {uri}; resources/list and resources/templates/list show what can be subscribed to"
                ),
                Some(serde_json::json!({ "uri": uri })),
            ));
        }
        self.subscriptions
            .subscribe(
                uri,
                context.peer.clone(),
                Owner::client(http_client(&context).as_deref()),
            )
            .map_err(|e| McpError::invalid_params(e.to_string(), None))
    }

    async fn unsubscribe(
        &self,
        request: model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions
            .unsubscribe(request.uri.as_str(), &context.peer);
        Ok(())
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.peers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(context.peer);
    }

    /// rmcp hands over a request whose method it knows but whose params do not parse (say,
    /// `tools/call` with `arguments: [1]`) as a custom request. The only custom methods are
    /// the internal names of 2025-11-25 tasks ([`session_tasks`]); otherwise a known method
    /// here means bad params (-32602), and anything else is -32601.
    async fn on_custom_request(
        &self,
        request: model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<model::CustomResult, McpError> {
        if let Some(method) = session_tasks::Method::of(&request.method) {
            return session_tasks::serve(self, method, request.params, context).await;
        }
        let method = request.method;
        if is_stateless(&context) && REMOVED_IN_2026.contains(&method.as_str()) {
            return Err(McpError::new(
                model::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "{method} does not exist in MCP 2026-07-28 (stateless: no handshake, no sessions); server/discover describes this server"
                ),
                None,
            ));
        }
        if KNOWN_METHODS.contains(&method.as_str()) {
            Err(McpError::invalid_params(
                format!(
                    "the params of {method} do not match the MCP schema (tools/call needs a string `name` and an object `arguments`)"
                ),
                None,
            ))
        } else {
            Err(McpError::new(
                model::ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
                None,
            ))
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let served = self.served();
        if !served.serves_prompts() {
            return Err(McpError::method_not_found::<model::ListPromptsRequestMethod>());
        }
        let prompts = served
            .registry
            .prompts()
            .iter()
            .map(convert::prompt)
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let served = self.served();
        if !served.serves_prompts() {
            return Err(McpError::method_not_found::<model::GetPromptRequestMethod>());
        }
        let name = request.name.as_str();
        let arguments = convert::string_pairs(request.arguments.as_ref()).map_err(|key| {
            McpError::invalid_params(format!("prompt argument `{key}` must be a string"), None)
        })?;
        let bound = serde_json::to_string(&arguments).unwrap_or_default();
        let registry = served.registry.clone();
        let prompt = name.to_string();
        let step = self
            .run(
                &context,
                ("prompts/get", name, &bound),
                (
                    request.request_state.as_deref(),
                    request.input_responses.as_ref(),
                ),
                None,
                move |call| {
                    Box::pin(async move { registry.get_prompt(&prompt, &arguments, call).await })
                },
            )
            .await?;
        let report = match step {
            asks::rounds::Step::Done(report) => report.ok_or_else(|| {
                McpError::invalid_params(
                    format!("unknown prompt \"{name}\"; prompts/list shows the prompts this server serves"),
                    None,
                )
            })?,
            asks::rounds::Step::Input(more) => return Ok(more.into()),
            asks::rounds::Step::Task(_) => return Err(not_a_task()),
        };
        report
            .result
            .map(|prompt| convert::prompt_result(prompt).into())
            .map_err(|f| request_error(f, &report.plugin))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let served = self.served();
        if !served.serves_completions() {
            return Err(McpError::method_not_found::<model::CompleteRequestMethod>());
        }
        let target = match &request.r#ref {
            model::Reference::Prompt(p) => CompletionTarget::Prompt(&p.name),
            model::Reference::Resource(r) => CompletionTarget::ResourceTemplate(&r.uri),
            _ => {
                return Err(McpError::invalid_params(
                    "completion/complete takes a ref/prompt or ref/resource reference",
                    None,
                ));
            }
        };
        let chosen: Vec<(String, String)> = request
            .context
            .as_ref()
            .and_then(|c| c.arguments.as_ref())
            .map(|a| a.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let report = served
            .registry
            .complete(
                target,
                &request.argument.name,
                &request.argument.value,
                &chosen,
                call_context(self, &context, false),
            )
            .await
            .ok_or_else(|| {
                McpError::invalid_params(
                    "no plugin serves that prompt or resource template; prompts/list and resources/templates/list show what can be completed",
                    None,
                )
            })?;
        let done = report
            .result
            .map_err(|f| request_error(f, &report.plugin))?;
        convert::completion(done)
            .map(CompleteResult::new)
            .map_err(|m| McpError::internal_error(m, None))
    }
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
