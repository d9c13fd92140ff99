//! Navigation (to a URL, through history, reload) and the settle after an action: did it
//! start a navigation (wait for the new document), open a window (wait until it shows its
//! URL), or trip the origin guard (fail with its message)?

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::events::leave;
use crate::capabilities::browser::guard::failures::Failure;
use crate::capabilities::browser::model::navigation::Navigation;
use crate::capabilities::browser::model::state::TabState;
use crate::net::NetError;
use crate::net::lookup::LookupError;
use serde_json::{Value, json};
use std::time::Duration;

/// How long an action waits to see whether it started a navigation.
pub(super) const SETTLE: Duration = Duration::from_millis(150);
/// How long an action that opens a window waits for the browser to announce its tab.
const POPUP_ANNOUNCE: Duration = Duration::from_secs(2);
/// How long an action waits for a window it opened to show its URL.
const POPUP_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an action waits for the navigation it started.
const ACTION_NAV_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a navigation waits for the page's own requests in flight at its load.
const LOAD_REQUESTS: Duration = Duration::from_secs(1);
/// How long an action waits for the requests it started (a long poll never ends).
const ACTION_REQUESTS_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the page gets to run the tasks a same-document navigation queued.
const YIELD_TIMEOUT: Duration = Duration::from_millis(500);
/// How long an action whose navigation ended without a document waits for the browser to
/// announce a download.
const DOWNLOAD_ANNOUNCE: Duration = Duration::from_millis(250);
/// How long the page gets to handle the last response before the answer's snapshot.
const AFTER_REQUESTS: Duration = Duration::from_millis(50);
/// How long a call waits for a frame to leave a document the commit rule refused.
const REFUSED_LEAVE: Duration = Duration::from_secs(5);

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

/// Where a tab stood before an action (see [`Tab::settle`]): the counters of its state and
/// the windows it had opened.
#[derive(Debug, Clone)]
pub struct Mark {
    blocked: u64,
    nav: u64,
    stops: u64,
    loader: String,
    same_doc: u64,
    dialogs: u64,
    requests: u64,
    downloads: u64,
    opens: u64,
    popups: usize,
    children: usize,
}

impl Mark {
    /// How many dialogs the tab had opened.
    pub fn dialogs(&self) -> u64 {
        self.dialogs
    }
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

    /// Wait until no frame of the tab shows a document the commit rule refused
    /// (`events/commits.rs`), so no call reads or acts in one. Each such frame is sent to
    /// `about:blank` again first (the first attempt may have lost to another navigation).
    pub async fn past_refused(&self) -> Result<()> {
        let refused = self.state(|t| t.refused_frames.clone())?;
        if refused.is_empty() {
            return Ok(());
        }
        for (frame, session) in &refused {
            self.live
                .cdp
                .send_raw(Some(session), "Page.navigate", leave(frame));
        }
        let left = self
            .live
            .wait_tab(&self.target, REFUSED_LEAVE, |t| {
                t.refused_frames.is_empty().then_some(())
            })
            .await;
        if left.is_err() {
            self.state(|_| ())?;
            return Err(BrowserError::Denied(
                "this tab still shows a page its grants refuse (it came without a request the origin guard saw); close the tab (browse_tabs) and open a new page".into(),
            ));
        }
        Ok(())
    }

