//! Tools: [`Tool`] (a typed function plus its MCP metadata), [`Structured`] results and
//! [`NoArgs`].

use std::fmt;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use std::sync::OnceLock;

use crate::output::{pretty, to_object};
use crate::{Content, ToolError, ToolOutput};

/// Hints for MCP clients about what a tool does. All are `false` unless set; set them with
/// the builder methods of [`Tool`].
///
/// Clients treat hints as untrusted; the host enforces what a plugin may actually do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Annotations {
    /// The tool does not change its environment.
    pub read_only: bool,
    /// The tool may destroy or overwrite data (meaningful when not read-only).
    pub destructive: bool,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool talks to an open world (the web, remote hosts).
    pub open_world: bool,
}

/// What a tool function may return (inside `Result<_, ToolError>`): a [`ToolOutput`], a
/// `String` (one text block), or a [`Structured`] value, which also gives the tool an output
/// schema.
pub trait IntoToolOutput {
    /// The JSON Schema of the structured result, if this type declares one. Must describe an
    /// object (`"type": "object"`).
    fn output_schema() -> Option<Schema> {
        None
    }

    /// Converts the value into the result sent to the client.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &'static str {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

/// A structured tool result: `T` is sent as MCP `structuredContent`, and the tool's output
/// schema is generated from `T`, so `T` must be a struct (or map) with named fields.
///
/// The content blocks default to `T` as pretty-printed JSON; replace them with a rendering
/// written for the model with [`Structured::text`] or [`Structured::with`].
///
/// ```
/// use warden_sdk::prelude::*;
///
/// #[derive(Serialize, JsonSchema)]
/// struct Weather { celsius: f64, sky: String }
///
/// fn weather(_: NoArgs) -> Result<Structured<Weather>, ToolError> {
///     let w = Weather { celsius: 21.5, sky: "clear".into() };
///     let text = format!("{} °C, {}", w.celsius, w.sky);
///     Ok(Structured::new(w).text(text))
/// }
/// # let _ = weather;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Structured<T> {
    /// The structured value.
    pub value: T,
    /// The content blocks; when empty, `value` as pretty-printed JSON.
    pub content: Vec<Content>,
}

impl<T> Structured<T> {
    /// `value`, rendered as JSON text unless blocks are added.
    pub fn new(value: T) -> Self {
        Self {
            value,
            content: Vec::new(),
        }
    }

    /// Appends a text block (the first one replaces the default JSON rendering).
    #[must_use]
    pub fn text(self, text: impl Into<String>) -> Self {
        self.with(Content::Text(text.into()))
    }

    /// Appends a content block (the first one replaces the default JSON rendering).
    #[must_use]
    pub fn with(mut self, block: impl Into<Content>) -> Self {
        self.content.push(block.into());
        self
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutput for Structured<T> {
    fn output_schema() -> Option<Schema> {
        Some(schema_for::<T>(false))
    }

    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let value = to_object(&self.value)?;
        let content = if self.content.is_empty() {
            vec![Content::Text(pretty(&value))]
        } else {
            self.content
        };
        Ok(ToolOutput {
            content,
            structured: Some(value),
        })
    }
}

/// The argument type of a tool that takes no arguments: its schema is an empty object, and
/// it accepts any object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NoArgs {}

impl<'de> Deserialize<'de> for NoArgs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| NoArgs {})
    }
}

impl JsonSchema for NoArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArgs".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({ "type": "object", "properties": {} })
    }
}

type Handler = Box<dyn Fn(serde_json::Value) -> Result<ToolOutput, ToolError>>;

/// How a tool's schemas are made, with the type names its errors quote.
struct MakeSchemas {
    input: fn() -> Schema,
    input_type: &'static str,
    output: fn() -> Option<Schema>,
    output_type: &'static str,
}

/// One tool: a name, MCP metadata and a typed function.
///
/// The function takes one argument, a type that implements [`serde::Deserialize`] and
/// [`schemars::JsonSchema`] (usually a struct deriving both; its doc comments become the
/// schema's descriptions), and returns `Result<R, ToolError>` where `R` is a [`ToolOutput`],
/// a `String` or a [`Structured`] value.
///
/// Arguments that do not deserialize into the argument type are answered with
/// [`ToolError::InvalidArguments`] and serde's message (such as ``missing field `text` ``)
/// without calling the function. A panic in the function is not caught: it aborts the
/// plugin instance, which the host reports as a crash.
pub struct Tool {
    name: String,
    title: Option<String>,
    description: String,
    /// Made on first use: only the listing needs the schemas, so a call in a fresh instance
    /// does not pay for generating them.
    input_schema: OnceLock<Schema>,
    output_schema: OnceLock<Option<Schema>>,
    make_schemas: MakeSchemas,
    annotations: Annotations,
    task: TaskSupport,
    handler: Handler,
}

