//! Compiled components cached on disk by content hash, so a warm start compiles nothing.
//! The key covers the component's bytes and the engine's compatibility hash (wasmtime
//! version and compiler settings); a stale or corrupt entry is recompiled and replaced.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use wasmtime::Engine;
use wasmtime::component::Component;

pub struct ComponentCache {
    dir: PathBuf,
    /// Compiled by [`Self::prepare`], waiting for their [`Self::load`].
    prepared: Mutex<HashMap<PathBuf, Component>>,
    compiled: AtomicUsize,
    hits: AtomicUsize,
}

impl ComponentCache {
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            prepared: Mutex::new(HashMap::new()),
            compiled: AtomicUsize::new(0),
            hits: AtomicUsize::new(0),
        }
    }

    pub fn compiled(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }

    fn path_for(&self, engine: &Engine, bytes: &[u8]) -> PathBuf {
        let mut engine_hash = std::hash::DefaultHasher::new();
        engine
            .precompile_compatibility_hash()
            .hash(&mut engine_hash);
        let key = hex::encode(Sha256::digest(bytes));
        self.dir
            .join(format!("{key}-{:016x}.cwasm", engine_hash.finish()))
    }

    /// Compiles those of `sources` that are not cached yet side by side, one thread each,
    /// for the [`Self::load`] calls that follow: a first start compiles its plugins at once
    /// instead of one after the other (much of a compilation is serial: parsing,
    /// validation, linking). A failure is left for `load` to report.
    pub fn prepare(&self, engine: &Engine, sources: &[&[u8]]) {
        let missing: Vec<(&[u8], PathBuf)> = sources
            .iter()
            .map(|b| (*b, self.path_for(engine, b)))
            .filter(|(_, path)| !path.is_file())
            .collect();
        if missing.len() < 2 {
            return;
        }
        std::thread::scope(|scope| {
            for (bytes, path) in missing {
                scope.spawn(move || {
                    if let Ok(component) = self.compile(engine, bytes, &path) {
                        self.lock_prepared().insert(path, component);
                    }
                });
            }
        });
    }

    fn lock_prepared(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Component>> {
        self.prepared.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The compiled form of `bytes`, from the cache when possible.
    pub fn load(&self, engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Component> {
        let path = self.path_for(engine, bytes);
        if let Some(component) = self.lock_prepared().remove(&path) {
            return Ok(component);
        }
        if path.is_file() {
            match deserialize(engine, &path) {
                Ok(component) => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok(component);
                }
                Err(e) => {
                    tracing::warn!(path = %path.display(), "ignoring unusable cache entry: {e}")
                }
            }
        }
        self.compile(engine, bytes, &path)
    }

    /// Compiles `bytes` and stores the result at `path`.
    fn compile(&self, engine: &Engine, bytes: &[u8], path: &Path) -> wasmtime::Result<Component> {
        let component = Component::new(engine, bytes)?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = self.store(path, &component) {
            // A read-only cache costs start time, not correctness.
            tracing::warn!(dir = %self.dir.display(), "cannot write the component cache: {e}");
        }
        Ok(component)
    }

    fn store(&self, path: &Path, component: &Component) -> Result<(), Box<dyn std::error::Error>> {
        std::fs::create_dir_all(&self.dir)?;
        let bytes = component.serialize()?;
        // Write then rename, so a concurrent start never reads a half-written file.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    }
}

#[allow(unsafe_code)]
fn deserialize(engine: &Engine, path: &Path) -> wasmtime::Result<Component> {
    // SAFETY: the file was written by `ComponentCache::store` from `Component::serialize`
    // into the cache directory that this user owns; wasmtime also checks that it was produced
    // by a compatible engine before using it.
    unsafe { Component::deserialize_file(engine, path) }
}
