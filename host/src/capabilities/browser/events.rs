//! The CDP event reducer: every event the browser sends (targets attached and detached,
//! requests paused by the guard, navigations, dialogs, console and network entries) folded
//! into the provider's state ([`State`]), with the commands an event calls for (resuming a
//! paused target, failing a refused request). Split from `provider.rs`, which owns the
//! browser's lifetime and the sessions.

use super::cdp::{CdpError, Event};
use super::observe::TabLog;
use super::provider::{Dialog, Live, State, TabState, s};
use super::routes::{self, Action};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use url::Url;

impl Live {
    pub(super) fn on_event(&self, ev: Event) {
        tracing::trace!(method = %ev.method, session = ?ev.session, "browser event");
        let p = &ev.params;
        match ev.method.as_str() {
            "Target.attachedToTarget" => self.on_attached(p),
            "Target.detachedFromTarget" => {
                let mut st = self.lock();
                if let Some(target) = st.sessions.remove(s(p, "sessionId")) {
                    st.tabs.remove(&target);
                }
                drop(st);
                self.bump();
            }
            "Target.targetDestroyed" => {
                let mut st = self.lock();
                if let Some(tab) = st.tabs.remove(s(p, "targetId")) {
                    st.sessions.remove(&tab.session);
                }
                drop(st);
                self.bump();
            }
            "Target.targetCrashed" => {
                if let Some(tab) = self.lock().tabs.get_mut(s(p, "targetId")) {
                    tab.crashed = true;
                }
                self.bump();
            }
            "Target.targetInfoChanged" => {
                let info = &p["targetInfo"];
                if let Some(tab) = self.lock().tabs.get_mut(s(info, "targetId")) {
                    tab.url = s(info, "url").to_string();
                    tab.title = s(info, "title").to_string();
                }
                self.bump();
            }
            "Fetch.requestPaused" => self.on_request(ev.session.as_deref(), p),
            _ => {
                let Some(session) = ev.session.as_deref() else {
                    return;
                };
                self.on_tab_event(session, &ev.method, p);
            }
        }
    }

    fn on_attached(&self, p: &Value) {
        let session = s(p, "sessionId").to_string();
        let info = &p["targetInfo"];
        let target = s(info, "targetId").to_string();
        let context = s(info, "browserContextId").to_string();
        let ours = s(info, "type") == "page" && {
            let st = self.lock();
            st.contexts.contains_key(&context)
                || st.default_context.as_deref() == Some(context.as_str())
        };
        if ours {
            let opener = info
                .get("openerId")
                .and_then(Value::as_str)
                .map(str::to_string);
            let mut st = self.lock();
            // A popup is guarded by the grants of the tab that opened it.
            let owner = opener
                .as_ref()
                .and_then(|o| st.tabs.get(o))
                .and_then(|t| t.owner.clone());
            st.sessions.insert(session.clone(), target.clone());
            st.tabs.insert(
                target.clone(),
                TabState {
                    session: session.clone(),
                    context: context.clone(),
                    url: s(info, "url").to_string(),
                    title: s(info, "title").to_string(),
                    opener,
                    loader: String::new(),
                    lifecycle: HashSet::new(),
                    loading: false,
                    nav_seq: 0,
                    stop_seq: 0,
                    scheduled: false,
                    window_opens: 0,
                    blocked: Vec::new(),
                    blocked_seq: 0,
                    dialog: None,
                    docs: HashMap::new(),
                    next_doc: 0,
                    secrets: Vec::new(),
                    crashed: false,
                    owner,
                    drag: None,
                    log: TabLog::default(),
                },
            );
            // The session's routes and emulation, read under the same lock that made the tab
            // visible, so a change made meanwhile reaches the tab one way or the other.
            let extras = st.extras.get(&context);
            let routed = extras.is_some_and(|x| !x.routes.is_empty());
            let emulation = extras
                .filter(|x| x.emulation != Default::default())
                .map(|x| x.emulation.commands())
                .unwrap_or_default();
            drop(st);
            if self.close_popup_over_cap(&target) {
                self.bump();
                return;
            }
            // In order on the tab's session: guard first, then let the tab run.
            let send =
                |method: &str, params: Value| self.cdp.send_raw(Some(&session), method, params);
            send("Fetch.enable", routes::fetch_patterns(routed));
            send("Page.enable", json!({}));
            send("Page.setLifecycleEventsEnabled", json!({ "enabled": true }));
            send("Network.enable", json!({}));
            send("Runtime.enable", json!({}));
            send("Log.enable", json!({}));
            for (method, params) in emulation {
                send(method, params);
            }
            send("Runtime.runIfWaitingForDebugger", json!({}));
            self.bump();
        } else {
            // Not a tab of ours (the browser's first blank tab, a worker): let it run, unwatched.
            let cdp = self.cdp.clone();
            tokio::spawn(async move {
                let _ = cdp
                    .call_raw(Some(&session), "Runtime.runIfWaitingForDebugger", json!({}))
                    .await;
                let _ = cdp
                    .call_raw(
                        None,
                        "Target.detachFromTarget",
                        json!({ "sessionId": session }),
                    )
                    .await;
            });
        }
    }

