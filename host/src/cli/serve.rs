//! `warden serve`: load every plugin, then answer MCP on stdio or HTTP.

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use warden::app::App;
use warden::mcp::{WardenServer, http, stdio};
use warden::reload;

pub async fn run(
    manifest: Option<&Path>,
    http_addr: Option<SocketAddr>,
) -> anyhow::Result<ExitCode> {
    // Every plugin loads before the first request is read: tools/list is never partial.
    let app = App::load(manifest).await?;
    let server = WardenServer::new(app.registry.clone());
    // The built-in default has no file to watch.
    let _watcher = match manifest {
        Some(path) => match reload::watch(path, server.clone()) {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!(
                    "cannot watch {} for changes (restart to apply edits): {e}",
                    path.display()
                );
                None
            }
        },
        None => None,
    };
    match http_addr {
        Some(addr) => http::serve(server, addr, &app.manifest.http).await?,
        None => stdio::serve(server).await?,
    }
    Ok(ExitCode::SUCCESS)
}
