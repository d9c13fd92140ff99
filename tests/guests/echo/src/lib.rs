//! Test guest `echo`: well-behaved tools for Warden's integration tests.

use std::time::Duration;

use warden_sdk::context::{self, Level};
use warden_sdk::prelude::*;
use warden_sdk::{settings, state};

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct EchoOutput {
    /// The text that was sent.
    text: String,
}

fn echo(args: EchoArgs) -> Result<Structured<EchoOutput>, ToolError> {
    let text = args.text;
    Ok(Structured::new(EchoOutput { text: text.clone() }).text(text))
}

#[derive(Deserialize, JsonSchema)]
struct ProgressArgs {
    /// How many steps to report (20 ms each).
    steps: u32,
}

fn progress(args: ProgressArgs) -> Result<String, ToolError> {
    let total = f64::from(args.steps);
    for i in 1..=args.steps {
        std::thread::sleep(Duration::from_millis(20));
        context::progress(f64::from(i), Some(total), Some(&format!("step {i}")));
    }
    Ok("done".into())
}

#[derive(Deserialize, JsonSchema)]
struct LogArgs {
    /// Severity of the log line.
    level: Level,
    /// The line to log.
    message: String,
}

fn log(args: LogArgs) -> Result<String, ToolError> {
    context::log(args.level, &args.message);
    Ok("logged".into())
}

/// The conversation's call counter, kept by the host between calls.
fn counted() -> Result<u64, ToolError> {
    Ok(state::get_json("count")?.unwrap_or(0))
}

fn count(_: NoArgs) -> Result<String, ToolError> {
    let n = counted()? + 1;
    state::set_json("count", &n)?;
    Ok(n.to_string())
}

#[derive(Deserialize, JsonSchema)]
struct KeepArgs {
    /// The key to keep the value under.
    key: String,
    /// The value.
    value: String,
    /// Bytes of padding kept after the value (to fill the conversation's state).
    #[serde(default)]
    pad: u32,
}

fn keep(args: KeepArgs) -> Result<String, ToolError> {
    let mut bytes = args.value.into_bytes();
    bytes.resize(bytes.len() + args.pad as usize, b'.');
    state::set(&args.key, &bytes)?;
    Ok(format!("kept {} bytes", bytes.len()))
}

#[derive(Deserialize, JsonSchema)]
struct RecallArgs {
    /// The key a value was kept under.
    key: String,
}

fn recall(args: RecallArgs) -> Result<String, ToolError> {
    Ok(state::get(&args.key).map_or_else(
        || "(nothing)".to_string(),
        |v| {
            String::from_utf8_lossy(&v)
                .trim_end_matches('.')
                .to_string()
        },
    ))
}

#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    /// How long to sleep, in milliseconds.
    ms: u64,
}

fn sleep(args: SleepArgs) -> Result<String, ToolError> {
    std::thread::sleep(Duration::from_millis(args.ms));
    Ok(format!("slept {} ms", args.ms))
}

/// What the plugin reads of its `[plugin.settings]`: `greeting` as text, `limits` as JSON,
/// and every key.
fn read_settings(_: NoArgs) -> Result<String, ToolError> {
    let all = settings::all()?;
    let read = serde_json::json!({
        "greeting": settings::get("greeting")?,
        "limits": settings::get_json::<serde_json::Value>("limits")?,
        "keys": all.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
    });
    Ok(read.to_string())
}

fn plugin() -> Plugin {
    Plugin::new()
        .tool(
            Tool::new("echo", echo)
                .title("Echo")
                .description("Return `text` unchanged, as text and as structured {\"text\": ...}.")
                .read_only(),
        )
        .tool(
            Tool::new("progress", progress)
                .title("Progress")
                .description(
                    "Report progress `steps` times, sleeping 20 ms before each report, then \
                     return \"done\".",
                )
                .read_only(),
        )
        .tool(
            Tool::new("log", log)
                .title("Log")
                .description("Write `message` to the log at `level`, then return \"logged\".")
                .read_only(),
        )
        .tool(Tool::new("count", count).title("Count").description(
            "Increment this conversation's call counter (kept by the host) and return it (\"1\", \"2\", ...).",
        ))
        .tool(Tool::new("keep", keep).title("Keep").description(
            "Keep `value` (and `pad` bytes of padding) under `key` in this conversation's state.",
        ))
        .tool(
            Tool::new("recall", recall)
                .title("Recall")
                .description("The value kept under `key` in this conversation's state, or \"(nothing)\".")
                .read_only(),
        )
        .tool(
            Tool::new("settings", read_settings)
                .title("Settings")
                .description("Return what the plugin reads of its settings, as JSON.")
                .read_only(),
        )
        .tool(
            Tool::new("sleep", sleep)
                .title("Sleep")
                .description("Sleep `ms` milliseconds, then return \"slept N ms\".")
                .read_only(),
        )
        .resource(
            Resource::new("echo://count", "count")
                .description("How many times `count` was called in this conversation.")
                .mime_type("text/plain"),
            |uri| Ok(vec![EmbeddedResource::text(uri, counted()?.to_string())]),
        )
        .resource_template(
            ResourceTemplate::new("echo://say/{text}", "say")
                .description("Returns `text` as the resource body.")
                .mime_type("text/plain"),
            |uri, vars| {
                let text = vars.get("text").cloned().unwrap_or_default();
                Ok(vec![EmbeddedResource::text(uri, text)])
            },
        )
}

warden_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;
    use warden_sdk::serde_json;

    #[test]
    fn echo_structured() {
        let out = plugin().call("echo", r#"{"text":"hi"}"#).expect("echo");
        assert_eq!(out.content, vec![Content::text("hi")]);
        assert_eq!(out.structured, Some(serde_json::json!({"text": "hi"})));
    }

    #[test]
    fn invalid_arguments() {
        let err = plugin().call("echo", "{}").expect_err("missing text");
        assert_eq!(err, ToolError::invalid_arguments("missing field `text`"));
    }

    #[test]
    fn schemas() {
        let p = plugin();
        let echo = p.tool_named("echo").expect("echo");
        let input = echo.input_schema().as_value();
        assert_eq!(input["type"], "object");
        assert_eq!(input["required"], serde_json::json!(["text"]));
        assert_eq!(
            input["properties"]["text"]["description"],
            "The text to return."
        );
        // Lean: no `$schema` (draft 2020-12 is MCP's default), no titles.
        assert!(input.get("$schema").is_none() && input.get("title").is_none());
        let output = echo.output_schema().expect("output schema").as_value();
        assert_eq!(output["type"], "object");
        let log = p.tool_named("log").expect("log").input_schema().as_value();
        println!("{log:#}");
        let count = p
            .tool_named("count")
            .expect("count")
            .input_schema()
            .as_value();
        assert_eq!(count["type"], "object");
    }
}
