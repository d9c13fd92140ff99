//! The one thread that writes recordings to disk. Sessions hand it events through a queue
//! bounded in bytes ([`QUEUE_BYTES`]): a session never waits on the disk, and when the disk
//! falls behind, events are dropped and counted (the recording says how many) rather than
//! held. Each file is buffered and flushed every [`FLUSH_EVERY`], so a crash loses at most
//! that much. A recording stops, and says so in its last event and in the audit log, when it
//! reaches its size cap; a write that fails (a full disk, a read-only directory) stops it
//! too, audited once. Neither fails the session, whose calls go on unrecorded.

use super::format::Format;
use super::retention::{self, Retention};
use crate::audit::{AuditLog, Outcome, Record, now};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Event bytes waiting for the writer, across every recording it writes.
pub const QUEUE_BYTES: usize = 16 * 1024 * 1024;
/// Longest an event waits in a file's buffer before it reaches the kernel.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// Room kept under the size cap for the event that says the recording stopped.
const STOP_NOTE_ROOM: u64 = 512;

/// Who a recording is for, for the audit lines the writer writes about it.
#[derive(Debug, Clone, Default)]
pub struct Owner {
    pub plugin: Arc<str>,
    pub client: Option<Arc<str>>,
    pub session: Option<Arc<str>>,
    /// What was recorded, e.g. `ssh:box session ssh-1a2b3c`.
    pub target: String,
}

/// State a recording's writer and its session share.
#[derive(Debug, Default)]
pub struct Shared {
    /// The writer stopped this recording (size cap or a failed write): send nothing more.
    pub stopped: AtomicBool,
    /// It stopped because a write failed: the file is not to be pointed at.
    pub failed: AtomicBool,
    /// Event bytes dropped because the queue was full, not yet noted in the file.
    pub dropped: AtomicU64,
}

/// A recording to begin: its file, first line, format, size cap, and whom it is for.
pub(super) struct Open {
    pub id: u64,
    pub path: PathBuf,
    pub header: Vec<u8>,
    pub format: Box<dyn Format>,
    pub cap: u64,
    pub owner: Owner,
    pub shared: Arc<Shared>,
}

pub(super) enum Msg {
    Open(Open),
    Event {
        id: u64,
        t: Duration,
        code: u8,
        data: Vec<u8>,
    },
    Close {
        id: u64,
    },
    /// Flush every file, then answer (tests, and Warden's exit).
    Sync(Sender<()>),
    /// Enforce the retention (the server starts).
    Retain,
}

