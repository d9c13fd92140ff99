//! MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. stdout carries only MCP;
//! every log line goes to stderr.
//!
//! rmcp silently drops a line that is not JSON. JSON-RPC 2.0 asks for a `-32700 Parse error`
//! reply (with `id: null`), so a thin framing layer sits in front of rmcp: it passes every
//! JSON line through, answers the others itself, and funnels both its replies and rmcp's
//! through one writer task so that lines on stdout never interleave. The same layer carries
//! the JSON glue of 2025-11-25 tasks ([`super::session_tasks::wire`]).
//!
//! This layer is also the one bound on a message's size: a line longer than [`MAX_LINE`]
//! is discarded as it streams in (never held whole) and answered with a `-32600` error that
//! names the limit, under the request's own id when the line's head carries one, so the
//! client's call ends instead of waiting; the wire keeps serving. rmcp's own line limit is
//! set above this one, so that it never drops a line silently.

use super::WardenServer;
use super::message_weight::HEAD;
use super::session_tasks::wire::Pending;
use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest accepted line (a base64 file upload fits comfortably): the same as the HTTP
/// wire's default `[server.http] max_body`.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// Serve until the client closes stdin.
pub async fn serve(server: WardenServer) -> anyhow::Result<()> {
    let (output, written) = super::std_streams::stdout()?;
    let served = serve_on(server, super::std_streams::stdin()?, output).await;
    // What the wire queued reaches stdout before the process may end.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), written).await;
    served
}

/// Serve MCP on any line-oriented byte streams.
pub async fn serve_on<R, W>(server: WardenServer, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 20);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 20);
    let (lines_tx, lines_rx) = mpsc::channel::<Vec<u8>>(256);

    let writer = tokio::spawn(write_lines(lines_rx, output));
    let pending = Pending::default();
    tokio::spawn(read_input(
        input,
        to_rmcp,
        lines_tx.clone(),
        (pending.clone(), server.clone()),
    ));
    tokio::spawn(forward_output(
        from_rmcp,
        lines_tx,
        (pending, server.clone()),
    ));

    // Lines reach rmcp only through `read_input`, bounded there; rmcp's bound stays above
    // it (a renamed task line can grow a little) so that it never drops one unanswered.
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(rmcp_in, rmcp_out)
        .with_max_line_length(2 * MAX_LINE);
    let service = match server.serve(transport).await {
        Ok(service) => service,
        // A client may close stdin before any session began, for example after a single
        // 2026-07-28 `server/discover` probe: a normal end, once the replies are flushed.
        Err(ServerInitializeError::ConnectionClosed(_)) => {
            flush(writer).await;
            tracing::info!("client disconnected before starting a session");
            return Ok(());
        }
        Err(e) => {
            flush(writer).await;
            return Err(e.into());
        }
    };
    let reason = service.waiting().await?;
    tracing::info!("client disconnected: {reason:?}");
    flush(writer).await;
    Ok(())
}

/// Let the writer send what is queued. It ends once every sender is gone (stdin at its end
/// and rmcp's output closed); the bound covers an error that leaves stdin open.
async fn flush(writer: tokio::task::JoinHandle<()>) {
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
}

async fn read_input<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: tokio::io::DuplexStream,
    replies: mpsc::Sender<Vec<u8>>,
    (pending, server): (Pending, WardenServer),
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        // A long line's buffer is not kept for the next one.
        line.shrink_to(1 << 20);
        let oversized = match read_bounded_line(&mut reader, &mut line, MAX_LINE).await {
            Ok(None) => break,
            Ok(Some(oversized)) => oversized,
            Err(e) => {
                tracing::error!("cannot read stdin: {e}");
                break;
            }
        };
        if oversized {
            tracing::warn!("a message longer than {MAX_LINE} bytes answered with -32600");
            super::message_weight::audit(
                &server,
                "stdio",
                &format!("message longer than {MAX_LINE} bytes"),
            );
            let _ = replies.send(too_long(&line)).await;
            continue;
        }
        let text = trim(&line);
        if text.is_empty() {
            continue;
        }
        match super::message_weight::check(text) {
            Ok(()) => {
                let renamed = pending.request(text);
                let text = renamed.as_deref().unwrap_or(text);
                if to_rmcp.write_all(text).await.is_err() || to_rmcp.write_all(b"\n").await.is_err()
                {
                    break;
                }
            }
            Err(super::message_weight::Refused::TooHeavy { weight, limit }) => {
                tracing::warn!(
                    "a message of {} bytes that would take {weight} bytes parsed (limit {limit}) answered with -32600",
                    text.len()
                );
                let refused = super::message_weight::Refused::TooHeavy { weight, limit };
                super::message_weight::audit(&server, "stdio", &refused.to_string());
                let head = &text[..text.len().min(HEAD)];
                if replies
                    .send(invalid_request(head, &refused.to_string()))
                    .await
                    .is_err()
                {
                    break;
                }
            }
            Err(super::message_weight::Refused::NotJson(e)) => {
                tracing::warn!("unparsable JSON-RPC line answered with -32700: {e}");
                if replies.send(parse_error(&e.to_string())).await.is_err() {
                    break;
                }
            }
        }
    }
    // EOF on stdin closes rmcp's input, which ends the session.
    let _ = to_rmcp.shutdown().await;
}

