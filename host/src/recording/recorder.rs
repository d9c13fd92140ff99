//! One session's recorder: what the session's threads call. Events are timed here, in the
//! order they happen (one lock orders them, so times only grow), and handed to the writer
//! without touching the disk. Events before the session has a name (the shell's first
//! prompt, printed while the session is being registered) wait in a small buffer and are
//! written first.

use super::format::Format;
use super::writer::{Msg, Open, Owner, Shared, Writer};
use crate::audit::RecordingLink;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Event bytes kept before the recording has a file; past it they are dropped and counted.
const EARLY_BYTES: usize = 256 * 1024;

enum Phase {
    /// No file yet: events wait here.
    Early {
        events: Vec<(Duration, u8, Vec<u8>)>,
        bytes: usize,
    },
    Live,
    Closed,
}

/// A session's recorder.
pub struct Recorder {
    id: u64,
    started: Instant,
    writer: Writer,
    shared: Arc<Shared>,
    phase: Mutex<Phase>,
    /// The file as audit lines name it, once the recording has one.
    file: OnceLock<Arc<str>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("id", &self.id)
            .field("file", &self.file.get())
            .finish_non_exhaustive()
    }
}

impl Recorder {
    pub(super) fn new(id: u64, writer: Writer) -> Self {
        Self {
            id,
            started: Instant::now(),
            writer,
            shared: Arc::default(),
            phase: Mutex::new(Phase::Early {
                events: Vec::new(),
                bytes: 0,
            }),
            file: OnceLock::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Give the recording its file and header, and write what happened so far.
    pub(super) fn begin(
        &self,
        path: PathBuf,
        header: Vec<u8>,
        format: Box<dyn Format>,
        cap: u64,
        owner: Owner,
    ) {
        let mut phase = self.lock();
        let Phase::Early { events, .. } = std::mem::replace(&mut *phase, Phase::Live) else {
            return;
        };
        let _ = self.file.set(Arc::from(path.display().to_string()));
        self.writer.send(Msg::Open(Open {
            id: self.id,
            path,
            header,
            format,
            cap,
            owner,
            shared: self.shared.clone(),
        }));
        for (t, code, data) in events {
            self.send(t, code, &data);
        }
    }

    /// Record an event now: `o` output, `i` input, `r` resize.
    pub fn event(&self, code: u8, data: &[u8]) {
        if data.is_empty() || self.shared.stopped.load(Ordering::Relaxed) {
            return;
        }
        let mut phase = self.lock();
        let t = self.started.elapsed();
        match &mut *phase {
            Phase::Early { events, bytes } => {
                if *bytes + data.len() > EARLY_BYTES {
                    self.shared
                        .dropped
                        .fetch_add(data.len() as u64, Ordering::Relaxed);
                } else {
                    *bytes += data.len();
                    events.push((t, code, data.to_vec()));
                }
            }
            Phase::Live => self.send(t, code, data),
            Phase::Closed => {}
        }
    }

    fn send(&self, t: Duration, code: u8, data: &[u8]) {
        if !self.writer.event(self.id, t, code, data) {
            self.shared
                .dropped
                .fetch_add(data.len() as u64, Ordering::Relaxed);
        }
    }

    /// The session ended: the file is flushed and closed (retention runs after it).
    pub fn close(&self) {
        let mut phase = self.lock();
        if matches!(std::mem::replace(&mut *phase, Phase::Closed), Phase::Live) {
            self.writer.send(Msg::Close { id: self.id });
        }
    }

    /// Where an audit line written now points in this recording; none before it has a file
    /// or once writing it failed.
    pub fn link(&self) -> Option<RecordingLink> {
        if self.shared.failed.load(Ordering::Relaxed) {
            return None;
        }
        let file = self.file.get()?.clone();
        // Up to the next millisecond, never down: the moment an audit line names is at or
        // after every event recorded before the line was written.
        let t = (self.started.elapsed().as_secs_f64() * 1000.0).ceil() / 1000.0;
        Some(RecordingLink { file, t })
    }

    /// Has the writer stopped this recording (size cap, failed write)?
    pub fn stopped(&self) -> bool {
        self.shared.stopped.load(Ordering::Relaxed)
    }

    /// Seconds since the recording began.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.close();
    }
}
