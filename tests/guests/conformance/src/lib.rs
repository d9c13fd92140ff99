//! Test guest `conformance`: the fixture tools and resources that the official MCP conformance
//! suite (`@modelcontextprotocol/conformance`, see `tests/conformance/`) calls by name. Names,
//! arguments and contents follow the suite's reference server, because its checks compare them.
//!
//! The `test_input_required_result_*` tools ask through `context::ask` like any plugin: on the
//! 2026-07-28 wire the host turns each ask into an `InputRequiredResult` round and resumes the
//! paused call on the client's retry; nothing here knows about rounds or request state.

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

#[derive(Deserialize, JsonSchema)]
struct PromptArg {
    /// The prompt to send to the LLM.
    prompt: String,
}

fn sampling(args: PromptArg) -> Result<String, ToolError> {
    let answer = context::sample_text(&args.prompt, 100)?;
    Ok(format!("LLM response: {answer}"))
}

#[derive(Deserialize, JsonSchema)]
struct MessageArg {
    /// The message to show the user.
    message: String,
}

fn shown(answer: &context::ElicitAnswer) -> String {
    match answer {
        context::ElicitAnswer::Accept(content) => format!("action=accept, content={content}"),
        context::ElicitAnswer::Decline => "action=decline, content={}".into(),
        context::ElicitAnswer::Cancel => "action=cancel, content={}".into(),
    }
}

fn elicitation(args: MessageArg) -> Result<String, ToolError> {
    let schema = warden_sdk::serde_json::json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let answer = context::elicit(&args.message, &schema)?;
    Ok(format!("User response: {}", shown(&answer)))
}

#[derive(Deserialize, JsonSchema)]
struct LinkArgs {
    /// The sign-in page to send the user to.
    url: String,
}

/// URL-mode elicitation: the user is sent to a page; the answer is only their consent.
fn link_account(args: LinkArgs) -> Result<String, ToolError> {
    let answer = context::elicit_url("Sign in to link your account", &args.url)?;
    Ok(format!("link: {}", shown(&answer)))
}

fn elicitation_defaults(_: NoArgs) -> Result<String, ToolError> {
    let schema = warden_sdk::serde_json::json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }
    });
    let answer = context::elicit(
        "Please review and update the form fields with defaults",
        &schema,
    )?;
    Ok(format!("Elicitation completed: {}", shown(&answer)))
}

fn elicitation_enums(_: NoArgs) -> Result<String, ToolError> {
    let schema = warden_sdk::serde_json::json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}
            ]}}
        }
    });
    let answer = context::elicit("Please select options from the enum fields", &schema)?;
    Ok(format!("Elicitation completed: {}", shown(&answer)))
}

fn name_form(message: &str, field: &str) -> context::Question {
    context::Question::Elicit {
        message: message.into(),
        schema: warden_sdk::serde_json::json!({
            "type": "object",
            "properties": {field: {"type": "string"}},
            "required": [field]
        }),
    }
}

fn field(answer: &context::Answer, name: &str) -> String {
    match answer {
        context::Answer::Elicit(context::ElicitAnswer::Accept(content)) => content[name]
            .as_str()
            .map_or_else(|| content[name].to_string(), str::to_string),
        other => format!("{other:?}"),
    }
}

fn ask(questions: Vec<(&str, context::Question)>) -> Result<Vec<context::Answer>, ToolError> {
    let answers = context::ask(
        questions
            .into_iter()
            .map(|(k, q)| (k.to_string(), q))
            .collect(),
    )?;
    Ok(answers.into_iter().map(|(_, a)| a).collect())
}

fn input_elicitation(_: NoArgs) -> Result<String, ToolError> {
    let answers = ask(vec![("user_name", name_form("What is your name?", "name"))])?;
    Ok(format!("Hello, {}!", field(&answers[0], "name")))
}

fn capital_question() -> context::Question {
    context::Question::Sample(warden_sdk::serde_json::json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "maxTokens": 100
    }))
}

fn input_sampling(_: NoArgs) -> Result<String, ToolError> {
    let answers = ask(vec![("capital_question", capital_question())])?;
    match &answers[0] {
        context::Answer::Sample(result) => Ok(format!(
            "Sampling response: {}",
            result["content"]["text"].as_str().unwrap_or_default()
        )),
        other => Err(ToolError::failed(format!("unexpected answer {other:?}"))),
    }
}

