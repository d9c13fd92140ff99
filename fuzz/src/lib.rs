//! Warden's fuzz harness: one target per parser that takes outside bytes, run in-process on
//! stable Rust by a mutation engine with a per-target seed corpus, a dictionary, and a
//! cheap novelty signal (each target returns a number summarising what its input reached;
//! inputs that reach something new join the corpus). A panic or a broken invariant is a
//! crash: the input is saved under `fuzz/artifacts/<target>/` and replayed by
//! `warden-fuzz --replay FILE`. Why this engine and not libFuzzer: `docs/src/fuzzing.md`.

pub mod mutate;
pub mod rng;
pub mod targets;

use rng::{Rng, hash};
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One fuzz target.
pub struct Target {
    pub name: &'static str,
    /// What the target exercises, for `--list`.
    pub about: &'static str,
    /// Built-in seeds (more come from `fuzz/corpus/<name>/`).
    pub seeds: fn() -> Vec<Vec<u8>>,
    /// Tokens worth inserting.
    pub dict: &'static [&'static [u8]],
    /// Panics the host catches and contains (a location substring, e.g. a third-party
    /// crate's source path): reported in the totals, not as crashes.
    pub contained: &'static [&'static str],
    /// Run one input; panics on a broken rule. Returns a summary of what the input reached.
    pub run: fn(&[u8]) -> u64,
}

/// The input in flight and when it started, for the watchdog.
type InFlight = Option<(Instant, Vec<u8>)>;

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    pub executions: u64,
    pub corpus: usize,
    pub crashes: Vec<PathBuf>,
    pub contained: u64,
    pub slowest: Duration,
}

/// Inputs from `dir` (every file in it), sorted by name.
pub fn read_dir_inputs(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// The latest panic anywhere in the process, and how many there were: a panic caught inside
/// the code under test (a tokio task, a `catch_unwind` guard) is a finding too.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);
static PANICS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static CONTAINED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Keep panic messages for the report instead of printing one per crash.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        let text = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{text}{at}"));
        }
        PANICS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }));
}

/// Run `input` once; the panic message when it crashed.
pub fn run_once(target: &Target, input: &[u8]) -> Result<u64, String> {
    let before = PANICS.load(std::sync::atomic::Ordering::SeqCst);
    let result = catch_unwind(AssertUnwindSafe(|| (target.run)(input)));
    let last = || {
        LAST_PANIC
            .lock()
            .ok()
            .and_then(|mut p| p.take())
            .unwrap_or_else(|| "panic".into())
    };
    match result {
        Err(_) => Err(last()),
        Ok(summary) if PANICS.load(std::sync::atomic::Ordering::SeqCst) != before => {
            let message = last();
            if target.contained.iter().any(|c| message.contains(c)) {
                CONTAINED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(summary)
            } else {
                Err(format!("caught inside: {message}"))
            }
        }
        Ok(summary) => Ok(summary),
    }
}

/// Fuzz `target` for `budget`. Seeds are the built-in ones plus `corpus_dir`; crashes and
/// inputs slower than `hang` go to `artifacts`. A hang aborts the process after saving the
/// input (a stuck call cannot be interrupted in-process).
pub fn fuzz(
    target: &Target,
    budget: Duration,
    seed: u64,
    corpus_dir: &Path,
    artifacts: &Path,
    hang: Duration,
) -> Report {
    let mut corpus: Vec<Vec<u8>> = (target.seeds)();
    corpus.extend(read_dir_inputs(corpus_dir));
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let mut report = Report::default();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut crashed: HashSet<String> = HashSet::new();

    // Watchdog: the input in flight and when it started.
    let current: Arc<Mutex<InFlight>> = Arc::default();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (current, done) = (current.clone(), done.clone());
        let dir = artifacts.to_path_buf();
        let name = target.name;
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let stuck = current.lock().ok().and_then(|c| {
                    c.as_ref()
                        .filter(|(at, _)| at.elapsed() > hang)
                        .map(|(_, i)| i.clone())
                });
                if let Some(input) = stuck {
                    let path = save(&dir, "hang", &input);
                    eprintln!(
                        "{name}: an input ran longer than {hang:?}; saved as {}",
                        path.display()
                    );
                    std::process::exit(3);
                }
            }
        })
    };

    let contained_before = CONTAINED.load(std::sync::atomic::Ordering::SeqCst);
    let started = Instant::now();
    let mut rng = Rng::new(seed ^ hash(target.name.as_bytes()));
    let mut queue: Vec<Vec<u8>> = corpus.clone();
    while started.elapsed() < budget {
        // Every seed runs once as is, then mutants of the corpus.
        let input = match queue.pop() {
            Some(i) => i,
            None => {
                let base = &corpus[rng.below(corpus.len())];
                let donor = &corpus[rng.below(corpus.len())];
                mutate::mutate(base, &mut rng, target.dict, donor)
            }
        };
        if let Ok(mut c) = current.lock() {
            *c = Some((Instant::now(), input.clone()));
        }
        let t = Instant::now();
        let result = run_once(target, &input);
        report.slowest = report.slowest.max(t.elapsed());
        report.executions += 1;
        match result {
            Ok(summary) => {
                if seen.insert(summary) && corpus.len() < 4096 {
                    corpus.push(input);
                }
            }
            Err(message) => {
                let path = save(artifacts, "crash", &input);
                if crashed.insert(message.clone()) {
                    eprintln!(
                        "{}: CRASH {message}\n  input saved as {}",
                        target.name,
                        path.display()
                    );
                }
                report.crashes.push(path);
            }
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = watchdog.join();
    report.corpus = corpus.len();
    report.contained = CONTAINED.load(std::sync::atomic::Ordering::SeqCst) - contained_before;
    report
}

fn save(dir: &Path, kind: &str, input: &[u8]) -> PathBuf {
    let _ = std::fs::create_dir_all(dir);
    let path = dir.join(format!("{kind}-{:016x}", hash(input)));
    if let Err(e) = std::fs::write(&path, input) {
        eprintln!("cannot save {}: {e}", path.display());
    }
    path
}
