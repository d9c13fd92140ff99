//! What the server serves at one moment: a loaded registry and its MCP tool list, swapped
//! whole on a manifest reload.

use super::convert;
use crate::runtime::bindings::TaskSupport;
use crate::runtime::registry::{Backend, Registry};
use rmcp::model;
use std::sync::Arc;

/// One registry and its MCP tool list. Calls in flight keep the one they started on.
pub struct Served {
    pub registry: Arc<Registry>,
    pub tools: Vec<model::Tool>,
}

impl Served {
    pub(super) fn new(registry: Arc<Registry>) -> Arc<Self> {
        let tools = registry.tools().iter().map(convert::tool).collect();
        Arc::new(Self { registry, tools })
    }

    pub(super) fn serves_resources(&self) -> bool {
        self.registry.plugins().iter().any(|p| p.serves_resources())
    }

    /// Tasks exist when a tool may run as one.
    pub(super) fn serves_tasks(&self) -> bool {
        self.registry
            .tools()
            .iter()
            .any(|t| t.info.task != TaskSupport::Never)
    }

    pub(super) fn serves_prompts(&self) -> bool {
        !self.registry.prompts().is_empty()
    }

    /// Completions exist for prompt arguments and resource-template variables.
    pub(super) fn serves_completions(&self) -> bool {
        self.serves_prompts()
            || self
                .registry
                .plugins()
                .iter()
                .any(|p| matches!(&p.backend, Backend::Wasm(w) if !w.templates.is_empty()))
    }
}
