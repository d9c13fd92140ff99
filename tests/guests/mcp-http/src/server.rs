//! The MCP server both fixture components are (the HTTP one and the stdio one include this
//! file): its answers to each request, whatever carries them. Stateless except for the
//! session it hands out at `initialize`, which a streamable HTTP server checks on every
//! later message. Some tools misbehave on purpose; the transport acts each out.

use serde_json::{Value, json};

/// What to do with one message.
pub enum Reply {
    /// Answer with this message (after the notifications, if any).
    Answer { notes: Vec<Value>, answer: Value },
    /// A notification, or an answer to a request of ours: nothing to say.
    Nothing,
    /// Misbehave: the transport does it.
    Mischief(Mischief),
}

pub enum Mischief {
    /// Messages without end, none the answer.
    Flood,
    /// One message without end.
    FloodOne,
    /// Never answer, spinning.
    Spin,
    /// Write something that is not JSON-RPC.
    Garbage,
    /// Ask the client something (sampling) before answering.
    AskFirst(Value),
}

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": required},
    })
}

fn tools() -> Value {
    let none = json!({});
    json!([
        tool(
            "add",
            "Adds two numbers.",
            json!({"a": {"type": "number"}, "b": {"type": "number"}}),
            &["a", "b"]
        ),
        tool(
            "fetch",
            "GETs a URL over wasi:http and returns its status and body.",
            json!({"url": {"type": "string"}}),
            &["url"]
        ),
        tool(
            "post_stream",
            "POSTs a body of `bytes` bytes, streamed with no length declared.",
            json!({"url": {"type": "string"}, "bytes": {"type": "integer"}}),
            &["url", "bytes"],
        ),
        tool(
            "read_file",
            "Reads a file under a preopened directory.",
            json!({"path": {"type": "string"}}),
            &["path"]
        ),
        tool(
            "env",
            "Returns an environment variable.",
            json!({"name": {"type": "string"}}),
            &["name"]
        ),
        tool(
            "progress",
            "Reports progress three times, then answers.",
            none.clone(),
            &[]
        ),
        tool(
            "ask_first",
            "Asks the client to sample before it answers.",
            none.clone(),
            &[]
        ),
        tool("fail", "Fails, in its own words.", none.clone(), &[]),
        tool(
            "flood",
            "Writes messages without end, never the answer.",
            none.clone(),
            &[]
        ),
        tool(
            "flood_one",
            "Writes one message without end.",
            none.clone(),
            &[]
        ),
        tool("spin", "Never answers.", none.clone(), &[]),
        tool(
            "garbage",
            "Answers with something that is not JSON-RPC.",
            none,
            &[]
        ),
    ])
}

fn text(id: &Value, text: impl Into<String>, error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text.into()}],
        "isError": error,
    }})
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to `message`.
pub fn reply(message: &Value) -> Reply {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Reply::Nothing;
    };
    let Some(id) = message.get("id") else {
        return Reply::Nothing;
    };
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let answer = |result: Value| Reply::Answer {
        notes: Vec::new(),
        answer: json!({"jsonrpc": "2.0", "id": id, "result": result}),
    };
    match method {
        "initialize" => answer(json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}, "completions": {}, "logging": {}},
            "serverInfo": {"name": "fixture-mcp-server", "version": "0.1.0"},
        })),
        "ping" => answer(json!({})),
        "tools/list" => answer(json!({"tools": tools()})),
        "prompts/list" => answer(json!({"prompts": [{
            "name": "greet", "description": "Greets someone.",
            "arguments": [{"name": "name", "description": "Who", "required": true}],
        }]})),
        "prompts/get" => {
            let who = params["arguments"]["name"].as_str().unwrap_or("nobody");
            answer(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Say hello to {who}.")}}]}),
            )
        }
        "resources/list" => answer(
            json!({"resources": [{"uri": motd(), "name": "motd", "mimeType": "text/plain"}]}),
        ),
        "resources/templates/list" => answer(json!({"resourceTemplates": []})),
        "resources/read" => match params["uri"].as_str() {
            Some(uri) if uri == motd() => answer(
                json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": "served from a component"}]}),
            ),
            _ => Reply::Answer {
                notes: Vec::new(),
                answer: error(id, -32002, "no such resource"),
            },
        },
        "completion/complete" => {
            let typed = params["argument"]["value"].as_str().unwrap_or("");
            let names: Vec<&str> = ["Ada", "Alan", "Grace"]
                .into_iter()
                .filter(|n| n.starts_with(typed))
                .collect();
            answer(json!({"completion": {"values": names, "hasMore": false}}))
        }
        "tools/call" => call(id, &params),
        _ => Reply::Answer {
            notes: Vec::new(),
            answer: error(id, -32601, "no such method"),
        },
    }
}

/// The one resource, named after `FIXTURE_NAME` (so two servers list two URIs).
fn motd() -> String {
    format!(
        "fixture://{}/motd",
        std::env::var("FIXTURE_NAME").unwrap_or_else(|_| "bare".into())
    )
}