fn roots_text(answer: &context::Answer) -> String {
    match answer {
        context::Answer::Roots(roots) => roots
            .iter()
            .map(|r| r.uri.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        other => format!("{other:?}"),
    }
}

fn input_roots(_: NoArgs) -> Result<String, ToolError> {
    let answers = ask(vec![("client_roots", context::Question::ListRoots)])?;
    Ok(format!("Client roots: {}", roots_text(&answers[0])))
}

fn input_state(_: NoArgs) -> Result<String, ToolError> {
    let form = context::Question::Elicit {
        message: "Please confirm".into(),
        schema: warden_sdk::serde_json::json!({
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"]
        }),
    };
    let answers = ask(vec![("confirm", form)])?;
    // The host checked the request state before the call could resume.
    Ok(format!("state-ok: confirmed={}", field(&answers[0], "ok")))
}

fn input_multiple(_: NoArgs) -> Result<String, ToolError> {
    let greeting = context::Question::Sample(warden_sdk::serde_json::json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}],
        "maxTokens": 50
    }));
    let answers = ask(vec![
        ("user_name", name_form("What is your name?", "name")),
        ("greeting", greeting),
        ("client_roots", context::Question::ListRoots),
    ])?;
    Ok(format!(
        "name={}, roots={}",
        field(&answers[0], "name"),
        roots_text(&answers[2])
    ))
}

fn input_multi_round(_: NoArgs) -> Result<String, ToolError> {
    let first = ask(vec![(
        "step1",
        name_form("Step 1: What is your name?", "name"),
    )])?;
    let second = ask(vec![(
        "step2",
        name_form("Step 2: What is your favorite color?", "color"),
    )])?;
    Ok(format!(
        "{} likes {}",
        field(&first[0], "name"),
        field(&second[0], "color")
    ))
}

fn input_capabilities(_: NoArgs) -> Result<String, ToolError> {
    // Ask only what the client can answer.
    let mut questions = vec![("capital_question", capital_question())];
    if context::client_capabilities().elicitation {
        questions.push(("user_name", name_form("What is your name?", "name")));
    }
    let answers = ask(questions)?;
    Ok(format!("{} answers", answers.len()))
}

fn missing_capability(_: NoArgs) -> Result<String, ToolError> {
    let answers = ask(vec![("probe", capital_question())])?;
    Ok(format!("{answers:?}"))
}

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

fn greet(args: GreetArgs) -> Result<String, ToolError> {
    Ok(format!("Hello, {}!", args.name))
}

#[derive(Deserialize, JsonSchema)]
struct SlowArgs {
    /// How long to work, in seconds.
    #[serde(default)]
    seconds: f64,
}

