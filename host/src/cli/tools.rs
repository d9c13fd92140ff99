//! `warden tools`: the served tools as a table.

use std::path::Path;
use std::process::ExitCode;
use warden::app::App;

pub async fn run(manifest: Option<&Path>) -> anyhow::Result<ExitCode> {
    let app = App::load(manifest).await?;
    let tools = app.registry.tools();
    let width = tools
        .iter()
        .map(|t| t.public_name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let pwidth = tools
        .iter()
        .map(|t| t.plugin.len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!("{:width$}  {:pwidth$}  ANNOTATIONS", "TOOL", "PLUGIN");
    for t in tools {
        let a = &t.info.annotations;
        let flags: Vec<&str> = [
            (a.read_only, "read-only"),
            (a.destructive, "destructive"),
            (a.idempotent, "idempotent"),
            (a.open_world, "open-world"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        println!(
            "{:width$}  {:pwidth$}  {}",
            warden::shown::line(&t.public_name),
            warden::shown::line(&t.plugin),
            flags.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
