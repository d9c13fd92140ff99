//! The JSON glue of 2025-11-25 tasks, applied by both transports before rmcp parses a request
//! and after it answers one. rmcp's types know only the 2026-07-28 tasks: they would drop a
//! `tools/call`'s `params.task`, send `tasks/get` and `tasks/cancel` to the extension's
//! handlers, and have no field for the `tasks` capability or a tool's `execution`. So:
//!
//! - a request of a session (no protocol version in its `_meta`: 2026-07-28 requests carry
//!   one) for `tasks/*`, or a `tools/call` with `task`, is renamed to its internal
//!   [`super::Method`], which rmcp hands over whole as a custom request;
//! - the answer to `initialize` (when it agreed on 2025-11-25 and a tool may run as a task)
//!   gains `capabilities.tasks`, and the answer to `tools/list` each tool's
//!   `execution.taskSupport`.
//!
//! Nothing else is touched, and a message that does not parse passes as it came.

use super::method::Method;
use crate::mcp::WardenServer;
use crate::runtime::bindings::TaskSupport;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The revision whose tasks these are.
const REVISION: &str = "2025-11-25";
/// The `_meta` key of a 2026-07-28 request's protocol version.
const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// The most of an `initialize` or `tools/list` answer read to patch it.
const MAX_ANSWER: usize = 64 * 1024 * 1024;

/// What an answer needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patch {
    /// `capabilities.tasks`.
    Initialize,
    /// `execution.taskSupport` on each tool.
    ToolsList,
}

/// Rename a session's task request to its internal method. Returns whether `message` changed
/// and what its answer needs.
pub fn inbound(message: &mut Value) -> (bool, Option<Patch>) {
    let Some(object) = message.as_object_mut() else {
        return (false, None);
    };
    if !object.contains_key("id") {
        return (false, None);
    }
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        return (false, None);
    };
    let params = object.get("params");
    let stateless = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(PROTOCOL_VERSION_META))
        .is_some();
    if stateless {
        return (false, None);
    }
    match method {
        "initialize" => return (false, Some(Patch::Initialize)),
        "tools/list" => return (false, Some(Patch::ToolsList)),
        "tools/call"
            if params
                .and_then(|p| p.get("task"))
                .is_none_or(Value::is_null) =>
        {
            return (false, None);
        }
        _ => {}
    }
    match Method::internal(method) {
        Some(internal) => {
            object.insert("method".into(), internal.into());
            (true, None)
        }
        None => (false, None),
    }
}

/// Add what 2025-11-25 tasks need to an answer. `serves_tasks`: some tool may run as a task;
/// `support`: a tool's task support. Returns whether `message` changed.
pub fn outbound(
    message: &mut Value,
    patch: Patch,
    serves_tasks: bool,
    support: impl Fn(&str) -> Option<TaskSupport>,
) -> bool {
    let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
        return false;
    };
    match patch {
        Patch::Initialize => {
            if !serves_tasks || result.get("protocolVersion") != Some(&json!(REVISION)) {
                return false;
            }
            let Some(capabilities) = result
                .get_mut("capabilities")
                .and_then(Value::as_object_mut)
            else {
                return false;
            };
            capabilities.insert(
                "tasks".into(),
                json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }),
            );
            true
        }
        Patch::ToolsList => {
            let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
                return false;
            };
            let mut changed = false;
            for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                let Some(task) = tool.get("name").and_then(Value::as_str).and_then(&support) else {
                    continue;
                };
                // Absent means "forbidden" (2025-11-25): every list costs a model tokens on
                // every turn, so only tools that do run as tasks say so.
                let support = match task {
                    TaskSupport::Never => continue,
                    TaskSupport::Optional => "optional",
                    TaskSupport::Required => "required",
                };
                tool.insert("execution".into(), json!({ "taskSupport": support }));
                changed = true;
            }
            changed
        }
    }
}

/// [`outbound`] against what `server` serves now.
fn patch_answer(message: &mut Value, patch: Patch, server: &WardenServer) -> bool {
    let registry = server.registry();
    let serves_tasks = server.served().serves_tasks();
    outbound(message, patch, serves_tasks, |name| {
        registry.tool(name).map(|t| t.info.task)
    })
}

/// Whether a line may be one [`inbound`] acts on: most lines are parsed no further.
fn may_concern(line: &[u8]) -> bool {
    const NEEDLES: [&[u8]; 4] = [b"tasks/", b"tools/call", b"tools/list", b"initialize"];
    NEEDLES
        .iter()
        .any(|needle| line.windows(needle.len()).any(|w| w == *needle))
}

/// The answers a stdio session waits to patch, by request id.
#[derive(Default, Clone)]
pub struct Pending(Arc<Mutex<HashMap<String, Patch>>>);

impl Pending {
    /// A client's line as rmcp should read it; `None`: as it came.
    pub fn request(&self, line: &[u8]) -> Option<Vec<u8>> {
        if !may_concern(line) {
            return None;
        }
        let mut message: Value = serde_json::from_slice(line).ok()?;
        let (changed, patch) = inbound(&mut message);
        if let (Some(patch), Some(id)) = (patch, message.get("id")) {
            self.0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id.to_string(), patch);
        }
        changed.then(|| serde_json::to_vec(&message).ok()).flatten()
    }

    /// rmcp's line as the client should read it; `None`: as it came.
    pub fn answer(&self, line: &[u8], server: &WardenServer) -> Option<Vec<u8>> {
        let mut pending = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if pending.is_empty() {
            return None;
        }
        let mut message: Value = serde_json::from_slice(line).ok()?;
        let is_answer = message.get("result").is_some() || message.get("error").is_some();
        let id = message.get("id").filter(|_| is_answer)?.to_string();
        let patch = pending.remove(&id)?;
        drop(pending);
        if !patch_answer(&mut message, patch, server) {
            return None;
        }
        let mut out = serde_json::to_vec(&message).ok()?;
        out.push(b'\n');
        Some(out)
    }
}

