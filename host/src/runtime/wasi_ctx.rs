//! The WASI context of one plugin instance: the granted directories and nothing else to
//! open, no socket (every attempt refused and audited), and the guest's stdout/stderr sent to
//! the host log under a per-call byte budget (a stdio MCP server's stdin and stdout are the
//! host's pipes instead, `mcp_server/stdio_wire.rs`). What the guest's WASI imports may do with it is
//! `sandbox.rs`.

use super::mcp_server::GuestStdio;
use crate::audit::GuestScope;
use crate::manifest::grants::Grants;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::task::{Context, Poll};
use tokio::io::AsyncWrite;
use wasmtime_wasi::FsPerms;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::sockets::SocketAddrUse;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder};

/// Bytes of guest stdout+stderr logged per call; the rest is dropped (with one note).
pub const GUEST_LOG_BUDGET: i64 = 64 * 1024;

/// Build the WASI context of one plugin instance; `stdio`, a stdio MCP server's pipes.
pub fn wasi_ctx(
    scope: &GuestScope,
    budget: &Arc<AtomicI64>,
    grants: &Grants,
    stdio: Option<GuestStdio>,
) -> WasiCtx {
    let check_scope = scope.clone();
    let mut builder = WasiCtxBuilder::new();
    for dir in &grants.files {
        let perms = if dir.write {
            FsPerms::ReadWrite
        } else {
            FsPerms::ReadOnly
        };
        // Checked when the manifest loaded; a directory removed since is left out (the
        // plugin's access to it fails) rather than failing every call.
        if let Err(e) = builder.preopened_dir(&dir.host, &dir.guest, perms) {
            tracing::error!(plugin = %scope.plugin, dir = %dir.host.display(), "granted directory cannot be opened: {e}");
        }
    }
    match stdio {
        Some(pipes) => builder.stdin(pipes.stdin).stdout(pipes.stdout),
        None => builder.stdout(GuestLog::new(scope, "stdout", budget)),
    };
    builder
        .stderr(GuestLog::new(scope, "stderr", budget))
        // Socket creation is refused before this (see `tcp_create_socket::Host` below); this
        // check stays as a second wall.
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        .socket_addr_check(move |addr: SocketAddr, usage: SocketAddrUse| {
            // wasmtime checks an implicit bind to the unspecified address before a connect. Binding that (an ephemeral local port) reaches nobody; allowing it lets the
            // check that matters, on the real remote address, run and be audited.
            // TCP only: a bound TCP socket still needs `listen` (checked) to accept anything, while
            // a bound UDP socket would receive datagrams, each one a denial anyone could trigger.
            let implicit_bind = matches!(usage, SocketAddrUse::TcpBind)
                && addr.ip().is_unspecified()
                && addr.port() == 0;
            if implicit_bind {
                return Box::pin(async { true });
            }
            check_scope.denied(
                "wasi:sockets",
                &addr.to_string(),
                &format!(
                    "plugins have no sockets ({usage:?}); make HTTP requests with wasi:http, which the manifest grants per origin (grants.http)"
                ),
            );
            Box::pin(async { false })
        });
    builder.build()
}

/// Guest stdout/stderr, written to the host log line by line under a per-call byte budget.
struct GuestLog {
    scope: GuestScope,
    stream: &'static str,
    budget: Arc<AtomicI64>,
}

impl GuestLog {
    fn new(scope: &GuestScope, stream: &'static str, budget: &Arc<AtomicI64>) -> Self {
        Self {
            scope: scope.clone(),
            stream,
            budget: budget.clone(),
        }
    }
}

impl IsTerminal for GuestLog {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for GuestLog {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(GuestLogWriter {
            scope: self.scope.clone(),
            stream: self.stream,
            budget: self.budget.clone(),
            line: Vec::new(),
        })
    }
}

struct GuestLogWriter {
    scope: GuestScope,
    stream: &'static str,
    budget: Arc<AtomicI64>,
    line: Vec<u8>,
}

impl GuestLogWriter {
    fn emit(&mut self) {
        if !self.line.is_empty() {
            let text = String::from_utf8_lossy(&self.line).trim_end().to_string();
            tracing::info!(plugin = %self.scope.plugin, stream = self.stream, "{text}");
            if self.stream == "stderr" {
                self.scope.remember_stderr(&text);
            }
            self.line.clear();
        }
    }
}

impl AsyncWrite for GuestLogWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let len = i64::try_from(buf.len()).unwrap_or(i64::MAX);
        let before = self.budget.fetch_sub(len, Ordering::Relaxed);
        if before <= 0 {
            // Accept and drop: a guest that floods its output must not stall or fail on it.
            return Poll::Ready(Ok(buf.len()));
        }
        let keep = usize::try_from(before.min(len)).unwrap_or(0);
        for &b in &buf[..keep] {
            if b == b'\n' || self.line.len() >= 4096 {
                self.emit();
            }
            if b != b'\n' {
                self.line.push(b);
            }
        }
        if before <= len {
            self.emit();
            tracing::warn!(plugin = %self.scope.plugin, stream = self.stream, "guest output over {GUEST_LOG_BUDGET} bytes in one call; the rest is dropped");
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.emit();
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}
