//! Conversions between the plugin contract's types and MCP's (rmcp) types.

use crate::runtime::bindings::{
    Annotations, Completion, ContentBlock, EmbeddedResource, Prompt, ResourceBody, ResourceInfo,
    ResourceTemplate, Role, ToolOutput,
};
use crate::runtime::registry::{PromptEntry, ToolEntry};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{self, CallToolResult, JsonObject, ResourceContents, ToolAnnotations};
use std::sync::Arc;

fn schema(text: &str) -> Arc<JsonObject> {
    // Validated as a JSON object when the plugin loaded.
    Arc::new(serde_json::from_str(text).unwrap_or_default())
}

pub fn tool(entry: &ToolEntry) -> model::Tool {
    let info = &entry.info;
    let mut tool = model::Tool::new(
        entry.public_name.clone(),
        info.description.clone(),
        schema(&info.input_schema),
    );
    if let Some(annotations) = annotations(&info.annotations) {
        tool = tool.with_annotations(annotations);
    }
    if let Some(title) = &info.title {
        tool = tool.with_title(title.clone());
    }
    if let Some(out) = &info.output_schema {
        tool = tool.with_raw_output_schema(schema(out));
    }
    tool
}

/// Only the hints that let a client trust a tool more than MCP's cautious defaults (which
/// are: may change things, may destroy, not idempotent, open world) and that clients act
/// on: `readOnlyHint` and `idempotentHint`. Every client reads `tools/list` on every
/// connection, so the rest stays unsaid, and the title is the tool's own `title`.
fn annotations(a: &Annotations) -> Option<ToolAnnotations> {
    let mut hints = ToolAnnotations::default();
    if a.read_only {
        hints.read_only_hint = Some(true);
    } else if a.idempotent {
        hints.idempotent_hint = Some(true);
    }
    (hints.read_only_hint.is_some() || hints.idempotent_hint.is_some()).then_some(hints)
}

fn contents(r: EmbeddedResource) -> ResourceContents {
    match r.body {
        ResourceBody::Text(text) => ResourceContents::TextResourceContents {
            uri: r.uri,
            mime_type: r.mime_type,
            text,
            meta: None,
        },
        ResourceBody::Blob(bytes) => ResourceContents::BlobResourceContents {
            uri: r.uri,
            mime_type: r.mime_type,
            blob: BASE64.encode(bytes),
            meta: None,
        },
    }
}

pub fn resource_contents(list: Vec<EmbeddedResource>) -> Vec<ResourceContents> {
    list.into_iter().map(contents).collect()
}

fn block(block: ContentBlock) -> model::ContentBlock {
    match block {
        ContentBlock::Text(t) => model::ContentBlock::text(t),
        ContentBlock::Image(m) => model::ContentBlock::image(BASE64.encode(m.data), m.mime_type),
        ContentBlock::Audio(m) => model::ContentBlock::audio(BASE64.encode(m.data), m.mime_type),
        ContentBlock::Resource(r) => model::ContentBlock::resource(contents(r)),
    }
}

pub fn prompt(entry: &PromptEntry) -> model::Prompt {
    let info = &entry.info;
    let arguments = info
        .arguments
        .iter()
        .map(|a| {
            let mut arg = model::PromptArgument::new(a.name.clone());
            arg.description.clone_from(&a.description);
            arg.required = Some(a.required);
            arg
        })
        .collect::<Vec<_>>();
    let mut p = model::Prompt::new(
        entry.public_name.clone(),
        info.description.clone(),
        (!arguments.is_empty()).then_some(arguments),
    );
    p.title.clone_from(&info.title);
    p
}

pub fn prompt_result(prompt: Prompt) -> model::GetPromptResult {
    let messages = prompt
        .messages
        .into_iter()
        .map(|m| {
            let role = match m.role {
                Role::User => model::Role::User,
                Role::Assistant => model::Role::Assistant,
            };
            model::PromptMessage::new(role, block(m.content))
        })
        .collect();
    let result = model::GetPromptResult::new(messages);
    match prompt.description {
        Some(d) => result.with_description(d),
        None => result,
    }
}

pub fn completion(done: Completion) -> Result<model::CompletionInfo, String> {
    model::CompletionInfo::with_pagination(done.values, done.total, done.has_more)
}

/// A JSON object of string values as name/value pairs; `Err(key)` names a value that is not a
/// string.
pub fn string_pairs(object: Option<&JsonObject>) -> Result<Vec<(String, String)>, String> {
    object
        .into_iter()
        .flatten()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => Ok((k.clone(), s.clone())),
            _ => Err(k.clone()),
        })
        .collect()
}

pub fn success(output: ToolOutput) -> CallToolResult {
    let ToolOutput {
        content,
        structured,
    } = output;
    let content = content.into_iter().map(block).collect();
    let mut result = CallToolResult::success(content);
    if let Some(structured) = structured {
        match serde_json::from_str::<serde_json::Value>(&structured) {
            Ok(value) => result.structured_content = Some(value),
            Err(e) => {
                return error(format!(
                    "failed: the plugin returned structured content that is not JSON ({e})"
                ));
            }
        }
    }
    result
}

pub fn error(message: String) -> CallToolResult {
    CallToolResult::error(vec![model::ContentBlock::text(message)])
}

pub fn resource(info: &ResourceInfo) -> model::Resource {
    let mut r = model::Resource::new(info.uri.clone(), info.name.clone());
    r.description.clone_from(&info.description);
    r.mime_type.clone_from(&info.mime_type);
    r
}

pub fn template(info: &ResourceTemplate) -> model::ResourceTemplate {
    let mut t = model::ResourceTemplate::new(info.uri_template.clone(), info.name.clone());
    t.description.clone_from(&info.description);
    t.mime_type.clone_from(&info.mime_type);
    t
}