/// The HTTP half: rename the request in a POST body, and patch the answer (a JSON body or an
/// SSE stream, which rmcp ends after the answer) when it needs it. `max_body` is the body
/// limit of `[server.http]`.
pub async fn http(
    State((server, max_body)): State<(WardenServer, usize)>,
    request: Request,
    next: Next,
) -> Response {
    if *request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, max_body).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body larger than {max_body} bytes ([server.http] max_body)"),
        )
            .into_response();
    };
    let mut patch = None;
    let mut bytes = bytes;
    if may_concern(&bytes)
        && let Ok(mut message) = serde_json::from_slice::<Value>(&bytes)
    {
        let (changed, wanted) = inbound(&mut message);
        patch = wanted;
        if changed && let Ok(renamed) = serde_json::to_vec(&message) {
            bytes = Bytes::from(renamed);
            parts.headers.remove(header::CONTENT_LENGTH);
        }
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    match patch {
        Some(patch) if response.status() == StatusCode::OK => {
            patch_response(response, patch, &server).await
        }
        _ => response,
    }
}

async fn patch_response(response: Response, patch: Patch, server: &WardenServer) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_ANSWER).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let sse = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let patched = if sse {
        patch_events(&bytes, patch, server)
    } else {
        serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|mut message| {
                patch_answer(&mut message, patch, server)
                    .then(|| serde_json::to_vec(&message).ok())
                    .flatten()
            })
    };
    let Some(patched) = patched else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(patched))
}

/// Patch the answer among the `data:` lines of an SSE stream.
fn patch_events(bytes: &[u8], patch: Patch, server: &WardenServer) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut changed = false;
    let mut out = String::with_capacity(text.len() + 128);
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\r', '\n']);
        let ending = &line[body.len()..];
        if let Some(data) = body.strip_prefix("data:")
            && let Ok(mut message) = serde_json::from_str::<Value>(data.trim_start())
            && patch_answer(&mut message, patch, server)
            && let Ok(json) = serde_json::to_string(&message)
        {
            out.push_str("data: ");
            out.push_str(&json);
            out.push_str(ending);
            changed = true;
            continue;
        }
        out.push_str(line);
    }
    changed.then(|| out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    }

    #[test]
    fn a_sessions_task_requests_get_their_internal_names() {
        for method in ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"] {
            let mut message = request(method, json!({"taskId": "ab"}));
            assert_eq!(inbound(&mut message), (true, None));
            assert_eq!(message["method"], format!("warden/2025-11-25/{method}"));
        }
        let mut call = request("tools/call", json!({"name": "t", "task": {"ttl": 1000}}));
        assert_eq!(inbound(&mut call), (true, None));
        assert_eq!(call["method"], "warden/2025-11-25/tools/call");
        assert_eq!(call["params"]["task"]["ttl"], 1000);
    }

    #[test]
    fn everything_else_passes_as_it_came() {
        let plain = request("tools/call", json!({"name": "t"}));
        let null_task = request("tools/call", json!({"name": "t", "task": null}));
        let update = request("tasks/update", json!({"taskId": "ab"}));
        // 2026-07-28 requests carry their revision; their tasks are the extension's.
        let stateless = request(
            "tasks/get",
            json!({"taskId": "ab", "_meta": {PROTOCOL_VERSION_META: "2026-07-28"}}),
        );
        let notification = json!({"jsonrpc": "2.0", "method": "tasks/get"});
        for original in [
            plain,
            null_task,
            update,
            stateless,
            notification,
            json!([1]),
        ] {
            let mut message = original.clone();
            assert_eq!(inbound(&mut message), (false, None));
            assert_eq!(message, original);
        }
        let mut list = request("tools/list", json!({}));
        assert_eq!(inbound(&mut list), (false, Some(Patch::ToolsList)));
    }

    #[test]
    fn a_2025_11_25_initialize_declares_tasks_when_a_tool_may_run_as_one() {
        let answer = |version: &str| {
            json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": version,
                   "capabilities": {"tools": {}}, "serverInfo": {"name": "w", "version": "1"}}})
        };
        let mut current = answer(REVISION);
        assert!(outbound(&mut current, Patch::Initialize, true, |_| None));
        assert_eq!(
            current["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"],
            json!({})
        );
        let mut older = answer("2025-06-18");
        assert!(!outbound(&mut older, Patch::Initialize, true, |_| None));
        let mut none = answer(REVISION);
        assert!(!outbound(&mut none, Patch::Initialize, false, |_| None));
        assert!(none["result"]["capabilities"].get("tasks").is_none());
    }

    #[test]
    fn tools_list_shows_each_tools_task_support() {
        let mut list = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
            {"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "gone"}]}});
        let support = |name: &str| match name {
            "a" => Some(TaskSupport::Never),
            "b" => Some(TaskSupport::Optional),
            "c" => Some(TaskSupport::Required),
            _ => None,
        };
        assert!(outbound(&mut list, Patch::ToolsList, true, support));
        let tools = &list["result"]["tools"];
        assert!(tools[0].get("execution").is_none());
        assert_eq!(tools[1]["execution"]["taskSupport"], "optional");
        assert_eq!(tools[2]["execution"]["taskSupport"], "required");
        assert!(tools[3].get("execution").is_none());
        let mut error = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -1, "message": "x"}});
        assert!(!outbound(&mut error, Patch::ToolsList, true, support));
    }
}
