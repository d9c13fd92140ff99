//! Every plugin the manifest names, loaded, with one routing table from public tool name to
//! plugin. Loading is all-or-nothing: a server never serves a partial tool list. Each call is
//! audited here, before its result goes back to any transport.

use super::bindings::{PromptInfo, ToolInfo};
use super::engine::Runtime;
use super::native;
use super::plugin::WasmPlugin;
use crate::builtin;
use crate::capabilities::HostServices;
use crate::manifest::{Manifest, ManifestError, PluginConfig, PluginSource};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

mod access;
mod groups;
mod resources;

pub use groups::{
    Chosen, DEFAULT_GROUP, GROUPS_TOOL, GroupReport, PluginGroups, Served, grant_key,
};
pub use resources::Claim;

/// A plugin could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    #[error("{file}:{line}:1: plugin '{plugin}' ({source_desc}) {message}")]
    Plugin {
        file: String,
        line: usize,
        plugin: String,
        source_desc: String,
        message: String,
    },
}

/// What serves a plugin's tools.
pub enum Backend {
    Wasm(Box<WasmPlugin>),
    Native,
}

pub struct LoadedPlugin {
    pub config: PluginConfig,
    pub backend: Backend,
}

impl LoadedPlugin {
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Resources this plugin serves (URIs and templates).
    pub fn serves_resources(&self) -> bool {
        matches!(&self.backend, Backend::Wasm(w) if !w.resources.is_empty() || !w.templates.is_empty())
    }

    /// The plugin's resource templates, when it is a WebAssembly plugin.
    pub fn serves_template(&self, uri_template: &str) -> bool {
        matches!(&self.backend, Backend::Wasm(w) if w.templates.iter().any(|t| t.uri_template == uri_template))
    }
}

/// One prompt as the MCP layer sees it.
#[derive(Debug, Clone)]
pub struct PromptEntry {
    pub public_name: String,
    pub plugin: String,
    pub info: PromptInfo,
}

/// One tool as the MCP layer sees it.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    pub public_name: String,
    pub plugin: String,
    pub info: ToolInfo,
    /// `plugin/group` when the tool is listed only for clients that turned its group on.
    pub offered: Option<String>,
}

pub struct Registry {
    /// The engine, linker and epoch ticker these plugins run on; kept alive with them.
    _runtime: Arc<Runtime>,
    plugins: Vec<Arc<LoadedPlugin>>,
    tools: Vec<ToolEntry>,
    routes: HashMap<String, (usize, String)>,
    prompts: Vec<PromptEntry>,
    prompt_routes: HashMap<String, (usize, String)>,
    /// Each plugin's tool groups, in the order of `plugins`.
    groups: Vec<PluginGroups>,
    /// Tools of groups not served (not chosen, or not granted): public name -> plugin and
    /// the refusal a call gets.
    hidden: HashMap<String, (String, groups::Refusal)>,
    services: Arc<HostServices>,
    /// Approvals that still cover later calls (`remember_approval`).
    pub(super) approvals: super::approval::Memory,
    /// `[roles]`: what each client may use, as this registry's manifest says.
    roles: crate::manifest::Roles,
}

