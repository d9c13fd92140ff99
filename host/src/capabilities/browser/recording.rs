//! Browser sessions recorded (`[audit] record = ["browser"]`): what the plugin was given
//! (each snapshot and screenshot, as it received them), what it did (each action, with
//! its arguments; a secret by its name only), each tab's URL over time, and, with `[audit]
//! screencast`, frames of the viewport at `frame_rate`. One recording per browser session,
//! Warden event lines (`crate::recording::events`):
//!
//! | code | data |
//! |---|---|
//! | `u` | `{"tab", "url"}`: a tab shows a new URL (as the plugin reads it: scrubbed) |
//! | `a` | `{"tab", "action", "args"}`: a call on the page |
//! | `s` | `{"tab", "url", "text"}`: a snapshot, as text, exactly as masked for the plugin |
//! | `p` | `{"tab", "mime", "data"}`: a screenshot the plugin received (base64) |
//! | `f` | `{"tab", "mime", "data"}`: a screencast frame |
//! | `w` | `{"tab", "why"}`: screencast frames are withheld from here on |
//!
//! Secrets: snapshots and screenshots are recorded after the rules of `model/hold.rs` made
//! them what the plugin may read (no pixels of a page that holds a secret, masked values),
//! so a recording holds no more than the plugin did. The screencast is a door of its own,
//! held to the same rule: no frame while the tab's document holds a secret, none taken
//! while a secret was being typed anywhere in the browser (the count of secrets typed is
//! read before and after each capture), and none for [`GRACE`] after either (a browser
//! keeps painting the last document for a moment after a navigation commits).

use super::tab::Tab;
use crate::recording::{Recordings, SessionMeta, SessionRecorder};
use base64::Engine as _;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How long after a page held a secret (or one was typed) no screencast frame is kept.
pub const GRACE: Duration = Duration::from_secs(2);

/// The recordings of the browser sessions of one provider, by (plugin, session key).
#[derive(Debug, Default)]
pub struct Recorded {
    sessions: Mutex<HashMap<(String, String), Arc<SessionRecording>>>,
}

/// Who a new recording is for.
pub struct Whom<'a> {
    pub plugin: &'a str,
    /// The session's key (scoped by conversation) and the name the plugin gave it.
    pub key: &'a str,
    pub name: &'a str,
    pub client: Option<Arc<str>>,
    pub mcp_session: Option<Arc<str>>,
}

impl Recorded {
    /// The recording of (plugin, session), begun now if `recordings` records browsers.
    pub(crate) fn recording(
        &self,
        recordings: &Recordings,
        whom: Whom<'_>,
    ) -> Option<Arc<SessionRecording>> {
        if !recordings.policy().browser {
            return None;
        }
        let mut sessions = self.sessions.lock_();
        let key = (whom.plugin.to_string(), whom.key.to_string());
        if let Some(r) = sessions.get(&key) {
            return Some(r.clone());
        }
        let policy = recordings.policy();
        let rec = recordings.session(SessionMeta {
            kind: "browser",
            plugin: Arc::from(whom.plugin),
            client: whom.client,
            session: whom.mcp_session,
            target: format!("browser:{}", whom.name),
            width: 0,
            height: 0,
            extra: json!({
                "screencast": policy.screencast,
                "frame_rate": policy.frame_rate,
            }),
        })?;
        rec.start(&format!("browser-{:012x}", rand::random::<u64>() >> 16));
        let every = policy
            .screencast
            .then(|| Duration::from_secs(1) / policy.frame_rate.max(1));
        let recording = Arc::new(SessionRecording {
            rec,
            urls: Mutex::default(),
            watched: Mutex::default(),
            every,
            cancel: CancellationToken::new(),
        });
        sessions.insert(key, recording.clone());
        Some(recording)
    }

    /// The (plugin, session key) pairs being recorded.
    pub(crate) fn sessions(&self) -> Vec<(String, String)> {
        self.sessions.lock_().keys().cloned().collect()
    }

    /// Every recording ends (the manifest's recording policy changed: a session's next call
    /// starts a recording under the new one, or none).
    pub(crate) fn end_all(&self) {
        let ended: Vec<_> = self.sessions.lock_().drain().map(|(_, r)| r).collect();
        for r in ended {
            r.close();
        }
    }

    /// The recording of (plugin, session) ends with the session.
    pub(crate) fn end(&self, plugin: &str, session: &str) {
        let ended = self
            .sessions
            .lock_()
            .remove(&(plugin.to_string(), session.to_string()));
        if let Some(r) = ended {
            r.close();
        }
    }
}

/// One browser session's recording.
#[derive(Debug)]
pub struct SessionRecording {
    rec: Arc<SessionRecorder>,
    /// The last URL recorded of each tab.
    urls: Mutex<HashMap<String, String>>,
    /// Tabs with a screencast running.
    watched: Mutex<HashSet<String>>,
    /// Time between screencast frames, when there is a screencast.
    every: Option<Duration>,
    cancel: CancellationToken,
}

