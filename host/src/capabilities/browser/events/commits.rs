//! The commit rule: every document a frame of a tab commits is of an origin its owner may
//! navigate to. The origin guard (`request_paused` in `events.rs`) refuses a navigation
//! before its request leaves, but a document can arrive without a request the guard pauses:
//! a response the browser fetched ahead of the navigation (speculation rules prefetch), the
//! back/forward cache restoring a page after a manifest reload narrowed the grants. Such a
//! commit is refused here, by the same check: audited, reported to the action that caused
//! it, and the frame is sent to `about:blank`. Until it has left, the tab serves no call
//! (`Tab::past_refused`).

use super::Effect;
use crate::capabilities::browser::model::event::s;
use crate::capabilities::browser::model::hold::without_query;
use crate::capabilities::browser::model::owner::{Guard, Owner};
use crate::capabilities::browser::model::state::State;
use serde_json::{Value, json};
use url::Url;

/// The effects of `method` on `session` under the commit rule, if it refused a document.
pub(super) fn judge(
    st: &mut State,
    guard: Guard,
    session: &str,
    method: &str,
    p: &Value,
) -> Option<Vec<Effect>> {
    let target = st.sessions.get(session)?.clone();
    if method == "Page.frameDetached" {
        if let Some(tab) = st.tabs.get_mut(&target) {
            tab.refused_frames.remove(s(p, "frameId"));
        }
        return None;
    }
    if method != "Page.frameNavigated" {
        return None;
    }
    let frame = &p["frame"];
    let (id, url) = (s(frame, "id").to_string(), s(frame, "url").to_string());
    let held = st.family_holds_secret(&target);
    let tab = st.tabs.get(&target)?;
    let owner = tab
        .owner
        .as_ref()
        .or_else(|| st.contexts.get(&tab.context))
        .cloned();
    let held = held || tab.holds_secret();
    let Err(reason) = verdict(guard, owner.as_ref(), &url) else {
        if let Some(tab) = st.tabs.get_mut(&target) {
            tab.refused_frames.remove(&id);
        }
        return None;
    };
    let tab = st.tabs.get_mut(&target)?;
    tab.refused_frames.insert(id.clone(), session.to_string());
    // What the hold withholds of the URL stays out of the message too.
    let shown = if held {
        without_query(&url)
    } else {
        url.clone()
    };
    tab.blocked
        .push(format!("navigation to {shown} was blocked: {reason}"));
    tab.blocked_seq += 1;
    let mut effects = Vec::new();
    if let Some(owner) = owner {
        effects.push(Effect::Deny {
            scope: owner.scope,
            capability: guard.capability(),
            target: Url::parse(&url)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_default(),
            reason: format!(
                "a document was shown without a request the origin guard saw (fetched ahead of the navigation, or restored from the back/forward cache), and was taken down: {reason}"
            ),
        });
    }
    effects.push(Effect::Leave {
        session: session.to_string(),
        frame: id,
    });
    Some(effects)
}

/// The `Page.navigate` parameters that send frame `frame` (of the session it is sent on) away
/// from a refused document.
pub(crate) fn leave(frame: &str) -> Value {
    json!({ "url": "about:blank", "frameId": frame })
}

/// May a tab of `owner` show a document of `url`? Only http(s) documents come from a server
/// (`about:`, `data:`, `blob:` documents are the page's own, an error page the browser's); a
/// tab nobody owns shows none (its requests are failed as well).
fn verdict(guard: Guard, owner: Option<&Owner>, url: &str) -> Result<(), String> {
    let Ok(parsed) = Url::parse(url) else {
        return Ok(());
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return Ok(());
    }
    match owner {
        Some(owner) => guard.check(&owner.grants, &parsed).map_err(|d| d.message),
        None => Err("no plugin owns this tab, so it may show no page".into()),
    }
}
