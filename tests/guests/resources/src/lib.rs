//! Test guest `resources`: resource reads that misbehave on purpose, to test that
//! `resources/read` is guarded like a tool call. Its own guest, so that tests can load the
//! `hostile` guest twice without two plugins claiming one URI.

use warden_sdk::TemplateVars;
use warden_sdk::prelude::*;

fn flood_resource(uri: &str, vars: &TemplateVars) -> Result<Vec<EmbeddedResource>, ToolError> {
    let bytes: usize = vars
        .get("bytes")
        .and_then(|b| b.parse().ok())
        .ok_or_else(|| ToolError::not_found(format!("{uri}: bytes must be a number")))?;
    Ok(vec![EmbeddedResource::text(uri, "r".repeat(bytes))])
}

fn spin_resource(_: &str) -> Result<Vec<EmbeddedResource>, ToolError> {
    loop {
        std::hint::black_box(());
    }
}

fn plugin() -> Plugin {
    Plugin::new()
        .resource_template(
            ResourceTemplate::new("hostile://flood/{bytes}", "flood")
                .description("A text of `bytes` times the letter r."),
            flood_resource,
        )
        .resource(
            Resource::new("hostile://spin", "spin").description("Never finishes reading."),
            spin_resource,
        )
}

warden_sdk::export_plugin!(plugin);
