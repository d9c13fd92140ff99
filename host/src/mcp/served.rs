//! What the server serves at one moment: a loaded registry and its MCP tool list, swapped
//! whole on a manifest reload.

use super::convert;
use crate::manifest::Access;
use crate::runtime::bindings::TaskSupport;
use crate::runtime::registry::{Backend, Chosen, Registry};
use rmcp::model;
use std::sync::Arc;

/// One registry and its MCP tool list. Calls in flight keep the one they started on.
pub struct Served {
    pub registry: Arc<Registry>,
    /// Every tool served, each with its `plugin/group` when that group is offered (listed
    /// only for a conversation that turned it on).
    pub tools: Vec<(model::Tool, Option<String>)>,
    /// The host's `tool_groups` tool, when the manifest offers a group.
    pub groups_tool: Option<model::Tool>,
}

impl Served {
    pub(super) fn new(registry: Arc<Registry>) -> Arc<Self> {
        let tools = registry
            .tools()
            .iter()
            .map(|t| (convert::tool(t), t.offered.clone()))
            .collect();
        let groups_tool = super::groups::tool(&registry, &Access::All);
        Arc::new(Self {
            registry,
            tools,
            groups_tool,
        })
    }

    /// The tool list of a conversation that turned on the offered groups `chosen`, as the
    /// caller's role (`access`) lets it see, with `tool_groups` offering only the groups the
    /// role reaches a tool of.
    pub(super) fn tools_for(&self, chosen: &Chosen, access: &Access) -> Vec<model::Tool> {
        let groups_tool = match access {
            Access::All => self.groups_tool.clone(),
            _ => super::groups::tool(&self.registry, access),
        };
        self.tools
            .iter()
            .filter(|(_, offered)| offered.as_ref().is_none_or(|g| chosen.contains(g)))
            .filter(|(tool, _)| self.registry.tool_refused(&tool.name, access).is_none())
            .map(|(tool, _)| tool.clone())
            .chain(groups_tool)
            .collect()
    }

    /// Tool `name` as listed to someone (offered ones included).
    pub(super) fn tool(&self, name: &str) -> Option<model::Tool> {
        self.tools
            .iter()
            .map(|(t, _)| t)
            .chain(&self.groups_tool)
            .find(|t| t.name == name)
            .cloned()
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