/// Whether a call of a tool may run as a task the client polls (MCP tasks extension).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// The call always answers in its own request (the default).
    #[default]
    Never,
    /// A task when the client declared tasks and the call calls [`crate::context::as_task`]
    /// or runs longer than a moment; otherwise it answers in its own request. For tools that
    /// may run long: transfers, logins, long commands.
    Optional,
    /// Only as a task: a client that did not declare tasks is refused before the call runs.
    Required,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("description", &self.description)
            .field("annotations", &self.annotations)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool called `name` (`[a-zA-Z0-9_-]{1,64}`) that runs `function`.
    ///
    /// # Panics
    ///
    /// When `name` breaks the MCP naming rule. When the argument type or the structured
    /// result type does not have an object schema (MCP requires `"type": "object"`), reading
    /// the schema panics: the host reads them when the plugin loads, so both are programming
    /// errors reported at load.
    pub fn new<A, R, F>(name: impl Into<String>, function: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + 'static,
        R: IntoToolOutput + 'static,
        F: Fn(A) -> Result<R, ToolError> + 'static,
    {
        let name = name.into();
        assert!(
            valid_tool_name(&name),
            "tool name `{name}` is invalid: use 1 to 64 of `a-z A-Z 0-9 _ -`"
        );
        let handler: Handler = Box::new(move |arguments| {
            let args = A::deserialize(arguments).map_err(ToolError::invalid_arguments)?;
            function(args)?.into_tool_output()
        });
        Self {
            name,
            title: None,
            description: String::new(),
            input_schema: OnceLock::new(),
            output_schema: OnceLock::new(),
            make_schemas: MakeSchemas {
                input: input_schema_of::<A>,
                input_type: std::any::type_name::<A>(),
                output: R::output_schema,
                output_type: std::any::type_name::<R>(),
            },
            annotations: Annotations::default(),
            task: TaskSupport::Never,
            handler,
        }
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description: what the tool does, when to use it, what it returns. Agents
    /// choose tools by it, so be specific.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Marks the tool read-only: it does not change its environment.
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.annotations.read_only = true;
        self
    }

    /// Marks the tool destructive: it may destroy or overwrite data.
    #[must_use]
    pub fn destructive(mut self) -> Self {
        self.annotations.destructive = true;
        self
    }

    /// Marks the tool idempotent: repeating a call with the same arguments has no further
    /// effect.
    #[must_use]
    pub fn idempotent(mut self) -> Self {
        self.annotations.idempotent = true;
        self
    }

    /// Marks the tool open-world: it talks to the web or to remote hosts.
    #[must_use]
    pub fn open_world(mut self) -> Self {
        self.annotations.open_world = true;
        self
    }

    /// Replaces all annotations at once.
    #[must_use]
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets whether a call may run as a task (see [`TaskSupport`]).
    #[must_use]
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = support;
        self
    }

    /// Whether a call may run as a task.
    pub fn get_task(&self) -> TaskSupport {
        self.task
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's title, if set.
    pub fn get_title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The tool's description.
    pub fn get_description(&self) -> &str {
        &self.description
    }

    /// The tool's annotations.
    pub fn get_annotations(&self) -> Annotations {
        self.annotations
    }

    /// The JSON Schema (draft 2020-12) of the arguments.
    pub fn input_schema(&self) -> &Schema {
        self.input_schema.get_or_init(|| {
            let schema = (self.make_schemas.input)();
            assert_object(
                &self.name,
                "argument",
                self.make_schemas.input_type,
                &schema,
            );
            schema
        })
    }

    /// The JSON Schema of the structured result, when the tool returns [`Structured`].
    pub fn output_schema(&self) -> Option<&Schema> {
        self.output_schema
            .get_or_init(|| {
                let schema = (self.make_schemas.output)();
                if let Some(schema) = &schema {
                    assert_object(
                        &self.name,
                        "structured result",
                        self.make_schemas.output_type,
                        schema,
                    );
                }
                schema
            })
            .as_ref()
    }

    /// Runs the tool on `arguments` (a JSON object), as the host does.
    pub fn call(&self, arguments: serde_json::Value) -> Result<ToolOutput, ToolError> {
        (self.handler)(arguments)
    }
}

/// MCP's tool name rule.
fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn input_schema_of<T: JsonSchema>() -> Schema {
    schema_for::<T>(true)
}

/// The lean schema of `T`: for arguments (`input`) or for a structured result.
fn schema_for<T: JsonSchema>(input: bool) -> Schema {
    let settings = if input {
        SchemaSettings::draft2020_12().for_deserialize()
    } else {
        SchemaSettings::draft2020_12().for_serialize()
    };
    let mut value = settings
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if input {
        crate::schema::lean_input(&mut value);
    } else {
        crate::schema::lean_output(&mut value);
    }
    // Still an object: leaning only removes keys.
    Schema::try_from(value).unwrap_or_default()
}

fn assert_object(tool: &str, what: &str, type_name: &str, schema: &Schema) {
    let is_object = match schema.get("type") {
        Some(serde_json::Value::String(t)) => t == "object",
        _ => false,
    };
    assert!(
        is_object,
        "tool `{tool}`: the {what} type `{type_name}` must be a struct with named fields \
         (MCP requires an object schema), but its schema is {}",
        schema.as_value()
    );
}