/// Sleep `seconds`, in steps, giving up when the call is cancelled.
fn work(seconds: f64) -> Result<(), ToolError> {
    let until = std::time::Instant::now() + Duration::from_secs_f64(seconds.clamp(0.0, 60.0));
    while std::time::Instant::now() < until {
        if context::cancelled() {
            return Err(ToolError::failed("cancelled"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

fn slow_compute(args: SlowArgs) -> Result<String, ToolError> {
    if args.seconds > 0.0 {
        context::as_task();
    }
    work(args.seconds)?;
    Ok(format!("Computed after {} seconds", args.seconds))
}

fn failing_job(_: NoArgs) -> Result<String, ToolError> {
    context::as_task();
    work(1.0)?;
    Err(ToolError::failed("the job failed (as it always does)"))
}

fn protocol_error_job(_: NoArgs) -> Result<String, ToolError> {
    context::as_task();
    work(0.2)?;
    // A trap: the host reports a crashed plugin, a protocol-level failure of the task.
    panic!("protocol_error_job crashes on purpose");
}

#[derive(Deserialize, JsonSchema)]
struct DeleteArgs {
    /// The file to delete.
    filename: String,
}

fn confirm_delete(args: DeleteArgs) -> Result<String, ToolError> {
    context::as_task();
    let form = context::Question::Elicit {
        message: format!("Delete {}?", args.filename),
        schema: warden_sdk::serde_json::json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}},
            "required": ["confirm"]
        }),
    };
    let answers = ask(vec![("confirm", form)])?;
    Ok(format!(
        "{}: confirm={}",
        args.filename,
        field(&answers[0], "confirm")
    ))
}

fn multi_input(_: NoArgs) -> Result<String, ToolError> {
    context::as_task();
    let answers = ask(vec![
        ("first", name_form("First name?", "name")),
        ("second", name_form("Favourite colour?", "color")),
    ])?;
    Ok(format!(
        "{} likes {}",
        field(&answers[0], "name"),
        field(&answers[1], "color")
    ))
}

fn tool_with_task(_: NoArgs) -> Result<String, ToolError> {
    // Asked as a round of the request; then the rest runs as a task.
    let answers = ask(vec![("user_name", name_form("What is your name?", "name"))])?;
    context::as_task();
    work(0.3)?;
    Ok(format!(
        "Hello, {}! (from a task)",
        field(&answers[0], "name")
    ))
}

fn plugin() -> Plugin {
    Plugin::new()
        .tool(Tool::new("greet", greet).description("Greets by name (never a task)"))
        .tool(
            Tool::new("slow_compute", slow_compute)
                .description("Works `seconds` seconds, as a task when the client declared tasks")
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("failing_job", failing_job)
                .description("Fails with a tool error after about a second; only as a task")
                .task(TaskSupport::Required),
        )
        .tool(
            Tool::new("protocol_error_job", protocol_error_job)
                .description("Crashes: its task fails")
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("link_account", link_account)
                .description("Sends the user to a sign-in page (URL-mode elicitation)"),
        )
        .tool(
            Tool::new("confirm_delete", confirm_delete)
                .description("A task that asks to confirm before it deletes")
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("multi_input", multi_input)
                .description("A task that asks two questions at once")
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("test_tool_with_task", tool_with_task)
                .description("Asks a name as an input round, then goes on as a task")
                .task(TaskSupport::Required),
        )
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
            // A probe of the stateless scenario: the response stream of a call that elicits
            // must carry an InputRequiredResult, never a request to the client.
            Tool::new("test_streaming_elicitation", input_elicitation)
                .description("Asks the user's name; on 2026-07-28 as an InputRequiredResult"),
        )
        .tool(
            Tool::new("test_sampling", sampling)
                .description("Asks the client's model (sampling) and returns its answer"),
        )
        .tool(
            Tool::new("test_elicitation", elicitation)
                .description("Asks the user for a username and email (elicitation)"),
        )
        .tool(
            Tool::new("test_elicitation_sep1034_defaults", elicitation_defaults)
                .description("Elicitation with default values for every primitive type"),
        )
        .tool(
            Tool::new("test_elicitation_sep1330_enums", elicitation_enums)
                .description("Elicitation with all five enum forms"),
        )
        .tool(
            Tool::new("test_input_required_result_elicitation", input_elicitation)
                .description("Asks the user's name (an InputRequiredResult on 2026-07-28)"),
        )
        .tool(
            Tool::new("test_input_required_result_sampling", input_sampling)
                .description("Asks the client's model a question"),
        )
        .tool(
            Tool::new("test_input_required_result_list_roots", input_roots)
                .description("Asks for the client's roots"),
        )
        .tool(
            Tool::new("test_input_required_result_request_state", input_state)
                .description("Asks for a confirmation; answers state-ok once resumed"),
        )
        .tool(
            Tool::new("test_input_required_result_tampered_state", input_state)
                .description("Asks for a confirmation; a tampered requestState is refused"),
        )
        .tool(
            Tool::new("test_input_required_result_multiple_inputs", input_multiple)
                .description("Asks a form, the model and the roots at once"),
        )
        .tool(
            Tool::new("test_input_required_result_multi_round", input_multi_round)
                .description("Asks twice, one question after the other"),
        )
        .tool(
            Tool::new(
                "test_input_required_result_capabilities",
                input_capabilities,
            )
            .description("Asks only what the client declared it can answer"),
        )
        .tool(
            Tool::new("test_missing_capability", missing_capability)
                .description("Needs sampling: a client that did not declare it gets -32021"),
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
            Prompt::new("test_input_required_result_prompt")
                .description("Asks the user for context before it is filled in"),
            |_| {
                let answers = ask(vec![(
                    "user_context",
                    name_form("What context should the prompt use?", "context"),
                )])?;
                Ok(PromptResult::new(vec![PromptMessage::user(Content::text(
                    format!("Use this context: {}", field(&answers[0], "context")),
                ))]))
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