impl SessionRecording {
    /// For an audit line written now.
    pub fn link(&self) -> Option<crate::audit::RecordingLink> {
        self.rec.link()
    }

    /// The plugin did `action` on `tab` with `args`.
    pub fn action(&self, tab: &str, action: &str, args: Value) {
        self.rec
            .event(b'a', &json!({ "tab": tab, "action": action, "args": args }));
    }

    /// The tab's URL, if it changed since it was last recorded.
    pub fn url(&self, tab: &Tab) {
        let Ok(url) = tab.shown_url() else {
            return;
        };
        let mut urls = self.urls.lock_();
        if urls.get(&tab.target) != Some(&url) {
            self.rec
                .event(b'u', &json!({ "tab": tab.target, "url": url }));
            urls.insert(tab.target.clone(), url);
        }
    }

    /// The plugin received a snapshot of `tab`, as `text`.
    pub fn snapshot(&self, tab: &str, url: &str, text: &str) {
        self.rec
            .event(b's', &json!({ "tab": tab, "url": url, "text": text }));
    }

    /// The plugin received a screenshot of `tab`.
    pub fn screenshot(&self, tab: &str, jpeg: bool, image: &[u8]) {
        if self.rec.stopped() {
            return;
        }
        self.rec.event(b'p', &image_event(tab, jpeg, image));
    }

    /// Keep a screencast of `tab`, once per tab, when the policy asks for one.
    pub fn watch(self: &Arc<Self>, tab: &Tab) {
        let Some(every) = self.every else {
            return;
        };
        if !self.watched.lock_().insert(tab.target.clone()) {
            return;
        }
        tokio::spawn(screencast(
            Arc::downgrade(self),
            tab.clone(),
            every,
            self.cancel.clone(),
        ));
    }

    fn close(&self) {
        self.cancel.cancel();
        self.rec.close();
    }
}

impl Drop for SessionRecording {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

fn image_event(tab: &str, jpeg: bool, image: &[u8]) -> Value {
    json!({
        "tab": tab,
        "mime": if jpeg { "image/jpeg" } else { "image/png" },
        "data": base64::engine::general_purpose::STANDARD.encode(image),
    })
}

/// Frames of `tab` every `every` until the recording or the tab ends. A frame is kept only
/// if, before and after it was taken, the tab's document held no secret and no secret had
/// been typed in the browser since the last look, and [`GRACE`] passed since either.
async fn screencast(
    recording: Weak<SessionRecording>,
    tab: Tab,
    every: Duration,
    cancel: CancellationToken,
) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut typed = tab.secrets_typed();
    // A browser where a secret was typed before the recording began is held to the grace too.
    let mut last_held = (typed > 0).then(Instant::now);
    let mut withheld = false;
    let mut last_frame: Option<u64> = None;
    loop {
        tokio::select! {
            () = cancel.cancelled() => return,
            _ = tick.tick() => {}
        }
        let Some(recording) = recording.upgrade() else {
            return;
        };
        if recording.rec.stopped() {
            return;
        }
        let clear = |typed: &mut u64, last_held: &mut Option<Instant>| -> Option<bool> {
            let held = tab.holds_secret().ok()?;
            let now_typed = tab.secrets_typed();
            if held || now_typed != *typed {
                *typed = now_typed;
                *last_held = Some(Instant::now());
                return Some(false);
            }
            Some(last_held.is_none_or(|t| t.elapsed() >= GRACE))
        };
        // The tab is gone: its screencast ends.
        let Some(before) = clear(&mut typed, &mut last_held) else {
            return;
        };
        let frame = if before {
            match tab.screencast_frame().await {
                Ok(frame) => frame,
                Err(
                    super::error::BrowserError::Gone(_) | super::error::BrowserError::NotFound(_),
                ) => return,
                Err(e) => {
                    tracing::debug!(tab = %tab.target, "screencast frame skipped: {e}");
                    None
                }
            }
        } else {
            None
        };
        let Some(after) = clear(&mut typed, &mut last_held) else {
            return;
        };
        if !(before && after) {
            if !withheld {
                withheld = true;
                recording.rec.event(
                    b'w',
                    &json!({
                        "tab": tab.target,
                        "why": "the page holds a secret the host typed: no frames until it no longer does",
                    }),
                );
            }
            continue;
        }
        withheld = false;
        let Some(frame) = frame else {
            continue;
        };
        // A page that does not change costs one frame, not one per tick.
        let digest = digest_of(&frame);
        if last_frame == Some(digest) {
            continue;
        }
        last_frame = Some(digest);
        recording
            .rec
            .event(b'f', &image_event(&tab.target, true, &frame));
    }
}

/// A poisoned lock still guards plain maps: go on with them.
trait LockAnyway<T> {
    fn lock_(&self) -> MutexGuard<'_, T>;
}

impl<T> LockAnyway<T> for Mutex<T> {
    fn lock_(&self) -> MutexGuard<'_, T> {
        self.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn digest_of(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}
