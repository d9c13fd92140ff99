//! MCP over stdio: newline-delimited JSON-RPC on stdin/stdout. stdout carries only MCP;
//! every log line goes to stderr.
//!
//! rmcp silently drops a line that is not JSON. JSON-RPC 2.0 asks for a `-32700 Parse error`
//! reply (with `id: null`), so a thin framing layer sits in front of rmcp: it passes every
//! JSON line through, answers the others itself, and funnels both its replies and rmcp's
//! through one writer task so that lines on stdout never interleave.

use super::WardenServer;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest accepted line (a base64 file upload fits comfortably).
const MAX_LINE: usize = 64 * 1024 * 1024;

/// Serve until the client closes stdin.
pub async fn serve(server: WardenServer) -> anyhow::Result<()> {
    serve_on(server, tokio::io::stdin(), tokio::io::stdout()).await
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
    tokio::spawn(read_input(input, to_rmcp, lines_tx.clone()));
    tokio::spawn(forward_output(from_rmcp, lines_tx));

    let service = server.serve((rmcp_in, rmcp_out)).await?;
    let reason = service.waiting().await?;
    tracing::info!("client disconnected: {reason:?}");
    // The writer ends when every sender is gone; give it the chance to flush.
    let _ = writer.await;
    Ok(())
}

async fn read_input<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: tokio::io::DuplexStream,
    replies: mpsc::Sender<Vec<u8>>,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                tracing::error!("cannot read stdin: {e}");
                break;
            }
        }
        let text = trim(&line);
        if text.is_empty() {
            continue;
        }
        if line.len() > MAX_LINE {
            let _ = replies
                .send(parse_error(&format!(
                    "message longer than {MAX_LINE} bytes"
                )))
                .await;
            continue;
        }
        match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
            Ok(_) => {
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

async fn forward_output(from_rmcp: tokio::io::DuplexStream, lines: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
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
