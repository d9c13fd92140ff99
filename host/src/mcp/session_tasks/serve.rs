//! Serving the requests of 2025-11-25 tasks (see `mod.rs`) over the task store of the
//! 2026-07-28 extension.

use super::method::{Method, PREFIX};
use crate::mcp::asks::peer::{PeerAsker, RELATED_TASK, related_task};
use crate::mcp::context::{access_of, bound_session, call_context, http_client, is_stateless};
use crate::mcp::server::{WardenServer, finish_task};
use crate::mcp::tasks;
use crate::runtime::bindings::TaskSupport;
use rmcp::model::{CustomResult, DetailedTask, ErrorCode, JsonObject, TaskPayload, TaskStatus};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Tasks per `tasks/list` page.
const PAGE: usize = 100;

#[derive(Deserialize)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    /// `{ttl?}`: the requested TTL is read and the server's own kept ([`tasks::TTL`]).
    task: JsonObject,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskParams {
    task_id: String,
}

#[derive(Deserialize, Default)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

fn parse<T: for<'de> Deserialize<'de>>(
    method: Method,
    params: Option<Value>,
) -> Result<T, McpError> {
    serde_json::from_value(params.unwrap_or_else(|| json!({}))).map_err(|e| {
        McpError::invalid_params(
            format!(
                "the params of {} do not match MCP 2025-11-25: {e}",
                method.wire()
            ),
            None,
        )
    })
}

/// Who may see a task of this request: the authenticated HTTP client and its session.
fn owner(context: &RequestContext<RoleServer>) -> Option<String> {
    context.extensions.get::<axum::http::request::Parts>()?;
    let client = http_client(context).unwrap_or_default();
    let session = bound_session(context).unwrap_or_default();
    Some(format!("{client}\n{session}"))
}

/// Serve one request of 2025-11-25 tasks.
pub async fn serve(
    server: &WardenServer,
    method: Method,
    params: Option<Value>,
    context: RequestContext<RoleServer>,
) -> Result<CustomResult, McpError> {
    // The 2026-07-28 wire has its own tasks (the extension) and no such methods.
    if is_stateless(&context) {
        return Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {PREFIX}{}", method.wire()),
            None,
        ));
    }
    let owner = owner(&context);
    let owner = owner.as_deref();
    let tasks = &server.tasks;
    let result = match method {
        Method::Call => return call(server, parse(method, params)?, context),
        Method::Get => {
            let TaskParams { task_id } = parse(method, params)?;
            task(&tasks.get(owner, &task_id)?)
        }
        Method::Cancel => {
            let TaskParams { task_id } = parse(method, params)?;
            task(&tasks.cancel_running(owner, &task_id)?)
        }
        Method::List => {
            let ListParams { cursor } = parse(method, params)?;
            let (page, next) = tasks.list(owner, cursor.as_deref(), PAGE)?;
            let mut result = json!({ "tasks": page.iter().map(task).collect::<Vec<_>>() });
            if let Some(next) = next {
                result["nextCursor"] = next.into();
            }
            result
        }
        Method::Result => {
            let TaskParams { task_id } = parse(method, params)?;
            let ended = tokio::select! {
                ended = tasks.ended(owner, &task_id) => ended?,
                () = context.ct.cancelled() => {
                    return Err(McpError::internal_error("the request was cancelled", None));
                }
            };
            return outcome(&task_id, ended);
        }
    };
    Ok(CustomResult::new(result))
}

/// `tools/call` with `task`: start the call as a task and answer with its handle.
fn call(
    server: &WardenServer,
    params: CallParams,
    context: RequestContext<RoleServer>,
) -> Result<CustomResult, McpError> {
    let _ = params.task;
    let served = server.served();
    let name = params.name;
    let Some(entry) = served.registry.tool(&name) else {
        return Err(McpError::invalid_params(
            format!("unknown tool \"{name}\"; tools/list shows the tools this server serves"),
            None,
        ));
    };
    if entry.info.task == TaskSupport::Never {
        return Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "the tool \"{name}\" does not run as a task (execution.taskSupport \"forbidden\"): call it without `task`"
            ),
            None,
        ));
    }
    if !server.tasks.has_room() {
        return Err(McpError::internal_error(
            format!(
                "this server keeps {} tasks at most; wait for some to end, or call the tool without `task`",
                tasks::MAX_TASKS
            ),
            None,
        ));
    }
    let arguments = match &params.arguments {
        Some(args) => serde_json::to_string(args).map_err(|e| {
            McpError::invalid_params(format!("arguments are not serializable: {e}"), None)
        })?,
        None => "{}".to_string(),
    };
    let id = tasks::new_id();
    let access = access_of(&served.registry, &context);
    let mut call = call_context(&server.min_level, &context, true, access);
    // The task outlives its request: only tasks/cancel (or the call's time limit) ends it.
    let cancel = CancellationToken::new();
    call.cancel = cancel.clone();
    call.client_requests = Some(Arc::new(PeerAsker {
        peer: context.peer.clone(),
        task: Some(id.clone()),
    }));
    call.groups = Some(
        server
            .choices
            .chosen(&crate::mcp::context::conversation_of(&context)),
    );
    let asking = call.wait.clone();
    let registry = served.registry.clone();
    let run = tokio::spawn(async move { registry.call(&name, &arguments, call).await });
    let detail =
        server
            .tasks
            .start_session(id, owner(&context), run, (cancel, asking), finish_task);
    Ok(CustomResult::new(json!({ "task": task(&detail) })))
}

