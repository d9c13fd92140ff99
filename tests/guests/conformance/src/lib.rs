//! Test guest `conformance`: the fixture tools and resources that the official MCP conformance
//! suite (`@modelcontextprotocol/conformance`, see `tests/conformance/`) calls by name. Names,
//! arguments and contents follow the suite's reference server, because its checks compare them.
//!
//! Only what Warden can serve is here: scenarios that need features Warden lacks (prompts,
//! completions, sampling or elicitation from a tool) are listed as expected failures instead.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use warden_sdk::context::{self, Level};
use warden_sdk::prelude::*;

/// The suite's reference 1x1 PNG.
const PNG_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// The suite's reference (empty) WAV file.
const WAV_B64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

fn decode(b64: &str) -> Result<Vec<u8>, ToolError> {
    BASE64
        .decode(b64)
        .map_err(|e| ToolError::failed(format!("fixture data is not base64: {e}")))
}

fn simple_text(_: NoArgs) -> Result<String, ToolError> {
    Ok("This is a simple text response for testing.".into())
}

fn image(_: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::image("image/png", decode(PNG_B64)?))
}

fn audio(_: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::audio("audio/wav", decode(WAV_B64)?))
}

fn embedded_resource(_: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::resource(
        EmbeddedResource::text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )
        .mime_type("text/plain"),
    ))
}

fn multiple_content_types(_: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text("Multiple content types test:")
        .with(Content::image("image/png", decode(PNG_B64)?))
        .with(
            EmbeddedResource::text(
                "test://mixed-content-resource",
                r#"{"test":"data","value":123}"#,
            )
            .mime_type("application/json"),
        ))
}

fn with_logging(_: NoArgs) -> Result<String, ToolError> {
    for message in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        context::log(Level::Info, message);
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok("Tool with logging executed successfully".into())
}

fn error_handling(_: NoArgs) -> Result<String, ToolError> {
    Err(ToolError::failed(
        "This tool intentionally returns an error for testing",
    ))
}

