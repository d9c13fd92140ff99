//! Compiled components cached on disk by content hash, so a warm start compiles nothing.
//! The key covers the component's bytes and the engine's compatibility hash (wasmtime
//! version and compiler settings); a stale or corrupt entry is recompiled and replaced.
//! Built-in plugins come precompiled in the binary, so even a first start compiles none of
//! them; when this machine cannot run that code (other CPU features), they take the cache's
//! path like any plugin.

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use wasmtime::Engine;
use wasmtime::component::Component;

pub struct ComponentCache {
    dir: PathBuf,
    compiled: AtomicUsize,
    hits: AtomicUsize,
    embedded: AtomicUsize,
}

impl ComponentCache {
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            compiled: AtomicUsize::new(0),
            hits: AtomicUsize::new(0),
            embedded: AtomicUsize::new(0),
        }
    }

    pub fn compiled(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }

    /// Built-in plugins loaded from the machine code embedded in the binary.
    pub fn embedded(&self) -> usize {
        self.embedded.load(Ordering::Relaxed)
    }

    /// `bytes` compiled for `engine` without compiling: the machine code embedded in the
    /// binary (built-in plugins), else the cache's entry at `path` ([`Self::key`]).
    pub fn lookup(&self, engine: &Engine, bytes: &[u8], path: &Path) -> Option<Component> {
        if let Some(compiled) = crate::builtin::precompiled(bytes) {
            match deserialize_embedded(engine, compiled) {
                Ok(component) => {
                    self.embedded.fetch_add(1, Ordering::Relaxed);
                    return Some(component);
                }
                Err(e) => tracing::info!(
                    "the built-in plugins' embedded machine code does not fit this machine, compiling them: {e}"
                ),
            }
        }
        if !path.is_file() {
            return None;
        }
        match deserialize(engine, path) {
            Ok(component) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(component)
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), "ignoring unusable cache entry: {e}");
                None
            }
        }
    }

    /// Compile plugin `name`'s `bytes` with `engine` and cache the result at `path`
    /// ([`Self::key`]). Logged before and after: a large component takes seconds, and the
    /// admin should know what the start is waiting for.
    pub fn compile(
        &self,
        engine: &Engine,
        name: &str,
        bytes: &[u8],
        path: &Path,
    ) -> wasmtime::Result<Component> {
        let size = size_of(bytes);
        tracing::info!(
            "plugin '{name}': compiling {size} of WebAssembly to machine code (once; the result is cached in {})",
            self.dir.display()
        );
        let started = std::time::Instant::now();
        let component = Component::new(engine, bytes)?;
        tracing::info!(
            "plugin '{name}': compiled {size} in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        self.compiled.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = self.store(path, &component) {
            // A read-only cache costs start time, not correctness.
            tracing::warn!(dir = %self.dir.display(), "cannot write the component cache: {e}");
        }
        Ok(component)
    }

    /// Where `bytes` compiled for `engine` is kept: also the key of a compilation under way.
    pub fn key(&self, engine: &Engine, bytes: &[u8]) -> PathBuf {
        let mut engine_hash = std::hash::DefaultHasher::new();
        engine
            .precompile_compatibility_hash()
            .hash(&mut engine_hash);
        let key = hex::encode(Sha256::digest(bytes));
        self.dir
            .join(format!("{key}-{:016x}.cwasm", engine_hash.finish()))
    }

    fn store(&self, path: &Path, component: &Component) -> Result<(), Box<dyn std::error::Error>> {
        // Warden's user's alone: native code Warden will run, not for another user to read
        // or change (a browser's user included).
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)?;
        let bytes = component.serialize()?;
        // Write then rename, so a concurrent start never reads a half-written file.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?
            .write_all(&bytes)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    }
}

/// A component's size as the log says it.
pub fn size_of(bytes: &[u8]) -> String {
    bytesize::ByteSize::b(bytes.len() as u64)
        .display()
        .iec()
        .to_string()
}

#[allow(unsafe_code)]
fn deserialize(engine: &Engine, path: &Path) -> wasmtime::Result<Component> {
    // SAFETY: the file was written by `ComponentCache::store` from `Component::serialize`
    // into the cache directory that this user owns; wasmtime also checks that it was produced
    // by a compatible engine before using it.
    unsafe { Component::deserialize_file(engine, path) }
}

#[allow(unsafe_code)]
fn deserialize_embedded(engine: &Engine, compiled: &'static [u8]) -> wasmtime::Result<Component> {
    // SAFETY: `compiled` is part of this binary, written by its build script from
    // `Engine::precompile_component`; wasmtime checks that the engine that produced it is
    // compatible with this one (version, settings, CPU features) before using it.
    unsafe { Component::deserialize(engine, compiled) }
}
