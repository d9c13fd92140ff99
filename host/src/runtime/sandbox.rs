//! The WASI world a plugin lives in: only the directories (`grants.files`, served by
//! `files/`) and environment variables (`grants.env`) its grants name, no arguments, not a
//! single socket (creating one is refused, so a plugin cannot spend the host's file
//! descriptors; its network is `wasi:http`, sent by the host under `grants.http`). Socket attempts are refused and audited; an empty environment or
//! directory list is what an instance without those grants is given, not a refusal
//! (language runtimes such as CPython read both at start, so auditing every read would only
//! write false lines): a call that then fails is told, and audited, which grant it may have
//! lacked (`kinds.rs`). The guest's stdout/stderr go to the host log (tagged with the
//! plugin), never to the MCP stream on stdout.

use super::state::PluginState;
use crate::audit::GuestScope;
use crate::manifest::grants::Grants;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::task::{Context, Poll};
use tokio::io::AsyncWrite;
use wasmtime::component::{HasSelf, Linker, Resource};
use wasmtime_wasi::FsPerms;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::sockets::network::{self, ErrorCode, IpAddressFamily};
use wasmtime_wasi::p2::bindings::sockets::{tcp_create_socket, udp_create_socket};
use wasmtime_wasi::p2::bindings::{cli::environment, filesystem::preopens};
use wasmtime_wasi::p2::{SocketError, SocketResult, TcpSocket, UdpSocket};
use wasmtime_wasi::sockets::SocketAddrUse;
use wasmtime_wasi::sockets::WasiSocketsView;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder};

/// Bytes of guest stdout+stderr logged per call; the rest is dropped (with one note).
pub const GUEST_LOG_BUDGET: i64 = 64 * 1024;

/// Build the WASI context of one plugin instance.
pub fn wasi_ctx(scope: &GuestScope, budget: &Arc<AtomicI64>, grants: &Grants) -> WasiCtx {
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
    builder
        .stdout(GuestLog::new(scope, "stdout", budget))
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

/// Link WASI into `linker`, with the environment and preopens replaced by the granted ones,
/// file descriptors by the host's checked ones (`files/`) and socket creation by an audited
/// refusal.
pub fn add_wasi(linker: &mut Linker<PluginState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p2::add_to_linker_async(linker)?;
    linker.allow_shadowing(true);
    environment::add_to_linker::<PluginState, HasSelf<PluginState>>(linker, |s| s)?;
    preopens::add_to_linker::<PluginState, HasSelf<PluginState>>(linker, |s| s)?;
    super::files::add_to_linker(linker)?;
    tcp_create_socket::add_to_linker::<PluginState, HasSelf<PluginState>>(linker, |s| s)?;
    udp_create_socket::add_to_linker::<PluginState, HasSelf<PluginState>>(linker, |s| s)?;
    linker.allow_shadowing(false);
    Ok(())
}

impl environment::Host for PluginState {
    fn get_environment(&mut self) -> wasmtime::Result<Vec<(String, String)>> {
        if self.grants.env.is_empty() {
            self.env_without_grant = true;
        }
        Ok(self.grants.env.clone())
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
        // With no directory, no path can be opened at all: a file access fails in the guest.
        let dirs = preopens::Host::get_directories(&mut self.filesystem())?;
        if dirs.is_empty() {
            self.files.looked_without_grant = true;
        }
        for (fd, guest) in &dirs {
            self.files.preopened(fd.rep(), guest);
        }
        Ok(dirs)
    }
}

const NO_SOCKETS: &str = "plugins cannot create sockets; make HTTP requests with wasi:http, which the manifest grants per origin (grants.http)";

// The socket interfaces below need the network error conversions; WASI's own serve them.
impl network::Host for PluginState {
    fn convert_error_code(&mut self, error: SocketError) -> wasmtime::Result<ErrorCode> {
        network::Host::convert_error_code(&mut self.sockets(), error)
    }

    fn network_error_code(
        &mut self,
        err: Resource<network::Error>,
    ) -> wasmtime::Result<Option<ErrorCode>> {
        network::Host::network_error_code(&mut self.sockets(), err)
    }
}

impl network::HostNetwork for PluginState {
    fn drop(&mut self, this: Resource<network::Network>) -> wasmtime::Result<()> {
        network::HostNetwork::drop(&mut self.sockets(), this)
    }
}

impl tcp_create_socket::Host for PluginState {
    fn create_tcp_socket(&mut self, _: IpAddressFamily) -> SocketResult<Resource<TcpSocket>> {
        self.scope
            .denied("wasi:sockets", "a TCP socket", NO_SOCKETS);
        Err(ErrorCode::AccessDenied.into())
    }
}

impl udp_create_socket::Host for PluginState {
    async fn create_udp_socket(&mut self, _: IpAddressFamily) -> SocketResult<Resource<UdpSocket>> {
        self.scope
            .denied("wasi:sockets", "a UDP socket", NO_SOCKETS);
        Err(ErrorCode::AccessDenied.into())
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