fn with_progress(_: NoArgs) -> Result<String, ToolError> {
    for done in [0.0, 50.0, 100.0] {
        context::progress(done, Some(100.0), Some(&format!("Completed step {done}")));
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok("Tool with progress completed".into())
}

fn plugin() -> Plugin {
    Plugin::new()
        .tool(
            Tool::new("test_simple_text", simple_text)
                .description("Tests simple text content response")
                .read_only(),
        )
        .tool(
            Tool::new("test_image_content", image)
                .description("Tests image content response")
                .read_only(),
        )
        .tool(
            Tool::new("test_audio_content", audio)
                .description("Tests audio content response")
                .read_only(),
        )
        .tool(
            Tool::new("test_embedded_resource", embedded_resource)
                .description("Tests embedded resource content response")
                .read_only(),
        )
        .tool(
            Tool::new("test_multiple_content_types", multiple_content_types)
                .description("Tests response with multiple content types (text, image, resource)")
                .read_only(),
        )
        .tool(
            Tool::new("test_tool_with_logging", with_logging)
                .description("Tests tool that emits log messages during execution")
                .read_only(),
        )
        .tool(
            // The stateless (2026-07-28) scenario calls it without a log level and expects
            // no log notification on the response.
            Tool::new("test_logging_tool", with_logging)
                .description("Emits log messages; the client sees them only if it asked for logs")
                .read_only(),
        )
        .tool(
            // A probe of the stateless scenario: the response stream of a call must carry no
            // server-to-client request. Warden never sends one, so a plain answer is the truth.
            Tool::new("test_streaming_elicitation", |_: NoArgs| {
                Ok("Warden plugins cannot elicit input; nothing was asked of the client.")
            })
            .description("Answers without eliciting: Warden sends no server-to-client requests")
            .read_only(),
        )
        .tool(
            Tool::new("test_error_handling", error_handling)
                .description("Tests error response handling")
                .read_only(),
        )
        .tool(
            Tool::new("test_tool_with_progress", with_progress)
                .description("Tests tool that reports progress notifications")
                .read_only(),
        )
        .resource(
            Resource::new("test://static-text", "Static Text Resource")
                .description("A static text resource for testing")
                .mime_type("text/plain"),
            |uri| {
                Ok(vec![
                    EmbeddedResource::text(uri, "This is the content of the static text resource.")
                        .mime_type("text/plain"),
                ])
            },
        )
        .resource(
            Resource::new("test://static-binary", "Static Binary Resource")
                .description("A static binary resource (image) for testing")
                .mime_type("image/png"),
            |uri| {
                Ok(vec![
                    EmbeddedResource::blob(uri, decode(PNG_B64)?).mime_type("image/png"),
                ])
            },
        )
        .resource(
            Resource::new("test://watched-resource", "Watched Resource")
                .description("A resource clients may subscribe to")
                .mime_type("text/plain"),
            |uri| {
                Ok(vec![
                    EmbeddedResource::text(uri, "Watched resource content").mime_type("text/plain"),
                ])
            },
        )
        .prompt(
            Prompt::new("test_simple_prompt").description("A simple prompt without arguments"),
            |_| {
                Ok(PromptResult::new(vec![PromptMessage::user(Content::text(
                    "This is a simple prompt for testing.",
                ))]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_arguments")
                .description("A prompt with required arguments")
                .argument("arg1", "First test argument")
                .argument("arg2", "Second test argument"),
            |args| {
                let arg = |k: &str| args.get(k).map_or("", String::as_str);
                Ok(PromptResult::new(vec![PromptMessage::user(Content::text(
                    format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        arg("arg1"),
                        arg("arg2")
                    ),
                ))]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource")
                .description("A prompt that includes an embedded resource")
                .argument("resourceUri", "URI of the resource to embed"),
            |args| {
                let uri = args.get("resourceUri").map_or("", String::as_str);
                Ok(PromptResult::new(vec![
                    PromptMessage::user(Content::Resource(
                        EmbeddedResource::text(uri, "Embedded resource content for testing.")
                            .mime_type("text/plain"),
                    )),
                    PromptMessage::user(Content::text(
                        "Please process the embedded resource above.",
                    )),
                ]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_image")
                .description("A prompt that includes image content"),
            |_| {
                Ok(PromptResult::new(vec![
                    PromptMessage::user(Content::Image {
                        mime_type: "image/png".into(),
                        data: decode(PNG_B64)?,
                    }),
                    PromptMessage::user(Content::text("Please analyze the image above.")),
                ]))
            },
        )
        .completion(|target, argument, value, _| {
            let candidates: &[&str] = match (target, argument) {
                (CompletionRef::Prompt(_), "arg1" | "arg2") => {
                    &["test", "testing", "test-value", "other"]
                }
                (CompletionRef::ResourceTemplate(_), "id") => &["1", "2", "3", "123"],
                _ => &[],
            };
            Ok(Completion::matching(candidates.iter().copied(), value))
        })
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "Resource Template")
                .description("A resource template with parameter substitution")
                .mime_type("application/json"),
            |uri, vars| {
                let id = vars.get("id").map_or("", String::as_str);
                let body =
                    format!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#);
                Ok(vec![
                    EmbeddedResource::text(uri, body).mime_type("application/json"),
                ])
            },
        )
}

warden_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_data_decodes() {
        let out = plugin().call("test_image_content", "{}").expect("image");
        assert!(
            matches!(&out.content[0], Content::Image { data, .. } if data.starts_with(b"\x89PNG"))
        );
        let out = plugin().call("test_audio_content", "{}").expect("audio");
        assert!(
            matches!(&out.content[0], Content::Audio { data, mime_type } if data.starts_with(b"RIFF") && mime_type == "audio/wav")
        );
    }

    #[test]
    fn prompts_fill_in_their_arguments() {
        let mut args = warden_sdk::PromptArgs::new();
        args.insert("arg1".into(), "hello".into());
        args.insert("arg2".into(), "world".into());
        let filled = plugin()
            .get_prompt("test_prompt_with_arguments", &args)
            .expect("filled");
        assert_eq!(
            filled.messages[0].content,
            Content::text("Prompt with arguments: arg1='hello', arg2='world'")
        );
        let done = plugin()
            .complete(
                &CompletionRef::Prompt("test_prompt_with_arguments".into()),
                "arg1",
                "test",
                &args,
            )
            .expect("completed");
        assert_eq!(done.values, ["test", "testing", "test-value"]);
    }

    #[test]
    fn template_substitutes_the_id() {
        let read = plugin()
            .read_resource("test://template/123/data")
            .expect("read");
        assert!(
            matches!(&read[0].body, warden_sdk::ResourceBody::Text(t) if t.contains(r#""id":"123""#))
        );
    }
}