fn call(id: &Value, params: &Value) -> Reply {
    let args = &params["arguments"];
    let done = |v: Value| Reply::Answer {
        notes: Vec::new(),
        answer: v,
    };
    match params["name"].as_str().unwrap_or("") {
        "add" => match (args["a"].as_f64(), args["b"].as_f64()) {
            (Some(a), Some(b)) => done(json!({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": format!("{}", a + b)}],
                "structuredContent": {"sum": a + b},
            }})),
            _ => done(error(id, -32602, "a and b must be numbers")),
        },
        "fetch" => match http_get(args["url"].as_str().unwrap_or("")) {
            Ok((status, body)) => done(text(id, format!("{status} {body}"), false)),
            Err(e) => done(text(id, e, true)),
        },
        "post_stream" => {
            let size = usize::try_from(args["bytes"].as_u64().unwrap_or(0)).unwrap_or(usize::MAX);
            match http_post_streamed(args["url"].as_str().unwrap_or(""), size) {
                Ok((status, body)) => done(text(id, format!("{status} {body}"), false)),
                Err(e) => done(text(id, e, true)),
            }
        }
        "read_file" => match std::fs::read_to_string(args["path"].as_str().unwrap_or("")) {
            Ok(body) => done(text(id, body, false)),
            Err(e) => done(text(id, format!("cannot read: {e}"), true)),
        },
        "env" => match std::env::var(args["name"].as_str().unwrap_or("")) {
            Ok(v) => done(text(id, v, false)),
            Err(_) => done(text(id, "not set", true)),
        },
        "progress" => {
            let token = params["_meta"]["progressToken"].clone();
            let notes = (1..=3)
                .map(|i| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": i, "total": 3}}))
                .chain([json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "halfway there"}})])
                .collect();
            Reply::Answer {
                notes,
                answer: text(id, "done", false),
            }
        }
        "ask_first" => {
            Reply::Mischief(Mischief::AskFirst(text(id, "answered after asking", false)))
        }
        "fail" => done(text(id, "the weather service is down", true)),
        "flood" => Reply::Mischief(Mischief::Flood),
        "flood_one" => Reply::Mischief(Mischief::FloodOne),
        "spin" => Reply::Mischief(Mischief::Spin),
        "garbage" => Reply::Mischief(Mischief::Garbage),
        other => done(error(id, -32602, &format!("no tool {other}"))),
    }
}

/// The request `ask_first` sends before it answers.
pub fn sampling_request() -> Value {
    json!({"jsonrpc": "2.0", "id": "ask-1", "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1}})
}

/// A notification for floods.
pub fn noise() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "x".repeat(512)}})
}

/// A request of `method` to `url`, its parts set.
fn request(
    method: wasip2::http::types::Method,
    url: &str,
) -> Result<wasip2::http::types::OutgoingRequest, String> {
    use wasip2::http::types::{Fields, OutgoingRequest, Scheme};
    let (scheme, rest) = match url.split_once("://") {
        Some(("http", rest)) => (Scheme::Http, rest),
        Some(("https", rest)) => (Scheme::Https, rest),
        _ => return Err(format!("not an http(s) URL: {url}")),
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let request = OutgoingRequest::new(Fields::new());
    let path = if path.is_empty() { "/" } else { path };
    request
        .set_method(&method)
        .and_then(|()| request.set_scheme(Some(&scheme)))
        .and_then(|()| request.set_authority(Some(authority)))
        .and_then(|()| request.set_path_with_query(Some(path)))
        .map_err(|()| format!("invalid URL {url}"))?;
    Ok(request)
}

/// The status and body (at most 64 KiB) of a request sent.
fn response(pending: wasip2::http::types::FutureIncomingResponse) -> Result<(u16, String), String> {
    pending.subscribe().block();
    let response = pending
        .get()
        .ok_or("no response")?
        .map_err(|()| "taken twice")?
        .map_err(|e| format!("refused: {e:?}"))?;
    let status = response.status();
    let body = response.consume().map_err(|()| "no body")?;
    let stream = body.stream().map_err(|()| "no stream")?;
    let mut bytes = Vec::new();
    while let Ok(chunk) = stream.blocking_read(64 * 1024) {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > 64 * 1024 {
            break;
        }
    }
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

/// GET `url` over wasi:http: its status and body.
pub fn http_get(url: &str) -> Result<(u16, String), String> {
    let request = request(wasip2::http::types::Method::Get, url)?;
    let pending = wasip2::http::outgoing_handler::handle(request, None)
        .map_err(|e| format!("refused: {e:?}"))?;
    response(pending)
}

/// POST `size` bytes to `url`, streamed through raw wasi:http with no length declared (as a
/// component that does not know its body's length sends it).
pub fn http_post_streamed(url: &str, size: usize) -> Result<(u16, String), String> {
    use wasip2::http::types::OutgoingBody;
    let request = request(wasip2::http::types::Method::Post, url)?;
    let body = request.body().map_err(|()| "no body")?;
    let pending = wasip2::http::outgoing_handler::handle(request, None)
        .map_err(|e| format!("refused: {e:?}"))?;
    let out = body.write().map_err(|()| "no body stream")?;
    let chunk = [b'x'; 4096];
    let mut sent = 0;
    while sent < size {
        let n = chunk.len().min(size - sent);
        if let Err(e) = out.blocking_write_and_flush(&chunk[..n]) {
            drop(out);
            let said = match response(pending) {
                Err(refused) => refused,
                Ok((status, _)) => format!("HTTP {status}"),
            };
            return Err(format!(
                "the body stopped after {sent} bytes ({e:?}): {said}"
            ));
        }
        sent += n;
    }
    drop(out);
    OutgoingBody::finish(body, None).map_err(|e| format!("finishing the body failed: {e:?}"))?;
    response(pending)
}
