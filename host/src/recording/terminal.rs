//! A terminal session's recording (local PTY or SSH): asciicast v2, one file per session,
//! `DIR/YYYY-MM-DD/SESSION.cast`. The session's output log and input path call it, so both
//! kinds of terminal are recorded from the same two places.

use super::asciicast::{Asciicast, Header};
use super::recorder::Recorder;
use super::session::{epoch_seconds, file_for};
use super::writer::Owner;
use crate::audit::RecordingLink;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// Who and what a terminal recording is of, known when the session opens.
#[derive(Debug, Clone)]
pub struct TerminalMeta {
    pub plugin: Arc<str>,
    pub client: Option<Arc<str>>,
    /// The MCP session the opening call came in on.
    pub session: Option<Arc<str>>,
    /// `local` or `ssh:ALIAS`.
    pub target: String,
    pub cols: u16,
    pub rows: u16,
}

/// The recorder of one terminal session.
#[derive(Debug)]
pub struct TerminalRecorder {
    recorder: Recorder,
    meta: TerminalMeta,
    dir: PathBuf,
    cap: u64,
    began: SystemTime,
}

impl TerminalRecorder {
    pub(super) fn new(recorder: Recorder, meta: TerminalMeta, dir: PathBuf, cap: u64) -> Self {
        Self {
            recorder,
            meta,
            dir,
            cap,
            began: SystemTime::now(),
        }
    }

    /// The session is registered as `id`: its file is `DIR/DAY/ID.cast`.
    pub fn start(&self, id: &str) {
        let path = file_for(&self.dir, self.began, id, "cast");
        let header = Header {
            cols: self.meta.cols,
            rows: self.meta.rows,
            timestamp: epoch_seconds(self.began),
            session: id,
            target: &self.meta.target,
            plugin: &self.meta.plugin,
            client: self.meta.client.as_deref(),
        }
        .line();
        let owner = Owner {
            plugin: self.meta.plugin.clone(),
            client: self.meta.client.clone(),
            session: self.meta.session.clone(),
            target: format!("{} session {id}", self.meta.target),
        };
        self.recorder.begin(
            path,
            header,
            Box::new(Asciicast::default()),
            self.cap,
            owner,
        );
    }

    /// What the terminal printed.
    pub fn output(&self, bytes: &[u8]) {
        self.recorder.event(b'o', bytes);
    }

    /// What Warden typed into it.
    pub fn input(&self, bytes: &[u8]) {
        self.recorder.event(b'i', bytes);
    }

    pub fn resize(&self, cols: u16, rows: u16) {
        self.recorder
            .event(b'r', format!("{cols}x{rows}").as_bytes());
    }

    /// The session ended.
    pub fn close(&self) {
        self.recorder.close();
    }

    /// For an audit line written now: the file and the offset in it.
    pub fn link(&self) -> Option<RecordingLink> {
        self.recorder.link()
    }
}
