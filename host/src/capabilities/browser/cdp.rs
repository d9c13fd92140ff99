//! One DevTools-protocol connection to a browser, in flatten mode (one connection, a session
//! id per attached target). Two transports: a browser Warden launched is spoken to over
//! `--remote-debugging-pipe` (fd 3 carries commands to it, fd 4 its answers and events, each
//! message JSON ended by a NUL byte), so it has no DevTools port any page could reach; a
//! remote `[browser] endpoint` over its WebSocket. chromiumoxide's `Handler` is not used
//! because it resumes new targets on its own, and the origin guard must be installed in a
//! new tab before the tab sends its first request; nor is its `Connection`, which reads a
//! WebSocket message of any size. Either way a message is at most [`MAX_MESSAGE`]: a page
//! can make the browser send its text (a DOM, a console message), and a remote endpoint is
//! a server Warden does not control.

use async_tungstenite::tungstenite::{self, Message as WsMessage, protocol::WebSocketConfig};
use async_tungstenite::{WebSocketStream, tokio::ConnectStream};
use chromiumoxide::types::{CallId, Command, EventMessage, Message, Method, MethodId};
use futures::StreamExt;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

pub use super::error::CdpError;
pub use super::model::event::Event;
pub(super) use super::model::event::s;

/// An event as it arrives. (chromiumoxide's `CdpJsonEventMessage` does not read the
/// top-level `sessionId`, which flatten mode depends on.)
#[derive(Debug, serde::Deserialize)]
pub struct RawEvent {
    method: MethodId,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
    #[serde(default)]
    params: Value,
}

impl Method for RawEvent {
    fn identifier(&self) -> MethodId {
        self.method.clone()
    }
}

impl EventMessage for RawEvent {
    fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

struct Outgoing {
    method: String,
    session: Option<String>,
    params: Value,
    reply: Option<oneshot::Sender<Result<Value, CdpError>>>,
}

/// A cheap handle for sending commands; the connection lives in a driver task.
#[derive(Clone)]
pub struct Cdp {
    tx: mpsc::UnboundedSender<Outgoing>,
    closed: CancellationToken,
    /// Events passed on so far (see [`Cdp::events_sent`]).
    sent: Arc<AtomicU64>,
}

impl Cdp {
    /// Connect to a browser's DevTools WebSocket. Events go to the returned receiver, in
    /// the order the browser sent them; none is dropped.
    pub async fn connect(
        ws_url: &str,
    ) -> Result<(Self, mpsc::UnboundedReceiver<Event>), tungstenite::Error> {
        Self::connect_bounded(ws_url, MAX_MESSAGE).await
    }

    /// [`Cdp::connect`] with messages of at most `max` bytes: a longer one ends the connection.
    async fn connect_bounded(
        ws_url: &str,
        max: usize,
    ) -> Result<(Self, mpsc::UnboundedReceiver<Event>), tungstenite::Error> {
        // A message is one frame as Chromium sends it: both get the bound.
        let config = WebSocketConfig::default()
            .max_message_size(Some(max))
            .max_frame_size(Some(max));
        let (conn, _) =
            async_tungstenite::tokio::connect_async_with_config(ws_url, Some(config)).await?;
        let (tx, rx) = mpsc::unbounded_channel();
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let closed = CancellationToken::new();
        let sent = Arc::new(AtomicU64::new(0));
        let sink = Sink {
            events: events_tx,
            sent: Arc::clone(&sent),
        };
        tokio::spawn(drive(conn, rx, sink, closed.clone()));
        Ok((Self { tx, closed, sent }, events_rx))
    }

    /// Speak to a launched browser over its DevTools pipe: `to_browser` is the write end of
    /// the browser's fd 3, `from_browser` the read end of its fd 4.
    pub fn connect_pipe(
        to_browser: pipe::Sender,
        from_browser: pipe::Receiver,
    ) -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let closed = CancellationToken::new();
        let sent = Arc::new(AtomicU64::new(0));
        let sink = Sink {
            events: events_tx,
            sent: Arc::clone(&sent),
        };
        tokio::spawn(drive_pipe(
            to_browser,
            from_browser,
            rx,
            sink,
            closed.clone(),
        ));
        (Self { tx, closed, sent }, events_rx)
    }

    /// How many events this connection has passed on. Read after an answer, it counts every
    /// event the browser sent before that answer: a reader that waits until it has handled
    /// that many sees what the command's effects announced (see `Live::caught_up`).
    pub fn events_sent(&self) -> u64 {
        self.sent.load(Ordering::Acquire)
    }

    /// Cancelled once the connection is gone.
    pub fn closed(&self) -> &CancellationToken {
        &self.closed
    }

