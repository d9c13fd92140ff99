//! Plain exported functions as tools: a component built for another host (Wassette and
//! the like), which exports functions (`export fetch: func(url: string) -> ...`, or an
//! interface of them) instead of the `warden:plugin/plugin` world, is served as one tool
//! per function. It runs as every plugin runs, behind `WasmPlugin::enter` (an instance
//! per conversation, limits, time, cancellation, the same grants and audit); only the
//! way in differs: wasmtime's dynamic call with values checked against the WIT types.
//!
//! | file | job |
//! |---|---|
//! | `walk.rs` | which exported functions are tools, their names, schemas and descriptions |
//! | `schema.rs` | WIT types as JSON Schema (and as WIT text for generated descriptions) |
//! | `json.rs` | JSON arguments to checked component values |
//! | `output.rs` | component values (results, errors) to JSON |
//! | `docs.rs` | the component's WIT doc comments (`package-docs`) |
//! | `call.rs` | one call: arguments in, tool result or tool error out |

mod call;
mod docs;
mod json;
mod output;
mod schema;
mod walk;

pub use walk::{Function, WalkError};

use crate::runtime::bindings::ToolInfo;
use crate::runtime::store_data::PluginState;
use wasmtime::Store;
use wasmtime::component::{Component, Instance};

/// The functions of a component served as tools.
pub struct PlainExports {
    functions: Vec<Function>,
}

impl PlainExports {
    /// The component's exported functions, or why they cannot be served (a resource in a
    /// parameter names its function). Empty when it exports none.
    pub fn discover(
        component: &Component,
        engine: &wasmtime::Engine,
        bytes: &[u8],
    ) -> Result<Self, WalkError> {
        let docs = docs::Docs::read(bytes);
        Ok(Self {
            functions: walk::functions(component, engine, &docs)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// Each tool's name and the function it calls, for `warden check`.
    pub fn signatures(&self) -> Vec<(String, String)> {
        self.functions
            .iter()
            .map(|f| (f.info.name.clone(), f.signature.clone()))
            .collect()
    }

    pub fn tools(&self) -> Vec<ToolInfo> {
        self.functions.iter().map(|f| f.info.clone()).collect()
    }

    /// Call tool `name` in `instance`; the outer error is a trap.
    pub async fn call(
        &self,
        instance: &Instance,
        store: &mut Store<PluginState>,
        name: &str,
        arguments: &str,
    ) -> wasmtime::Result<
        Result<crate::runtime::bindings::ToolOutput, crate::runtime::bindings::ToolError>,
    > {
        match self.functions.iter().find(|f| f.info.name == name) {
            Some(function) => call::call(instance, store, function, arguments).await,
            None => Ok(Err(crate::runtime::bindings::ToolError::NotFound(format!(
                "no tool named {name}"
            )))),
        }
    }
}
