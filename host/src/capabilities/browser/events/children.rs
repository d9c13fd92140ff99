//! What a tab's (or a frame's) page starts besides frames, attached paused through its
//! session (`set_up.rs`): workers and worklets of every kind run as in any Chromium, released
//! at once (every request they make leaves through the context's network guard, `guard/`,
//! as the page's own do); a page (a prerendered document, speculation rules) never runs: it
//! would enter the tab on activation without its navigation passing the origin guard.

use super::{Effect, Reduced};
use crate::capabilities::browser::model::event::s;
use crate::capabilities::browser::model::owner::Guard;
use crate::capabilities::browser::model::state::State;
use serde_json::Value;
use url::Url;

/// A target attached through `parent` (the session of a tab or of a frame of one).
pub(super) fn attached(st: &mut State, guard: Guard, parent: &str, p: &Value) -> Reduced {
    let info = &p["targetInfo"];
    if s(info, "type") == "page" {
        return refuse_page(st, guard, Some(parent), p);
    }
    Reduced {
        effects: vec![Effect::Release {
            session: s(p, "sessionId").to_string(),
            parent: Some(parent.to_string()),
        }],
        changed: false,
    }
}

/// Is `info` (a `targetInfo`) a page the browser renders ahead of a navigation?
pub(super) fn prerendered(info: &Value) -> bool {
    s(info, "subtype") == "prerender"
}

/// Refuse a page a tab's session attached (or the browser's, for a prerendered one): it is
/// closed before it runs, and the refusal is audited for the plugin whose tab (or context)
/// it came from.
pub(super) fn refuse_page(
    st: &mut State,
    guard: Guard,
    parent: Option<&str>,
    p: &Value,
) -> Reduced {
    let info = &p["targetInfo"];
    let url = s(info, "url");
    let owner = match parent {
        Some(parent) => st
            .sessions
            .get(parent)
            .and_then(|t| st.tabs.get(t))
            .and_then(|t| t.owner.as_ref().or_else(|| st.contexts.get(&t.context))),
        None => st.contexts.get(s(info, "browserContextId")),
    };
    let mut effects = Vec::new();
    if let Some(owner) = owner {
        effects.push(Effect::Deny {
            scope: owner.scope.clone(),
            capability: guard.capability(),
            target: Url::parse(url)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_else(|_| "a prerendered page".into()),
            reason: "a page rendered ahead of a navigation (speculation rules) was refused: a document enters a tab only through a navigation the origin guard checks".into(),
        });
    }
    effects.push(Effect::CloseUnseen {
        session: Some(s(p, "sessionId").to_string()),
        target: s(info, "targetId").to_string(),
    });
    Reduced {
        effects,
        changed: false,
    }
}
