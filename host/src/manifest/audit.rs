//! `[audit]`: which sessions are recorded (`record`), where (`dir`), for how long and how
//! much (`retention`), how large one recording may grow (`max_session`), and how many frames
//! a second of a remote desktop or a browser's screencast are kept (`frame_rate`,
//! `screencast`).

use super::validate::Validator;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// `[audit]`, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSection {
    /// The kinds of session recorded. Example: `record = ["terminal", "rdp", "browser"]`.
    /// Default: none.
    #[serde(default)]
    pub record: Vec<Spanned<String>>,
    /// Where recordings are written, one directory per day. Default: `recordings` next to
    /// `[server] audit_log`.
    pub dir: Option<Spanned<String>>,
    /// How long and how much is kept, oldest removed first. Example:
    /// `retention = { days = 30, bytes = "1GiB" }` (the default).
    pub retention: Option<Spanned<RetentionSpec>>,
    /// Largest recording of one session; past it the recording stops and the session goes
    /// on. Default `"64MiB"`.
    pub max_session: Option<Spanned<String>>,
    /// Most frames a second kept of a remote desktop (and of a browser's screencast).
    /// Default 2; 1 to 10.
    pub frame_rate: Option<Spanned<i64>>,
    /// Browser recordings also keep a screencast of the tab at `frame_rate` (frames of a
    /// page that holds a secret are never kept). Default false: snapshots, screenshots,
    /// actions and URLs only.
    #[serde(default)]
    pub screencast: bool,
}

/// `[audit] retention`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionSpec {
    /// Recordings older than this many days are removed. Default 30.
    pub days: Option<Spanned<i64>>,
    /// The recordings together stay under this size. Default `"1GiB"`.
    pub bytes: Option<Spanned<String>>,
}

/// What is recorded and how much is kept, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingPolicy {
    /// Terminal sessions (local PTY and SSH) are recorded.
    pub terminal: bool,
    /// Remote desktop sessions are recorded.
    pub rdp: bool,
    /// Browser sessions are recorded.
    pub browser: bool,
    /// Most frames a second kept of a desktop or a screencast.
    pub frame_rate: u32,
    /// Browser recordings keep a screencast.
    pub screencast: bool,
    pub dir: PathBuf,
    pub retention_days: u32,
    pub retention_bytes: u64,
    pub max_session: u64,
}

impl RecordingPolicy {
    /// Whether anything is recorded at all.
    pub fn any(&self) -> bool {
        self.terminal || self.rdp || self.browser
    }
}

pub const DEFAULT_RETENTION_DAYS: u32 = 30;
pub const DEFAULT_RETENTION_BYTES: u64 = 1024 * 1024 * 1024;
pub const DEFAULT_MAX_SESSION: u64 = 64 * 1024 * 1024;
pub const DEFAULT_FRAME_RATE: u32 = 2;
const MAX_FRAME_RATE: u32 = 10;
/// Smallest `max_session`: room for a header and the note that says the recording stopped.
const MIN_MAX_SESSION: u64 = 4096;

impl Validator<'_> {
    pub(super) fn audit(&mut self, spec: AuditSection, audit_log: &Path) -> RecordingPolicy {
        let (mut terminal, mut rdp, mut browser) = (false, false, false);
        for kind in &spec.record {
            match kind.get_ref().as_str() {
                "terminal" => terminal = true,
                "rdp" => rdp = true,
                "browser" => browser = true,
                other => self.error(
                    kind.span(),
                    format!(
                        "audit.record: unknown kind \"{other}\"; write \"terminal\", \"rdp\" or \"browser\""
                    ),
                ),
            }
        }
        let frame_rate = match &spec.frame_rate {
            None => DEFAULT_FRAME_RATE,
            Some(rate) => match u32::try_from(*rate.get_ref()) {
                Ok(n) if (1..=MAX_FRAME_RATE).contains(&n) => n,
                _ => {
                    self.error(
                        rate.span(),
                        format!(
                            "audit.frame_rate: {} frames a second is out of range; write one from 1 to {MAX_FRAME_RATE}",
                            rate.get_ref()
                        ),
                    );
                    DEFAULT_FRAME_RATE
                }
            },
        };
        let dir = match &spec.dir {
            Some(d) => self.resolve(d.get_ref()),
            None => audit_log
                .parent()
                .map_or_else(|| PathBuf::from("recordings"), |d| d.join("recordings")),
        };
        let retention = spec.retention.map(Spanned::into_inner).unwrap_or_default();
        let retention_days = match &retention.days {
            None => DEFAULT_RETENTION_DAYS,
            Some(days) => match u32::try_from(*days.get_ref()) {
                Ok(n) if (1..=36_500).contains(&n) => n,
                _ => {
                    self.error(
                        days.span(),
                        format!(
                            "audit.retention.days: {} is not a number of days; write one from 1 to 36500",
                            days.get_ref()
                        ),
                    );
                    DEFAULT_RETENTION_DAYS
                }
            },
        };
        let retention_bytes = self.size(
            "audit.retention.bytes",
            retention.bytes.as_ref(),
            DEFAULT_RETENTION_BYTES,
        );
        let max_session = self.size(
            "audit.max_session",
            spec.max_session.as_ref(),
            DEFAULT_MAX_SESSION,
        );
        if let Some(m) = &spec.max_session
            && max_session < MIN_MAX_SESSION
        {
            self.error(
                m.span(),
                "audit.max_session: at least \"4KiB\", to hold the recording's header and its last note".to_string(),
            );
        }
        RecordingPolicy {
            terminal,
            rdp,
            browser,
            frame_rate,
            screencast: spec.screencast,
            dir,
            retention_days,
            retention_bytes,
            max_session: max_session.max(MIN_MAX_SESSION),
        }
    }
}