    /// Send a command and wait for its answer.
    pub async fn call<C: Command>(
        &self,
        session: Option<&str>,
        cmd: C,
    ) -> Result<C::Response, CdpError> {
        let method = cmd.identifier().to_string();
        let value = self
            .call_raw(session, &method, to_value(&method, &cmd)?)
            .await?;
        C::response_from_value(value).map_err(|e| CdpError::Decode {
            method,
            message: e.to_string(),
        })
    }

    /// Send a command by name with JSON parameters and wait for its answer.
    pub async fn call_raw(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Outgoing {
                method: method.to_string(),
                session: session.map(str::to_string),
                params,
                reply: Some(reply),
            })
            .map_err(|_| CdpError::Closed)?;
        answer.await.map_err(|_| CdpError::Closed)?
    }

    /// Send a command without waiting for its answer. Commands on one session run in the
    /// order they were sent, which is what target set-up relies on.
    pub fn send<C: Command>(&self, session: Option<&str>, cmd: C) {
        let method = cmd.identifier().to_string();
        if let Ok(params) = to_value(&method, &cmd) {
            let _ = self.tx.send(Outgoing {
                method,
                session: session.map(str::to_string),
                params,
                reply: None,
            });
        }
    }
}

impl Cdp {
    /// [`Cdp::send`] by name with JSON parameters.
    pub fn send_raw(&self, session: Option<&str>, method: &str, params: Value) {
        let _ = self.tx.send(Outgoing {
            method: method.to_string(),
            session: session.map(str::to_string),
            params,
            reply: None,
        });
    }
}

fn to_value<C: Command>(method: &str, cmd: &C) -> Result<Value, CdpError> {
    serde_json::to_value(cmd).map_err(|e| CdpError::Decode {
        method: method.to_string(),
        message: e.to_string(),
    })
}

/// Where events go, counted.
pub(super) struct Sink {
    pub events: mpsc::UnboundedSender<Event>,
    pub sent: Arc<AtomicU64>,
}

type Pending = HashMap<CallId, (String, Option<oneshot::Sender<Result<Value, CdpError>>>)>;

/// Answer a pending command, or pass an event on.
pub(super) fn dispatch(msg: Message<RawEvent>, pending: &mut Pending, sink: &Sink) {
    match msg {
        Message::Response(resp) => {
            if let Some((method, Some(reply))) = pending.remove(&resp.id) {
                let answer = match (resp.result, resp.error) {
                    (_, Some(err)) => Err(CdpError::Protocol {
                        method,
                        message: err.message,
                    }),
                    (Some(result), None) => Ok(result),
                    (None, None) => Ok(Value::Null),
                };
                let _ = reply.send(answer);
            }
        }
        Message::Event(ev) => {
            let sent = sink.events.send(Event {
                method: ev.method.to_string(),
                session: ev.session_id,
                params: ev.params,
            });
            if sent.is_ok() {
                sink.sent.fetch_add(1, Ordering::Release);
            }
        }
    }
}

/// Fail every command still waiting: the connection is gone.
fn close_all(pending: &mut Pending, closed: &CancellationToken) {
    closed.cancel();
    for (_, (_, reply)) in pending.drain() {
        if let Some(reply) = reply {
            let _ = reply.send(Err(CdpError::Closed));
        }
    }
}

/// The largest message read from the browser (a full-page screenshot is a few MB of base64);
/// a longer one ends the connection.
const MAX_MESSAGE: usize = 256 << 20;

async fn drive_pipe(
    mut writer: pipe::Sender,
    reader: pipe::Receiver,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
    sink: Sink,
    closed: CancellationToken,
) {
    let mut pending: Pending = HashMap::new();
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    // Kept across iterations: read_until is cancel-safe when its buffer is.
    let mut buf = Vec::new();
    let mut next_id = 0usize;
    loop {
        tokio::select! {
            out = rx.recv() => {
                let Some(out) = out else { break };
                next_id += 1;
                let mut msg = json!({ "id": next_id, "method": out.method, "params": out.params });
                if let Some(session) = &out.session {
                    msg["sessionId"] = json!(session);
                }
                let mut bytes = msg.to_string().into_bytes();
                bytes.push(0);
                if let Err(e) = writer.write_all(&bytes).await {
                    tracing::debug!("browser pipe closed: {e}");
                    if let Some(reply) = out.reply {
                        let _ = reply.send(Err(CdpError::Closed));
                    }
                    break;
                }
                pending.insert(CallId::new(next_id), (out.method, out.reply));
            }
            read = reader.read_until(0, &mut buf) => {
                match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) if buf.last() != Some(&0) => {
                        if buf.len() > MAX_MESSAGE { break; }
                    }
                    Ok(_) => {
                        buf.pop();
                        match serde_json::from_slice::<Message<RawEvent>>(&buf) {
                            Ok(msg) => dispatch(msg, &mut pending, &sink),
                            // A message this version of the protocol types cannot read: skip it.
                            Err(e) => tracing::trace!("unreadable browser message: {e}"),
                        }
                        buf.clear();
                    }
                }
            }
        }
    }
    close_all(&mut pending, &closed);
}