/// Read one line into `line`, keeping at most `max` bytes of it: a client that never
/// sends a newline cannot make the server buffer without bound. `None` at end of input;
/// `Some(true)` when the line was too long: `line` keeps its first [`HEAD`] bytes (where
/// its id is) and the rest is discarded up to the newline as it arrives.
async fn read_bounded_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    let mut oversized = false;
    let mut read_any = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(read_any.then_some(oversized));
        }
        read_any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..=i], true),
            None => (chunk, false),
        };
        let used = part.len();
        if !oversized {
            if line.len() + used > max {
                oversized = true;
                let room = HEAD.min(max).saturating_sub(line.len());
                line.truncate(HEAD.min(max));
                line.extend_from_slice(&part[..room.min(used)]);
                line.shrink_to(HEAD);
            } else {
                line.extend_from_slice(part);
            }
        }
        reader.consume(used);
        if done {
            return Ok(Some(oversized));
        }
    }
}

async fn forward_output(
    from_rmcp: tokio::io::DuplexStream,
    lines: mpsc::Sender<Vec<u8>>,
    (pending, server): (Pending, WardenServer),
) {
    let mut reader = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = pending.answer(&line, &server).unwrap_or(line);
                if lines.send(line).await.is_err() {
                    break;
                }
            }
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(mut lines: mpsc::Receiver<Vec<u8>>, mut output: W) {
    while let Some(mut line) = lines.recv().await {
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

fn trim(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let start = line[..end]
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(end);
    &line[start..end]
}

/// The answer to a line over [`MAX_LINE`]: `-32600 Invalid Request` naming the limit, under
/// the request's id when the line's head holds one (else `null`, as JSON-RPC asks).
fn too_long(head: &[u8]) -> Vec<u8> {
    invalid_request(
        head,
        &format!(
            "the message is longer than {MAX_LINE} bytes ({} MiB), the most this server reads in one message; send less in one call (a large file in parts, or by a path or URL the tool can fetch)",
            MAX_LINE >> 20
        ),
    )
}

/// `-32600 Invalid Request` for the request whose text begins with `head`, as a line.
fn invalid_request(head: &[u8], why: &str) -> Vec<u8> {
    let mut bytes = super::message_weight::invalid_request(head, why)
        .to_string()
        .into_bytes();
    bytes.push(b'\n');
    bytes
}

fn parse_error(detail: &str) -> Vec<u8> {
    let reply = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32700, "message": format!("Parse error: {detail}; send one JSON-RPC message per line") }
    });
    let mut bytes = reply.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<(bool, Vec<u8>)> {
        // A 4-byte buffer makes lines span several reads.
        let mut reader = BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        let mut line = Vec::new();
        while let Some(oversized) = read_bounded_line(&mut reader, &mut line, max)
            .await
            .expect("read")
        {
            out.push((oversized, std::mem::take(&mut line)));
        }
        out
    }

    #[tokio::test]
    async fn long_lines_are_flagged_and_dropped_without_losing_the_next() {
        let got = lines(b"short\nthis line is too long\nok\nlast", 8).await;
        assert_eq!(
            got,
            vec![
                (false, b"short\n".to_vec()),
                (true, b"this lin".to_vec()),
                (false, b"ok\n".to_vec()),
                (false, b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn an_oversized_request_is_answered_under_its_own_id() {
        let reply: serde_json::Value = serde_json::from_slice(&too_long(
            br#"{"jsonrpc":"2.0","id": 7,"method":"tools/call","params":{"argu"#,
        ))
        .expect("json");
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["error"]["code"], -32600);
    }

    #[test]
    fn parse_errors_are_json_rpc_with_a_null_id() {
        let reply: serde_json::Value = serde_json::from_slice(&parse_error("x")).expect("json");
        assert_eq!(reply["id"], serde_json::Value::Null);
        assert_eq!(reply["error"]["code"], -32700);
    }
}
