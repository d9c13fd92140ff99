//! One tab of a running browser: its state in the browser's, the CDP calls made on its
//! session, element handles, closing.

use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::model::state::TabState;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const MASK: &str = "••••";
/// A wait bounded by the call's own end rather than a time of its own.
const NO_END: Duration = Duration::from_secs(3600);
/// How long closing a tab waits for the browser to report it gone.
const CLOSE_REPORT: Duration = Duration::from_secs(2);

/// A tab of a running browser.
#[derive(Clone)]
pub struct Tab {
    pub live: Arc<Live>,
    pub target: String,
}

/// The message of a `Runtime.evaluate` exception.
pub(crate) fn exception_text(ex: &Value) -> &str {
    ex["exception"]["description"]
        .as_str()
        .or_else(|| ex["text"].as_str())
        .unwrap_or("unknown error")
}

pub fn split_handle(handle: u64) -> (u32, u64) {
    ((handle >> 32) as u32, handle & 0xffff_ffff)
}

pub(crate) fn gone(handle: u64) -> BrowserError {
    BrowserError::Stale(format!(
        "element {handle} is gone from the page (the page changed); take a new snapshot"
    ))
}

impl Tab {
    pub(crate) fn session(&self) -> Result<String> {
        self.live.with_tab(&self.target, |t| t.session.clone())
    }

    pub(crate) fn state<R>(&self, f: impl FnOnce(&mut TabState) -> R) -> Result<R> {
        self.live.with_tab(&self.target, f)
    }

    /// A CDP command on this tab's session. A dialog the page opens meanwhile holds the
    /// page's scripts (and so, often, the answer) until it is answered: that ends the wait
    /// with an error that says so, rather than a hang.
    pub(crate) async fn call(&self, method: &str, params: Value) -> Result<Value> {
        let session = self.session()?;
        self.call_on(&session, method, params).await
    }

    /// The CDP session `frame` is read through: that of the out-of-process frame whose
    /// renderer holds it (`events/frames.rs`), else the tab's own.
    pub(crate) fn frame_session(&self, frame: &str) -> Result<String> {
        self.state(|t| {
            t.frame_sessions
                .get(frame)
                .or_else(|| t.oopifs.get(frame).map(|o| &o.session))
                .unwrap_or(&t.session)
                .clone()
        })
    }

    /// [`Tab::call`] on the session of `frame`.
    pub(crate) async fn call_in(&self, frame: &str, method: &str, params: Value) -> Result<Value> {
        let session = self.frame_session(frame)?;
        self.call_on(&session, method, params).await
    }

    /// [`Tab::call`] on `session`: the tab's own or one of its out-of-process frames'.
    pub(crate) async fn call_on(
        &self,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Value> {
        match self.call_until_dialog_on(session, method, params).await? {
            Some(answer) => Ok(answer),
            None => {
                let (kind, message) = self
                    .state(|t| {
                        t.dialog
                            .as_ref()
                            .map(|d| (d.kind.clone(), d.message.clone()))
                    })?
                    .unwrap_or_default();
                Err(BrowserError::Invalid(format!(
                    "the page opened a {kind} dialog (\"{message}\") meanwhile; answer it (browse_dialog), then try again"
                )))
            }
        }
    }

    /// [`Tab::call`]; `None` when a dialog opened before the answer came.
    pub(crate) async fn call_until_dialog(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Option<Value>> {
        let session = self.session()?;
        self.call_until_dialog_on(&session, method, params).await
    }

    /// [`Tab::call_until_dialog`] on `session`.
    pub(crate) async fn call_until_dialog_on(
        &self,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Option<Value>> {
        let dialogs = self.state(|t| t.dialog_seq)?;
        let call = self.live.cdp.call_raw(Some(session), method, params);
        let dialog = self.live.wait_tab(&self.target, NO_END, |t| {
            (t.dialog_seq > dialogs && t.dialog.is_some()).then_some(())
        });
        tokio::select! {
            answer = call => Ok(Some(answer?)),
            opened = dialog => match opened {
                Ok(()) => Ok(None),
                // The browser or the tab went away: say which.
                Err(()) => {
                    self.state(|_| ())?;
                    Err(BrowserError::Gone("the browser exited during this call; open a new page".into()))
                }
            },
        }
    }

    /// Make this the tab the browser shows: a tab behind another (the opener of a popup)
    /// may hold input back, or draw no frame for a screenshot.
    pub(crate) async fn to_front(&self) -> Result<()> {
        if self.live.lock().front.as_deref() == Some(self.target.as_str()) {
            return Ok(());
        }
        self.call("Page.bringToFront", json!({})).await?;
        self.live.lock().front = Some(self.target.clone());
        Ok(())
    }

    /// Replace every secret typed into this tab or another of its session (and their
    /// encodings, see `crate::scrub`) with a mask.
    pub fn scrub(&self, text: &str) -> String {
        let (mut secrets, context) = self
            .state(|t| (t.secrets.clone(), t.context.clone()))
            .unwrap_or_default();
        secrets.extend_from_slice(self.live.lock().session_secrets(&context));
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        crate::scrub::scrub(text, &secrets, MASK)
    }

    pub fn url(&self) -> Result<String> {
        self.state(|t| t.shown().0.to_string())
    }

    /// Close the tab; when this answers, the tab is gone from the session's list.
    pub async fn close(&self) -> Result<()> {
        self.live
            .cdp
            .call_raw(
                None,
                "Target.closeTarget",
                json!({ "targetId": self.target }),
            )
            .await?;
        // The browser reports the tab gone a moment later; a list taken right after this
        // answer must not show it, so wait for that (and forget it if the report is late).
        self.live.wait_closed(&self.target, CLOSE_REPORT).await;
        self.live.forget_tab(&self.target);
        Ok(())
    }
}
