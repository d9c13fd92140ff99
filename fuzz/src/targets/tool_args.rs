//! Tool arguments against a plugin's schema, through the SDK exactly as a plugin's
//! `call-tool` runs them: typed arguments with optional, enum, nested, list and tagged
//! fields. Any JSON text is accepted (and then fits the type) or refused as invalid
//! arguments with a message; the schema each tool publishes is a JSON object schema.

use crate::Target;
use warden_sdk::prelude::*;

pub const TARGET: Target = Target {
    name: "tool_args",
    about: "tool arguments decoded against typed tools (the SDK's call path) and their schemas",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"add\n",
        b"options\n",
        b"tagged\n",
        b"\"a\"",
        b"\"b\"",
        b"\"mode\"",
        b"\"fast\"",
        b"\"kind\"",
        b"\"move\"",
        b"\"nested\"",
        b"\"tags\"",
        b"1.5",
        b"4294967296",
    ],
    contained: &[],
    run,
};

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Fast,
    Careful,
}

#[derive(Deserialize, JsonSchema)]
struct Inner {
    x: f64,
    #[serde(default)]
    flag: bool,
}

/// Arguments with every shape the built-in plugins use.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OptionArgs {
    text: String,
    #[serde(default)]
    count: Option<u32>,
    #[serde(default)]
    mode: Option<Mode>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    nested: Option<Inner>,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Action {
    Click { handle: u64 },
    Type { handle: u64, text: String },
    Move { x: f64, y: f64 },
}

#[derive(Deserialize, JsonSchema)]
struct TaggedArgs {
    actions: Vec<Action>,
}

fn plugin() -> &'static Plugin {
    thread_local! {
        static PLUGIN: &'static Plugin = Box::leak(Box::new(build()));
    }
    PLUGIN.with(|p| *p)
}

fn build() -> Plugin {
    {
        Plugin::new()
            .tool(Tool::new("add", |a: AddArgs| {
                Ok(a.a
                    .checked_add(a.b)
                    .map_or("overflow".to_string(), |s| s.to_string()))
            }))
            .tool(Tool::new("options", |a: OptionArgs| {
                Ok(format!(
                    "{} {:?} {:?} {} {} {:?}",
                    a.text.len(),
                    a.timeout_ms,
                    a.count,
                    a.tags.len(),
                    matches!(a.mode, Some(Mode::Fast)),
                    a.nested.map(|n| (n.x, n.flag))
                ))
            }))
            .tool(Tool::new("tagged", |a: TaggedArgs| {
                let weight: f64 = a
                    .actions
                    .iter()
                    .map(|action| match action {
                        Action::Click { handle } => *handle as f64,
                        Action::Type { handle, text } => *handle as f64 + text.len() as f64,
                        Action::Move { x, y } => x + y,
                    })
                    .sum();
                Ok(format!("{} actions, {weight}", a.actions.len()))
            }))
    }
}

fn run(input: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(input);
    let (name, args) = text.split_once('\n').unwrap_or(("options", &text));
    let plugin = plugin();
    for tool in plugin.tools() {
        let schema = serde_json::to_value(tool.input_schema()).expect("the input schema is JSON");
        assert_eq!(
            schema["type"],
            "object",
            "{}: not an object schema",
            tool.name()
        );
    }
    match plugin.call(name, args) {
        Ok(_) => 1,
        Err(ToolError::InvalidArguments(m)) => {
            assert!(!m.is_empty(), "an empty invalid-arguments message");
            2
        }
        Err(ToolError::NotFound(_)) => 3,
        Err(other) => panic!("arguments gave an error of the wrong kind: {other:?}"),
    }
}

const SEEDS: &[&str] = &[
    "add\n{\"a\": 1, \"b\": 2}",
    "add\n{\"a\": 9223372036854775807, \"b\": 1}",
    "options\n{\"text\": \"hi\", \"count\": 3, \"mode\": \"fast\", \"tags\": [\"a\"], \"nested\": {\"x\": 1.5}}",
    "options\n{\"text\": \"hi\", \"extra\": 1}",
    "tagged\n{\"actions\": [{\"kind\": \"click\", \"handle\": 4}, {\"kind\": \"type\", \"handle\": 5, \"text\": \"x\"}, {\"kind\": \"move\", \"x\": 1, \"y\": 2}]}",
    "nope\n{}",
    "add\n",
];
