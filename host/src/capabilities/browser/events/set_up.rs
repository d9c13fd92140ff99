//! What a new target's session (a tab, or a cross-site frame of one) runs while it waits,
//! paused, to start: shared by `events.rs` (tabs) and `events/frames.rs` (frames).

use crate::capabilities::browser::model::routes;
use crate::capabilities::browser::model::state::State;
use serde_json::{Value, json};

/// Attach the out-of-process frames of a session, paused, with flattened sessions.
pub(super) fn auto_attach() -> (&'static str, Value) {
    (
        "Target.setAutoAttach",
        json!({
            "autoAttach": true,
            "waitForDebuggerOnStart": true,
            "flatten": true,
            "filter": [{ "type": "iframe" }],
        }),
    )
}

/// What a new target's session (a tab, or a cross-site frame of one: `events/frames.rs`) runs
/// while paused, in order: the origin guard first, the domains Warden reads, the context's
/// emulation, and the paused attach of its own cross-site frames; the caller adds what is its
/// own, then lets it run. The context's routes and emulation are read in the same step that
/// made the target known, so a change made meanwhile reaches it one way or the other.
/// `lifecycle`: a tab's load events (a frame's are its tab's).
pub(super) fn set_up(st: &State, context: &str, lifecycle: bool) -> Vec<(&'static str, Value)> {
    let extras = st.extras.get(context);
    let routed = extras.is_some_and(|x| !x.routes.is_empty());
    let mut commands = vec![
        ("Fetch.enable", routes::fetch_patterns(routed)),
        ("Page.enable", json!({})),
    ];
    if lifecycle {
        commands.push(("Page.setLifecycleEventsEnabled", json!({ "enabled": true })));
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