    /// The origin guard: every document request (top-level or frame) of a tab is checked
    /// against the grants of the plugin that owns the tab's context. Then the session's
    /// routes: when it has any, every request of its tabs is paused here, and the first
    /// matching route blocks or answers it. Every paused request is answered exactly once.
    fn on_request(&self, session: Option<&str>, p: &Value) {
        let request_id = s(p, "requestId").to_string();
        let network_id = p["networkId"].as_str().unwrap_or(&request_id).to_string();
        let url = s(&p["request"], "url").to_string();
        // Sub-resources are paused only for routes; the guard is about documents.
        let document = matches!(s(p, "resourceType"), "Document" | "");
        let mut st = self.lock();
        let target = session.and_then(|sid| st.sessions.get(sid)).cloned();
        let verdict = target
            .as_ref()
            .and_then(|t| st.tabs.get(t))
            .and_then(|tab| tab.owner.as_ref().or_else(|| st.contexts.get(&tab.context)))
            .map(|owner| {
                let decision = match Url::parse(&url) {
                    Ok(_) if !document => Ok(()),
                    Ok(parsed) => self.guard.check(&owner.grants, &parsed),
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
                scope.denied(self.guard.capability(), &origin, &reason);
                let message = format!("navigation to {url} was blocked: {reason}");
                if let Some(target) = &target {
                    let opener = st.tabs.get(target).and_then(|t| {
                        // A popup that never showed a page reports to the tab that opened it.
                        (t.url.is_empty() || t.url == "about:blank")
                            .then(|| t.opener.clone())
                            .flatten()
                    });
                    if let Some(tab) = st.tabs.get_mut(target) {
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
            tab.log
                .note(&network_id, what, &method_of(p), &url, s(p, "resourceType"));
        }
        drop(st);
        // A 204 answer cancels a navigation and leaves the tab on the page it was showing
        // (a failed request would replace it with an error page); the site sees nothing.
        let (method, params) = match (allowed, routed) {
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
        let cdp = self.cdp.clone();
        let sid = session.map(str::to_string);
        tokio::spawn(async move {
            if let Err(e) = cdp.call_raw(sid.as_deref(), method, params).await {
                tracing::debug!("{method} failed: {e}");
                // Still paused (the browser refused the answer): fail it rather than let it
                // hang, and never let it through.
                if method != "Fetch.failRequest" && !matches!(e, CdpError::Closed) {
                    let _ = cdp
                        .call_raw(
                            sid.as_deref(),
                            "Fetch.failRequest",
                            json!({ "requestId": request_id, "errorReason": "Failed" }),
                        )
                        .await;
                }
            }
        });
        if !allowed {
            self.bump();
        }
    }

    fn on_tab_event(&self, session: &str, method: &str, p: &Value) {
        let mut st = self.lock();
        let Some(target) = st.sessions.get(session).cloned() else {
            return;
        };
        let Some(tab) = st.tabs.get_mut(&target) else {
            return;
        };
        if tab.log.on_event(method, p) {
            return;
        }
        let main = s(p, "frameId") == target;
        match method {
            "Page.lifecycleEvent" if main => {
                let name = s(p, "name");
                let loader = s(p, "loaderId");
                if name == "init" || loader != tab.loader {
                    tab.loader = loader.to_string();
                    tab.lifecycle.clear();
                }
                tab.lifecycle.insert(name.to_string());
            }
            "Page.frameStartedLoading" if main => tab.loading = true,
            "Page.frameStoppedLoading" if main => {
                tab.loading = false;
                tab.stop_seq += 1;
            }
            "Page.frameStartedNavigating" | "Page.frameRequestedNavigation" if main => {
                tab.nav_seq += 1;
                tab.scheduled = false;
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
                        tab.loader = loader.to_string();
                        tab.lifecycle.clear();
                    }
                }
            }
            "Page.navigatedWithinDocument" if main => tab.url = s(p, "url").to_string(),
            "Page.javascriptDialogOpening" => {
                tab.dialog = Some(Dialog {
                    kind: s(p, "type").to_string(),
                    message: s(p, "message").to_string(),
                    default_prompt: s(p, "defaultPrompt").to_string(),
                });
            }
            "Page.javascriptDialogClosed" => tab.dialog = None,
            "Inspector.targetCrashed" => tab.crashed = true,
            "Input.dragIntercepted" => tab.drag = Some(p["data"].clone()),
            _ => return,
        }
        drop(st);
        self.bump();
    }
}

fn method_of(p: &Value) -> String {
    s(&p["request"], "method").to_string()
}

pub(super) fn ready_popups(st: &State, opener: &str) -> usize {
    st.tabs
        .values()
        .filter(|t| t.opener.as_deref() == Some(opener))
        .filter(|t| (!t.url.is_empty() && t.url != "about:blank") || t.blocked_seq > 0)
        .count()
}