impl Registry {
    /// Load every plugin of `manifest`. Fails on the first plugin that cannot load and on
    /// tool-name collisions, naming the manifest line.
    pub async fn load(
        manifest: &Manifest,
        runtime: Arc<Runtime>,
        services: Arc<HostServices>,
    ) -> Result<Self, LoadError> {
        let mut plugins: Vec<Arc<LoadedPlugin>> = Vec::new();
        let mut tools: Vec<ToolEntry> = Vec::new();
        let mut routes: HashMap<String, (usize, String)> = HashMap::new();
        let mut owners: HashMap<String, usize> = HashMap::new();
        let mut prompts: Vec<PromptEntry> = Vec::new();
        let mut prompt_routes: HashMap<String, (usize, String)> = HashMap::new();
        let mut all_groups: Vec<PluginGroups> = Vec::new();
        let mut hidden: HashMap<String, (String, groups::Refusal)> = HashMap::new();

        for config in &manifest.plugins {
            let fail = |message: String| LoadError::Plugin {
                file: manifest.file_name.clone(),
                line: config.line,
                plugin: config.name.clone(),
                source_desc: config.source.to_string(),
                message,
            };
            let bytes: Option<std::borrow::Cow<'_, [u8]>> = match &config.source {
                PluginSource::Native(_) => None,
                PluginSource::Builtin(name) => Some(
                    builtin::bytes(name)
                        .ok_or_else(|| fail("is not embedded in this build".into()))?
                        .into(),
                ),
                PluginSource::Path(path) => Some(
                    std::fs::read(path)
                        .map_err(|e| fail(format!("cannot be read: {e}")))?
                        .into(),
                ),
                PluginSource::Oci(source) => Some(
                    super::pulled::component(
                        &config.name,
                        source,
                        &manifest.distribution,
                        &manifest.cache_dir,
                        &services.audit,
                    )
                    .await
                    .map_err(fail)?
                    .into(),
                ),
            };
            let (backend, infos, declared) = match bytes {
                None => (Backend::Native, vec![native::echo_tool()], Vec::new()),
                Some(bytes) => {
                    let started = Instant::now();
                    let wasm = WasmPlugin::load(&runtime, config.clone(), &bytes, services.clone())
                        .await
                        .map_err(|e| fail(e.to_string()))?;
                    tracing::debug!(plugin = %config.name, ms = started.elapsed().as_millis(), "plugin loaded");
                    let infos = wasm.tools.clone();
                    let declared = wasm.groups.clone();
                    (Backend::Wasm(Box::new(wasm)), infos, declared)
                }
            };
            if let Backend::Wasm(w) = &backend {
                let claims = Claim::of(w);
                for (other, theirs) in plugins.iter().filter_map(|p| match &p.backend {
                    Backend::Wasm(o) => Some((p, Claim::of(o))),
                    Backend::Native => None,
                }) {
                    if let Some((mine, their)) = resources::overlap(&claims, &theirs) {
                        return Err(ManifestError::Invalid(vec![manifest.diagnostic(
                            config.line,
                            format!(
                                "resource {mine} of plugin '{}' overlaps {their} of plugin '{}' (line {}); a resource URI belongs to one plugin: load only one of them",
                                config.name,
                                other.name(),
                                other.config.line
                            ),
                        )])
                        .into());
                    }
                }
            }
            let names: Vec<&str> = infos.iter().map(|i| i.name.as_str()).collect();
            let unmatched = config.tools.unmatched(&names);
            if !unmatched.is_empty() {
                return Err(ManifestError::Invalid(vec![manifest.diagnostic(
                    config.line,
                    format!(
                        "tools: {} of plugin '{}' matches none of its tools; they are: {}",
                        unmatched
                            .iter()
                            .map(|g| format!("\"{g}\""))
                            .collect::<Vec<_>>()
                            .join(", "),
                        config.name,
                        names.join(", ")
                    ),
                )])
                .into());
            }
            let kept: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| config.tools.allows(n))
                .collect();
            let groups = PluginGroups::resolve(
                &config.name,
                &declared,
                &kept,
                &config.groups,
                &config.grants,
            )
            .map_err(|m| ManifestError::Invalid(vec![manifest.diagnostic(config.line, m)]))?;
            let index = plugins.len();
            for info in infos {
                if !config.tools.allows(&info.name) {
                    continue;
                }
                let public = format!("{}{}", config.tool_prefix, info.name);
                let Some(group) = groups.of_tool(&info.name) else {
                    continue;
                };
                let offered = match &group.served {
                    Served::Listed => None,
                    Served::Offered => Some(format!("{}/{}", config.name, group.name)),
                    Served::NotChosen | Served::Ungranted(_) => {
                        let message = groups::refusal(&groups, group, &public);
                        hidden
                            .entry(public)
                            .or_insert_with(|| (config.name.clone(), message));
                        continue;
                    }
                };
                if let Some(&other) = owners.get(&public) {
                    let first = &plugins[other];
                    return Err(ManifestError::Invalid(vec![manifest.diagnostic(
                        config.line,
                        format!(
                            "tool \"{public}\" of plugin '{}' collides with the same tool of plugin '{}' (line {}); set tool_prefix on one of them or remove the tool with tools.deny",
                            config.name,
                            first.name(),
                            first.config.line
                        ),
                    )])
                    .into());
                }
                owners.insert(public.clone(), index);
                routes.insert(public.clone(), (index, info.name.clone()));
                tools.push(ToolEntry {
                    public_name: public,
                    plugin: config.name.clone(),
                    info,
                    offered,
                });
            }
            if let Backend::Wasm(w) = &backend {
                for info in &w.prompts {
                    let public = format!("{}{}", config.tool_prefix, info.name);
                    if let Some((other, _)) = prompt_routes.get(&public) {
                        let first = &plugins[*other];
                        return Err(ManifestError::Invalid(vec![manifest.diagnostic(
                            config.line,
                            format!(
                                "prompt \"{public}\" of plugin '{}' collides with the same prompt of plugin '{}' (line {}); set tool_prefix on one of them",
                                config.name,
                                first.name(),
                                first.config.line
                            ),
                        )])
                        .into());
                    }
                    prompt_routes.insert(public.clone(), (index, info.name.clone()));
                    prompts.push(PromptEntry {
                        public_name: public,
                        plugin: config.name.clone(),
                        info: info.clone(),
                    });
                }
            }
            plugins.push(Arc::new(LoadedPlugin {
                config: config.clone(),
                backend,
            }));
            all_groups.push(groups);
        }
        // A tool served by one plugin is not refused because another hides the same name.
        hidden.retain(|name, _| !routes.contains_key(name));
        let offers = all_groups
            .iter()
            .any(|p| p.groups.iter().any(|g| g.served == Served::Offered));
        if offers && let Some((index, _)) = routes.get(GROUPS_TOOL) {
            let line = plugins.get(*index).map_or(0, |p| p.config.line);
            return Err(ManifestError::Invalid(vec![manifest.diagnostic(
                line,
                format!("tool \"{GROUPS_TOOL}\" is the host's own when a group is offered (tools.offer); set tool_prefix on the plugin that has one"),
            )])
            .into());
        }
        Ok(Self {
            _runtime: runtime,
            plugins,
            tools,
            routes,
            prompts,
            prompt_routes,
            groups: all_groups,
            hidden,
            services,
            approvals: super::approval::Memory::default(),
            roles: manifest.roles.clone(),
        })
    }

    /// What the caller named `client` (`None`: the local operator) may use.
    pub fn access(&self, client: Option<&str>) -> crate::manifest::Access {
        self.roles.access(client)
    }

    /// The roles this registry serves under.
    pub fn roles(&self) -> &crate::manifest::Roles {
        &self.roles
    }

    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
    }

    /// Why public tool `name` is not served to a caller that turned on the offered groups
    /// `chosen`: its plugin, and the refusal (the group, and what would serve it). `None`:
    /// served, or no such tool.
    pub(super) fn not_served(
        &self,
        name: &str,
        chosen: Option<&Chosen>,
    ) -> Option<(&str, super::plugin::CallFailure)> {
        if let Some((plugin, refused)) = self.hidden.get(name) {
            return Some((plugin, refused.failure()));
        }
        let entry = self.tool(name)?;
        let key = entry.offered.as_ref()?;
        if chosen.is_some_and(|c| c.contains(key)) {
            return None;
        }
        let (index, local) = self.routes.get(name)?;
        let groups = self.groups.get(*index)?;
        let refused = groups::refusal(groups, groups.of_tool(local)?, name);
        Some((&entry.plugin, refused.failure()))
    }

    /// Whether public tool `name` belongs to a group the manifest does not serve.
    pub fn is_hidden(&self, name: &str) -> bool {
        self.hidden.contains_key(name)
    }

    /// Each plugin's tool groups and how they are served, in manifest order.
    pub fn groups(&self) -> &[PluginGroups] {
        &self.groups
    }

    /// The host services these plugins call.
    pub fn services(&self) -> &Arc<HostServices> {
        &self.services
    }

    pub fn plugins(&self) -> &[Arc<LoadedPlugin>] {
        &self.plugins
    }

    pub fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.tools.iter().find(|t| t.public_name == name)
    }

    /// Each WebAssembly plugin's calls running and waiting, for the metrics.
    pub fn plugin_calls(&self) -> Vec<crate::metrics::PluginCalls> {
        self.plugins
            .iter()
            .filter_map(|p| match &p.backend {
                Backend::Wasm(w) => {
                    let load = w.load_now();
                    Some(crate::metrics::PluginCalls {
                        plugin: p.name().to_string(),
                        in_flight: load.in_flight,
                        queued: load.queued,
                        idle: load.idle,
                    })
                }
                Backend::Native => None,
            })
            .collect()
    }

    pub fn prompts(&self) -> &[PromptEntry] {
        &self.prompts
    }

    /// The plugin that serves public prompt `name`, and the prompt's own name in that plugin.
    pub(super) fn prompt_route(&self, name: &str) -> Option<(&Arc<LoadedPlugin>, &str)> {
        let (index, local) = self.prompt_routes.get(name)?;
        Some((self.plugins.get(*index)?, local.as_str()))
    }

    /// The plugin that serves public tool `name`, and the tool's own name in that plugin.
    pub(super) fn route(&self, name: &str) -> Option<(&Arc<LoadedPlugin>, &str)> {
        let (index, local) = self.routes.get(name)?;
        Some((self.plugins.get(*index)?, local.as_str()))
    }

    /// The plugin that serves resource `uri`: the one whose listed URI or template prefix
    /// covers it. At most one can (overlaps are load errors).
    pub fn resource_owner(&self, uri: &str) -> Option<&Arc<LoadedPlugin>> {
        self.plugins.iter().find(|p| match &p.backend {
            Backend::Wasm(w) => Claim::of(w).iter().any(|c| c.covers(uri)),
            Backend::Native => false,
        })
    }
}
