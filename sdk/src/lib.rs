//! Write Warden tool plugins as typed Rust functions.
//!
//! A Warden plugin is a WebAssembly component (`wasm32-wasip2`) that serves MCP tools. With
//! this crate a tool is an argument struct (deriving [`Deserialize`](serde::Deserialize) and
//! [`JsonSchema`](schemars::JsonSchema); its doc comments become the input schema's
//! descriptions) and a function; [`export_plugin!`] exports the plugin. You never write JSON
//! Schema or touch the component bindings.
//!
//! # A complete plugin
//!
//! `Cargo.toml`:
//!
//! ```toml
//! [package]
//! name = "my-plugin"
//! version = "0.1.0"
//! edition = "2024"
//!
//! [lib]
//! crate-type = ["cdylib"]
//!
//! [dependencies]
//! warden-sdk = "0.1"
//! serde = { version = "1", features = ["derive"] }  # the derives need both crates by name
//! schemars = "1.2"
//! ```
//!
//! `src/lib.rs`:
//!
//! ```no_run
//! use warden_sdk::prelude::*;
//!
//! /// Arguments of `echo`.
//! #[derive(Deserialize, JsonSchema)]
//! struct EchoArgs {
//!     /// The text to return.
//!     text: String,
//! }
//!
//! fn echo(args: EchoArgs) -> Result<ToolOutput, ToolError> {
//!     if args.text.is_empty() {
//!         return Err(ToolError::invalid_arguments("`text` must not be empty"));
//!     }
//!     Ok(ToolOutput::text(args.text))
//! }
//!
//! warden_sdk::export_plugin!(|| Plugin::new().tool(
//!     Tool::new("echo", echo)
//!         .title("Echo")
//!         .description("Return `text` unchanged.")
//!         .read_only()
//!         .idempotent(),
//! ));
//! # fn main() {}
//! ```
//!
//! Build it with `cargo build --release --target wasm32-wasip2`: the `.wasm` in
//! `target/wasm32-wasip2/release/` is the component to load.
//!
//! # What the host sees
//!
//! - Arguments that do not deserialize are answered with [`ToolError::InvalidArguments`]
//!   carrying serde's message (``missing field `text` ``); the function is not called.
//! - A [`ToolError`] becomes an MCP result with `isError: true`, its text starting with the
//!   kind (`invalid arguments: ...`, `access denied: ...`, `not found: ...`, `timeout: ...`,
//!   `failed: ...`).
//! - A panic is not caught: it aborts the call's instance, and the host reports
//!   `plugin crashed: ...`; other calls, each in an instance of its own, go on. Return
//!   errors instead.
//! - Return [`Structured<T>`] to send `structuredContent` and declare an output schema
//!   generated from `T`.
//!
//! # Host services
//!
//! - [`context`]: progress, logging and cancellation of the current call (always granted).
//! - [`state`]: what the plugin keeps between calls, per conversation, held by the host
//!   (always granted). Statics are only a cache: an instance serves one conversation, and
//!   a call may run in a fresh one.
//! - [`http`]: HTTP requests of any method with a body, over standard `wasi:http`, allowed by
//!   the manifest's `http` grant; credentials are added by the host, never held by the plugin.
//! - [`capture`]: HTTP fetched by the host, allowed by the manifest's `capture` grant.
//! - [`browser`], [`terminal`], [`sftp`], [`rdp`]: the other capabilities.
//!
//! A component imports only the capabilities its code calls, and the host checks every call
//! against the manifest's grants. Capability calls return [`CapabilityError`], which `?`
//! converts into a [`ToolError`] keeping the host's message (access-denied messages name the
//! grant that would allow the call).
//!
//! The crate also compiles for native targets, so plugins can be unit-tested with
//! [`Plugin::call`]; host services are unavailable there (calling one panics).

#[doc(hidden)]
#[allow(unsafe_code, clippy::all, clippy::unwrap_used, missing_docs)]
pub mod bindings;
pub mod browser;
pub mod capture;
pub mod context;
mod error;
mod export;
mod group;
pub mod http;
mod output;
mod plugin;
mod prompt;
pub mod rdp;
mod schema;
pub mod settings;
pub mod sftp;
pub mod state;
pub mod terminal;
mod tool;

pub use error::{CapabilityError, ToolError};
pub use group::{Capability, Group};
pub use output::{Content, EmbeddedResource, ResourceBody, ToolOutput};
pub use plugin::{Plugin, Resource, ResourceTemplate, TemplateVars};
pub use prompt::{
    Completion, CompletionRef, Prompt, PromptArgs, PromptArgument, PromptMessage, PromptResult,
    Role,
};
pub use tool::{Annotations, IntoToolOutput, NoArgs, Structured, TaskSupport, Tool};
pub use {schemars, serde, serde_json};

/// Everything a plugin usually needs: `use warden_sdk::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Capability, CapabilityError, Completion, CompletionRef, Content, EmbeddedResource, Group,
        NoArgs, Plugin, Prompt, PromptArgs, PromptMessage, PromptResult, Resource,
        ResourceTemplate, Structured, TaskSupport, Tool, ToolError, ToolOutput,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Exports a plugin: give it a closure (or function) that builds the [`Plugin`].
