//! `[[plugin]]`: a plugin's source, tool prefix and filter, approvals, limits and settings,
//! with its grants (`plugin_grants.rs`).

use super::grants::{self, Caps, GlobList, Grants};
use super::owned::Reach;
use super::plugin_grants::PluginScope;
use super::schema::PluginEntry;
use super::settings::Settings;
use super::source::PluginSource;
use super::tool_groups::GroupChoice;
use super::validate::{Validator, valid_plugin_name};
use std::sync::Arc;
use std::time::Duration;

/// Default per-plugin limits.
pub const DEFAULT_MEMORY: u64 = 128 * 1024 * 1024;
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_OUTPUT: u64 = 1024 * 1024;
/// How long a call waits for one of the plugin's `limits.concurrency` places.
pub const DEFAULT_QUEUE_TIMEOUT: Duration = Duration::from_secs(30);
/// What a plugin may keep per conversation in `warden:plugin/state`.
pub const DEFAULT_STATE: u64 = 4 * 1024 * 1024;
/// The most `limits.concurrency` can be: each call in flight holds an instance, and the
/// pooling allocator reserves address space for every one the manifests allow.
pub const MAX_CONCURRENCY: usize = 1024;

/// Calls of one plugin in flight at once unless `limits.concurrency` says otherwise: four per
/// core, at least 8 and at most 64. Calls mostly wait (on a page, a shell, a client's answer)
/// rather than compute, so more calls than cores keep everyone moving; each holds an
/// instance of up to `limits.memory`, so the bound is also a memory bound.
pub fn default_concurrency() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    (cores * 4).clamp(8, 64)
}

/// Which of a plugin's tools are served.
#[derive(Debug, Clone)]
pub struct ToolFilter {
    allow: Option<GlobList>,
    deny: GlobList,
}

impl ToolFilter {
    pub fn allows(&self, tool: &str) -> bool {
        self.allow.as_ref().is_none_or(|a| a.is_match(tool)) && !self.deny.is_match(tool)
    }

    /// The globs (of `allow`, then `deny`) that match none of `tools`: a typo, or a tool the
    /// plugin does not have.
    pub fn unmatched<'a>(&'a self, tools: &[&str]) -> Vec<&'a str> {
        self.allow
            .iter()
            .chain(std::iter::once(&self.deny))
            .flat_map(|list| {
                list.patterns()
                    .iter()
                    .filter(|p| !tools.iter().any(|t| list.matching(t).contains(&p.as_str())))
            })
            .map(String::as_str)
            .collect()
    }
}

/// `remember_approval`: an approval also covers later calls of the same tool from the same
/// client session within `window`, with the same value of argument `per` if set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RememberApproval {
    pub window: Duration,
    pub per: Option<String>,
}

/// The longest `remember_approval.for`.
const MAX_APPROVAL_MEMORY: Duration = Duration::from_secs(24 * 3600);

/// Per-plugin resource limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub memory: u64,
    pub call_timeout: Duration,
    pub output: u64,
    /// Calls in flight at once; each runs in an instance of its own.
    pub concurrency: usize,
    /// How long a call over `concurrency` waits for a place before `limit-reached`.
    pub queue_timeout: Duration,
    /// Bytes of `warden:plugin/state` per conversation.
    pub state: u64,
}

/// One validated `[[plugin]]`.
#[derive(Debug, Clone)]
pub struct PluginConfig {
    pub name: String,
    pub source: PluginSource,
    pub tool_prefix: String,
    pub tools: ToolFilter,
    /// Which of the plugin's tool groups are listed or offered (`tools.groups`, `tools.offer`).
    pub groups: GroupChoice,
    /// Tools (the plugin's own names) that need the user's approval for each call.
    pub require_approval: GlobList,
    /// How long an approval also covers later calls (`remember_approval`); `None`: never.
    pub remember_approval: Option<RememberApproval>,
    pub limits: Limits,
    pub grants: Arc<Grants>,
    /// `[plugin.settings]`, as the plugin reads them through `wasi:config/store`.
    pub settings: Settings,
    /// Line of the plugin's `name` key, for errors found after load (tool collisions).
    pub line: usize,
}

