//! Carrying out what the reducer (`events.rs`) says an event calls for, and waking the
//! waiters.

use super::browser::Live;
use crate::capabilities::browser::error::CdpError;
use crate::capabilities::browser::events::{Effect, leave, reduce};
use crate::capabilities::browser::model::event::Event;
use serde_json::json;

impl Live {
    /// Reduce one event and carry out what it calls for.
    pub(crate) fn on_event(&self, ev: Event) {
        tracing::trace!(method = %ev.method, session = ?ev.session, "browser event");
        let reduced = {
            let mut st = self.lock();
            let reduced = reduce(&mut st, self.guard, &ev);
            st.tell_census();
            reduced
        };
        self.reduced
            .fetch_add(1, std::sync::atomic::Ordering::Release);
        for effect in reduced.effects {
            self.apply(effect);
        }
        if reduced.changed {
            self.bump();
        }
    }

    fn apply(&self, effect: Effect) {
        match effect {
            Effect::SetUp { session, commands } => {
                for (method, params) in commands {
                    self.cdp.send_raw(Some(&session), method, params);
                }
            }
            Effect::Release { session, parent } => {
                let cdp = self.cdp.clone();
                tokio::spawn(async move {
                    let _ = cdp
                        .call_raw(Some(&session), "Runtime.runIfWaitingForDebugger", json!({}))
                        .await;
                    // A child session (a worker of a tab) is known only to the session that
                    // attached it.
                    let _ = cdp
                        .call_raw(
                            parent.as_deref(),
                            "Target.detachFromTarget",
                            json!({ "sessionId": session }),
                        )
                        .await;
                });
            }
            Effect::CloseUnseen { session, target } => {
                // A paused target can hold up the renderer it shares with its opener: let it
                // run, with every request paused (and failed), then close it.
                let cdp = self.cdp.clone();
                tokio::spawn(async move {
                    if let Some(session) = session {
                        let all = json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] });
                        let _ = cdp.call_raw(Some(&session), "Fetch.enable", all).await;
                        let _ = cdp
                            .call_raw(Some(&session), "Runtime.runIfWaitingForDebugger", json!({}))
                            .await;
                    }
                    if let Err(e) = cdp
                        .call_raw(None, "Target.closeTarget", json!({ "targetId": target }))
                        .await
                    {
                        tracing::debug!("closing a target no plugin may see failed: {e}");
                    }
                });
            }
            Effect::Answer {
                session,
                request_id,
                method,
                params,
            } => {
                let cdp = self.cdp.clone();
                tokio::spawn(async move {
                    if let Err(e) = cdp.call_raw(session.as_deref(), method, params).await {
                        tracing::debug!("{method} failed: {e}");
                        // Still paused (the browser refused the answer): fail it rather than
                        // let it hang, and never let it through.
                        if method != "Fetch.failRequest" && !matches!(e, CdpError::Closed) {
                            let _ = cdp
                                .call_raw(
                                    session.as_deref(),
                                    "Fetch.failRequest",
                                    json!({ "requestId": request_id, "errorReason": "Failed" }),
                                )
                                .await;
                        }
                    }
                });
            }
            Effect::Leave { session, frame } => {
                self.cdp
                    .send_raw(Some(&session), "Page.navigate", leave(&frame));
            }
            Effect::DropHistory { session } => {
                self.cdp
                    .send_raw(Some(&session), "Page.resetNavigationHistory", json!({}));
            }
            Effect::PlaceDownload { guid } => self.place_download(guid),
            Effect::CancelDownload { guid, context } => self.cancel_download(guid, context),
            Effect::Deny {
                scope,
                capability,
                target,
                reason,
            } => scope.denied(capability, &target, &reason),
        }
    }
}
