//! Live manifest reload. The manifest's directory is watched (editors replace files by
//! rename, which a watch on the file itself would miss). A change is loaded completely, with
//! every plugin, before it replaces what is served; an invalid change is refused, logged, and
//! the previous manifest keeps serving. Clients are told with `notifications/tools/list_changed`.

use crate::app::App;
use crate::mcp::WardenServer;
use notify::{RecursiveMode, Watcher};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;

/// Quiet time after the last file event before reloading (editors write in several steps).
const SETTLE: Duration = Duration::from_millis(200);

/// Watch `manifest` and reload `server` when it changes. Keep the returned watcher alive.
pub fn watch(manifest: &Path, server: WardenServer) -> notify::Result<notify::RecommendedWatcher> {
    let path = std::path::absolute(manifest).unwrap_or_else(|_| manifest.to_path_buf());
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let name = path.file_name().map(ToOwned::to_owned);
    let (tx, rx) = mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && event.paths.iter().any(|p| p.file_name() == name.as_deref())
        {
            let _ = tx.send(());
        }
    })?;
    watcher.watch(&dir, RecursiveMode::NonRecursive)?;
    tokio::spawn(reload_loop(path, server, rx));
    Ok(watcher)
}

async fn reload_loop(path: PathBuf, server: WardenServer, mut events: mpsc::UnboundedReceiver<()>) {
    let mut last = digest(&path);
    while events.recv().await.is_some() {
        // Let the burst of events from one save settle.
        loop {
            tokio::select! {
                more = events.recv() => if more.is_none() { return },
                () = tokio::time::sleep(SETTLE) => break,
            }
        }
        let now = digest(&path);
        if now.is_none() || now == last {
            continue;
        }
        last = now;
        let previous = server.registry().services().clone();
        match App::reload(&path, &previous).await {
            Ok(app) => {
                // Open sessions the new manifest still allows carry over; the rest close.
                let services = app.registry.services().clone();
                services.adopt_sessions(&previous, &app.manifest).await;
                let tools = app.registry.tools().len();
                server.replace(app.registry).await;
                services.take_over_browsers(&previous, &app.manifest).await;
                crate::metrics::reloaded(true);
                tracing::info!(manifest = %path.display(), "manifest reloaded: {tools} tools served; clients were told the tool list changed");
            }
            Err(e) => {
                crate::metrics::reloaded(false);
                tracing::error!(
                    manifest = %path.display(),
                    "manifest change refused, still serving the previous manifest:\n{e:#}"
                );
            }
        }
    }
}

fn digest(path: &Path) -> Option<[u8; 32]> {
    std::fs::read(path)
        .ok()
        .map(|bytes| Sha256::digest(bytes).into())
}