impl Validator<'_> {
    pub(super) fn plugin(
        &mut self,
        entry: PluginEntry,
        scope: &PluginScope<'_>,
    ) -> Option<PluginConfig> {
        let builtins = scope.builtins;
        let errors_before = self.diagnostics.len();
        let name = entry.name.get_ref().clone();
        let (line, _) = self.line_col(entry.name.span().start);
        if !valid_plugin_name(&name) {
            self.error(
                entry.name.span(),
                format!("plugin name \"{name}\" must match [a-z0-9_-]{{1,32}}"),
            );
        }

        let raw = entry.source.get_ref();
        let source = if let Some(b) = raw.strip_prefix("builtin:") {
            if !builtins.contains(&b) {
                self.error(
                    entry.source.span(),
                    format!(
                        "unknown plugin source \"{raw}\"; built-in plugins are: {}",
                        builtins
                            .iter()
                            .map(|b| format!("builtin:{b}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            PluginSource::Builtin(b.to_string())
        } else if raw.starts_with("oci://") {
            self.oci_source(&entry, scope.distribution)
        } else if let Some(n) = raw.strip_prefix("native:") {
            if n != "echo" {
                self.error(
                    entry.source.span(),
                    format!("unknown plugin source \"{raw}\"; the only native plugin is native:echo (a benchmark baseline)"),
                );
            }
            PluginSource::Native(n.to_string())
        } else {
            let path = self.resolve_owned(raw, "a plugin's component", Reach::Integrity);
            if !path.is_file() {
                self.error(
                    entry.source.span(),
                    format!(
                        "unknown plugin source \"{raw}\": no file at {}; use builtin:NAME or a path to a .wasm component",
                        path.display()
                    ),
                );
            }
            PluginSource::Path(path)
        };
        if !matches!(source, PluginSource::Oci(_)) {
            self.oci_only(&entry);
        }

        let tool_prefix = match &entry.tool_prefix {
            Some(p)
                if !p
                    .get_ref()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                self.error(
                    p.span(),
                    format!("tool_prefix \"{}\" may only use [a-zA-Z0-9_-]", p.get_ref()),
                );
                String::new()
            }
            Some(p) => p.get_ref().clone(),
            None => String::new(),
        };

        let tools = ToolFilter {
            allow: entry
                .tools
                .allow
                .as_ref()
                .map(|a| self.globs("tools.allow", a)),
            deny: self.globs("tools.deny", &entry.tools.deny),
        };
        let groups = self.group_choice(&entry.tools);
        let require_approval = self.globs("require_approval", &entry.require_approval);
        let remember_approval = entry.remember_approval.as_ref().and_then(|spec| {
            let window = self.duration("remember_approval.for", Some(&spec.window), Duration::ZERO);
            if window.is_zero() {
                return None; // already reported: not a duration
            }
            if window > MAX_APPROVAL_MEMORY {
                self.error(
                    spec.window.span(),
                    "remember_approval.for is at most 24h (for example \"10m\")".to_string(),
                );
                return None;
            }
            if entry.require_approval.is_empty() {
                self.error(
                    spec.window.span(),
                    "remember_approval needs require_approval: it says how long an approval counts, and no tool of this plugin asks for one".to_string(),
                );
                return None;
            }
            Some(RememberApproval {
                window,
                per: spec.per.as_ref().map(|p| p.get_ref().clone()),
            })
        });

        let limits = Limits {
            memory: self.size(
                "limits.memory",
                entry.limits.memory.as_ref(),
                DEFAULT_MEMORY,
            ),
            call_timeout: self.duration(
                "limits.call_timeout",
                entry.limits.call_timeout.as_ref(),
                DEFAULT_CALL_TIMEOUT,
            ),
            output: self.size(
                "limits.output",
                entry.limits.output.as_ref(),
                DEFAULT_OUTPUT,
            ),
            concurrency: match entry.limits.concurrency.as_ref() {
                Some(n) if usize::try_from(*n.get_ref()).is_ok_and(|n| n > MAX_CONCURRENCY) => {
                    self.error(
                        n.span(),
                        format!(
                            "limits.concurrency: {} is more than {MAX_CONCURRENCY} calls at once; each holds an instance of the plugin: write a number from 1 to {MAX_CONCURRENCY}",
                            n.get_ref()
                        ),
                    );
                    MAX_CONCURRENCY
                }
                n => self.count("limits.concurrency", n, default_concurrency()),
            },
            queue_timeout: self.duration(
                "limits.queue_timeout",
                entry.limits.queue_timeout.as_ref(),
                DEFAULT_QUEUE_TIMEOUT,
            ),
            state: self.size("limits.state", entry.limits.state.as_ref(), DEFAULT_STATE),
        };
        let caps = Caps {
            browser_sessions: self.count(
                "limits.browser_sessions",
                entry.limits.browser_sessions.as_ref(),
                grants::DEFAULT_BROWSER_SESSIONS,
            ),
            browser_tabs: self.count(
                "limits.browser_tabs",
                entry.limits.browser_tabs.as_ref(),
                grants::DEFAULT_BROWSER_TABS,
            ),
            capture_tabs: self.count(
                "limits.capture_tabs",
                entry.limits.capture_tabs.as_ref(),
                grants::DEFAULT_CAPTURE_TABS,
            ),
        };

        let settings = self.settings(entry.settings);
        let mut grants = self.grants(&name, entry.grants, scope);
        grants.caps = caps;
        (self.diagnostics.len() == errors_before).then(|| PluginConfig {
            name,
            source,
            tool_prefix,
            tools,
            groups,
            require_approval,
            remember_approval,
            limits,
            grants: Arc::new(grants),
            settings,
            line,
        })
    }
}