async fn drive(
    mut conn: WebSocketStream<ConnectStream>,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
    sink: Sink,
    closed: CancellationToken,
) {
    let mut pending: Pending = HashMap::new();
    let mut next_id = 0usize;
    loop {
        tokio::select! {
            out = rx.recv() => {
                let Some(out) = out else { break };
                next_id += 1;
                let mut msg = json!({ "id": next_id, "method": out.method, "params": out.params });
                if let Some(session) = &out.session {
                    msg["sessionId"] = json!(session);
                }
                if let Err(e) = conn.send(WsMessage::text(msg.to_string())).await {
                    tracing::debug!("browser connection ended: {e}");
                    if let Some(reply) = out.reply {
                        let _ = reply.send(Err(CdpError::Closed));
                    }
                    break;
                }
                pending.insert(CallId::new(next_id), (out.method, out.reply));
            }
            msg = conn.next() => {
                let parsed = match msg {
                    Some(Ok(WsMessage::Text(text))) => serde_json::from_str::<Message<RawEvent>>(&text),
                    Some(Ok(WsMessage::Binary(bytes))) => serde_json::from_slice::<Message<RawEvent>>(&bytes),
                    Some(Ok(WsMessage::Close(_))) | None => break,
                    // Pings are answered by the WebSocket itself.
                    Some(Ok(_)) => continue,
                    // Over the bound, or a broken connection.
                    Some(Err(e)) => {
                        tracing::debug!("browser connection ended: {e}");
                        break;
                    }
                };
                match parsed {
                    Ok(msg) => dispatch(msg, &mut pending, &sink),
                    // A message this version of the protocol types cannot read: skip it.
                    Err(e) => tracing::trace!("unreadable browser message: {e}"),
                }
            }
        }
    }
    close_all(&mut pending, &closed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A remote "browser" that answers the first command with a message of `size` bytes,
    /// then reports whether the client hung up on it.
    async fn remote(size: usize) -> (String, oneshot::Receiver<bool>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (hung_up, heard) = oneshot::channel();
        tokio::spawn(async move {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let Ok(mut ws) = async_tungstenite::tokio::accept_async(stream).await else {
                return;
            };
            let _ = ws.next().await;
            let filler = "x".repeat(size);
            let answer = format!(r#"{{"id":1,"result":{{"outerHTML":"{filler}"}}}}"#);
            let sent = ws.send(WsMessage::text(answer)).await;
            // The client's close (or reset) ends the stream: it hung up.
            let closed = tokio::time::timeout(Duration::from_secs(5), async {
                loop {
                    match ws.next().await {
                        None | Some(Err(_)) | Some(Ok(WsMessage::Close(_))) => return true,
                        Some(Ok(_)) => {}
                    }
                }
            })
            .await
            .unwrap_or(false);
            let _ = hung_up.send(sent.is_err() || closed);
        });
        (format!("ws://{addr}/devtools/browser/x"), heard)
    }

    #[tokio::test]
    async fn a_remote_message_over_the_bound_ends_the_connection() {
        let (url, hung_up) = remote(4 << 20).await;
        let (cdp, _events) = Cdp::connect_bounded(&url, 1 << 20)
            .await
            .expect("connected");
        let answer = cdp
            .call_raw(None, "DOM.getOuterHTML", json!({"nodeId": 1}))
            .await;
        assert!(matches!(answer, Err(CdpError::Closed)), "{answer:?}");
        assert!(cdp.closed().is_cancelled());
        assert!(
            hung_up.await.unwrap_or(false),
            "the remote was not hung up on"
        );

        // Under the bound, the same answer arrives.
        let (url, _) = remote(4 << 10).await;
        let (cdp, _events) = Cdp::connect_bounded(&url, 1 << 20)
            .await
            .expect("connected");
        let answer = cdp
            .call_raw(None, "DOM.getOuterHTML", json!({"nodeId": 1}))
            .await
            .expect("answered");
        assert_eq!(answer["outerHTML"].as_str().map(str::len), Some(4 << 10));
    }
}
