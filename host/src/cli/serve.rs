//! `warden serve`: load every plugin, then answer MCP on stdio or HTTP.

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use warden::admin;
use warden::app::{App, Purpose};
use warden::mcp::{WardenServer, http, stdio};
use warden::reload;

pub async fn run(
    manifest: Option<&Path>,
    http_addr: Option<SocketAddr>,
    admin_addr: Option<SocketAddr>,
    replica: Option<String>,
) -> anyhow::Result<ExitCode> {
    let parsed = App::read_manifest(manifest)?;
    // Before any plugin starts: every handle minted from now on carries the name.
    if let Some(name) = replica.as_deref().or(parsed.replica.as_deref()) {
        warden::replica::set(name)?;
    }
    // The admin listener answers liveness (and "not ready") while the plugins load.
    let admin = match admin_addr.or(parsed.admin_listen) {
        Some(addr) => Some(admin::start(addr, http_addr).await?),
        None => None,
    };
    let otlp = parsed.otlp_endpoint.clone();
    // Every plugin loads before the first request is read: tools/list is never partial.
    let App {
        manifest: loaded,
        registry,
    } = App::start(parsed, None, Purpose::Serve).await?;
    if let Some(endpoint) = &otlp {
        warden::trace::start(endpoint);
    }
    // [audit] retention, at the start of the server (not of `check` or `tools`, which only
    // read), then as recordings close.
    if let Some(recordings) = &registry.services().recordings {
        recordings.enforce_retention();
    }
    // Only the server holds the registry: after a reload the first one goes (its plugin
    // instances, their memory, its audit file) like every later one.
    let server = WardenServer::new(registry);
    let http_config = loaded.http;
    if let Some(admin) = &admin {
        admin.serving(server.clone());
    }
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
    let serving = async {
        match http_addr {
            Some(addr) => http::serve(server.clone(), addr, &http_config)
                .await
                .map_err(anyhow::Error::from),
            None => stdio::serve(server.clone()).await,
        }
    };
    let outcome = tokio::select! {
        outcome = serving => outcome,
        signal = shutdown_signal() => {
            tracing::info!("{signal}: shutting down");
            Ok(())
        }
    };
    if let Some(admin) = &admin {
        admin.draining();
    }
    // Browsers close cleanly (persistent profiles are written out), shells hang up. A second
    // signal does not wait for that.
    let services = server.registry().services().clone();
    tokio::select! {
        () = services.shutdown() => {}
        signal = shutdown_signal() => tracing::warn!("{signal} again: exiting without waiting"),
    }
    outcome?;
    Ok(ExitCode::SUCCESS)
}

/// The first of SIGTERM, SIGINT (Ctrl-C) and SIGHUP, by name.
#[cfg(unix)]
async fn shutdown_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind| signal(kind).ok();
    let (mut term, mut int, mut hup) = (
        listen(SignalKind::terminate()),
        listen(SignalKind::interrupt()),
        listen(SignalKind::hangup()),
    );
    async fn next(s: &mut Option<tokio::signal::unix::Signal>) {
        match s {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    tokio::select! {
        () = next(&mut term) => "SIGTERM",
        () = next(&mut int) => "SIGINT",
        () = next(&mut hup) => "SIGHUP",
    }
}

#[cfg(not(unix))]
async fn shutdown_signal() -> &'static str {
    let _ = tokio::signal::ctrl_c().await;
    "Ctrl-C"
}
