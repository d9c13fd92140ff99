//! The WebAssembly runtime: one [`wasmtime::Engine`], one [`Linker`] with every import
//! (WASI sandbox + all capability interfaces) built once, a compiled-component cache, and
//! an epoch ticker that drives per-call time limits and lets spinning guests be interrupted.

pub mod approval;
pub mod asks;
pub mod bindings;
pub mod budget;
mod cache;
mod context;
pub mod executor;
mod initial_memory;
mod login_handoff;
pub mod native;
pub mod plugin;
pub mod registry;
pub(crate) mod sandbox;
pub mod state;

pub use state::LogLevel;

use crate::capabilities;
use cache::ComponentCache;
use state::PluginState;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the epoch advances: the granularity of time limits and of yielding a spinning
/// guest back to the async runtime.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Live plugin instances the pool has room for (each plugin keeps one).
const POOL_INSTANCES: u32 = 128;

/// The runtime could not start.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("cannot configure the WebAssembly engine: {0}")]
    Engine(String),
    #[error("cannot link host imports: {0}")]
    Link(String),
}

/// Shared by every plugin.
pub struct Runtime {
    engine: Engine,
    linker: Linker<PluginState>,
    cache: ComponentCache,
    ticker_stop: Arc<AtomicBool>,
}

impl Runtime {
    /// `max_memory` is the largest `limits.memory` of any plugin (the size of a memory slot).
    pub fn new(cache_dir: PathBuf, max_memory: u64) -> Result<Self, RuntimeError> {
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.epoch_interruption(true);
        // The pooling allocator keeps instance slots and, above all, async fiber stacks warm:
        // the on-demand allocator maps a fresh stack for every call into a plugin.
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(POOL_INSTANCES)
            .total_memories(POOL_INSTANCES * 2)
            .total_tables(POOL_INSTANCES * 4)
            .total_core_instances(POOL_INSTANCES * 8)
            .total_stacks(POOL_INSTANCES)
            .max_memory_size(usize::try_from(max_memory).unwrap_or(usize::MAX));
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&config).map_err(|e| RuntimeError::Engine(e.to_string()))?;

        let mut linker = Linker::new(&engine);
        sandbox::add_wasi(&mut linker).map_err(|e| RuntimeError::Link(e.to_string()))?;
        // `warden:plugin` (context, types) on the store itself; each capability on its own
        // context.
        bindings::warden::plugin::types::add_to_linker::<PluginState, HasSelf<PluginState>>(
            &mut linker,
            |s| s,
        )
        .and_then(|()| {
            bindings::warden::plugin::context::add_to_linker::<PluginState, HasSelf<PluginState>>(
                &mut linker,
                |s| s,
            )
        })
        .and_then(|()| capabilities::add_to_linker(&mut linker, &PluginState::projections()))
        .map_err(|e| RuntimeError::Link(e.to_string()))?;

        let ticker_stop = Arc::new(AtomicBool::new(false));
        let (weak, stop) = (engine.weak(), ticker_stop.clone());
        std::thread::Builder::new()
            .name("warden-epoch".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(EPOCH_TICK);
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })
            .map_err(|e| RuntimeError::Engine(format!("cannot start the epoch thread: {e}")))?;

        Ok(Self {
            engine,
            linker,
            cache: ComponentCache::new(cache_dir),
            ticker_stop,
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Components compiled (not found in the cache) since start.
    pub fn compiled_count(&self) -> usize {
        self.cache.compiled()
    }

    /// Components loaded from the cache since start.
    pub fn cached_count(&self) -> usize {
        self.cache.hits()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}
