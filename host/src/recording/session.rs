//! The recorder of a remote-desktop or browser session: Warden event lines
//! (`events.rs`), one file per session, `DIR/YYYY-MM-DD/SESSION.jsonl`. What each kind
//! records, and when, is its own (`capabilities/rdp`, `capabilities/browser`); the file, the
//! timing, the size cap and the audit link are here.

use super::events::{EventLines, Header};
use super::recorder::Recorder;
use super::writer::Owner;
use crate::audit::RecordingLink;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Who and what a session recording is of, known when the session opens.
#[derive(Debug, Clone)]
pub struct SessionMeta {
    /// `rdp` or `browser`.
    pub kind: &'static str,
    pub plugin: Arc<str>,
    pub client: Option<Arc<str>>,
    /// The MCP session the opening call came in on.
    pub session: Option<Arc<str>>,
    /// What was recorded: `rdp:ALIAS`, `browser:SESSION`.
    pub target: String,
    pub width: u32,
    pub height: u32,
    /// What else the header says (the frame rate, ...).
    pub extra: Value,
}

/// The recorder of one remote-desktop or browser session.
#[derive(Debug)]
pub struct SessionRecorder {
    recorder: Recorder,
    meta: SessionMeta,
    dir: PathBuf,
    cap: u64,
    began: SystemTime,
}

/// `DIR/YYYY-MM-DD/ID.EXT` for a session begun at `began`; `id` kept to characters a file
/// name can hold anywhere.
pub(super) fn file_for(dir: &Path, began: SystemTime, id: &str, ext: &str) -> PathBuf {
    let day = humantime::format_rfc3339(began).to_string();
    let day = day.get(..10).unwrap_or("undated");
    let name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(day).join(format!("{name}.{ext}"))
}

pub(super) fn epoch_seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl SessionRecorder {
    pub(super) fn new(recorder: Recorder, meta: SessionMeta, dir: PathBuf, cap: u64) -> Self {
        Self {
            recorder,
            meta,
            dir,
            cap,
            began: SystemTime::now(),
        }
    }

    /// The session is known as `id`: its file is `DIR/DAY/ID.jsonl`.
    pub fn start(&self, id: &str) {
        let path = file_for(&self.dir, self.began, id, "jsonl");
        let header = Header {
            kind: self.meta.kind,
            timestamp: epoch_seconds(self.began),
            width: self.meta.width,
            height: self.meta.height,
            session: id,
            target: &self.meta.target,
            plugin: &self.meta.plugin,
            client: self.meta.client.as_deref(),
            extra: self.meta.extra.clone(),
        }
        .line();
        let owner = Owner {
            plugin: self.meta.plugin.clone(),
            client: self.meta.client.clone(),
            session: self.meta.session.clone(),
            target: format!("{} session {id}", self.meta.target),
        };
        self.recorder
            .begin(path, header, Box::new(EventLines), self.cap, owner);
    }

    /// Record `data` now as an event of kind `code` (each kind names its codes).
    pub fn event(&self, code: u8, data: &Value) {
        self.recorder.event(code, data.to_string().as_bytes());
    }

    /// Has the writer stopped this recording (size cap, failed write)? Then a caller can
    /// skip the work of making an event.
    pub fn stopped(&self) -> bool {
        self.recorder.stopped()
    }

    /// The session ended.
    pub fn close(&self) {
        self.recorder.close();
    }

    /// For an audit line written now: the file and the offset in it.
    pub fn link(&self) -> Option<RecordingLink> {
        self.recorder.link()
    }

    /// Seconds since the recording began.
    pub fn elapsed(&self) -> std::time::Duration {
        self.recorder.elapsed()
    }
}
