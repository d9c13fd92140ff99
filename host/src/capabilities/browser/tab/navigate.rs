//! Navigation (to a URL, through history, reload) and the settle after an action: did it
//! start a navigation (wait for the new document), open a window (wait until it shows its
//! URL), or trip the origin guard (fail with its message)?

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use serde_json::{Value, json};
use std::time::Duration;

/// How long an action waits to see whether it started a navigation.
pub(super) const SETTLE: Duration = Duration::from_millis(150);
/// How long a navigation watches for the page moving on by itself after it loaded.
const AFTER_LOAD: Duration = Duration::from_millis(400);
/// How long an action that opens a window waits for the browser to announce its tab.
const POPUP_ANNOUNCE: Duration = Duration::from_secs(2);
/// How long an action waits for a window it opened to show its URL.
const POPUP_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an action waits for the navigation it started.
const ACTION_NAV_TIMEOUT: Duration = Duration::from_secs(15);

/// When a navigation counts as done.
#[derive(Debug, Clone, Copy)]
pub enum WaitUntil {
    Load,
    DomContentLoaded,
    NetworkIdle,
}

impl WaitUntil {
    pub(super) fn event(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::DomContentLoaded => "DOMContentLoaded",
            Self::NetworkIdle => "networkIdle",
        }
    }
}

/// Counts of the windows a tab has opened (see [`Tab::settle_for`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Windows {
    opens: u64,
    popups: usize,
    children: usize,
}

impl Tab {
    /// The messages of navigations blocked since `seq`.
    pub(super) fn blocked_since(&self, seq: u64) -> Option<String> {
        self.state(|t| {
            (t.blocked_seq > seq).then(|| {
                let n = usize::try_from(t.blocked_seq - seq).unwrap_or(usize::MAX);
                let start = t.blocked.len().saturating_sub(n);
                // A page that trips one refusal many times (a popup flood) reads it once.
                let mut messages = t.blocked[start..].to_vec();
                messages.dedup();
                messages.join("; ")
            })
        })
        .ok()
        .flatten()
    }

    pub(crate) fn blocked_seq(&self) -> Result<u64> {
        self.state(|t| t.blocked_seq)
    }

    pub async fn navigate(&self, url: &str, wait: WaitUntil, timeout: Duration) -> Result<String> {
        self.no_dialog()?;
        let seq = self.blocked_seq()?;
        let nav = tokio::time::timeout(timeout, self.call("Page.navigate", json!({ "url": url })))
            .await
            .map_err(|_| {
                BrowserError::Timeout(format!(
                    "{url} did not respond within {} ms",
                    timeout.as_millis()
                ))
            })??;
        if let Some(error) = nav.get("errorText").and_then(Value::as_str) {
            if let Some(blocked) = self.blocked_since(seq) {
                return Err(BrowserError::Denied(blocked));
            }
            return Err(BrowserError::Io(format!(
                "navigation to {url} failed: {error}"
            )));
        }
        if let Some(loader) = nav.get("loaderId").and_then(Value::as_str) {
            self.wait_loaded(Some(loader), wait, timeout).await?;
        }
        // A page may move on by itself right after loading (meta refresh, script redirect).
        self.settle_for(seq, AFTER_LOAD, None).await?;
        self.url()
    }

    /// Wait until the document the tab shows now reaches `wait`: a condition on the URL or
    /// the DOM can hold while that document is still loading.
    pub async fn wait_current(&self, wait: WaitUntil, timeout: Duration) -> Result<()> {
        let loader = self.state(|t| t.loader.clone())?;
        self.wait_loaded(Some(&loader), wait, timeout).await
    }

    /// Wait until the main frame's document `loader` (or any new one) reaches `wait`.
    pub(super) async fn wait_loaded(
        &self,
        loader: Option<&str>,
        wait: WaitUntil,
        timeout: Duration,
    ) -> Result<()> {
        let event = wait.event();
        let start_loader = self.state(|t| t.loader.clone())?;
        let reached = self
            .live
            .wait_tab(&self.target, timeout, |t| {
                let right_doc = match loader {
                    Some(l) => t.loader == l,
                    None => t.loader != start_loader,
                };
                (right_doc && t.lifecycle.contains(event) || t.dialog.is_some() || t.crashed)
                    .then_some(())
            })
            .await;
        if reached.is_err() {
            self.state(|_| ())?;
            return Err(BrowserError::Timeout(format!(
                "the page did not reach \"{event}\" within {} ms; it may still be usable: take a snapshot",
                timeout.as_millis()
            )));
        }
        Ok(())
    }

