//! `native:echo`: the `echo` tool implemented in the host itself. It exists only as the
//! baseline of the WASM-boundary benchmark: same schema, same MCP path, no WebAssembly.

use super::bindings::{Annotations, ContentBlock, TaskSupport, ToolError, ToolInfo, ToolOutput};

pub fn echo_tool() -> ToolInfo {
    ToolInfo {
        name: "echo".into(),
        title: Some("Echo".into()),
        description: "Return the text unchanged (host-native baseline for benchmarks).".into(),
        input_schema: r#"{"type":"object","properties":{"text":{"type":"string","description":"The text to return."}},"required":["text"]}"#.into(),
        output_schema: Some(r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#.into()),
        annotations: Annotations {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        },
        task: TaskSupport::Never,
    }
}

pub fn echo(arguments: &str) -> Result<ToolOutput, ToolError> {
    #[derive(serde::Deserialize)]
    struct Args {
        text: String,
    }
    let args: Args =
        serde_json::from_str(arguments).map_err(|e| ToolError::InvalidArguments(e.to_string()))?;
    let structured = serde_json::json!({ "text": args.text }).to_string();
    Ok(ToolOutput {
        content: vec![ContentBlock::Text(args.text)],
        structured: Some(structured),
    })
}