///
/// Use it once, in the plugin crate's `lib.rs`. The closure runs once per plugin instance,
/// on the first call from the host.
///
/// ```no_run
/// use warden_sdk::prelude::*;
///
/// fn plugin() -> Plugin {
///     Plugin::new().tool(Tool::new("ping", |_: NoArgs| Ok("pong")).read_only())
/// }
///
/// warden_sdk::export_plugin!(plugin);
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! export_plugin {
    ($init:expr $(,)?) => {
        #[allow(unsafe_code)]
        const _: () = {
            struct WardenPlugin;

            impl $crate::__private::PluginRoot for WardenPlugin {
                fn plugin() -> &'static $crate::Plugin {
                    ::std::thread_local! {
                        static PLUGIN: &'static $crate::Plugin =
                            $crate::__private::leak(($init)());
                    }
                    PLUGIN.with(|plugin| *plugin)
                }
            }

            type WardenExport = $crate::__private::Export<WardenPlugin>;

            $crate::__private::bindings::export!(
                WardenExport with_types_in $crate::__private::bindings
            );
        };
    };
}

/// Glue used by [`export_plugin!`]; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::bindings;
    pub use crate::export::{Export, PluginRoot, leak};
}

#[cfg(test)]
mod tests {
    use super::__private::bindings::exports::warden::plugin::{resources, tools};
    use super::__private::bindings::warden::plugin::types as wit;
    use super::__private::{Export, PluginRoot};
    use super::prelude::*;

    /// Arguments of `add`.
    #[derive(Deserialize, JsonSchema)]
    struct AddArgs {
        /// First term.
        a: i64,
        /// Second term.
        b: i64,
    }

    #[derive(Serialize, JsonSchema)]
    struct Sum {
        sum: i64,
    }

    struct Root;

    impl PluginRoot for Root {
        fn plugin() -> &'static Plugin {
            thread_local! {
                static PLUGIN: &'static Plugin = super::__private::leak(
                    Plugin::new()
                        .tool(
                            Tool::new("add", |a: AddArgs| {
                                Ok(Structured::new(Sum { sum: a.a + a.b }))
                            })
                            .title("Add")
                            .description("Add two numbers.")
                            .read_only()
                            .idempotent(),
                        )
                        .tool(Tool::new("fail", |_: NoArgs| -> Result<String, ToolError> {
                            Err(CapabilityError::AccessDenied("no".into()).into())
                        }))
                        .resource(Resource::new("notes://all", "notes"), |uri| {
                            Ok(vec![EmbeddedResource::text(uri, "all notes")])
                        })
                        .resource_template(
                            ResourceTemplate::new("notes://{id}", "note"),
                            |uri, vars| Ok(vec![EmbeddedResource::text(uri, vars["id"].clone())]),
                        ),
                );
            }
            PLUGIN.with(|p| *p)
        }
    }

    type E = Export<Root>;

    #[test]
    fn exports() {
        let list = <E as tools::Guest>::list_tools();
        assert_eq!(list.len(), 2);
        let add = &list[0];
        assert_eq!(add.name, "add");
        assert_eq!(add.title.as_deref(), Some("Add"));
        assert!(add.annotations.read_only && add.annotations.idempotent);
        assert!(!add.annotations.destructive && !add.annotations.open_world);
        let input: serde_json::Value = serde_json::from_str(&add.input_schema).expect("json");
        assert_eq!(input["type"], "object");
        assert_eq!(input["properties"]["a"]["description"], "First term.");
        assert!(input.get("title").is_none());
        let output: serde_json::Value =
            serde_json::from_str(add.output_schema.as_deref().expect("output")).expect("json");
        assert_eq!(output["properties"]["sum"]["type"], "integer");
        assert!(list[1].output_schema.is_none());

        let out =
            <E as tools::Guest>::call_tool("add".into(), r#"{"a":1,"b":2}"#.into()).expect("add");
        assert_eq!(out.structured.as_deref(), Some(r#"{"sum":3}"#));
        assert!(
            matches!(&out.content[..], [wit::ContentBlock::Text(t)] if t.contains("\"sum\": 3"))
        );

        let err = <E as tools::Guest>::call_tool("add".into(), r#"{"a":1}"#.into());
        assert!(
            matches!(err, Err(wit::ToolError::InvalidArguments(m)) if m == "missing field `b`")
        );
        let err = <E as tools::Guest>::call_tool("add".into(), "{".into());
        assert!(matches!(err, Err(wit::ToolError::InvalidArguments(_))));
        let err = <E as tools::Guest>::call_tool("fail".into(), "{}".into());
        assert!(matches!(err, Err(wit::ToolError::AccessDenied(m)) if m == "no"));
        let err = <E as tools::Guest>::call_tool("nope".into(), "{}".into());
        assert!(matches!(err, Err(wit::ToolError::NotFound(_))));

        assert_eq!(<E as resources::Guest>::list_resources().len(), 1);
        assert_eq!(<E as resources::Guest>::list_templates().len(), 1);
        let read = <E as resources::Guest>::read_resource("notes://42".into()).expect("read");
        assert!(matches!(&read[0].body, wit::ResourceBody::Text(t) if t == "42"));
        let read = <E as resources::Guest>::read_resource("notes://all".into()).expect("read");
        assert!(matches!(&read[0].body, wit::ResourceBody::Text(t) if t == "all notes"));
        assert!(<E as resources::Guest>::read_resource("other://x".into()).is_err());
    }

    #[test]
    #[should_panic(expected = "must be a struct with named fields")]
    fn non_object_arguments_are_rejected() {
        let _ = Tool::new("bad", |_: String| Ok("x")).input_schema();
    }

    #[test]
    #[should_panic(expected = "tool name `bad name` is invalid")]
    fn bad_names_are_rejected() {
        let _ = Tool::new("bad name", |_: NoArgs| Ok("x"));
    }
}
