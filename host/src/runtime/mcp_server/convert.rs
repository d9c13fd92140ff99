//! An MCP server's answers, as JSON, turned into what every plugin hands the host (the
//! `warden:plugin` types): tools, resources, templates and prompts as listed, and the
//! results of calls, reads, prompts and completions. Each conversion says what is missing
//! or of the wrong type, for the [`super::fault::Fault::Shape`] that reports it.

use super::super::bindings::{
    Annotations, Completion, ContentBlock, EmbeddedResource, Media, Prompt, PromptArgument,
    PromptInfo, PromptMessage, ResourceBody, ResourceInfo, ResourceTemplate, Role, TaskSupport,
    ToolError, ToolInfo, ToolOutput,
};
use base64::Engine;
use serde_json::{Map, Value};

type Shaped<T> = Result<T, String>;

fn object<'a>(value: &'a Value, what: &str) -> Shaped<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| format!("{what} is not an object"))
}

fn text(map: &Map<String, Value>, key: &str, what: &str) -> Shaped<String> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("{what}.{key} is not a string")),
        None => Err(format!("{what} has no {key}")),
    }
}

fn optional_text(map: &Map<String, Value>, key: &str, what: &str) -> Shaped<Option<String>> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(Some(s.clone())),
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(format!("{what}.{key} is not a string")),
    }
}

fn flag(map: &Map<String, Value>, key: &str, default: bool) -> bool {
    map.get(key).and_then(Value::as_bool).unwrap_or(default)
}

fn bytes(encoded: &str, what: &str) -> Shaped<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| format!("{what} is not base64: {e}"))
}

/// The items of a list answer (`tools`, `resources`, ...) and its next cursor.
pub fn page<'a>(result: &'a Value, key: &str) -> Shaped<(&'a [Value], Option<String>)> {
    let map = object(result, "the result")?;
    let items = match map.get(key) {
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => return Err(format!("result.{key} is not an array")),
        None => return Err(format!("the result has no {key}")),
    };
    Ok((items, optional_text(map, "nextCursor", "the result")?))
}

/// One entry of `tools/list`. MCP's defaults stand for absent hints (a tool may change and
/// destroy things, and reaches an open world).
pub fn tool_info(value: &Value) -> Shaped<ToolInfo> {
    let map = object(value, "a tool")?;
    let name = text(map, "name", "a tool")?;
    let what = format!("tool {name:?}");
    let schema = |key: &str| -> Shaped<Option<String>> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v @ Value::Object(_)) => Ok(Some(v.to_string())),
            Some(_) => Err(format!("{what}.{key} is not a JSON Schema object")),
        }
    };
    let input_schema =
        schema("inputSchema")?.ok_or_else(|| format!("{what} has no inputSchema"))?;
    let hints = match map.get("annotations") {
        Some(Value::Object(hints)) => hints.clone(),
        _ => Map::new(),
    };
    let read_only = flag(&hints, "readOnlyHint", false);
    Ok(ToolInfo {
        title: optional_text(map, "title", &what)?.or(optional_text(&hints, "title", &what)?),
        description: optional_text(map, "description", &what)?.unwrap_or_default(),
        input_schema,
        output_schema: schema("outputSchema")?,
        annotations: Annotations {
            read_only,
            destructive: flag(&hints, "destructiveHint", !read_only),
            idempotent: flag(&hints, "idempotentHint", false),
            open_world: flag(&hints, "openWorldHint", true),
        },
        task: TaskSupport::Never,
        name,
    })
}

pub fn resource_info(value: &Value) -> Shaped<ResourceInfo> {
    let map = object(value, "a resource")?;
    Ok(ResourceInfo {
        uri: text(map, "uri", "a resource")?,
        name: text(map, "name", "a resource")?,
        description: optional_text(map, "description", "a resource")?,
        mime_type: optional_text(map, "mimeType", "a resource")?,
    })
}

pub fn resource_template(value: &Value) -> Shaped<ResourceTemplate> {
    let map = object(value, "a resource template")?;
    Ok(ResourceTemplate {
        uri_template: text(map, "uriTemplate", "a resource template")?,
        name: text(map, "name", "a resource template")?,
        description: optional_text(map, "description", "a resource template")?,
        mime_type: optional_text(map, "mimeType", "a resource template")?,
    })
}

