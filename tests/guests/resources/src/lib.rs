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

/// The last reader's text, kept in the instance's memory on purpose: a plugin that would hand
/// one client what another read if an instance ever served two conversations.
static LAST: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

fn remember_resource(uri: &str, vars: &TemplateVars) -> Result<Vec<EmbeddedResource>, ToolError> {
    let text = vars.get("text").cloned().unwrap_or_default();
    let previous = LAST
        .lock()
        .map_err(|_| ToolError::failed("poisoned"))?
        .replace(text);
    Ok(vec![EmbeddedResource::text(
        uri,
        previous.unwrap_or_else(|| "(nothing)".into()),
    )])
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
        .resource_template(
            ResourceTemplate::new("hostile://remember/{text}", "remember")
                .description("Keep `text` in a global and return the text kept before it."),
            remember_resource,
        )
        .resource(
            Resource::new("hostile://spin", "spin").description("Never finishes reading."),
            spin_resource,
        )
}

warden_sdk::export_plugin!(plugin);
