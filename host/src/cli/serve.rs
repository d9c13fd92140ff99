//! `warden serve`: load every plugin, then answer MCP on stdio.

use std::path::Path;
use std::process::ExitCode;
use warden::app::App;
use warden::mcp::{WardenServer, stdio};

pub async fn run(manifest: Option<&Path>) -> anyhow::Result<ExitCode> {
    // Every plugin loads before the first request is read: tools/list is never partial.
    let app = App::load(manifest).await?;
    stdio::serve(WardenServer::new(app.registry.clone())).await?;
    Ok(ExitCode::SUCCESS)
}
