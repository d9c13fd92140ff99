//! The WASI world a plugin lives in: only the directories (`grants.files`, served by
//! `files/`) and environment variables (`grants.env`) its grants name, no arguments, not a
//! single socket (creating one is refused, so a plugin cannot spend the host's file
//! descriptors; its network is `wasi:http`, sent by the host under `grants.http`). Socket
//! attempts are refused and audited; an empty environment or
//! directory list is what an instance without those grants is given, not a refusal
//! (language runtimes such as CPython read both at start, so auditing every read would only
//! write false lines): a call that then fails is told, and audited, which grant it may have
//! lacked (`kinds.rs`). The context these imports serve (preopens, guest stdout/stderr to
//! the host log, never to the MCP stream on stdout) is built in `wasi_ctx.rs`.

use super::store_data::PluginState;
use wasmtime::component::{HasSelf, Linker, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::sockets::network::{self, ErrorCode, IpAddressFamily};
use wasmtime_wasi::p2::bindings::sockets::{tcp_create_socket, udp_create_socket};
use wasmtime_wasi::p2::bindings::{cli::environment, filesystem::preopens};
use wasmtime_wasi::p2::{SocketError, SocketResult, TcpSocket, UdpSocket};
use wasmtime_wasi::sockets::WasiSocketsView;

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
