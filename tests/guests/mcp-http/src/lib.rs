//! An MCP server built as a component on `wasi:http/incoming-handler`, the way `wasmtime
//! serve` runs one (and wasmcp composes them): each POST one JSON-RPC message, answered
//! with a JSON body, or with server-sent events when the answer comes with notifications.
//! It hands out an `Mcp-Session-Id` at `initialize` and refuses a later message without it.
//! No Warden SDK, no Warden interface: only WASI.

// The exports wasip2's macro generates are `unsafe extern "C"` functions.
#![allow(unsafe_code)]

mod server;

use serde_json::Value;
use server::{Mischief, Reply};
use std::cell::RefCell;
use wasip2::http::types::{
    Fields, IncomingRequest, OutgoingBody, OutgoingResponse, ResponseOutparam,
};

wasip2::http::proxy::export!(Server);

struct Server;

thread_local! {
    /// The session handed out at `initialize`.
    static SESSION: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn respond(
    out: ResponseOutparam,
    status: u16,
    content_type: &str,
    write: impl FnOnce(&mut dyn FnMut(&[u8]) -> bool),
) {
    let headers = Fields::new();
    let _ = headers.append("content-type", content_type.as_bytes());
    if let Some(session) = SESSION.with(|s| s.borrow().clone()) {
        let _ = headers.append("mcp-session-id", session.as_bytes());
    }
    let response = OutgoingResponse::new(headers);
    let _ = response.set_status_code(status);
    let Ok(body) = response.body() else { return };
    ResponseOutparam::set(out, Ok(response));
    let Ok(mut stream) = body.write() else { return };
    write(&mut |bytes: &[u8]| {
        std::io::Write::write_all(&mut stream, bytes)
            .and_then(|()| std::io::Write::flush(&mut stream))
            .is_ok()
    });
    drop(stream);
    let _ = OutgoingBody::finish(body, None);
}

fn read_body(request: &IncomingRequest) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Ok(body) = request.consume()
        && let Ok(stream) = body.stream()
    {
        while let Ok(chunk) = stream.blocking_read(64 * 1024) {
            bytes.extend_from_slice(&chunk);
        }
    }
    bytes
}

fn event(message: &Value) -> Vec<u8> {
    format!("event: message\ndata: {message}\n\n").into_bytes()
}

impl wasip2::exports::http::incoming_handler::Guest for Server {
    fn handle(request: IncomingRequest, out: ResponseOutparam) {
        let given = request
            .headers()
            .get("mcp-session-id")
            .first()
            .map(|v| String::from_utf8_lossy(v).into_owned());
        let body = read_body(&request);
        let Ok(message) = serde_json::from_slice::<Value>(&body) else {
            return respond(out, 400, "text/plain", |w| {
                w(b"not JSON");
            });
        };
        let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
        if initialize {
            SESSION.with(|s| *s.borrow_mut() = Some("fixture-session-1".into()));
        } else if given.is_none() || given != SESSION.with(|s| s.borrow().clone()) {
            return respond(out, 400, "text/plain", |w| {
                w(b"missing or unknown Mcp-Session-Id");
            });
        }
        match server::reply(&message) {
            Reply::Nothing => respond(out, 202, "text/plain", |_| {}),
            Reply::Answer { notes, answer } if notes.is_empty() => {
                respond(out, 200, "application/json", |w| {
                    w(answer.to_string().as_bytes());
                });
            }
            Reply::Answer { notes, answer } => respond(out, 200, "text/event-stream", |w| {
                for note in &notes {
                    w(&event(note));
                }
                w(&event(&answer));
            }),
            Reply::Mischief(Mischief::Flood) => respond(out, 200, "text/event-stream", |w| {
                let noise = event(&server::noise());
                while w(&noise) {}
            }),
            Reply::Mischief(Mischief::FloodOne) => respond(out, 200, "application/json", |w| {
                let _ = w(b"{\"jsonrpc\":\"2.0\",\"result\":\"");
                let chunk = [b'x'; 16 * 1024];
                while w(&chunk) {}
            }),
            Reply::Mischief(Mischief::Spin) => loop {
                std::hint::spin_loop();
            },
            Reply::Mischief(Mischief::Garbage) => respond(out, 200, "application/json", |w| {
                w(b"<html>this is not JSON-RPC</html>");
            }),
            Reply::Mischief(Mischief::AskFirst(answer)) => {
                respond(out, 200, "text/event-stream", |w| {
                    w(&event(&server::sampling_request()));
                    w(&event(&answer));
                });
            }
        }
    }
}
