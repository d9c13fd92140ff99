//! Two tiers of machine code for a large component's first start. Found in no cache, a
//! component of at least `[server] quick_start` bytes is compiled first by Winch, a
//! baseline compiler about five times faster than Cranelift, and serves its first calls on
//! that code; Cranelift's optimized code compiles meanwhile on the blocking pool, goes into
//! the cache, and replaces the baseline code for every instance made after it is ready
//! (`plugin.rs`). A second start finds the optimized code in the cache and compiles nothing.
//!
//! The baseline engine is made only when a component needs it, with the same interruption
//! settings as the main one (time limits hold on either tier), its own linker of the same
//! imports, and instances allocated on demand: it serves for seconds, and a second pool of
//! memory slots would be reserved for nothing after.
//!
//! One optimized compilation per component at a time in the process: plugins of the same
//! bytes, and the runtime a live reload makes, wait for the one under way.

use super::cache::{ComponentCache, size_of};
use super::linker::link;
use super::store_data::PluginState;
use futures::FutureExt as _;
use futures::future::{BoxFuture, Shared};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::Instant;
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, EngineWeak};

/// An engine and the host's imports linked for it.
struct Tier {
    engine: Engine,
    linker: Linker<PluginState>,
}

/// The tiering state of one runtime.
pub struct Tiers {
    /// Components at least this large, in no cache, start on baseline code; `None`: none do
    /// (`warden check`, `plugin add` and one-shot commands compile the optimized code, which
    /// fills the cache).
    quick_start: Option<u64>,
    baseline: OnceLock<Result<Tier, String>>,
    /// The baseline engine, for the epoch ticker, once made.
    pub(super) baseline_weak: Arc<OnceLock<EngineWeak>>,
    /// Baseline code made by this runtime, by cache key: plugins of the same bytes share it.
    quick: Mutex<HashMap<PathBuf, Component>>,
    started_on_baseline: AtomicUsize,
}

/// What a plugin starts on.
pub enum Compiled {
    /// The optimized code (embedded, cached or compiled now), on the runtime's engine.
    Optimized(Component),
    /// Baseline code on the baseline tier's engine, and the optimized code under way.
    Baseline(Component, Optimizing),
}

type Pending = Shared<BoxFuture<'static, Result<Component, Arc<str>>>>;

/// Optimized compilations under way in this process, by cache key.
static OPTIMIZING: LazyLock<Mutex<HashMap<PathBuf, Pending>>> = LazyLock::new(Mutex::default);

/// The optimized code of a component that started on baseline code.
pub struct Optimizing {
    pending: Pending,
    bytes: Arc<[u8]>,
    key: PathBuf,
    started: Instant,
}

impl Tiers {
    pub fn new(quick_start: Option<u64>) -> Self {
        Self {
            quick_start,
            baseline: OnceLock::new(),
            baseline_weak: Arc::default(),
            quick: Mutex::default(),
            started_on_baseline: AtomicUsize::new(0),
        }
    }

    /// Plugins that started on baseline code since start.
    pub fn started_on_baseline(&self) -> usize {
        self.started_on_baseline.load(Ordering::Relaxed)
    }