pub fn prompt_info(value: &Value) -> Shaped<PromptInfo> {
    let map = object(value, "a prompt")?;
    let name = text(map, "name", "a prompt")?;
    let what = format!("prompt {name:?}");
    let arguments = match map.get("arguments") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|a| {
                let arg = object(a, "an argument")?;
                Ok(PromptArgument {
                    name: text(arg, "name", "an argument")?,
                    description: optional_text(arg, "description", "an argument")?,
                    required: flag(arg, "required", false),
                })
            })
            .collect::<Shaped<_>>()?,
        Some(_) => return Err(format!("{what}.arguments is not an array")),
    };
    Ok(PromptInfo {
        title: optional_text(map, "title", &what)?,
        description: optional_text(map, "description", &what)?,
        arguments,
        name,
    })
}

/// One of `resources/read`'s contents, or the `resource` of an embedded content block.
fn embedded(value: &Value) -> Shaped<EmbeddedResource> {
    let map = object(value, "a resource's contents")?;
    let body = match (map.get("text"), map.get("blob")) {
        (Some(Value::String(t)), _) => ResourceBody::Text(t.clone()),
        (_, Some(Value::String(b))) => ResourceBody::Blob(bytes(b, "a resource's blob")?),
        _ => return Err("a resource's contents have neither text nor blob".into()),
    };
    Ok(EmbeddedResource {
        uri: text(map, "uri", "a resource's contents")?,
        mime_type: optional_text(map, "mimeType", "a resource's contents")?,
        body,
    })
}

pub fn contents(result: &Value) -> Shaped<Vec<EmbeddedResource>> {
    let (items, _) = page(result, "contents")?;
    items.iter().map(embedded).collect()
}

/// One content block. A `resource_link` (which the `warden:plugin` types have no block for)
/// becomes a text block naming the link, so nothing the server said is lost.
fn content_block(value: &Value) -> Shaped<ContentBlock> {
    let map = object(value, "a content block")?;
    let media = |what: &str| -> Shaped<Media> {
        Ok(Media {
            mime_type: text(map, "mimeType", what)?,
            data: bytes(&text(map, "data", what)?, what)?,
        })
    };
    Ok(match text(map, "type", "a content block")?.as_str() {
        "text" => ContentBlock::Text(text(map, "text", "a text block")?),
        "image" => ContentBlock::Image(media("an image block")?),
        "audio" => ContentBlock::Audio(media("an audio block")?),
        "resource" => ContentBlock::Resource(embedded(
            map.get("resource")
                .ok_or("a resource block has no resource")?,
        )?),
        "resource_link" => {
            let uri = text(map, "uri", "a resource link")?;
            ContentBlock::Text(match optional_text(map, "name", "a resource link")? {
                Some(name) if !name.is_empty() => format!("[resource link] {name} {uri}"),
                _ => format!("[resource link] {uri}"),
            })
        }
        other => return Err(format!("a content block has an unknown type {other:?}")),
    })
}

fn blocks(map: &Map<String, Value>, key: &str) -> Shaped<Vec<ContentBlock>> {
    match map.get(key) {
        Some(Value::Array(items)) => items.iter().map(content_block).collect(),
        None => Ok(Vec::new()),
        Some(_) => Err(format!("result.{key} is not an array")),
    }
}

/// `tools/call`'s result: a result with `isError` is the tool's failure, in its own words.
pub fn tool_result(result: &Value) -> Shaped<Result<ToolOutput, ToolError>> {
    let map = object(result, "the result")?;
    let content = blocks(map, "content")?;
    if flag(map, "isError", false) {
        let said: Vec<&str> = content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        let said = if said.is_empty() {
            "the tool reported an error and said nothing more".to_string()
        } else {
            said.join("\n")
        };
        return Ok(Err(ToolError::Failed(said)));
    }
    let structured = match map.get("structuredContent") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.to_string()),
    };
    Ok(Ok(ToolOutput {
        content,
        structured,
    }))
}