/// The 2025-11-25 status: a tool result with `isError` is a failed task in that revision.
fn status(detail: &DetailedTask) -> &'static str {
    match &detail.payload {
        TaskPayload::Working => "working",
        TaskPayload::InputRequired { .. } => "input_required",
        TaskPayload::Completed { result } if result.get("isError") == Some(&Value::Bool(true)) => {
            "failed"
        }
        TaskPayload::Completed { .. } => "completed",
        TaskPayload::Failed { .. } => "failed",
        TaskPayload::Cancelled => "cancelled",
        _ => match detail.status() {
            TaskStatus::Working => "working",
            _ => "failed",
        },
    }
}

/// A task as 2025-11-25 shows it (`Task`).
fn task(detail: &DetailedTask) -> Value {
    let base = &detail.task;
    let mut task = json!({
        "taskId": base.task_id,
        "status": status(detail),
        "createdAt": base.created_at,
        "lastUpdatedAt": base.last_updated_at,
        "ttl": base.ttl_ms,
    });
    if let Some(poll) = base.poll_interval_ms {
        task["pollInterval"] = poll.into();
    }
    let message = match &detail.payload {
        TaskPayload::Failed { error } => error.get("message").and_then(Value::as_str),
        TaskPayload::InputRequired { .. } => Some("waiting for the client's answer"),
        TaskPayload::Cancelled => Some("cancelled by tasks/cancel"),
        _ => None,
    };
    if let Some(message) = message {
        task["statusMessage"] = message.into();
    }
    task
}

/// What `tasks/result` answers for a task that ended: what the call itself would have.
fn outcome(id: &str, ended: DetailedTask) -> Result<CustomResult, McpError> {
    match ended.payload {
        TaskPayload::Completed { mut result } => {
            let meta = result
                .entry("_meta")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            if let Value::Object(meta) = meta {
                meta.extend(related_task(id).0);
            }
            Ok(CustomResult::new(Value::Object(result)))
        }
        TaskPayload::Failed { error } => Err(serde_json::from_value::<McpError>(Value::Object(
            error,
        ))
        .unwrap_or_else(|e| McpError::internal_error(format!("the task failed: {e}"), None))),
        _ => Err(McpError::invalid_params(
            format!("task \"{id}\" was cancelled (tasks/cancel): it has no result"),
            Some(json!({ RELATED_TASK: { "taskId": id } })),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::Task;

    fn detail(payload: TaskPayload) -> DetailedTask {
        let task = Task::new("ab", TaskStatus::Working, "t0", "t1")
            .with_ttl_ms(900_000)
            .with_poll_interval_ms(500);
        DetailedTask::new(task, payload)
    }

    #[test]
    fn a_task_has_the_2025_11_25_shape() {
        let shown = task(&detail(TaskPayload::Working));
        assert_eq!(
            shown,
            json!({"taskId": "ab", "status": "working", "createdAt": "t0",
                   "lastUpdatedAt": "t1", "ttl": 900_000, "pollInterval": 500})
        );
        let asking = task(&detail(TaskPayload::InputRequired {
            input_requests: Default::default(),
        }));
        assert_eq!(asking["status"], "input_required");
    }

    #[test]
    fn a_tool_error_is_a_failed_task_whose_result_is_the_tool_result() {
        let mut result = JsonObject::new();
        result.insert("isError".into(), true.into());
        result.insert("content".into(), json!([]));
        let ended = detail(TaskPayload::Completed { result });
        assert_eq!(task(&ended)["status"], "failed");
        let given = outcome("ab", ended).expect("a result").0;
        assert_eq!(given["isError"], true);
        assert_eq!(given["_meta"][RELATED_TASK]["taskId"], "ab");
    }

    #[test]
    fn a_crashed_task_gives_its_error_and_a_cancelled_one_none() {
        let mut error = JsonObject::new();
        error.insert("code".into(), (-32603).into());
        error.insert("message".into(), "crashed".into());
        let failed = detail(TaskPayload::Failed { error });
        assert_eq!(task(&failed)["statusMessage"], "crashed");
        let given = outcome("ab", failed).expect_err("an error");
        assert_eq!(given.code, ErrorCode::INTERNAL_ERROR);
        let cancelled = outcome("ab", detail(TaskPayload::Cancelled)).expect_err("no result");
        assert_eq!(cancelled.code, ErrorCode::INVALID_PARAMS);
    }
}
