//! The CDP event reducer: [`reduce`] folds one event the browser sends (targets attached and
//! detached, requests paused by the guard, navigations, dialogs, requests in flight, console
//! and network entries) into the browser's [`State`], and returns the commands the event
//! calls for ([`Effect`]: set up a new tab, answer a paused request, write an audit line). It
//! does no I/O itself; `Live::on_event` (`live/events.rs`) carries the effects out and wakes the waiters.

mod children;
mod commits;
mod downloads;
mod effect;
mod frames;
mod set_up;

pub(crate) use commits::leave;
pub(crate) use effect::{Effect, Reduced};

use super::model::event::{Event, s};
use super::model::hold::{referrer_of, without_query};
use super::model::owner::Guard;
use super::model::routes::{self, Action};
use super::model::state::{Dialog, InFlight, MAX_TRACKED_REQUESTS, State, TabState};
use super::model::static_page::Prefetched;
use serde_json::{Value, json};
use url::Url;

/// Fold `ev` into `st`; `guard` says which grant checks the tabs' document requests.
pub(crate) fn reduce(st: &mut State, guard: Guard, ev: &Event) -> Reduced {
    let p = &ev.params;
    match ev.method.as_str() {
        "Target.attachedToTarget" => match (s(&p["targetInfo"], "type"), ev.session.as_deref()) {
            ("iframe", parent) => frames::attached(st, parent, p),
            // What a tab's (or frame's) page starts: workers, worklets, a prerendered page.
            (_, Some(parent)) => children::attached(st, guard, parent, p),
            _ => attached(st, guard, p),
        },
        "Target.detachedFromTarget" => {
            let session = s(p, "sessionId");
            if let Some(target) = st.sessions.get(session).cloned() {
                match st.tabs.get(&target) {
                    Some(tab) if tab.session != session => frames::detached(st, &target, session),
                    _ => {
                        st.remove_tab(&target);
                    }
                }
            }
            Reduced::changed()
        }
        "Target.targetDestroyed" => {
            st.remove_tab(s(p, "targetId"));
            Reduced::changed()
        }
        "Target.targetCrashed" => {
            if let Some(tab) = st.tabs.get_mut(s(p, "targetId")) {
                tab.crashed = true;
            }
            Reduced::changed()
        }
        "Target.targetInfoChanged" => {
            let info = &p["targetInfo"];
            if let Some(tab) = st.tabs.get_mut(s(info, "targetId")) {
                tab.url = s(info, "url").to_string();
                tab.title = s(info, "title").to_string();
            }
            Reduced::changed()
        }
        "Fetch.requestPaused" => request_paused(st, guard, ev.session.as_deref(), p),
        "Browser.downloadWillBegin" => downloads::will_begin(st, p),
        "Browser.downloadProgress" => downloads::progress(st, p),
        _ => match ev.session.as_deref() {
            Some(session) => {
                let mut reduced = tab_event(st, session, &ev.method, p);
                // Every document a frame commits passes the origin guard's rule, also one
                // that came without a request the guard paused (`commits.rs`).
                if let Some(effects) = commits::judge(st, guard, session, &ev.method, p) {
                    reduced.effects.extend(effects);
                    reduced.changed = true;
                }
                reduced
            }
            None => Reduced::default(),
        },
    }
}

fn attached(st: &mut State, guard: Guard, p: &Value) -> Reduced {
    let session = s(p, "sessionId").to_string();
    let info = &p["targetInfo"];
    let target = s(info, "targetId").to_string();
    let context = s(info, "browserContextId").to_string();
    let ours = s(info, "type") == "page"
        && (st.contexts.contains_key(&context)
            || st.default_context.as_deref() == Some(context.as_str()));
    if !ours {
        return Reduced {
            effects: vec![Effect::Release {
                session,
                parent: None,
            }],
            changed: false,
        };
    }
    if children::prerendered(info) {
        return children::refuse_page(st, guard, None, p);
    }
    let opener = info
        .get("openerId")
        .and_then(Value::as_str)
        .map(str::to_string);
    // A popup is guarded by the grants of the tab that opened it.
    let owner = opener
        .as_ref()
        .and_then(|o| st.tabs.get(o))
        .and_then(|t| t.owner.clone());
    st.attached += 1;
    // A window opened by a page that holds a secret can be scripted by it, and its first
    // document may be a form the page posted there: it holds the secret too.
    let held = opener
        .as_ref()
        .and_then(|o| st.tabs.get(o))
        .is_some_and(TabState::holds_secret);
    // A window opened by a tab whose `window.name` is guarded is guarded too, from its first
    // document: the opener names it (`window.open(url, name)`) and may script its name.
    let name_guarded_for = opener
        .as_ref()
        .and_then(|o| st.tabs.get(o))
        .map(|t| t.hold.name_guarded_for())
        .unwrap_or_default();
    let mut tab = TabState::new(session.clone(), context.clone(), opener, st.attached);
    tab.url = s(info, "url").to_string();
    tab.title = s(info, "title").to_string();
    tab.owner = owner;
    if held {
        tab.hold.opened_from_holder(&tab.loader);
    }
    let name_guards: Vec<Value> = name_guarded_for
        .iter()
        .filter_map(|origin| tab.hold.guard_name(origin))
        .collect();
    st.sessions.insert(session.clone(), target.clone());
    st.tabs.insert(target.clone(), tab);
    // A new tab opens in front of the others.
    st.front = Some(target.clone());
    if let Some(effects) = st.close_popup_over_cap(&target) {
        return Reduced {
            effects,
            changed: true,
        };
    }
    let mut commands = set_up::set_up(st, &context, true);
    commands.extend(
        name_guards
            .into_iter()
            .map(|guard| ("Page.addScriptToEvaluateOnNewDocument", guard)),
    );
    commands.push(("Runtime.runIfWaitingForDebugger", json!({})));
    Reduced {
        effects: vec![Effect::SetUp { session, commands }],
        changed: true,
    }
}

