//! The MCP methods: [`WardenServer`]'s rmcp [`ServerHandler`]. It serves the aggregated tool
//! list, routes calls, forwards resources, prompts, completions, subscriptions and tasks, and
//! declares only the capabilities it serves.

use super::context::{
    access_of, call_context, client_identity, conversation_of, http_client, is_stateless,
    log_level, request_error, session_of,
};
use super::server::{Listener, WardenServer, finish_task, not_a_task, tool_result};
use super::session_tasks::{self, Method as SessionTaskMethod};
use super::{asks, convert, groups, subscriptions};
use crate::capabilities::conversation::Owner;
use crate::runtime::bindings::TaskSupport;
use crate::runtime::executor::CompletionTarget;
use crate::runtime::registry::{Backend, GROUPS_TOOL};
use rmcp::model::{
    self, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
    SetLevelRequestParams, SubscriptionFilter,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use std::sync::atomic::Ordering;

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

/// Methods that 2026-07-28 removed; a request of that revision naming one gets -32601 (which
/// the HTTP transport turns into 404), not the invalid-params answer of a malformed request.
const REMOVED_IN_2026: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

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
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let chosen = self.choices.chosen(&conversation_of(&context));
        let served = self.served();
        let access = access_of(&served.registry, &context);
        Ok(ListToolsResult::with_all_items(
            served.tools_for(&chosen, &access),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<model::Tool> {
        self.served().tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.as_ref();
        let served = self.served();
        let conversation = conversation_of(&context);
        if name == GROUPS_TOOL && served.groups_tool.is_some() {
            let client = client_identity(&context);
            let session = session_of(&context);
            let (result, changed) = groups::call(
                &served.registry,
                &self.choices,
                &conversation,
                request.arguments.as_ref(),
                (client.as_deref(), Some(&session)),
                &access_of(&served.registry, &context),
            );
            if changed {
                if let Err(e) = context.peer.notify_tool_list_changed().await {
                    tracing::debug!("tools/list_changed not sent: {e}");
                }
                // A stateless client hears it on its own listen streams.
                self.tell_listeners(Some(conversation.key())).await;
            }
            return Ok(result.into());
        }
        let chosen = self.choices.chosen(&conversation);
        let task = match served.registry.tool(name) {
            Some(entry) => entry.info.task,
            // Refused by the registry's gate with the group to turn on.
            None if served.registry.is_hidden(name) => TaskSupport::Never,
            None => {
                return Err(McpError::invalid_params(
                    format!(
                        "unknown tool \"{name}\"; tools/list shows the tools this server serves"
                    ),
                    None,
                ));
            }
        };
        let offer = self.task_offer(task, &context)?;
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
                move |mut call| {
                    call.groups = Some(chosen);
                    Box::pin(async move { registry.call(&tool, &arguments, call).await })
                },
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let served = self.served();
        if !served.serves_resources() {
            return Err(McpError::method_not_found::<
                model::ListResourcesRequestMethod,
            >());
        }
        let access = access_of(&served.registry, &context);
        let resources = served
            .registry
            .plugins()
            .iter()
            .filter(|p| access.resources_of(p.name(), "the resources").is_ok())
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let served = self.served();
        if !served.serves_resources() {
            return Err(McpError::method_not_found::<
                model::ListResourceTemplatesRequestMethod,
            >());
        }
        let access = access_of(&served.registry, &context);
        let templates = served
            .registry
            .plugins()
            .iter()
            .filter(|p| access.resources_of(p.name(), "the resources").is_ok())
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
        let served = self.served();
        let access = access_of(&served.registry, context.request_context());
        if let Some(uris) = &context.accepted().resource_subscriptions
            && let Some((_, refusal)) = uris
                .iter()
                .find_map(|uri| served.registry.resource_refused(uri, &access))
        {
            return Err(McpError::invalid_params(refusal.to_string(), None));
        }
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
            let conversation = conversation_of(context.request_context());
            self.listeners
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Listener {
                    stream,
                    conversation: conversation.key().into(),
                    sink: context.sink().clone(),
                });
        }
        context.cancelled().await;
        // The stream ended: nothing is sent to it any more.
        self.listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|l| l.stream != stream);
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
        let served = self.served();
        if let Some((_, refusal)) = served
            .registry
            .resource_refused(uri, &access_of(&served.registry, &context))
        {
            return Err(McpError::invalid_params(refusal.to_string(), None));
        }
        if served.registry.resource_owner(uri).is_none() {
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
        if let Some(method) = SessionTaskMethod::of(&request.method) {
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let served = self.served();
        if !served.serves_prompts() {
            return Err(McpError::method_not_found::<model::ListPromptsRequestMethod>());
        }
        let access = access_of(&served.registry, &context);
        let prompts = served
            .registry
            .prompts()
            .iter()
            .filter(|p| served.registry.prompt_visible(p, &access))
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
                call_context(
                    &self.min_level,
                    &context,
                    false,
                    access_of(&served.registry, &context),
                ),
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
