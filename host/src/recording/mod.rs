//! Session recordings, a part of the audit: what an agent's sessions showed and what Warden
//! sent them, in time, written under `[audit] dir` and named from the audit lines of the
//! session (`"recording": {"file", "t"}`). What is recorded is the admin's choice (`[audit]
//! record`); nothing is by default.
//!
//! | file | job |
//! |---|---|
//! | `writer.rs` | the thread that writes every recording: queue bounded in bytes, flush each second, size cap, failures audited |
//! | `recorder.rs` | one session's recorder: events timed in order, handed to the writer, never blocking on the disk |
//! | `terminal.rs` | a terminal session's recording (local PTY and SSH) |
//! | `session.rs` | a remote-desktop or browser session's recording (what each records is its capability's) |
//! | `format.rs` | the shape of a recording's lines |
//! | `asciicast.rs` | asciicast v2 lines (terminals) |
//! | `events.rs` | Warden event lines (remote desktops, browsers): `[time, code, JSON]` |
//! | `rdp.rs` | the frame differ of remote-desktop recordings: the rectangles that changed between two frames |
//! | `retention.rs` | `[audit] retention`: by age, then by total size, oldest first |
//! | `catalog.rs` | the recordings on disk, their headers, one found by session id (`warden audit recordings`) |
//! | `play.rs` | a terminal recording played back in time (`warden audit play`) |
//! | `safe_output.rs` | what of a recording reaches the admin's terminal: no clipboard writes, titles or queries |
//! | `view/` | `warden audit view`: a loopback page that plays a recording beside its audit lines |
//! | `tests.rs` | the writer and recorder together |

mod asciicast;
pub mod catalog;
pub mod events;
mod format;
pub mod play;
pub mod rdp;
mod recorder;
pub mod retention;
mod safe_output;
mod session;
mod terminal;
#[cfg(test)]
mod tests;
pub mod view;
pub mod writer;

pub use recorder::Recorder;
pub use session::{SessionMeta, SessionRecorder};
pub use terminal::{TerminalMeta, TerminalRecorder};

use crate::audit::AuditLog;
use crate::manifest::RecordingPolicy;
use retention::Retention;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use writer::{OpenFiles, Writer};

/// The recordings of one manifest: its policy and the writer its sessions hand events to.
#[derive(Debug)]
pub struct Recordings {
    policy: RecordingPolicy,
    writer: Writer,
    /// Files open for writing, shared with the recordings of the manifests before and after
    /// a reload, so that no retention pass removes a file still being written.
    open: OpenFiles,
    next: AtomicU64,
}

impl Recordings {
    /// The recordings `policy` asks for; none when it records nothing (or the writer thread
    /// cannot start, which is logged: sessions then run unrecorded).
    pub fn start(
        policy: &RecordingPolicy,
        audit: Arc<AuditLog>,
        previous: Option<&Recordings>,
    ) -> Option<Arc<Self>> {
        if !policy.any() {
            return None;
        }
        let open = previous.map(|p| p.open.clone()).unwrap_or_default();
        let retention = Retention {
            dir: policy.dir.clone(),
            days: policy.retention_days,
            bytes: policy.retention_bytes,
        };
        match Writer::spawn(audit, retention, open.clone(), writer::FLUSH_EVERY) {
            Ok(writer) => Some(Arc::new(Self {
                policy: policy.clone(),
                writer,
                open,
                next: AtomicU64::new(0),
            })),
            Err(e) => {
                tracing::error!(
                    "cannot start the recording writer: {e}; sessions are not recorded"
                );
                None
            }
        }
    }

    /// A recorder for a terminal session about to open, if terminals are recorded.
    pub fn terminal(&self, meta: TerminalMeta) -> Option<Arc<TerminalRecorder>> {
        if !self.policy.terminal {
            return None;
        }
        let recorder = Recorder::new(
            self.next.fetch_add(1, Ordering::Relaxed),
            self.writer.clone(),
        );
        Some(Arc::new(TerminalRecorder::new(
            recorder,
            meta,
            self.policy.dir.clone(),
            self.policy.max_session,
        )))
    }

    /// A recorder for a remote-desktop or browser session about to open, if its kind
    /// (`meta.kind`) is recorded.
    pub fn session(&self, meta: SessionMeta) -> Option<Arc<SessionRecorder>> {
        let wanted = match meta.kind {
            "rdp" => self.policy.rdp,
            "browser" => self.policy.browser,
            _ => false,
        };
        if !wanted {
            return None;
        }
        let recorder = Recorder::new(
            self.next.fetch_add(1, Ordering::Relaxed),
            self.writer.clone(),
        );
        Some(Arc::new(SessionRecorder::new(
            recorder,
            meta,
            self.policy.dir.clone(),
            self.policy.max_session,
        )))
    }

    /// Remove what `[audit] retention` no longer keeps, on the writer's thread (the server
    /// starts; afterwards each closing recording does it).
    pub fn enforce_retention(&self) {
        self.writer.send(writer::Msg::Retain);
    }

    /// Flush every recording to the kernel (Warden is exiting), waiting at most `timeout`.
    pub fn sync(&self, timeout: Duration) -> bool {
        self.writer.sync(timeout)
    }

    pub fn policy(&self) -> &RecordingPolicy {
        &self.policy
    }
}