/// The origin guard: every document request (top-level or frame) of a tab is checked against
/// the grants of the plugin that owns the tab's context. Then the session's routes: when it
/// has any, every request of its tabs is paused here, and the first matching route blocks or
/// answers it. Every paused request is answered exactly once.
fn request_paused(st: &mut State, guard: Guard, session: Option<&str>, p: &Value) -> Reduced {
    let request_id = s(p, "requestId").to_string();
    let network_id = p["networkId"].as_str().unwrap_or(&request_id).to_string();
    let url = s(&p["request"], "url").to_string();
    // Sub-resources are paused only for routes; this check is about documents (the network
    // guard, `guard/`, sees every request).
    let document = matches!(s(p, "resourceType"), "Document" | "");
    let mut effects = Vec::new();
    let target = session.and_then(|sid| st.sessions.get(sid)).cloned();
    let verdict = target
        .as_ref()
        .and_then(|t| st.tabs.get(t))
        .and_then(|tab| tab.owner.as_ref().or_else(|| st.contexts.get(&tab.context)))
        .map(|owner| {
            let decision = match Url::parse(&url) {
                Ok(_) if !document => Ok(()),
                Ok(parsed) => guard.check(&owner.grants, &parsed).map_err(|d| d.message),
                Err(e) => Err(format!("{url} is not a valid URL: {e}")),
            };
            (decision, owner.scope.clone())
        });
    let allowed = match verdict {
        Some((Ok(()), _)) => true,
        Some((Err(reason), scope)) => {
            let origin = Url::parse(&url)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_else(|_| url.clone());
            // What the hold withholds of a URL stays out of the message (the tab, or the
            // opener it reports to, may hold a secret the URL carries).
            let held = target.as_ref().is_some_and(|t| {
                st.tabs.get(t).is_some_and(TabState::holds_secret) || st.family_holds_secret(t)
            });
            let shown = if held {
                without_query(&url)
            } else {
                url.clone()
            };
            let message = format!("navigation to {shown} was blocked: {reason}");
            effects.push(Effect::Deny {
                scope,
                capability: guard.capability(),
                target: origin,
                reason,
            });
            if let Some(target) = &target {
                let opener = st.tabs.get(target).and_then(|t| {
                    // A popup that never showed a page reports to the tab that opened it.
                    (t.url.is_empty() || t.url == "about:blank")
                        .then(|| t.opener.clone())
                        .flatten()
                });
                if let Some(tab) = st.tabs.get_mut(target) {
                    tab.log.held = tab.holds_secret();
                    tab.log.note(
                        &network_id,
                        "origin guard".into(),
                        &method_of(p),
                        &url,
                        s(p, "resourceType"),
                    );
                }
                for id in std::iter::once(target.clone()).chain(opener) {
                    if let Some(tab) = st.tabs.get_mut(&id) {
                        tab.blocked.push(message.clone());
                        tab.blocked_seq += 1;
                    }
                }
            }
            false
        }
        // A request from a tab we do not know: fail closed.
        None => false,
    };
    // Past the guard: the first route of the tab's session that matches.
    let routed = allowed
        .then(|| {
            let target = target.as_ref()?;
            let context = &st.tabs.get(target)?.context;
            let route = st.extras.get(context)?.route_for(&url)?;
            Some((route.glob.clone(), route.action.clone()))
        })
        .flatten();
    if let (Some((glob, action)), Some(tab)) =
        (&routed, target.as_ref().and_then(|t| st.tabs.get_mut(t)))
    {
        let what = match action {
            Action::Block => format!("route {glob}"),
            Action::Mock(_) => format!("mock {glob}"),
        };
        tab.log.held = tab.holds_secret();
        tab.log
            .note(&network_id, what, &method_of(p), &url, s(p, "resourceType"));
    }
    // The host's own empty document, for a tab that writes a saved state's storage.
    let blank = allowed
        && document
        && target
            .as_ref()
            .and_then(|t| st.tabs.get(t))
            .is_some_and(|tab| tab.blank_documents.contains(&url));
    // A document the host already fetched (`static_page/`): the browser is answered with it,
    // so the site sees one request.
    let prefetched = if allowed && document && routed.is_none() && method_of(p) == "GET" {
        target
            .as_ref()
            .and_then(|t| st.tabs.get_mut(t))
            .and_then(|tab| {
                let held = tab.prefetched.as_ref().is_some_and(|r| r.url == url);
                held.then(|| tab.prefetched.take()).flatten()
            })
    } else {
        None
    };
    // A 204 answer cancels a navigation and leaves the tab on the page it was showing
    // (a failed request would replace it with an error page); the site sees nothing.
    let (method, params) = match (allowed, routed) {
        (true, _) if prefetched.is_some() => (
            "Fetch.fulfillRequest",
            prefetched.map_or(Value::Null, |r| fulfill_prefetched(&request_id, &r)),
        ),
        (true, _) if blank => (
            "Fetch.fulfillRequest",
            json!({
                "requestId": request_id,
                "responseCode": 200,
                "responseHeaders": [{ "name": "Content-Type", "value": "text/html" }],
                "body": "",
            }),
        ),
        (false, _) => (
            "Fetch.fulfillRequest",
            json!({ "requestId": request_id, "responseCode": 204, "responseHeaders": [] }),
        ),
        (true, None) => ("Fetch.continueRequest", json!({ "requestId": request_id })),
        (true, Some((_, Action::Block))) => (
            "Fetch.failRequest",
            json!({ "requestId": request_id, "errorReason": "BlockedByClient" }),
        ),
        (true, Some((_, Action::Mock(m)))) => {
            ("Fetch.fulfillRequest", routes::fulfill(&request_id, &m))
        }
    };
    effects.push(Effect::Answer {
        session: session.map(str::to_string),
        request_id,
        method,
        params,
    });
    Reduced {
        effects,
        changed: !allowed,
    }
}

