//! [`PluginState`], the data a plugin instance's store carries: its sandbox, its grants, the host services its
//! capability imports use, and the context of the call in progress.

use super::budget::EventBudget;
use super::call::CallContext;
use super::files::Files;
use super::login_handoff::CallHandOff;
use super::mcp_server::GuestStdio;
use super::wasi_ctx::{self, GUEST_LOG_BUDGET};
use crate::audit::{Caller, GuestScope};
use crate::capabilities::{Contexts, HostServices, Projections, View};
use crate::manifest::grants::Grants;
use crate::manifest::{PluginConfig, Settings};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

/// Entries an instance's resource table may hold (tabs and sessions handed out, WASI streams
/// and pollables): each costs host memory, so a guest that creates handles without dropping
/// them hits this cap (its next host call traps and the instance is replaced) instead of
/// growing the host.
pub const HANDLES_PER_INSTANCE: usize = 10_000;

/// Linear-memory cap that remembers whether the guest hit it, so the trap that follows can be
/// reported as "memory limit" instead of a bare `unreachable`.
#[derive(Debug)]
pub struct MemoryLimiter {
    pub max_memory: usize,
    pub hit: Arc<AtomicBool>,
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory {
            self.hit.store(true, Ordering::Relaxed);
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

/// Store data of one plugin instance: the runtime's own parts (WASI sandbox, resource table,
/// memory limiter, the call in progress) and one context per capability, each reached by
/// its interfaces through a projection ([`PluginState::projections`]).
pub struct PluginState {
    wasi: WasiCtx,
    http: WasiHttpCtx,
    table: ResourceTable,
    pub limiter: MemoryLimiter,
    pub grants: Arc<Grants>,
    pub scope: GuestScope,
    pub call: CallContext,
    caps: Contexts,
    log_budget: Arc<AtomicI64>,
    /// The call's budgets for `context.log` and `context.progress`.
    pub events: EventBudget,
    /// Where `warden:plugin/state` keeps values, and how much per conversation.
    pub kept: Arc<crate::plugin_state::StateStore>,
    pub state_limit: u64,
    /// `[plugin.settings]`, read through `wasi:config/store`.
    pub settings: Settings,
    /// Granted directories and what this instance opened and wrote in them.
    pub files: Files,
    /// The guest read its environment and none is granted.
    pub env_without_grant: bool,
}

impl PluginState {
    /// An instance's state acting with `grants`: the plugin's own, or a role's narrower ones.
    /// `stdio`: a stdio MCP server's stdin and stdout (otherwise stdin is empty and stdout
    /// goes to the host log).
    pub fn new(
        config: &PluginConfig,
        services: &HostServices,
        grants: Arc<Grants>,
        stdio: Option<GuestStdio>,
    ) -> Self {
        let (max_memory, state_limit) = (config.limits.memory, config.limits.state);
        let scope = GuestScope::new(&grants.plugin, services.audit.clone());
        let log_budget = Arc::new(AtomicI64::new(GUEST_LOG_BUDGET));
        let mut table = ResourceTable::new();
        table.set_max_capacity(HANDLES_PER_INSTANCE);
        Self {
            wasi: wasi_ctx::wasi_ctx(&scope, &log_budget, &grants, stdio),
            files: Files::new(&grants.files),
            env_without_grant: false,
            http: WasiHttpCtx::new(),
            table,
            limiter: MemoryLimiter {
                max_memory: usize::try_from(max_memory).unwrap_or(usize::MAX),
                hit: Arc::default(),
            },
            caps: services.contexts(&grants, &scope),
            grants,
            scope,
            call: CallContext::default(),
            log_budget,
            events: EventBudget::default(),
            kept: services.state.clone(),
            state_limit,
            settings: config.settings.clone(),
        }
    }

    /// Start a call: name it for audit lines, give each capability the caller's conversation
    /// and owner, and refill the call's budgets.
    pub fn begin_call(&mut self, tool: &str, call: CallContext) {
        let caller = Caller {
            client: call.client.clone(),
            session: call.session.clone(),
            role: call.access.role().map(std::sync::Arc::from),
            trace: call.trace,
        };
        self.scope.begin(tool, caller, call.cancel.clone());
        self.caps.capture.handoff = Some(Arc::new(CallHandOff {
            plugin: self.grants.plugin.clone(),
            client: call.client_requests.clone(),
            elicitation: call.capabilities.elicitation,
            events: call.events.clone(),
            scope: self.scope.clone(),
        }));
        self.caps.browser.conversation = call.conversation.clone();
        let owner = call.conversation.owner();
        self.caps.terminal.owner = owner.clone();
        self.caps.sftp.owner = owner.clone();
        self.caps.rdp.owner = owner.clone();
        self.call = call;
        // A limit the previous call hit and survived must not name this call's trap.
        self.limiter.hit.store(false, Ordering::Relaxed);
        self.log_budget.store(GUEST_LOG_BUDGET, Ordering::Relaxed);
        self.events = EventBudget::default();
    }

    /// End the call this instance served: the tabs it held are free for other calls, and
    /// nothing of the call (its client's channel, its cancellation) is held while the
    /// instance waits for its conversation's next call.
    pub fn end_call(&mut self) {
        self.files.flush(&self.scope);
        self.scope.finish();
        self.caps.browser.leased.clear();
        self.caps.capture.handoff = None;
        self.call = CallContext::default();
    }

    pub fn plugin(&self) -> &str {
        &self.grants.plugin
    }

    /// How each capability's interfaces reach its context.
    pub fn projections() -> Projections<Self> {
        Projections {
            browser: |s| View {
                ctx: &mut s.caps.browser,
                table: &mut s.table,
            },
            terminal: |s| View {
                ctx: &mut s.caps.terminal,
                table: &mut s.table,
            },
            sftp: |s| View {
                ctx: &mut s.caps.sftp,
                table: &mut s.table,
            },
            rdp: |s| View {
                ctx: &mut s.caps.rdp,
                table: &mut s.table,
            },
            capture: |s| View {
                ctx: &mut s.caps.capture,
                table: &mut s.table,
            },
        }
    }
}

impl WasiView for PluginState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// Standard `wasi:http`: wasmtime-wasi-http's interfaces, every request sent by the host's
/// hook under `grants.http` (`capabilities/http`).
impl WasiHttpView for PluginState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.caps.http,
        }
    }
}