pub fn prompt(result: &Value) -> Shaped<Prompt> {
    let map = object(result, "the result")?;
    let messages = match map.get("messages") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|m| {
                let message = object(m, "a message")?;
                let role = match text(message, "role", "a message")?.as_str() {
                    "user" => Role::User,
                    "assistant" => Role::Assistant,
                    other => return Err(format!("a message has an unknown role {other:?}")),
                };
                let content =
                    content_block(message.get("content").ok_or("a message has no content")?)?;
                Ok(PromptMessage { role, content })
            })
            .collect::<Shaped<_>>()?,
        _ => return Err("the result has no messages array".into()),
    };
    Ok(Prompt {
        description: optional_text(map, "description", "the result")?,
        messages,
    })
}

/// `completion/complete`'s result, at most 100 values (MCP's rule; more are dropped).
pub fn completion(result: &Value) -> Shaped<Completion> {
    let map = object(result, "the result")?;
    let inner = object(
        map.get("completion")
            .ok_or("the result has no completion")?,
        "result.completion",
    )?;
    let mut values = match inner.get("values") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "a completion value is not a string".to_string())
            })
            .collect::<Shaped<Vec<_>>>()?,
        _ => return Err("result.completion has no values array".into()),
    };
    let more = values.len() > 100;
    values.truncate(100);
    Ok(Completion {
        total: inner
            .get("total")
            .and_then(Value::as_u64)
            .and_then(|t| u32::try_from(t).ok()),
        has_more: more || flag(inner, "hasMore", false),
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listed_tool_keeps_its_schema_and_gets_mcps_default_hints() {
        let tool = tool_info(&json!({
            "name": "add", "description": "Adds.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}},
            "annotations": {"readOnlyHint": true}
        }))
        .expect("a tool");
        assert_eq!(tool.name, "add");
        assert!(tool.input_schema.contains("\"properties\""));
        assert!(tool.annotations.read_only && !tool.annotations.destructive);
        assert!(tool.annotations.open_world);
        let bare =
            tool_info(&json!({"name": "x", "inputSchema": {"type": "object"}})).expect("a tool");
        assert!(bare.annotations.destructive && bare.description.is_empty());
        let error = tool_info(&json!({"name": "x"})).expect_err("no schema");
        assert!(error.contains("inputSchema"), "{error}");
    }

    #[test]
    fn a_tool_result_with_is_error_is_the_tools_failure_in_its_words() {
        let failed = tool_result(
            &json!({"content": [{"type": "text", "text": "no such city"}], "isError": true}),
        )
        .expect("a result");
        assert!(matches!(failed, Err(ToolError::Failed(m)) if m == "no such city"));
        let ok = tool_result(&json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "mimeType": "image/png", "data": "AAEC"},
                {"type": "resource_link", "uri": "file:///a", "name": "a"}
            ],
            "structuredContent": {"n": 1}
        }))
        .expect("a result")
        .expect("not an error");
        assert_eq!(ok.structured.as_deref(), Some("{\"n\":1}"));
        assert!(matches!(&ok.content[1], ContentBlock::Image(m) if m.data == [0, 1, 2]));
        assert!(
            matches!(&ok.content[2], ContentBlock::Text(t) if t == "[resource link] a file:///a")
        );
        let bad = tool_result(
            &json!({"content": [{"type": "image", "mimeType": "image/png", "data": "%%"}]}),
        );
        assert!(bad.expect_err("not base64").contains("base64"));
    }

    #[test]
    fn prompts_reads_and_completions_convert() {
        let p = prompt(
            &json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}]}),
        )
        .expect("a prompt");
        assert!(matches!(p.messages[0].role, Role::User));
        let read = contents(&json!({"contents": [{"uri": "mem://a", "text": "x"}, {"uri": "mem://b", "blob": "AA=="}]}))
            .expect("contents");
        assert!(matches!(&read[1].body, ResourceBody::Blob(b) if b == &[0]));
        let values: Vec<String> = (0..150).map(|i| i.to_string()).collect();
        let c = completion(&json!({"completion": {"values": values}})).expect("a completion");
        assert_eq!(c.values.len(), 100);
        assert!(c.has_more);
    }
}
