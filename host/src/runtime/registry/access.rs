//! A caller's role ([`Access`]) applied to what the registry serves: which tools, prompts and
//! resources it may see and use. The MCP lists filter with these, and the executor refuses
//! with them before any instance runs, so a list and a call never disagree.

use super::{PromptEntry, Registry, ToolEntry};
use crate::manifest::{Access, RoleRefusal, ToolRef};

impl Registry {
    /// Why `access` may not use public tool `name` (with its plugin); `None`: it may, or no
    /// such tool.
    pub fn tool_refused(&self, name: &str, access: &Access) -> Option<(String, Box<RoleRefusal>)> {
        if matches!(access, Access::All) {
            return None;
        }
        let (plugin, local) = match self.route(name) {
            Some((plugin, local)) => (plugin.name().to_string(), local.to_string()),
            // A tool of a group not served still belongs to its plugin.
            None => (self.hidden.get(name)?.0.clone(), name.to_string()),
        };
        let group = self
            .groups
            .iter()
            .find(|g| g.plugin == plugin)
            .and_then(|g| g.of_tool(&local))
            .map(|g| g.name.as_str());
        access
            .tool(ToolRef {
                plugin: &plugin,
                group,
                public: name,
            })
            .err()
            .map(|refusal| (plugin, refusal))
    }

    /// Whether `access` may see and call `tool`.
    pub fn tool_visible(&self, tool: &ToolEntry, access: &Access) -> bool {
        self.tool_refused(&tool.public_name, access).is_none()
    }

    pub fn prompt_visible(&self, prompt: &PromptEntry, access: &Access) -> bool {
        access.prompt(&prompt.plugin, &prompt.public_name).is_ok()
    }

    /// Why `access` may not use prompt `name`; `None`: it may, or no such prompt.
    pub fn prompt_refused(
        &self,
        name: &str,
        access: &Access,
    ) -> Option<(String, Box<RoleRefusal>)> {
        let (plugin, _) = self.prompt_route(name)?;
        let plugin = plugin.name().to_string();
        access.prompt(&plugin, name).err().map(|r| (plugin, r))
    }

    /// Why `access` may not read or subscribe to `uri`; `None`: it may, or no plugin serves it.
    pub fn resource_refused(
        &self,
        uri: &str,
        access: &Access,
    ) -> Option<(String, Box<RoleRefusal>)> {
        let plugin = self.resource_owner(uri)?.name().to_string();
        access
            .resources_of(&plugin, "the resources")
            .err()
            .map(|r| (plugin, r))
    }
}