fn tab_event(st: &mut State, session: &str, method: &str, p: &Value) -> Reduced {
    let Some(target) = st.sessions.get(session).cloned() else {
        return Reduced::default();
    };
    let family_holds = st.family_holds_secret(&target);
    let Some(tab) = st.tabs.get_mut(&target) else {
        return Reduced::default();
    };
    // A document that holds a secret and hands its URL to another origin as the referrer
    // passes the hold on (`model/hold.rs`).
    if method == "Network.requestWillBeSent"
        && s(p, "type") == "Document"
        && s(p, "frameId") == target
        && tab.holds_secret()
        && let Some(referrer) = referrer_of(&p["request"], &tab.url)
    {
        tab.hold
            .referred(s(p, "loaderId"), s(&p["request"], "url"), &referrer);
    }
    // Requests in flight, for an action to wait for those it started.
    let mut finished = false;
    match method {
        // Documents and the page's own fetches: what a page re-renders from. Images, fonts
        // and streams (EventSource, long polls on them) do not hold an action up.
        "Network.requestWillBeSent"
            if tab.requests.len() < MAX_TRACKED_REQUESTS
                && matches!(s(p, "type"), "Document" | "XHR" | "Fetch") =>
        {
            tab.request_seq += 1;
            let seq = tab.request_seq;
            // A redirect keeps its request id and its place.
            tab.requests
                .entry(s(p, "requestId").to_string())
                .or_insert_with(|| InFlight {
                    seq,
                    loader: s(p, "loaderId").to_string(),
                    frame: s(p, "frameId").to_string(),
                    document: s(p, "type") == "Document",
                });
        }
        "Network.loadingFinished" | "Network.loadingFailed" => {
            finished = tab.requests.remove(s(p, "requestId")).is_some();
        }
        _ => {}
    }
    // What a page logs while it holds a secret stays withheld (`model/hold.rs`).
    tab.log.held = tab.holds_secret();
    if tab.log.on_event(method, p) {
        return Reduced {
            effects: Vec::new(),
            changed: finished,
        };
    }
    let main = s(p, "frameId") == target;
    let mut effects = Vec::new();
    match method {
        "Page.lifecycleEvent" if main => {
            let name = s(p, "name");
            let loader = s(p, "loaderId");
            if name == "init" || loader != tab.loader {
                if commit(tab, &target, loader, family_holds) {
                    effects.push(Effect::DropHistory {
                        session: session.to_string(),
                    });
                }
                tab.lifecycle.clear();
            }
            tab.lifecycle.insert(name.to_string());
        }
        "Page.frameStartedLoading" if main => tab.loading = true,
        "Page.frameStoppedLoading" if main => {
            tab.loading = false;
            tab.stop_seq += 1;
            tab.stopped_nav = tab.nav_seq;
        }
        "Page.frameStartedNavigating" | "Page.frameRequestedNavigation" if main => {
            tab.nav_seq += 1;
            tab.scheduled = false;
            if method == "Page.frameRequestedNavigation" {
                tab.hold.requested(s(p, "reason"));
            } else {
                tab.hold.started(s(p, "loaderId"), s(p, "navigationType"));
            }
        }
        "Page.frameScheduledNavigation" if main => {
            tab.scheduled = p["delay"].as_f64().is_some_and(|d| d <= 1.0);
        }
        "Page.frameClearedScheduledNavigation" if main => tab.scheduled = false,
        "Page.windowOpen" => tab.window_opens += 1,
        "Page.frameNavigated" => {
            let frame = &p["frame"];
            if s(frame, "id") == target {
                tab.url = s(frame, "url").to_string();
                // The URL and the document move together: a wait for the shown document's
                // load must not be answered by the previous document's lifecycle.
                let loader = s(frame, "loaderId");
                if !loader.is_empty() && loader != tab.loader {
                    if commit(tab, &target, loader, family_holds) {
                        effects.push(Effect::DropHistory {
                            session: session.to_string(),
                        });
                    }
                    tab.lifecycle.clear();
                }
                // A page the back/forward cache restores was loaded before and sends no
                // lifecycle events again: it stands where it stood, loaded.
                if s(p, "type") == "BackForwardCacheRestore" {
                    for event in ["DOMContentLoaded", "load", "networkIdle"] {
                        tab.lifecycle.insert(event.to_string());
                    }
                }
            }
        }
        "Page.navigatedWithinDocument" if main => {
            tab.url = s(p, "url").to_string();
            tab.same_doc_seq += 1;
        }
        "Page.javascriptDialogOpening" => {
            tab.dialog = Some(Dialog {
                kind: s(p, "type").to_string(),
                message: s(p, "message").to_string(),
                default_prompt: s(p, "defaultPrompt").to_string(),
                session: session.to_string(),
            });
            tab.dialog_seq += 1;
        }
        "Page.javascriptDialogClosed" => tab.dialog = None,
        // An out-of-process frame that crashed is a frame gone, not a tab: it detaches.
        "Inspector.targetCrashed" if session == tab.session => tab.crashed = true,
        "Input.dragIntercepted" => tab.drag = Some(p["data"].clone()),
        _ => {
            return Reduced {
                effects: Vec::new(),
                changed: finished,
            };
        }
    }
    Reduced {
        effects,
        changed: true,
    }
}