    /// After an action: if it started a navigation, wait for the new document; if the guard
    /// blocked one, fail with its message.
    pub(crate) async fn settle(&self, seq: u64) -> Result<()> {
        self.settle_for(seq, SETTLE, None).await
    }

    /// What the tab had opened before an action, to tell the windows the action opens.
    pub(super) fn windows(&self) -> Result<Windows> {
        Ok(Windows {
            opens: self.state(|t| t.window_opens)?,
            popups: self.live.popups_of(&self.target),
            children: self.live.children_of(&self.target),
        })
    }

    /// [`Tab::settle`]; with `popup`, the action was one that opens a new window (a
    /// `target=_blank` link, a modified click on a link), whose tab the browser may announce
    /// only after the action's own answer: wait for it, counting from what the tab had
    /// opened before the action.
    pub(super) async fn settle_for(
        &self,
        seq: u64,
        window: Duration,
        popup: Option<Windows>,
    ) -> Result<()> {
        let (loader, nav) = self.state(|t| (t.loader.clone(), t.nav_seq))?;
        let Windows {
            opens,
            popups,
            children,
        } = match popup {
            Some(before) => before,
            None => self.windows()?,
        };
        let started = self
            .live
            .wait_tab(&self.target, window, |t| {
                (t.nav_seq > nav || t.scheduled || t.blocked_seq > seq || t.dialog.is_some())
                    .then_some(())
            })
            .await
            .is_ok();
        if started {
            // Done when the new document is parsed, or when loading stopped without one
            // (a download, a 204, a blocked request).
            let mut stops = None;
            let _ = self
                .live
                .wait_tab(&self.target, ACTION_NAV_TIMEOUT, |t| {
                    if t.scheduled && t.nav_seq == nav {
                        return None;
                    }
                    let stops_then = *stops.get_or_insert(t.stop_seq);
                    let new_doc = t.loader != loader && t.lifecycle.contains("DOMContentLoaded");
                    let stopped = t.stop_seq > stops_then && !t.loading;
                    (new_doc || stopped || t.blocked_seq > seq || t.dialog.is_some()).then_some(())
                })
                .await;
        }
        // A new window the action opened, seen as the page's window.open or as a new tab whose
        // opener is this one (either may come first): wait until it shows its URL (or its
        // navigation is blocked), so the answer can name it.
        let mut opened = self.state(|t| t.window_opens > opens)?
            || self.live.children_of(&self.target) > children;
        if popup.is_some() && !opened {
            opened = self
                .live
                .wait_child(&self.target, children, POPUP_ANNOUNCE)
                .await;
        }
        if opened {
            self.live
                .wait_popup(&self.target, popups, POPUP_TIMEOUT)
                .await;
        }
        match self.blocked_since(seq) {
            Some(blocked) => Err(BrowserError::Denied(blocked)),
            None => Ok(()),
        }
    }

    pub async fn history(&self, delta: i32, wait: WaitUntil, timeout: Duration) -> Result<String> {
        self.no_dialog()?;
        let history = self.call("Page.getNavigationHistory", json!({})).await?;
        let current = history["currentIndex"].as_i64().unwrap_or(0);
        let entries = history["entries"].as_array().cloned().unwrap_or_default();
        let index = current + i64::from(delta);
        let entry = usize::try_from(index)
            .ok()
            .and_then(|i| entries.get(i))
            .ok_or_else(|| {
                BrowserError::Invalid(if delta < 0 {
                    "there is no page to go back to in this tab".into()
                } else {
                    "there is no page to go forward to in this tab".into()
                })
            })?;
        let seq = self.blocked_seq()?;
        self.call(
            "Page.navigateToHistoryEntry",
            json!({ "entryId": entry["id"] }),
        )
        .await?;
        self.wait_loaded(None, wait, timeout).await.or_else(|e| {
            // A same-document entry (#fragment) makes no new document.
            let same_doc = self.url().ok().as_deref() == entry["url"].as_str();
            if same_doc { Ok(()) } else { Err(e) }
        })?;
        self.settle(seq).await?;
        self.url()
    }

    pub async fn reload(&self, wait: WaitUntil, timeout: Duration) -> Result<String> {
        self.no_dialog()?;
        let seq = self.blocked_seq()?;
        self.call("Page.reload", json!({})).await?;
        self.wait_loaded(None, wait, timeout).await?;
        self.settle(seq).await?;
        self.url()
    }
}
