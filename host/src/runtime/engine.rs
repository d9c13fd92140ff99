//! The WebAssembly engine shared by every plugin: one [`wasmtime::Engine`], one [`Linker`]
//! with every import (WASI sandbox + all capability interfaces) built once, a
//! compiled-component cache, and an epoch ticker that drives per-call time limits and lets
//! spinning guests be interrupted. A second engine, of baseline code, is made only for a
//! large component's first start (`tiers.rs`).

use super::cache::ComponentCache;
use super::compiler;
use super::store_data::PluginState;
use super::tiers::{Compiled, Optimizing, Tiers};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, EngineWeak, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the epoch advances: the granularity of time limits and of yielding a spinning
/// guest back to the async runtime.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Instance slots the pool always has, whatever the manifest says.
const MIN_POOL_INSTANCES: u32 = 16;

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
    pub(super) engine: Engine,
    pub(super) linker: Linker<PluginState>,
    pub(super) cache: Arc<ComponentCache>,
    pub(super) tiers: Tiers,
    ticker_stop: Arc<AtomicBool>,
}

impl Runtime {
    /// `max_memory` is the largest `limits.memory` of any plugin (the size of a memory slot);
    /// `instances` how many instances may live at once (see [`super::plugin::pool_instances`]);
    /// components of at least `quick_start` bytes in no cache start on baseline code
    /// (`tiers.rs`), none when `None`.
    pub fn new(
        cache_dir: PathBuf,
        max_memory: u64,
        instances: u32,
        quick_start: Option<u64>,
    ) -> Result<Self, RuntimeError> {
        let mut config = compiler::config();
        // The pooling allocator keeps instance slots, memory images and, above all, async
        // fiber stacks warm: an instance per call costs microseconds, where the on-demand
        // allocator would map a fresh stack and memory for every call.
        let instances = instances.max(MIN_POOL_INSTANCES);
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(instances)
            .total_memories(instances.saturating_mul(2))
            .total_tables(instances.saturating_mul(4))
            .total_core_instances(instances.saturating_mul(8))
            .total_stacks(instances)
            .max_memory_size(usize::try_from(max_memory).unwrap_or(usize::MAX));
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&config).map_err(|e| RuntimeError::Engine(e.to_string()))?;

        let linker = super::linker::link(&engine).map_err(|e| RuntimeError::Link(e.to_string()))?;

        let ticker_stop = Arc::new(AtomicBool::new(false));
        let tiers = Tiers::new(quick_start);
        let (weak, baseline, stop) = (
            engine.weak(),
            tiers.baseline_weak.clone(),
            ticker_stop.clone(),
        );
        std::thread::Builder::new()
            .name("warden-epoch".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(EPOCH_TICK);
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                    if let Some(engine) = baseline.get().and_then(EngineWeak::upgrade) {
                        engine.increment_epoch();
                    }
                }
            })
            .map_err(|e| RuntimeError::Engine(format!("cannot start the epoch thread: {e}")))?;

        Ok(Self {
            engine,
            linker,
            cache: Arc::new(ComponentCache::new(cache_dir)),
            tiers,
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

    /// Built-in plugins loaded from the machine code embedded in the binary since start.
    pub fn precompiled_count(&self) -> usize {
        self.cache.embedded()
    }

    /// Plugins that started on baseline code since start (`tiers.rs`).
    pub fn baseline_count(&self) -> usize {
        self.tiers.started_on_baseline()
    }

    /// The machine code plugin `name` starts on (`tiers.rs`).
    pub(super) async fn compile_for_start(
        &self,
        name: &str,
        bytes: &[u8],
    ) -> wasmtime::Result<Compiled> {
        self.tiers
            .compile_for_start(&self.cache, &self.engine, name, bytes)
            .await
    }

    /// The optimized code of a plugin that started on baseline code, for this engine.
    pub(super) async fn optimized(
        &self,
        optimizing: &Optimizing,
        name: &str,
    ) -> Result<Component, String> {
        optimizing
            .finish(&self.tiers, &self.cache, &self.engine, name)
            .await
    }

    /// The linker of the imports for `engine`'s code: the baseline tier's or the main one.
    pub(super) fn linker_for(&self, engine: &Engine) -> &Linker<PluginState> {
        self.tiers.linker_for(engine).unwrap_or(&self.linker)
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}
