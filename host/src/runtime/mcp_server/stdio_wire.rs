//! An MCP server component on stdio (`wasi:cli/run`): each message a line on its stdin, its
//! answers lines on its stdout (MCP's stdio transport). The host's ends of the two pipes are
//! here; the guest's ends are its WASI stdin and stdout (`wasi_ctx.rs`), and its stderr goes
//! to the host log as any plugin's does. Its output is read while a message is written, so a
//! server that writes before it reads cannot stall both sides.

use super::fault::Fault;
use super::frames::Lines;
use super::intake::{Bounds, Tally, parse};
use serde_json::Value;
use std::collections::VecDeque;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use wasmtime_wasi::cli::{AsyncStdinStream, AsyncStdoutStream};

/// Bytes each pipe holds before its writer waits for the reader.
const PIPE: usize = 64 * 1024;
/// Bytes read from stdout at a time.
const CHUNK: usize = 16 * 1024;

/// The guest's ends, for its WASI context.
pub struct GuestStdio {
    pub stdin: AsyncStdinStream,
    pub stdout: AsyncStdoutStream,
}

/// The two pipes of one instance: the guest's ends for its WASI context, the host's for
/// the wire.
pub fn pipes(bounds: Bounds) -> (GuestStdio, StdioWire) {
    let (host_in, guest_in) = tokio::io::duplex(PIPE);
    let (guest_out, host_out) = tokio::io::duplex(PIPE);
    (
        GuestStdio {
            stdin: AsyncStdinStream::new(guest_in),
            stdout: AsyncStdoutStream::new(PIPE, guest_out),
        },
        StdioWire::new(host_in, host_out, bounds),
    )
}

pub struct StdioWire {
    stdin: DuplexStream,
    stdout: DuplexStream,
    lines: Lines,
    pending: VecDeque<Value>,
    tally: Tally,
    /// The server closed its stdout.
    closed: bool,
}

impl StdioWire {
    /// The host's ends of a server's stdin and stdout.
    fn new(stdin: DuplexStream, stdout: DuplexStream, bounds: Bounds) -> Self {
        Self {
            stdin,
            stdout,
            lines: Lines::new(bounds.message),
            pending: VecDeque::new(),
            tally: Tally::new(bounds),
            closed: false,
        }
    }

    fn exited(method: &str, detail: &str) -> Fault {
        Fault::Exited {
            method: method.to_string(),
            detail: detail.to_string(),
        }
    }

    pub async fn send(&mut self, message: &Value, method: &str) -> Result<(), Fault> {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        let Self {
            stdin,
            stdout,
            lines,
            pending,
            tally,
            closed,
        } = self;
        let write = async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        };
        tokio::pin!(write);
        let mut chunk = vec![0; CHUNK];
        loop {
            tokio::select! {
                written = &mut write => {
                    return written.map_err(|_| Self::exited(method, " (it closed its stdin)"));
                }
                read = stdout.read(&mut chunk), if !*closed => {
                    take_in(read, &chunk, lines, pending, tally, closed, method)?;
                }
            }
        }
    }

    pub async fn recv(&mut self, method: &str) -> Result<Value, Fault> {
        let mut chunk = vec![0; CHUNK];
        loop {
            if let Some(message) = self.pending.pop_front() {
                return Ok(message);
            }
            if self.closed {
                return Err(Self::exited(method, " (it closed its stdout)"));
            }
            let read = self.stdout.read(&mut chunk).await;
            take_in(
                read,
                &chunk,
                &mut self.lines,
                &mut self.pending,
                &mut self.tally,
                &mut self.closed,
                method,
            )?;
        }
    }
}

/// What one read of stdout brought: bytes counted, cut into lines, each a message.
fn take_in(
    read: std::io::Result<usize>,
    chunk: &[u8],
    lines: &mut Lines,
    pending: &mut VecDeque<Value>,
    tally: &mut Tally,
    closed: &mut bool,
    method: &str,
) -> Result<(), Fault> {
    let n = match read {
        Ok(0) | Err(_) => {
            *closed = true;
            return Ok(());
        }
        Ok(n) => n,
    };
    tally.add(n, method)?;
    lines.feed(&chunk[..n]).map_err(|_| tally.overlong())?;
    while let Some(line) = lines.next_line() {
        if !line.iter().all(u8::is_ascii_whitespace) {
            parse(&line, pending)?;
        }
    }
    Ok(())
}

/// A wire whose server has already written `output` and reads whatever it is sent: a
/// server's output replayed without an instance (`super::replay`).
pub fn scripted(output: Vec<u8>, bounds: Bounds) -> StdioWire {
    let (host_in, mut guest_in) = tokio::io::duplex(PIPE);
    let (mut guest_out, host_out) = tokio::io::duplex(PIPE);
    tokio::spawn(async move {
        let mut sink = vec![0; CHUNK];
        while matches!(guest_in.read(&mut sink).await, Ok(n) if n > 0) {}
    });
    tokio::spawn(async move {
        let _ = guest_out.write_all(&output).await;
    });
    StdioWire::new(host_in, host_out, bounds)
}
