//! What a new target's session (a tab, or a cross-site frame of one) runs while it waits,
//! paused, to start: shared by `events.rs` (tabs) and `events/frames.rs` (frames).

use crate::capabilities::browser::model::routes;
use crate::capabilities::browser::model::state::State;
use serde_json::{Value, json};

/// Attach every target a session's page starts, paused, with flattened sessions: its
/// out-of-process frames (set up as frames of the tab, `frames.rs`) and everything else
/// (workers, worklets, a prerendered page: `children.rs`). No filter: Chromium pauses each
/// dedicated worker and worklet of a page whose session asks to wait for the debugger, and
/// one the filter left out is never attached, so it never runs (measured on Chromium 156:
/// with an `iframe` filter, no worker or worklet of any kind started).
pub(super) fn auto_attach() -> (&'static str, Value) {
    (
        "Target.setAutoAttach",
        json!({
            "autoAttach": true,
            "waitForDebuggerOnStart": true,
            "flatten": true,
        }),
    )
}

/// What a new target's session (a tab, or a cross-site frame of one: `events/frames.rs`) runs
/// while paused, in order: the origin guard first, the domains Warden reads, the context's
/// emulation, and the paused attach of its own cross-site frames; the caller adds what is its
/// own, then lets it run. The context's routes and emulation are read in the same step that
/// made the target known, so a change made meanwhile reaches it one way or the other.
/// `tab`: a tab's own session (load events; a frame's are its tab's), which also turns the
/// page's prerendering off (`children.rs`).
pub(super) fn set_up(st: &State, context: &str, tab: bool) -> Vec<(&'static str, Value)> {
    let extras = st.extras.get(context);
    let routed = extras.is_some_and(|x| !x.routes.is_empty());
    let mut commands = vec![
        ("Fetch.enable", routes::fetch_patterns(routed)),
        ("Page.enable", json!({})),
    ];
    if tab {
        commands.push(("Page.setLifecycleEventsEnabled", json!({ "enabled": true })));
        // A prerendered page would enter the tab without its navigation passing the origin
        // guard; a browser that does not know the command answers with an error, ignored.
        commands.push(("Page.setPrerenderingAllowed", json!({ "isAllowed": false })));
    }
    commands.extend([
        ("Network.enable", json!({})),
        ("Runtime.enable", json!({})),
        ("Log.enable", json!({})),
    ]);
    if let Some(x) = extras.filter(|x| x.emulation != Default::default()) {
        commands.extend(x.emulation.commands());
    }
    commands.push(auto_attach());
    commands
}
