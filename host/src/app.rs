//! Start-up shared by every command: manifest -> audit log -> runtime -> loaded plugins.

use crate::audit::AuditLog;
use crate::builtin;
use crate::capabilities::HostServices;
use crate::manifest::Manifest;
use crate::runtime::Runtime;
use crate::runtime::registry::Registry;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// What the plugins are loaded for: a server starts a large component on baseline code
/// while its optimized code compiles (`[server] quick_start`); a one-shot command (`check`,
/// `tools`, `call`, `plugin add`) compiles the optimized code, which fills the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Serve,
    Once,
}

/// A loaded Warden: everything a transport or a CLI command needs.
pub struct App {
    pub manifest: Manifest,
    pub registry: Arc<Registry>,
}

impl App {
    /// Load `manifest_path` (the built-in default when `None`) and every plugin it names.
    pub async fn load(manifest_path: Option<&Path>) -> anyhow::Result<Self> {
        let manifest = Self::read_manifest(manifest_path)?;
        Self::start(manifest, None, Purpose::Once).await
    }

    /// Load a manifest that will replace the one `previous` serves: its browsers are taken
    /// over when the `[browser]` settings did not change.
    pub async fn reload(manifest_path: &Path, previous: &HostServices) -> anyhow::Result<Self> {
        let manifest = Self::read_manifest(Some(manifest_path))?;
        Self::start(manifest, Some(previous), Purpose::Serve).await
    }

    /// Parse and validate `manifest_path` (the built-in default when `None`), loading nothing.
    pub fn read_manifest(manifest_path: Option<&Path>) -> anyhow::Result<Manifest> {
        let manifest = Manifest::load(manifest_path, &builtin::names())?;
        if manifest_path.is_none() {
            tracing::info!(
                "no --manifest given: using the built-in default manifest: the browser may browse public https sites and http_get may fetch public https hosts (no cookies, no script, no secrets; private networks closed); no terminal, no files"
            );
        }
        Ok(manifest)
    }

    /// Open the audit log and load every plugin of `manifest`.
    pub async fn start(
        manifest: Manifest,
        previous: Option<&HostServices>,
        purpose: Purpose,
    ) -> anyhow::Result<Self> {
        let started = Instant::now();
        // One process-wide TLS provider (ring: no C toolchain needed for aws-lc).
        let _ = rustls::crypto::ring::default_provider().install_default();
        for plugin in &manifest.plugins {
            tracing::info!(
                plugin = %plugin.name,
                source = %plugin.source,
                "grants: {}",
                plugin.grants.summary()
            );
        }
        let audit = Arc::new(
            AuditLog::open(&manifest.audit_log)?
                .with_sink(Arc::new(crate::metrics::AuditCounts))
                .with_sink(Arc::new(crate::trace::Spans)),
        );
        let services = Arc::new(HostServices::new(
            audit,
            manifest.browser.clone(),
            manifest.ssh_hosts.clone(),
            manifest.rdp_hosts.clone(),
            &manifest.recording,
            previous,
        ));
        let max_memory = manifest
            .plugins
            .iter()
            .map(|p| p.limits.memory)
            .max()
            .unwrap_or(crate::manifest::DEFAULT_MEMORY);
        let runtime = Arc::new(Runtime::new(
            manifest.cache_dir.clone(),
            max_memory,
            crate::runtime::pool_instances(&manifest),
            manifest.quick_start.filter(|_| purpose == Purpose::Serve),
        )?);
        let registry = Registry::load(&manifest, runtime.clone(), services).await?;
        for groups in registry.groups() {
            for line in groups.describe() {
                tracing::info!(plugin = %groups.plugin, "tools: {line}");
            }
        }
        for line in registry.roles().report(&manifest.http) {
            tracing::info!("roles: {line}");
        }
        for plugin in registry.plugins() {
            let crate::runtime::registry::Backend::Wasm(w) = &plugin.backend else {
                continue;
            };
            if let Some(kind) = w.served_as()
                && w.plain_functions().is_none()
            {
                tracing::info!(plugin = %plugin.config.name, "served as {kind}");
            }
            if let Some(functions) = w.plain_functions() {
                let tools: Vec<String> = functions
                    .iter()
                    .map(|(name, signature)| {
                        format!("{}{name} <- {signature}", plugin.config.tool_prefix)
                    })
                    .collect();
                tracing::info!(
                    plugin = %plugin.config.name,
                    "plain exported functions as tools (before tools.allow/deny): {}",
                    tools.join("; ")
                );
            }
        }
        let baseline = match runtime.baseline_count() {
            0 => String::new(),
            n => format!(" ({n} on baseline code while their optimized code compiles)"),
        };
        tracing::info!(
            "plugins ready: {} (compiled: {}, from cache: {}, precompiled: {}) with {} tools in {} ms{baseline}; audit log: {}",
            registry.plugins().len(),
            runtime.compiled_count(),
            runtime.cached_count(),
            runtime.precompiled_count(),
            registry.tools().len(),
            started.elapsed().as_millis(),
            manifest.audit_log.display()
        );
        Ok(Self {
            manifest,
            registry: Arc::new(registry),
        })
    }
}
