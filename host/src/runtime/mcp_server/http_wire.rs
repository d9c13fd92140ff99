//! An MCP server component on `wasi:http/incoming-handler` (streamable HTTP, as `wasmtime
//! serve` runs one): each message the host sends is one POST handed to the component's
//! handler in-process, no socket anywhere; its response is a JSON body or a stream of
//! server-sent events, read as the handler writes it, bounded before it is held. The
//! `Mcp-Session-Id` it gives in its answer to `initialize` goes with every later message.

use super::fault::{Fault, excerpt};
use super::frames::Events;
use super::intake::{Tally, parse};
use crate::runtime::store_data::PluginState;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::Value;
use std::collections::VecDeque;
use std::time::Duration;
use wasmtime::Store;
use wasmtime_wasi_http::WasiHttpView;
use wasmtime_wasi_http::p2::bindings::Proxy;
use wasmtime_wasi_http::p2::bindings::http::types::Scheme;
use wasmtime_wasi_http::p2::body::HyperOutgoingBody;

/// Where the messages go: MCP's usual endpoint. The authority is the loopback name, which
/// servers that guard against DNS rebinding accept.
const ENDPOINT: &str = "http://localhost/mcp";
/// How long a handler may take to return once its response ended, or to end its response
/// once it returned.
const GRACE: Duration = Duration::from_secs(2);

pub struct HttpWire<'a> {
    proxy: &'a Proxy,
    store: &'a mut Store<PluginState>,
    session: Option<http::HeaderValue>,
    version: Option<http::HeaderValue>,
    pending: VecDeque<Value>,
    tally: Tally,
    /// The request whose handler never returned: the instance cannot take another.
    stuck: Option<String>,
}

/// A response as read: its status, session id, and messages.
struct Answer {
    status: u16,
    session: Option<http::HeaderValue>,
    /// The body whole, or each event's data.
    parts: Vec<Vec<u8>>,
}

impl<'a> HttpWire<'a> {
    pub fn new(proxy: &'a Proxy, store: &'a mut Store<PluginState>, tally: Tally) -> Self {
        Self {
            proxy,
            store,
            session: None,
            version: None,
            pending: VecDeque::new(),
            tally,
            stuck: None,
        }
    }

    pub fn speaks(&mut self, version: &str) {
        self.version = http::HeaderValue::from_str(version).ok();
    }

    pub fn recv(&mut self, method: &str) -> Result<Value, Fault> {
        self.pending.pop_front().ok_or_else(|| Fault::NoAnswer {
            method: method.to_string(),
            detail: String::new(),
        })
    }

    pub async fn send(&mut self, message: &Value, method: &str) -> Result<(), Fault> {
        if let Some(earlier) = &self.stuck {
            return Err(Fault::NoAnswer {
                method: method.to_string(),
                detail: format!(" (its handler of {earlier} never returned)"),
            });
        }
        let mut request = hyper::Request::post(ENDPOINT)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = &self.version {
            request = request.header("mcp-protocol-version", version);
        }
        let body = Full::new(Bytes::from(message.to_string()));
        let request = request.body(body).map_err(|e| Fault::Trap(e.into()))?;
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let data = self.store.data_mut();
        let request = data
            .http()
            .new_incoming_request(Scheme::Http, request)
            .map_err(Fault::Trap)?;
        let out = data
            .http()
            .new_response_outparam(sender)
            .map_err(Fault::Trap)?;
        let bounds = self.tally.bounds();
        let answer = {
            let handle =
                self.proxy
                    .wasi_http_incoming_handler()
                    .call_handle(&mut *self.store, request, out);
            let read = read(receiver, bounds.message, &mut self.tally, method);
            tokio::pin!(handle, read);
            let mut returned = false;
            let answer = loop {
                tokio::select! {
                    done = &mut handle, if !returned => {
                        done.map_err(Fault::Trap)?;
                        returned = true;
                    }
                    answer = &mut read => break answer?,
                    () = tokio::time::sleep(GRACE), if returned => {
                        return Err(Fault::NoAnswer {
                            method: method.to_string(),
                            detail: format!(" (its handler returned and its response did not end within {} s)", GRACE.as_secs()),
                        });
                    }
                }
            };
            if !returned {
                match tokio::time::timeout(GRACE, &mut handle).await {
                    Ok(done) => done.map_err(Fault::Trap)?,
                    Err(_) => self.stuck = Some(method.to_string()),
                }
            }
            answer
        };
        self.take(answer, method)
    }

    fn take(&mut self, answer: Answer, method: &str) -> Result<(), Fault> {
        if answer.status >= 400 {
            return Err(Fault::Http {
                method: method.to_string(),
                status: answer.status,
                body: excerpt(&answer.parts.concat()),
            });
        }
        if answer.session.is_some() {
            self.session = answer.session;
        }
        for part in answer.parts {
            if !part.iter().all(u8::is_ascii_whitespace) {
                parse(&part, &mut self.pending)?;
            }
        }
        Ok(())
    }
}

/// The response the handler sets, its body read as it is written: a JSON body whole, an
/// event stream event by event (each event's data one message).
async fn read(
    receiver: tokio::sync::oneshot::Receiver<
        Result<
            hyper::Response<HyperOutgoingBody>,
            wasmtime_wasi_http::p2::bindings::http::types::ErrorCode,
        >,
    >,
    bound: usize,
    tally: &mut Tally,
    method: &str,
) -> Result<Answer, Fault> {
    let no_answer = |detail: String| Fault::NoAnswer {
        method: method.to_string(),
        detail,
    };
    let response = match receiver.await {
        Ok(Ok(response)) => response,
        Ok(Err(code)) => return Err(no_answer(format!(" (it set an error: {code:?})"))),
        Err(_) => {
            return Err(no_answer(
                " (its handler ended without setting a response)".into(),
            ));
        }
    };
    let status = response.status().as_u16();
    let headers = response.headers();
    let session = headers
        .get("mcp-session-id")
        .filter(|v| {
            v.to_str()
                .is_ok_and(|s| s.chars().all(|c| c.is_ascii_graphic()))
        })
        .cloned();
    let streamed = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.trim_start().starts_with("text/event-stream"));
    let mut body = response.into_body();
    let mut events = streamed.then(|| Events::new(bound));
    let mut whole = Vec::new();
    let mut messages: Vec<Vec<u8>> = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| no_answer(format!(" (its body failed: {e:?})")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        tally.add(data.len(), method)?;
        match &mut events {
            Some(events) => {
                events.feed(&data).map_err(|_| tally.overlong())?;
                while let Some(event) = events.next_event().map_err(|_| tally.overlong())? {
                    messages.push(event);
                }
            }
            None => {
                if whole.len() + data.len() > bound {
                    return Err(tally.overlong());
                }
                whole.extend_from_slice(&data);
            }
        }
    }
    match &mut events {
        Some(events) => messages.extend(events.finish()),
        None => messages.push(whole),
    }
    Ok(Answer {
        status,
        session,
        parts: messages,
    })
}
