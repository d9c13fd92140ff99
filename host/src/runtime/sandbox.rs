//! The WASI world a plugin lives in: no preopened directories, no environment, no
//! arguments, no network. Attempts to reach for any of them are refused and audited, and
//! the guest's stdout/stderr go to the host log (tagged with the plugin), never to the MCP
//! stream on stdout.

use super::state::PluginState;
use crate::audit::{self, AuditLog, Outcome, Record};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::AsyncWrite;
use wasmtime::component::{HasSelf, Linker, Resource};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::filesystem::Descriptor;
use wasmtime_wasi::p2::bindings::{cli::environment, filesystem::preopens};
use wasmtime_wasi::sockets::SocketAddrUse;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder};

/// Bytes of guest stdout+stderr logged per call; the rest is dropped (with one note).
pub const GUEST_LOG_BUDGET: i64 = 64 * 1024;

/// Who is running (for audit lines written from places without the store, such as socket
/// checks) and the tail of what it last said on stderr (for trap messages).
#[derive(Debug, Clone)]
pub struct GuestScope {
    pub plugin: Arc<str>,
    pub audit: Arc<AuditLog>,
    pub tool: Arc<Mutex<String>>,
    /// Who made the call in progress.
    pub caller: Arc<Mutex<Caller>>,
    pub stderr_tail: Arc<Mutex<String>>,
}

/// The MCP client behind the call in progress, for audit lines.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    pub client: Option<Arc<str>>,
    pub session: Option<Arc<str>>,
}

/// An allowed host request a capability made for a plugin, for [`GuestScope::used`].
#[derive(Debug)]
pub struct Used<'a> {
    pub capability: &'a str,
    /// Origin and path (no query: it may carry tokens), or a host, or a cookie domain.
    pub target: &'a str,
    /// The error kind when the request failed (`timeout`, `io`, ...).
    pub error: Option<&'a str>,
    pub duration: std::time::Duration,
    pub tabs_opened: Option<usize>,
    pub tabs_open: Option<usize>,
}

/// How much of a guest's last stderr output is kept for trap messages.
const STDERR_TAIL: usize = 1024;

impl GuestScope {
    /// What the guest wrote to stderr during the current call (its panic message, say).
    pub fn last_stderr(&self) -> String {
        self.stderr_tail
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    fn remember_stderr(&self, line: &str) {
        if let Ok(mut tail) = self.stderr_tail.lock() {
            tail.push_str(line);
            tail.push('\n');
            if tail.len() > STDERR_TAIL {
                let cut = tail.len() - STDERR_TAIL;
                let cut = (cut..tail.len())
                    .find(|&i| tail.is_char_boundary(i))
                    .unwrap_or(tail.len());
                tail.drain(..cut);
            }
        }
    }

    pub fn current_tool(&self) -> String {
        self.tool.lock().map(|t| t.clone()).unwrap_or_default()
    }

    pub fn caller(&self) -> Caller {
        self.caller.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Record an allowed host request with its outcome; never a cookie or a header value.
    pub fn used(&self, used: &Used<'_>) {
        let caller = self.caller();
        let outcome = match used.error {
            None => Outcome::Ok,
            Some("timeout") => Outcome::Timeout,
            Some("access_denied") => Outcome::Denied,
            Some(_) => Outcome::ToolError,
        };
        self.audit.write(&Record {
            ts: audit::now(),
            event: "capability_used",
            plugin: &self.plugin,
            tool: &self.current_tool(),
            args_sha256: None,
            args_bytes: None,
            decision: "allowed",
            outcome,
            duration_ms: Some(audit::millis(used.duration)),
            capability: Some(used.capability),
            target: Some(used.target),
            reason: None,
            client: caller.client.as_deref(),
            session: caller.session.as_deref(),
            error: used.error,
            tabs_opened: used.tabs_opened,
            tabs_open: used.tabs_open,
        });
    }

    /// Record a refused capability use.
    pub fn denied(&self, capability: &str, target: &str, reason: &str) {
        tracing::warn!(plugin = %self.plugin, capability, target, "denied: {reason}");
        let caller = self.caller();
        self.audit.write(&Record {
            ts: audit::now(),
            event: "capability_denied",
            plugin: &self.plugin,
            tool: &self.current_tool(),
            args_sha256: None,
            args_bytes: None,
            decision: "denied",
            outcome: Outcome::Denied,
            duration_ms: None,
            capability: Some(capability),
            target: Some(target),
            reason: Some(reason),
            client: caller.client.as_deref(),
            session: caller.session.as_deref(),
            error: None,
            tabs_opened: None,
            tabs_open: None,
        });
    }
}

/// Build the WASI context of one plugin instance.
pub fn wasi_ctx(scope: &GuestScope, budget: &Arc<AtomicI64>) -> WasiCtx {
    let check_scope = scope.clone();
    let mut builder = WasiCtxBuilder::new();
    builder
        .stdout(GuestLog::new(scope, "stdout", budget))
        .stderr(GuestLog::new(scope, "stderr", budget))
        // Sockets exist so that every attempt reaches this check, which refuses and audits it.
        .allow_tcp(true)
        .allow_udp(true)
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
                    "plugins have no network access ({usage:?}); use a capability such as capture http_get, which the manifest grants per host"
                ),
            );
            Box::pin(async { false })
        });
    builder.build()
}

/// Link WASI into `linker`, with the environment and preopens replaced by audited empty ones.
pub fn add_wasi(linker: &mut Linker<PluginState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_async(linker)?;
    linker.allow_shadowing(true);
    environment::add_to_linker::<PluginState, HasSelf<PluginState>>(linker, |s| s)?;
    preopens::add_to_linker::<PluginState, HasSelf<PluginState>>(linker, |s| s)?;
    linker.allow_shadowing(false);
    Ok(())
}

impl environment::Host for PluginState {
    fn get_environment(&mut self) -> wasmtime::Result<Vec<(String, String)>> {
        self.scope.denied(
            "wasi:environment",
            "environment variables",
            "plugins get no environment variables; configuration belongs in the manifest",
        );
        Ok(Vec::new())
    }
    fn get_arguments(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(Vec::new())
    }
    fn initial_cwd(&mut self) -> wasmtime::Result<Option<String>> {
        Ok(None)
    }
}

impl preopens::Host for PluginState {
    fn get_directories(&mut self) -> wasmtime::Result<Vec<(Resource<Descriptor>, String)>> {
        self.scope.denied(
            "wasi:filesystem",
            "the filesystem",
            "plugins get no directories; files reach a plugin only through a granted capability such as sftp",
        );
        Ok(Vec::new())
    }
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
