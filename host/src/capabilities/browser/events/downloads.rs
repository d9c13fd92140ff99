//! The reducer's part for downloads: a download begins (placed or refused), progresses
//! (cancelled past the cap), completes.

use super::effect::{Effect, Reduced};
use crate::capabilities::browser::model::downloads::{Download, Status, safe_name, source};
use crate::capabilities::browser::model::event::s;
use crate::capabilities::browser::model::state::{State, TabState};
use serde_json::Value;
use std::time::Instant;

pub(crate) fn will_begin(st: &mut State, p: &Value) -> Reduced {
    let guid = s(p, "guid").to_string();
    if guid.is_empty() {
        return Reduced::default();
    }
    let (context, held) = match tab_of_frame(st, s(p, "frameId")) {
        Some(tab) => {
            tab.download_seq += 1;
            (tab.context.clone(), tab.holds_secret())
        }
        // A frame Warden has not read: held if any tab may hold a secret (fail closed).
        None => (String::new(), st.tabs.values().any(TabState::holds_secret)),
    };
    let place = st.downloads.places.get(&context).cloned();
    let mut effects = Vec::new();
    let mut shown = source(s(p, "url"));
    let mut file_name = safe_name(s(p, "suggestedFilename"));
    let status = if held {
        // A page that holds a secret may be saving it (`model/hold.rs`): cancelled, and what
        // the browser wrote of it removed; its name and path stay withheld.
        effects.push(Effect::CancelDownload {
            guid: guid.clone(),
            context: context.clone(),
        });
        if let Some(owner) = st.contexts.get(&context) {
            effects.push(Effect::Deny {
                scope: owner.scope.clone(),
                capability: "browser.download",
                target: crate::capabilities::browser::model::hold::origin_only(&shown),
                reason: "a page that holds a secret Warden typed into it (fill-secret) started this download, which could carry the secret: it was cancelled. Navigate the tab to a new page (browse_navigate) before downloading".into(),
            });
        }
        shown = crate::capabilities::browser::model::hold::origin_only(&shown);
        file_name = "(withheld)".into();
        Status::Refused
    } else if place.is_none() && !context.is_empty() {
        if let Some(owner) = st.contexts.get(&context) {
            effects.push(Effect::Deny {
                scope: owner.scope.clone(),
                capability: "browser.download",
                target: source(s(p, "url")),
                reason: "set grants.browser.download_dir to let this plugin's pages save downloads"
                    .into(),
            });
        }
        Status::Refused
    } else {
        Status::InProgress
    };
    let d = &mut st.downloads;
    d.seq += 1;
    d.items.insert(
        guid.clone(),
        Download {
            guid,
            context: context.clone(),
            source: shown,
            file_name,
            path: None,
            status,
            received: 0,
            total: None,
            started: Instant::now(),
            reported: None,
            seq: d.seq,
        },
    );
    d.trim(&context);
    Reduced {
        effects,
        changed: true,
    }
}

/// `Browser.downloadProgress`: bytes so far, the cap, and the end.
pub(crate) fn progress(st: &mut State, p: &Value) -> Reduced {
    let guid = s(p, "guid");
    let Some(d) = st.downloads.items.get_mut(guid) else {
        return Reduced::default();
    };
    if d.status.finished() {
        return Reduced::default();
    }
    d.received = p["receivedBytes"].as_f64().unwrap_or(0.0) as u64;
    d.total = p["totalBytes"]
        .as_f64()
        .map(|t| t as u64)
        .filter(|t| *t > 0);
    let max = st
        .downloads
        .places
        .get(&d.context)
        .map_or(u64::MAX, |p| p.max_bytes);
    let mut effects = Vec::new();
    match s(p, "state") {
        "completed" if d.received <= max => {
            effects.push(Effect::PlaceDownload {
                guid: d.guid.clone(),
            });
        }
        "canceled" => d.status = Status::Canceled,
        _ if d.received > max || d.total.is_some_and(|t| t > max) => {
            d.status = Status::TooLarge;
            effects.push(Effect::CancelDownload {
                guid: d.guid.clone(),
                context: d.context.clone(),
            });
            if let Some(owner) = st.contexts.get(&d.context) {
                effects.push(Effect::Deny {
                    scope: owner.scope.clone(),
                    capability: "browser.download",
                    target: d.source.clone(),
                    reason: format!(
                        "{} is larger than grants.browser.download_max ({max} bytes); raise it to keep such files",
                        d.file_name
                    ),
                });
            }
        }
        _ => {}
    }
    Reduced {
        effects,
        changed: true,
    }
}

/// The tab that holds `frame` (its main frame, an out-of-process frame of it, or a frame
/// Warden has read).
fn tab_of_frame<'a>(st: &'a mut State, frame: &str) -> Option<&'a mut TabState> {
    let id = if st.tabs.contains_key(frame) {
        frame.to_string()
    } else {
        st.tabs
            .iter()
            .find(|(_, t)| {
                t.oopifs.contains_key(frame)
                    || t.frame_sessions.contains_key(frame)
                    || t.docs.values().any(|f| f == frame)
            })
            .map(|(id, _)| id.clone())?
    };
    st.tabs.get_mut(&id)
}