    /// Load `to` (checked by [`crate::capabilities::browser::navigation::check`]: a tab
    /// never loads a plugin's URL unchecked).
    pub async fn navigate(
        &self,
        to: &Navigation,
        wait: WaitUntil,
        timeout: Duration,
    ) -> Result<String> {
        let url = to.as_str();
        self.no_dialog()?;
        let before = self.mark()?;
        let seq = before.blocked;
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
            // The browser knows only that its proxy failed; the guard knows why.
            if let Some(failure) = self.guard_failure(to.url()) {
                return Err(failed(url, failure));
            }
            return Err(BrowserError::Io(format!(
                "navigation to {url} failed: {error}"
            )));
        }
        if let Some(loader) = nav.get("loaderId").and_then(Value::as_str) {
            self.wait_loaded(Some(loader), wait, timeout, None).await?;
        }
        // The page's own requests still in flight at the load (its data, fetched by its
        // scripts or its load handler, which runs before the load is announced): wait for
        // them, briefly, so the answer shows what the page renders from them; a long poll
        // costs at most LOAD_REQUESTS. Then let the page handle the responses.
        let upto = self.state(|t| t.request_seq)?;
        if self.state(|t| t.requests_between(before.requests, upto))? > 0 {
            let _ = self
                .live
                .wait_tab(&self.target, LOAD_REQUESTS, |t| {
                    (t.requests_between(before.requests, upto) == 0
                        || t.dialog.is_some()
                        || t.crashed)
                        .then_some(())
                })
                .await;
            self.yield_to_page().await;
        }
        // A page may move on by itself right after loading: a redirect or the requests a
        // response handler starts are announced by the time it answers (see `settle_page`),
        // a meta refresh of up to a second is announced as scheduled and waited for. A page
        // that acts later is seen by the next call.
        let loaded = Mark {
            blocked: seq,
            ..self.mark()?
        };
        self.settle_page(loaded).await?;
        self.url()
    }

    /// Why the network guard did not carry this tab's last connection to `url`'s host.
    fn guard_failure(&self, url: &url::Url) -> Option<Failure> {
        let (host, port) = (url.host_str()?, url.port_or_known_default()?);
        self.live.guard_failure(&self.target, host, port)
    }

    /// Wait until the document the tab shows now reaches `wait`: a condition on the URL or
    /// the DOM can hold while that document is still loading.
    pub async fn wait_current(&self, wait: WaitUntil, timeout: Duration) -> Result<()> {
        let loader = self.state(|t| t.loader.clone())?;
        self.wait_loaded(Some(&loader), wait, timeout, None).await
    }

    /// Wait until the main frame's document `loader` (or any new one) reaches `wait`; with
    /// `since` (where the tab stood before a history step or a reload), a same-document
    /// navigation or a refused one after it ends the wait too: neither brings a new document.
    pub(super) async fn wait_loaded(
        &self,
        loader: Option<&str>,
        wait: WaitUntil,
        timeout: Duration,
        since: Option<&Mark>,
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
                let stayed =
                    since.is_some_and(|b| t.same_doc_seq > b.same_doc || t.blocked_seq > b.blocked);
                (right_doc && t.lifecycle.contains(event)
                    || stayed
                    || t.dialog.is_some()
                    || t.crashed)
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

    /// Where the tab stands before an action, to tell what the action did.
    pub(crate) fn mark(&self) -> Result<Mark> {
        let (opens, popups, children) = (
            self.state(|t| t.window_opens)?,
            self.live.popups_of(&self.target),
            self.live.children_of(&self.target),
        );
        self.state(|t| Mark {
            blocked: t.blocked_seq,
            nav: t.nav_seq,
            stops: t.stop_seq,
            loader: t.loader.clone(),
            same_doc: t.same_doc_seq,
            dialogs: t.dialog_seq,
            requests: t.request_seq,
            downloads: t.download_seq,
            opens,
            popups,
            children,
        })
    }

    /// After an action: if it started a navigation, wait for the new document; if it started
    /// requests (a form posting with fetch), wait for them; if the guard blocked one, fail
    /// with its message. A dialog, or a same-document navigation (a hash or history route,
    /// which sends no load event), ends the wait at once.
    pub(crate) async fn settle(&self, before: Mark) -> Result<()> {
        self.settle_for(before, SETTLE, false).await
    }

    /// [`Tab::settle`], watching `window` for the action to start something; with `popup`,
    /// the action was one that opens a new window (a `target=_blank` link, a modified click
    /// on a link), whose tab the browser may announce only after the action's own answer.
    pub(super) async fn settle_for(
        &self,
        before: Mark,
        window: Duration,
        popup: bool,
    ) -> Result<()> {
        let b = &before;
        // Something the action started that the answer must wait for (or that ends it).
        let started = self
            .live
            .wait_tab(&self.target, window, |t| {
                (t.nav_seq > b.nav
                    || t.scheduled
                    || t.blocked_seq > b.blocked
                    || t.dialog_seq > b.dialogs
                    || t.same_doc_seq > b.same_doc
                    || t.requests_since(b.requests) > 0)
                    .then_some(())
            })
            .await
            .is_ok();
        let ended =
            |t: &TabState| t.dialog_seq > b.dialogs || t.blocked_seq > b.blocked || t.crashed;
        // Two rounds: a page may navigate once the requests it started are answered (a
        // login form that posts with fetch, then moves on).
        let mut yielded = false;
        for _ in 0..2 {
            if !started || self.state(|t| ended(t))? {
                break;
            }
            if self.state(|t| t.nav_seq > b.nav || t.scheduled || t.loader != b.loader)? {
                // Done when the new document is parsed, when loading stopped without one (a
                // download, a 204, a blocked request), or when it stayed in the document.
                let _ = self
                    .live
                    .wait_tab(&self.target, ACTION_NAV_TIMEOUT, |t| {
                        if t.scheduled && t.nav_seq == b.nav {
                            return None;
                        }
                        let new_doc =
                            t.loader != b.loader && t.lifecycle.contains("DOMContentLoaded");
                        let stopped = t.stop_seq > b.stops && t.stopped_nav > b.nav && !t.loading;
                        let same_doc = t.same_doc_seq > b.same_doc && !t.loading;
                        (new_doc || stopped || same_doc || ended(t)).then_some(())
                    })
                    .await;
            }
            // A same-document navigation's page script (a router's hashchange or popstate
            // handler) runs in a task of its own: let it run before reading the page.
            if !yielded && self.state(|t| t.same_doc_seq > b.same_doc)? {
                yielded = true;
                self.yield_to_page().await;
            }
            // Requests the action started (a form posting with fetch), only those started so
            // far (a page that polls would keep the answer waiting): the answer should show
            // what the page makes of their responses.
            let upto = self.state(|t| t.request_seq)?;
            if self.state(|t| t.requests_between(b.requests, upto))? == 0 {
                break;
            }
            let _ = self
                .live
                .wait_tab(&self.target, ACTION_REQUESTS_TIMEOUT, |t| {
                    (t.requests_between(b.requests, upto) == 0 || ended(t)).then_some(())
                })
                .await;
            // The page handles the last response in a task or two of its own; it may
            // navigate then.
            let nav = self.state(|t| t.nav_seq)?;
            let _ = self
                .live
                .wait_tab(&self.target, AFTER_REQUESTS, |t| {
                    (ended(t) || t.nav_seq > nav).then_some(())
                })
                .await;
            if self.state(|t| t.nav_seq == nav)? {
                break;
            }
        }
        // A navigation that ended without a new document may have become a download, which
        // the browser announces just after the load stopped: wait for that, briefly, so the
        // answer can name the file.
        if self.state(|t| {
            t.nav_seq > b.nav
                && t.loader == b.loader
                && t.stop_seq > b.stops
                && t.download_seq == b.downloads
                && !ended(t)
        })? {
            let _ = self
                .live
                .wait_tab(&self.target, DOWNLOAD_ANNOUNCE, |t| {
                    (t.download_seq > b.downloads || ended(t)).then_some(())
                })
                .await;
        }
        // A new window the action opened, seen as the page's window.open or as a new tab whose
        // opener is this one (either may come first): wait until it shows its URL (or its
        // navigation is blocked), so the answer can name it.
        let mut opened = self.state(|t| t.window_opens > b.opens)?
            || self.live.children_of(&self.target) > b.children;
        if popup && !opened && self.state(|t| !ended(t))? {
            opened = self
                .live
                .wait_child(&self.target, b.children, POPUP_ANNOUNCE)
                .await;
        }
        if opened {
            self.live
                .wait_popup(&self.target, b.popups, POPUP_TIMEOUT)
                .await;
        }
        match self.blocked_since(b.blocked) {
            Some(blocked) => Err(BrowserError::Denied(blocked)),
            None => Ok(()),
        }
    }

    /// The settle after a load, after filling a field or after choosing an option. What they
    /// start (a load handler's redirect, a select's `onchange` navigation, a search box's
    /// fetch) starts in the page's event handlers, which have run by then, or in a task they
    /// queued. So there is no window to watch: let the page run its queued tasks, read every
    /// event it sent meanwhile (the page announces a navigation, a request, a dialog or a
    /// window on its DevTools session before it answers), then wait for what was started as
    /// any action does. A handler that waits longer (a debounced search) is seen by the next
    /// call.
    pub(super) async fn settle_page(&self, before: Mark) -> Result<()> {
        self.yield_to_page().await;
        self.live.caught_up().await;
        self.settle_for(before, Duration::ZERO, false).await
    }

    /// Let the page run the tasks it has queued (a zero timeout in its own world), bounded.
    async fn yield_to_page(&self) {
        let tick = self.call_until_dialog(
            "Runtime.evaluate",
            json!({ "expression": "new Promise((r) => setTimeout(r, 0))", "awaitPromise": true }),
        );
        let _ = tokio::time::timeout(YIELD_TIMEOUT, tick).await;
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
        let before = self.mark()?;
        self.call(
            "Page.navigateToHistoryEntry",
            json!({ "entryId": entry["id"] }),
        )
        .await?;
        // A same-document entry (a hash or history route) makes no new document and sends
        // no load event: its navigation ends the wait.
        self.wait_loaded(None, wait, timeout, Some(&before)).await?;
        self.settle(before).await?;
        self.url()
    }

    pub async fn reload(&self, wait: WaitUntil, timeout: Duration) -> Result<String> {
        self.no_dialog()?;
        let before = self.mark()?;
        self.call("Page.reload", json!({})).await?;
        self.wait_loaded(None, wait, timeout, Some(&before)).await?;
        self.settle(before).await?;
        self.url()
    }
}

/// The error of a navigation to `url` the guard did not carry, by why: a refusal is
/// `access-denied`, a name that does not exist `not-found`, a connection that timed out
/// `timeout`, the rest `io`.
fn failed(url: &str, failure: Failure) -> BrowserError {
    let message = format!("navigation to {url} failed: {failure}");
    match failure {
        Failure::Refused(_) => BrowserError::Denied(message),
        Failure::Lookup(NetError::Resolve {
            why: LookupError::NoSuchHost | LookupError::NoAddress,
            ..
        }) => BrowserError::NotFound(message),
        Failure::TimedOut { .. }
        | Failure::Lookup(NetError::Resolve {
            why: LookupError::Timeout(_),
            ..
        }) => BrowserError::Timeout(message),
        _ => BrowserError::Io(message),
    }
}