    fn baseline(&self) -> Result<&Tier, &str> {
        self.baseline
            .get_or_init(|| {
                let engine = Engine::new(&super::compiler::baseline_config())
                    .map_err(|e| format!("cannot configure the baseline engine: {e}"))?;
                let linker = link(&engine).map_err(|e| e.to_string())?;
                let _ = self.baseline_weak.set(engine.weak());
                Ok(Tier { engine, linker })
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

impl Tiers {
    /// The machine code plugin `name` starts on: the optimized code (for `engine`, cached
    /// in `cache`) when the cache has it or the component is small (compiled now), else
    /// baseline code compiled now with the optimized code under way.
    pub async fn compile_for_start(
        &self,
        cache: &Arc<ComponentCache>,
        engine: &Engine,
        name: &str,
        bytes: &[u8],
    ) -> wasmtime::Result<Compiled> {
        let key = cache.key(engine, bytes);
        if let Some(component) = cache.lookup(engine, bytes, &key) {
            return Ok(Compiled::Optimized(component));
        }
        let quick = self
            .quick_start
            .is_some_and(|from| bytes.len() as u64 >= from);
        if quick {
            match self
                .start_on_baseline(cache, engine, name, bytes, &key)
                .await
            {
                Ok(started) => return Ok(started),
                // Winch does not compile every proposal Cranelift does: such a component
                // starts on the optimized code, as a small one.
                Err(e) => tracing::info!(
                    "plugin '{name}': no baseline code ({e}); compiling the optimized code before its first call"
                ),
            }
        }
        if let Some(pending) = under_way(&key) {
            if let Ok(component) = pending.await
                && Engine::same(component.engine(), engine)
            {
                return Ok(Compiled::Optimized(component));
            }
            if let Some(component) = cache.lookup(engine, bytes, &key) {
                return Ok(Compiled::Optimized(component));
            }
        }
        compile_now(cache, engine, name, Arc::from(bytes), key)
            .await
            .map(Compiled::Optimized)
            .map_err(|e| wasmtime::format_err!("{e}"))
    }

    async fn start_on_baseline(
        &self,
        cache: &Arc<ComponentCache>,
        engine: &Engine,
        name: &str,
        bytes: &[u8],
        key: &Path,
    ) -> Result<Compiled, String> {
        let tier = self.baseline()?;
        let known = self
            .quick
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned();
        let bytes: Arc<[u8]> = Arc::from(bytes);
        let component = match known {
            Some(component) => component,
            None => {
                let (engine, owned, size) = (tier.engine.clone(), bytes.clone(), size_of(&bytes));
                let started = Instant::now();
                let component =
                    tokio::task::spawn_blocking(move || Component::new(&engine, &owned))
                        .await
                        .map_err(|e| format!("the compilation stopped: {e}"))?
                        .map_err(|e| e.to_string())?;
                tracing::info!(
                    "plugin '{name}': compiled {size} to baseline code in {:.1} s; it serves on that code while the optimized code compiles in the background ([server] quick_start)",
                    started.elapsed().as_secs_f64()
                );
                self.quick
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(key.to_path_buf(), component.clone());
                component
            }
        };
        let pending = optimize(cache, engine, name, &bytes, key.to_path_buf());
        self.started_on_baseline.fetch_add(1, Ordering::Relaxed);
        Ok(Compiled::Baseline(
            component,
            Optimizing {
                pending,
                bytes,
                key: key.to_path_buf(),
                started: Instant::now(),
            },
        ))
    }

    /// The baseline tier's linker, when `engine` is the baseline tier's.
    pub fn linker_for(&self, engine: &Engine) -> Option<&Linker<PluginState>> {
        match self.baseline.get() {
            Some(Ok(tier)) if Engine::same(&tier.engine, engine) => Some(&tier.linker),
            _ => None,
        }
    }
}

impl Optimizing {
    /// The component's bytes (its kind is found again on the optimized code).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// How long since the plugin started on baseline code.
    pub fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// The optimized code for `engine`: the compilation's own result, else (it was made
    /// for another runtime's engine, before a reload) the cache's entry, else compiled
    /// again.
    pub async fn finish(
        &self,
        tiers: &Tiers,
        cache: &Arc<ComponentCache>,
        engine: &Engine,
        name: &str,
    ) -> Result<Component, String> {
        let made = self.pending.clone().await.map_err(|e| e.to_string());
        // The baseline code is kept for plugins of the same bytes only while it is needed.
        tiers
            .quick
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
        let made = made?;
        if Engine::same(made.engine(), engine) {
            return Ok(made);
        }
        if let Some(component) = cache.lookup(engine, &self.bytes, &self.key) {
            return Ok(component);
        }
        compile_now(cache, engine, name, self.bytes.clone(), self.key.clone()).await
    }
}

/// The optimized code of `bytes`, compiled on the blocking pool (and cached at `key`).
async fn compile_now(
    cache: &Arc<ComponentCache>,
    engine: &Engine,
    name: &str,
    bytes: Arc<[u8]>,
    key: PathBuf,
) -> Result<Component, String> {
    let (cache, engine, name) = (cache.clone(), engine.clone(), name.to_string());
    tokio::task::spawn_blocking(move || cache.compile(&engine, &name, &bytes, &key))
        .await
        .map_err(|e| format!("the compilation stopped: {e}"))?
        .map_err(|e| e.to_string())
}

fn under_way(key: &Path) -> Option<Pending> {
    OPTIMIZING
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(key)
        .cloned()
}

/// The optimized compilation of `bytes`: the one under way in this process, else a new one
/// on the blocking pool, which caches its result.
fn optimize(
    cache: &Arc<ComponentCache>,
    engine: &Engine,
    name: &str,
    bytes: &Arc<[u8]>,
    key: PathBuf,
) -> Pending {
    let mut under_way = OPTIMIZING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(pending) = under_way.get(&key) {
        return pending.clone();
    }
    let (cache, engine, name, bytes, done) = (
        cache.clone(),
        engine.clone(),
        name.to_string(),
        bytes.clone(),
        key.clone(),
    );
    // Holding the map's lock while spawning: the task's removal waits for the insertion.
    let task = tokio::task::spawn_blocking(move || {
        let made = cache
            .compile(&engine, &name, &bytes, &done)
            .map_err(|e| Arc::<str>::from(e.to_string()));
        OPTIMIZING
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&done);
        made
    });
    let pending = async move {
        task.await
            .map_err(|e| Arc::<str>::from(format!("the compilation stopped: {e}")))?
    }
    .boxed()
    .shared();
    under_way.insert(key, pending.clone());
    pending
}