/// The sending side, shared by every recording of one policy.
#[derive(Clone)]
pub struct Writer {
    tx: Sender<Msg>,
    queued: Arc<AtomicUsize>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("queued", &self.queued.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// Files open for writing, by every writer of this process (a manifest reload starts a new
/// writer while the previous one still writes): retention never removes one of them.
pub type OpenFiles = Arc<Mutex<HashSet<PathBuf>>>;

impl Writer {
    /// Start the writer thread; it enforces `retention` when told to and after each
    /// recording closes, and ends once every sender is gone.
    pub fn spawn(
        audit: Arc<AuditLog>,
        retention: Retention,
        open: OpenFiles,
        flush_every: Duration,
    ) -> std::io::Result<Self> {
        let (tx, rx) = channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let mut thread = Thread {
            rx,
            queued: queued.clone(),
            audit,
            retention,
            open,
            flush_every,
            files: HashMap::new(),
        };
        std::thread::Builder::new()
            .name("warden-recorder".into())
            .spawn(move || thread.run())?;
        Ok(Self { tx, queued })
    }

    /// Queue an event; false (and the event dropped) when the queue is full.
    pub(super) fn event(&self, id: u64, t: Duration, code: u8, data: &[u8]) -> bool {
        let len = data.len();
        let before = self.queued.fetch_add(len, Ordering::Relaxed);
        if before + len > QUEUE_BYTES {
            self.queued.fetch_sub(len, Ordering::Relaxed);
            return false;
        }
        let msg = Msg::Event {
            id,
            t,
            code,
            data: data.to_vec(),
        };
        if self.tx.send(msg).is_err() {
            self.queued.fetch_sub(len, Ordering::Relaxed);
            return false;
        }
        true
    }

    pub(super) fn send(&self, msg: Msg) {
        // The thread is gone only if it panicked; the session goes on unrecorded.
        let _ = self.tx.send(msg);
    }

    /// Flush every recording to the kernel, waiting at most `timeout`.
    pub fn sync(&self, timeout: Duration) -> bool {
        let (tx, rx) = channel();
        self.send(Msg::Sync(tx));
        rx.recv_timeout(timeout).is_ok()
    }
}

struct OpenFile {
    path: PathBuf,
    file: Option<BufWriter<File>>,
    format: Box<dyn Format>,
    written: u64,
    cap: u64,
    last_t: f64,
    dirty: bool,
    owner: Owner,
    shared: Arc<Shared>,
}

struct Thread {
    rx: Receiver<Msg>,
    queued: Arc<AtomicUsize>,
    audit: Arc<AuditLog>,
    retention: Retention,
    open: OpenFiles,
    flush_every: Duration,
    files: HashMap<u64, OpenFile>,
}

impl Thread {
    fn run(&mut self) {
        let mut next_flush = Instant::now() + self.flush_every;
        loop {
            let dirty = self.files.values().any(|f| f.dirty);
            let wait = if dirty {
                next_flush.saturating_duration_since(Instant::now())
            } else {
                Duration::from_secs(3600)
            };
            match self.rx.recv_timeout(wait) {
                Ok(msg) => self.handle(msg),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            let now = Instant::now();
            if !dirty {
                // The first unflushed event waits at most `flush_every` from now.
                next_flush = now + self.flush_every;
            } else if now >= next_flush {
                self.flush_all();
                next_flush = now + self.flush_every;
            }
        }
        let ids: Vec<u64> = self.files.keys().copied().collect();
        for id in ids {
            self.close(id);
        }
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Open(open) => self.open(open),
            Msg::Event { id, t, code, data } => {
                self.queued.fetch_sub(data.len(), Ordering::Relaxed);
                self.event(id, t.as_secs_f64(), code, &data);
            }
            Msg::Close { id } => {
                self.close(id);
                self.enforce_retention();
            }
            Msg::Sync(done) => {
                self.flush_all();
                let _ = done.send(());
            }
            Msg::Retain => self.enforce_retention(),
        }
    }

    fn open(&mut self, open: Open) {
        let Open {
            id,
            path,
            header,
            format,
            cap,
            owner,
            shared,
        } = open;
        let mut f = OpenFile {
            path,
            file: None,
            format,
            written: 0,
            cap,
            last_t: 0.0,
            dirty: false,
            owner,
            shared,
        };
        match create(&f.path) {
            Ok(file) => {
                f.file = Some(BufWriter::with_capacity(64 * 1024, file));
                self.lock_open().insert(f.path.clone());
                self.files.insert(id, f);
                self.write(id, &header);
            }
            Err(e) => self.fail(&mut f, &e),
        }
    }

    fn event(&mut self, id: u64, t: f64, code: u8, data: &[u8]) {
        let Some(f) = self.files.get_mut(&id) else {
            return;
        };
        if f.file.is_none() {
            return;
        }
        // Times only grow, whatever order events from two threads arrived in.
        let t = t.max(f.last_t);
        f.last_t = t;
        let dropped = f.shared.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            let note = f.format.note(
                t,
                &format!("{dropped} bytes of this session were not recorded: the disk fell behind"),
            );
            self.write(id, &note);
        }
        let Some(f) = self.files.get_mut(&id) else {
            return;
        };
        let line = f.format.line(t, code, data);
        if f.written + line.len() as u64 + STOP_NOTE_ROOM > f.cap {
            self.stop_at_cap(id, t);
            return;
        }
        self.write(id, &line);
    }

    /// Write `bytes` to recording `id`; a failure stops the recording.
    fn write(&mut self, id: u64, bytes: &[u8]) {
        let Some(f) = self.files.get_mut(&id) else {
            return;
        };
        let Some(file) = f.file.as_mut() else { return };
        match file.write_all(bytes) {
            Ok(()) => {
                f.written += bytes.len() as u64;
                f.dirty = true;
            }
            Err(e) => {
                let mut f = self.files.remove(&id);
                if let Some(f) = f.as_mut() {
                    self.fail(f, &e);
                    self.lock_open().remove(&f.path);
                }
            }
        }
    }

    fn stop_at_cap(&mut self, id: u64, t: f64) {
        let Some(mut f) = self.files.remove(&id) else {
            return;
        };
        f.shared.stopped.store(true, Ordering::Relaxed);
        let cap = crate::manifest::grants::size_text(f.cap);
        let note = f.format.note(
            t,
            &format!(
                "recording stopped: it reached [audit] max_session ({cap}); the session went on unrecorded"
            ),
        );
        let result = match f.file.take() {
            Some(mut file) => file.write_all(&note).and_then(|()| file.flush()),
            None => Ok(()),
        };
        self.lock_open().remove(&f.path);
        if let Err(e) = result {
            self.fail(&mut f, &e);
            return;
        }
        tracing::warn!(file = %f.path.display(), "recording stopped at its size cap ({cap})");
        self.audit_line(
            &f.owner,
            Outcome::ToolError,
            Some("limit_reached"),
            &format!(
                "recording {} stopped: it reached [audit] max_session ({cap}); the session went on unrecorded",
                f.path.display()
            ),
        );
    }

    /// A recording that cannot be written: stop it, say why once (log and audit).
    fn fail(&self, f: &mut OpenFile, e: &std::io::Error) {
        f.file = None;
        f.shared.failed.store(true, Ordering::Relaxed);
        f.shared.stopped.store(true, Ordering::Relaxed);
        tracing::error!(file = %f.path.display(), "recording failed: {e}; the session goes on unrecorded");
        self.audit_line(
            &f.owner,
            Outcome::ToolError,
            Some("io"),
            &format!(
                "recording {} failed: {e}; the session goes on unrecorded (check the disk and [audit] dir)",
                f.path.display()
            ),
        );
    }

    fn close(&mut self, id: u64) {
        let Some(mut f) = self.files.remove(&id) else {
            return;
        };
        self.lock_open().remove(&f.path);
        if let Some(mut file) = f.file.take()
            && let Err(e) = file.flush()
        {
            self.fail(&mut f, &e);
        }
    }

    fn flush_all(&mut self) {
        let failed: Vec<(u64, std::io::Error)> = self
            .files
            .iter_mut()
            .filter(|(_, f)| f.dirty)
            .filter_map(|(id, f)| {
                f.dirty = false;
                f.file.as_mut()?.flush().err().map(|e| (*id, e))
            })
            .collect();
        for (id, e) in failed {
            if let Some(mut f) = self.files.remove(&id) {
                self.lock_open().remove(&f.path);
                self.fail(&mut f, &e);
            }
        }
    }

    fn enforce_retention(&self) {
        let open = self.lock_open().clone();
        let removed = retention::enforce(&self.retention, &open);
        if removed.files > 0 {
            self.audit_line(
                &Owner {
                    target: self.retention.dir.display().to_string(),
                    ..Owner::default()
                },
                Outcome::Ok,
                None,
                &format!(
                    "retention removed {} recordings ({} bytes), oldest first: [audit] retention is {} days, {}",
                    removed.files,
                    removed.bytes,
                    self.retention.days,
                    crate::manifest::grants::size_text(self.retention.bytes)
                ),
            );
        }
    }

    fn audit_line(&self, owner: &Owner, outcome: Outcome, error: Option<&str>, detail: &str) {
        self.audit.write(&Record {
            ts: now(),
            event: "recording",
            plugin: &owner.plugin,
            tool: "",
            decision: "allowed",
            outcome,
            capability: Some("recording"),
            target: Some(&owner.target),
            client: owner.client.as_deref(),
            session: owner.session.as_deref(),
            error,
            detail: Some(detail),
            ..Record::default()
        });
    }

    fn lock_open(&self) -> std::sync::MutexGuard<'_, HashSet<PathBuf>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A new recording file, readable by its owner only (it holds what the session showed).
fn create(path: &std::path::Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}