/// The main frame of tab `target` shows document `loader` now; true when that ended a
/// secret hold. While a tab of its opener family holds a secret (`family_holds`), the
/// document holds it too: that tab can hand it over (`postMessage`, the window's name).
fn commit(tab: &mut TabState, target: &str, loader: &str, family_holds: bool) -> bool {
    let from = std::mem::replace(&mut tab.loader, loader.to_string());
    if from != loader {
        tab.abandon_requests_before(loader, target);
    }
    let ended = from != loader && tab.hold.committed(&from, loader);
    if family_holds {
        tab.hold.take(loader);
        return false;
    }
    ended
}

/// The `Fetch.fulfillRequest` parameters of a response the host fetched.
fn fulfill_prefetched(request_id: &str, r: &Prefetched) -> Value {
    use base64::Engine as _;
    let headers: Vec<Value> = r
        .headers
        .iter()
        .map(|(name, value)| json!({ "name": name, "value": value }))
        .collect();
    json!({
        "requestId": request_id,
        "responseCode": r.status,
        "responseHeaders": headers,
        "body": base64::engine::general_purpose::STANDARD.encode(&r.body),
    })
}

fn method_of(p: &Value) -> String {
    s(&p["request"], "method").to_string()
}

pub(crate) fn ready_popups(st: &State, opener: &str) -> usize {
    st.tabs
        .values()
        .filter(|t| t.opener.as_deref() == Some(opener))
        .filter(|t| (!t.url.is_empty() && t.url != "about:blank") || t.blocked_seq > 0)
        .count()
}

#[cfg(test)]
mod tests;
