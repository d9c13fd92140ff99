//! MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. stdout carries only MCP;
//! every log line goes to stderr.
//!
//! rmcp silently drops a line that is not JSON. JSON-RPC 2.0 asks for a `-32700 Parse error`
//! reply (with `id: null`), so a thin framing layer sits in front of rmcp: it passes every
//! JSON line through, answers the others itself, and funnels both its replies and rmcp's
//! through one writer task so that lines on stdout never interleave. The same layer carries
//! the JSON glue of 2025-11-25 tasks ([`super::session_tasks::wire`]).

use super::WardenServer;
use super::session_tasks::wire::Pending;
use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest accepted line (a base64 file upload fits comfortably).
const MAX_LINE: usize = 64 * 1024 * 1024;

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
        pending.clone(),
    ));
    tokio::spawn(forward_output(
        from_rmcp,
        lines_tx,
        (pending, server.clone()),
    ));

    let service = match server.serve((rmcp_in, rmcp_out)).await {
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
    pending: Pending,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let oversized = match read_bounded_line(&mut reader, &mut line, MAX_LINE).await {
            Ok(None) => break,
            Ok(Some(oversized)) => oversized,
            Err(e) => {
                tracing::error!("cannot read stdin: {e}");
                break;
            }
        };
        if oversized {
            let reply = parse_error(&format!("message longer than {MAX_LINE} bytes"));
            let _ = replies.send(reply).await;
            continue;
        }
        let text = trim(&line);
        if text.is_empty() {
            continue;
        }
        match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
            Ok(_) => {
                let renamed = pending.request(text);
                let text = renamed.as_deref().unwrap_or(text);
                if to_rmcp.write_all(text).await.is_err() || to_rmcp.write_all(b"\n").await.is_err()
                {
                    break;
                }
            }
            Err(e) => {
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
/// `Some(true)` when the line was too long (its bytes are discarded up to the newline).
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
                line.clear();
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
                (true, Vec::new()),
                (false, b"ok\n".to_vec()),
                (false, b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn parse_errors_are_json_rpc_with_a_null_id() {
        let reply: serde_json::Value = serde_json::from_slice(&parse_error("x")).expect("json");
        assert_eq!(reply["id"], serde_json::Value::Null);
        assert_eq!(reply["error"]["code"], -32700);
    }
}
