//! The data a plugin's store carries: its sandbox, its grants, the host services its
//! capability imports use, and the context of the call in progress.

use super::sandbox::{self, Caller, GUEST_LOG_BUDGET, GuestScope};
use crate::capabilities::HostServices;
use crate::manifest::grants::Grants;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use tokio_util::sync::CancellationToken;
use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// Log levels a plugin can write at (mirrors `warden:plugin/context.log-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Warning,
    Error,
}

/// Where a running call's progress and log messages go (the MCP layer implements it, so the
/// runtime does not depend on a transport).
pub trait CallEvents: Send + Sync {
    fn progress(
        &self,
        done: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'static, ()>;
    fn log(&self, plugin: &str, level: LogLevel, message: String) -> BoxFuture<'static, ()>;
}

/// The call in progress.
#[derive(Clone, Default)]
pub struct CallContext {
    pub events: Option<Arc<dyn CallEvents>>,
    pub cancel: CancellationToken,
    /// The MCP client's identity, for audit lines.
    pub client: Option<Arc<str>>,
    /// The transport and session the call came in on, for audit lines.
    pub session: Option<Arc<str>>,
}

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

/// Store data of one plugin instance.
pub struct PluginState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub limiter: MemoryLimiter,
    pub grants: Arc<Grants>,
    pub services: Arc<HostServices>,
    pub scope: GuestScope,
    pub call: CallContext,
    log_budget: Arc<AtomicI64>,
}

impl PluginState {
    pub fn new(grants: Arc<Grants>, services: Arc<HostServices>, max_memory: u64) -> Self {
        let scope = GuestScope {
            plugin: Arc::from(grants.plugin.as_str()),
            audit: services.audit.clone(),
            tool: Arc::default(),
            caller: Arc::default(),
            stderr_tail: Arc::default(),
        };
        let log_budget = Arc::new(AtomicI64::new(GUEST_LOG_BUDGET));
        Self {
            wasi: sandbox::wasi_ctx(&scope, &log_budget),
            table: ResourceTable::new(),
            limiter: MemoryLimiter {
                max_memory: usize::try_from(max_memory).unwrap_or(usize::MAX),
                hit: Arc::default(),
            },
            grants,
            services,
            scope,
            call: CallContext::default(),
            log_budget,
        }
    }

    /// Start a call: name it for audit lines and refill the guest-log budget.
    pub fn begin_call(&mut self, tool: &str, call: CallContext) {
        if let Ok(mut t) = self.scope.tool.lock() {
            tool.clone_into(&mut t);
        }
        if let Ok(mut tail) = self.scope.stderr_tail.lock() {
            tail.clear();
        }
        if let Ok(mut caller) = self.scope.caller.lock() {
            *caller = Caller {
                client: call.client.clone(),
                session: call.session.clone(),
            };
        }
        self.call = call;
        self.log_budget.store(GUEST_LOG_BUDGET, Ordering::Relaxed);
    }

    pub fn plugin(&self) -> &str {
        &self.grants.plugin
    }

    /// The instance's resource table (tabs, sessions handed to the guest).
    pub fn table(&mut self) -> &mut ResourceTable {
        &mut self.table
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
