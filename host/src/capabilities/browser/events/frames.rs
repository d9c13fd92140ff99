//! Out-of-process frames (site isolation): a cross-site frame runs in a renderer of its
//! own and is a CDP target of type `iframe`, attached (paused) through the session of the
//! tab or frame that holds it. It is recorded as a frame of its tab (frame id = its target
//! id), gets the tab's set-up (the origin guard on its navigations, the session's routes and
//! emulation, logs) before it runs, and attaches its own cross-site frames the same way.

use super::{Effect, Reduced};
use crate::capabilities::browser::model::event::s;
use crate::capabilities::browser::model::state::{Oopif, State};
use serde_json::{Value, json};

/// An `iframe` target attached through `parent` (the session of its tab or of a frame of it).
pub(super) fn attached(st: &mut State, parent: Option<&str>, p: &Value) -> Reduced {
    let session = s(p, "sessionId").to_string();
    let frame = s(&p["targetInfo"], "targetId").to_string();
    let parent = parent.unwrap_or_default().to_string();
    let tab = st
        .sessions
        .get(&parent)
        .cloned()
        .and_then(|target| st.tabs.get_mut(&target).map(|tab| (target, tab)));
    let Some((target, tab)) = tab else {
        // A frame of nothing Warden drives: let it run and leave it.
        return Reduced {
            effects: vec![Effect::Release {
                session,
                parent: Some(parent),
            }],
            changed: false,
        };
    };
    tab.oopifs.insert(
        frame,
        Oopif {
            session: session.clone(),
            parent,
        },
    );
    let context = tab.context.clone();
    st.sessions.insert(session.clone(), target);
    // As for a tab: the guard first, then let it run.
    let mut commands = super::set_up::set_up(st, &context, false);
    commands.push(("Runtime.runIfWaitingForDebugger", json!({})));
    Reduced {
        effects: vec![Effect::SetUp { session, commands }],
        changed: true,
    }
}

/// The out-of-process frame of tab `target` on `session` went away (navigated back into its
/// parent's process, removed, crashed): it is no longer listed.
pub(super) fn detached(st: &mut State, target: &str, session: &str) {
    st.sessions.remove(session);
    if let Some(tab) = st.tabs.get_mut(target) {
        tab.refused_frames.retain(|_, s| s != session);
        tab.oopifs.retain(|_, o| o.session != session);
        tab.frame_sessions.retain(|_, s| s != session);
        tab.clickable.remove(session);
    }
}
