//! Every plugin the manifest names, loaded, with one routing table from public tool name to
//! plugin. Loading is all-or-nothing: a server never serves a partial tool list. Each call is
//! audited here, before its result goes back to any transport.

use super::Runtime;
use super::bindings::{ContentBlock, ToolInfo, ToolOutput};
use super::native;
use super::plugin::{CallFailure, WasmPlugin, output_size};
use super::state::CallContext;
use crate::audit::{self, Outcome, Record};
use crate::builtin;
use crate::capabilities::HostServices;
use crate::manifest::{Manifest, ManifestError, PluginConfig, PluginSource};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

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
}

/// One tool as the MCP layer sees it.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    pub public_name: String,
    pub plugin: String,
    pub info: ToolInfo,
}

/// The result of one routed call.
pub struct CallReport {
    pub plugin: String,
    pub result: Result<ToolOutput, CallFailure>,
}

pub struct Registry {
    /// The engine, linker and epoch ticker these plugins run on; kept alive with them.
    _runtime: Arc<Runtime>,
    plugins: Vec<Arc<LoadedPlugin>>,
    tools: Vec<ToolEntry>,
    routes: HashMap<String, (usize, String)>,
    services: Arc<HostServices>,
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
            };
            let (backend, infos) = match bytes {
                None => (Backend::Native, vec![native::echo_tool()]),
                Some(bytes) => {
                    let started = Instant::now();
                    let wasm = WasmPlugin::load(&runtime, config.clone(), &bytes, services.clone())
                        .await
                        .map_err(fail)?;
                    tracing::debug!(plugin = %config.name, ms = started.elapsed().as_millis(), "plugin loaded");
                    let infos = wasm.tools.clone();
                    (Backend::Wasm(Box::new(wasm)), infos)
                }
            };
            let index = plugins.len();
            for info in infos {
                if !config.tools.allows(&info.name) {
                    continue;
                }
                let public = format!("{}{}", config.tool_prefix, info.name);
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
                });
            }
            plugins.push(Arc::new(LoadedPlugin {
                config: config.clone(),
                backend,
            }));
        }
        Ok(Self {
            _runtime: runtime,
            plugins,
            tools,
            routes,
            services,
        })
    }

    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
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

    /// Run tool `name` (public name). `None` when no plugin serves it.
    pub async fn call(&self, name: &str, arguments: &str, call: CallContext) -> Option<CallReport> {
        let (index, local) = self.routes.get(name)?;
        let plugin = &self.plugins[*index];
        let client = call.client.clone();
        let session = call.session.clone();
        let started = Instant::now();
        let result = match &plugin.backend {
            Backend::Native => native::echo(arguments).map_err(CallFailure::Tool),
            Backend::Wasm(w) => w.call_tool(local, arguments, call).await,
        };
        let result = result.and_then(|out| cap_output(out, plugin.config.limits.output));
        let outcome = match &result {
            Ok(_) => Outcome::Ok,
            Err(f) => f.outcome(),
        };
        self.services.audit.write(&Record {
            ts: audit::now(),
            event: "tool_call",
            plugin: plugin.name(),
            tool: name,
            args_sha256: Some(audit::digest(arguments.as_bytes())),
            args_bytes: Some(arguments.len()),
            decision: "allowed",
            outcome,
            duration_ms: Some(audit::millis(started.elapsed())),
            capability: None,
            target: None,
            reason: None,
            client: client.as_deref(),
            session: session.as_deref(),
            error: None,
            tabs_opened: None,
            tabs_open: None,
        });
        Some(CallReport {
            plugin: plugin.name().to_string(),
            result,
        })
    }

    /// Find the plugin that serves resource `uri`: an exact listed URI, else a template whose
    /// literal prefix (before the first `{`) the URI starts with.
    pub fn resource_owner(&self, uri: &str) -> Option<&Arc<LoadedPlugin>> {
        let listed = |w: &WasmPlugin| w.resources.iter().any(|r| r.uri == uri);
        let templated = |w: &WasmPlugin| {
            w.templates.iter().any(|t| {
                let prefix = t.uri_template.split('{').next().unwrap_or("");
                !prefix.is_empty() && uri.starts_with(prefix)
            })
        };
        let find = |test: &dyn Fn(&WasmPlugin) -> bool| {
            self.plugins
                .iter()
                .find(|p| matches!(&p.backend, Backend::Wasm(w) if test(w)))
        };
        find(&listed).or_else(|| find(&templated))
    }
}

/// Enforce `limits.output`: text is cut with a note that says how to get the rest; a result
/// with structured or binary content over the cap becomes an error (cutting would corrupt it).
fn cap_output(mut output: ToolOutput, limit: u64) -> Result<ToolOutput, CallFailure> {
    let size = output_size(&output);
    if size <= limit {
        return Ok(output);
    }
    let all_text = output.structured.is_none()
        && output
            .content
            .iter()
            .all(|c| matches!(c, ContentBlock::Text(_)));
    let note = format!(
        "\n[output cut: the plugin returned {} bytes, over its limit of {} (limits.output in the manifest); ask for less, e.g. a smaller range or page]",
        size, limit
    );
    if all_text {
        let mut room = usize::try_from(limit).unwrap_or(usize::MAX);
        for block in &mut output.content {
            if let ContentBlock::Text(t) = block {
                if t.len() > room {
                    let mut cut = room;
                    while !t.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    t.truncate(cut);
                }
                room -= t.len();
            }
        }
        output
            .content
            .retain(|c| !matches!(c, ContentBlock::Text(t) if t.is_empty()));
        output.content.push(ContentBlock::Text(note));
        Ok(output)
    } else {
        Err(CallFailure::OutputTooLarge(size, limit))
    }
}
