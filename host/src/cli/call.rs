//! `warden call TOOL JSON`: one call through the same path as MCP (grants, limits, audit).

use std::path::Path;
use std::process::ExitCode;
use warden::app::App;
use warden::runtime::CallContext;
use warden::runtime::bindings::ContentBlock;
use warden::shown;

pub async fn run(manifest: Option<&Path>, tool: &str, arguments: &str) -> anyhow::Result<ExitCode> {
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(serde_json::Value::Object(_)) => {}
        Ok(_) => anyhow::bail!(
            "arguments must be a JSON object, like '{{\"url\": \"http://127.0.0.1:8000/\"}}'"
        ),
        Err(e) => anyhow::bail!("arguments are not valid JSON: {e}"),
    }
    let app = App::load(manifest).await?;
    // The local operator, as on stdio: `[server] local_role` applies.
    let call = CallContext {
        access: app.registry.access(None),
        ..CallContext::default()
    };
    let report = app.registry.call(tool, arguments, call).await;
    // A browser the call started closes cleanly: a login it made stays in a persistent profile.
    app.registry.services().shutdown().await;
    let Some(report) = report else {
        anyhow::bail!("unknown tool \"{tool}\"; `warden tools` lists the served tools");
    };
    match report.result {
        Ok(output) => {
            let mut printed = false;
            for block in &output.content {
                match block {
                    // The tool's text is its own block of lines; nothing in it reaches the terminal raw.
                    ContentBlock::Text(t) => println!("{}", shown::block(t)),
                    ContentBlock::Image(m) => {
                        println!(
                            "[image {}, {} bytes]",
                            shown::line(&m.mime_type),
                            m.data.len()
                        )
                    }
                    ContentBlock::Audio(m) => {
                        println!(
                            "[audio {}, {} bytes]",
                            shown::line(&m.mime_type),
                            m.data.len()
                        )
                    }
                    ContentBlock::Resource(r) => println!("[resource {}]", shown::line(&r.uri)),
                }
                printed = true;
            }
            if !printed && let Some(s) = &output.structured {
                println!("{}", shown::line(s));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(failure) => {
            println!("{}", shown::line(&failure.message(&report.plugin)));
            Ok(ExitCode::from(1))
        }
    }
}
