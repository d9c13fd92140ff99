//! Entry points for the fuzz harness (`fuzz/`): what the host reads from the browser, from
//! raw pipe bytes to the records a plugin gets. Not an API; nothing in the host calls these.

use super::cdp::{self, Event, RawEvent};
use super::events::reduce;
use super::guard::Guard;
use super::model::log::TabLog;
use super::model::state::{Owner, State};
use super::tab::FrameSnapshot;
use super::tab::script::Frame;
use crate::audit::{AuditLog, GuestScope};
use crate::manifest::grants::{BrowserGrant, GlobList, Grants};
use chromiumoxide::types::Message;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// One browser's worth of state that fuzz inputs are folded into.
pub struct BrowserInput {
    state: State,
    log: TabLog,
}

impl BrowserInput {
    /// A state with one session of plugin `p` (context `ctx-1`, granted `http://127.0.0.1:8000`)
    /// whose audit lines go to `audit`.
    pub fn new(audit: Arc<AuditLog>) -> Self {
        let list = |l: &[&str]| {
            GlobList::new(&l.iter().map(|s| (*s).to_string()).collect::<Vec<_>>())
                .unwrap_or_else(|_| GlobList::empty())
        };
        let origins = ["http://127.0.0.1:8000"];
        let grants = Grants {
            plugin: "p".into(),
            browser: Some(BrowserGrant {
                origins: list(&origins),
                resource_origins: list(&origins),
                cookies: false,
                eval_js: false,
                upload_dirs: Vec::new(),
                download_dir: None,
                download_max: crate::manifest::DEFAULT_DOWNLOAD_MAX,
                secrets: Vec::new(),
                profiles: Vec::new(),
                owned: Default::default(),
            }),
            ..Grants::default()
        };
        let mut state = State::default();
        state.bind(
            ("p".into(), "default".into()),
            "ctx-1".into(),
            Owner {
                grants: Arc::new(grants),
                scope: GuestScope::new("p", audit),
                client: Default::default(),
            },
        );
        Self {
            state,
            log: TabLog::default(),
        }
    }

    /// Feed `bytes` as they would arrive on the DevTools pipe: NUL-ended JSON messages.
    /// Every event goes through the reducer and the tab logs; every message is also read as
    /// a `page.js` snapshot result and as a cookie. Returns a summary of what was understood.
    pub fn feed(&mut self, bytes: &[u8]) -> u64 {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let sink = cdp::Sink {
            events: tx,
            sent: Default::default(),
        };
        let mut pending = HashMap::new();
        let mut seen = 0u64;
        for message in bytes.split(|b| *b == 0) {
            if let Ok(value) = serde_json::from_slice::<Value>(message) {
                seen += snapshot(&value);
                let _ = super::wit::cookie_from_json(&value);
            }
            if let Ok(msg) = serde_json::from_slice::<Message<RawEvent>>(message) {
                cdp::dispatch(msg, &mut pending, &sink);
            }
        }
        drop(sink);
        while let Ok(ev) = rx.try_recv() {
            let reduced = reduce(&mut self.state, Guard::Browser, &ev);
            seen = seen
                .wrapping_mul(31)
                .wrapping_add(u64::from(reduced.changed));
            seen += u64::from(self.log.on_event(&ev.method, &ev.params));
        }
        seen += self.log.console.read(false, false).len() as u64;
        seen + self.log.network.read(false, false).len() as u64
    }
}

/// `value` as the snapshot data of a two-frame page; the number of elements read.
fn snapshot(value: &Value) -> u64 {
    let frame = |id: &str, parent| Frame {
        id: id.into(),
        parent,
        url: "http://127.0.0.1:8000/".into(),
        name: String::new(),
    };
    let frames = [
        FrameSnapshot {
            frame: frame("main", None),
            offset: (0.0, 0.0),
            data: Some((1, value.clone())),
        },
        FrameSnapshot {
            frame: frame("child", Some(0)),
            offset: (f64::MAX, -1.5),
            data: Some((u32::MAX, value["child"].clone())),
        },
    ];
    let scrub = |s: &str| crate::scrub::scrub(s, &["secret".into()], "****");
    let snap = super::wit::snapshot::records(&scrub, &frames, true);
    snap.elements.len() as u64 + snap.overlays.len() as u64
}
