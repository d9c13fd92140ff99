//! What the reducer returns: the commands an event calls for.

use crate::audit::GuestScope;
use serde_json::Value;

/// A command an event calls for.
#[derive(Debug)]
pub(crate) enum Effect {
    /// A tab of ours attached, paused: send these on its session, in order (the guard first,
    /// `Runtime.runIfWaitingForDebugger` last).
    SetUp {
        session: String,
        commands: Vec<(&'static str, Value)>,
    },
    /// A target that is not a tab of ours (a worker, a worklet, the browser's first blank
    /// tab): let it run, unwatched. `parent`: the session it was attached through (a child
    /// session is detached there), `None` for the browser's own.
    Release {
        session: String,
        parent: Option<String>,
    },
    /// A target no plugin may see run as a tab (a window over the tab cap, a prerendered
    /// page): let it run with every request paused (and failed), then close it.
    CloseUnseen {
        session: Option<String>,
        target: String,
    },
    /// Frame `frame` of `session` committed a document the origin guard never saw and its
    /// grants refuse (`commits.rs`): send the frame to `about:blank`.
    Leave { session: String, frame: String },
    /// Answer a request the browser paused (failing it if the browser refuses the answer).
    Answer {
        session: Option<String>,
        request_id: String,
        method: &'static str,
        params: Value,
    },
    /// A download completed: move it to its own name in the session's directory.
    PlaceDownload { guid: String },
    /// A download passed the session's size cap: cancel it.
    CancelDownload { guid: String, context: String },
    /// A navigation ended a tab's secret hold: drop the tab's history, so no step back
    /// (form restoration, the back/forward cache) shows the document that held it.
    DropHistory { session: String },
    /// A `capability_denied` audit line.
    Deny {
        scope: GuestScope,
        capability: &'static str,
        target: String,
        reason: String,
    },
}

/// What one event did: the commands it calls for, and whether waiters should look again.
#[derive(Debug, Default)]
pub(crate) struct Reduced {
    pub effects: Vec<Effect>,
    pub changed: bool,
}

impl Reduced {
    pub(crate) fn changed() -> Self {
        Self {
            effects: Vec::new(),
            changed: true,
        }
    }
}
