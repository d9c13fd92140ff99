//! Elements a page made clickable with a listener alone (a `<span>` in a sentence, a `<div>`
//! row): nothing in the DOM says so, and Warden's isolated world cannot see the page's
//! listeners. Chromium can (`DOMDebugger.getEventListeners`); the host asks it for the
//! frame's listeners before a snapshot and marks their nodes in Warden's world, where
//! `page.js` gives them refs. No script of the page runs for this, and a page can only add
//! refs to its own elements, never hide one.

use super::Tab;
use crate::capabilities::browser::error::Result;
use futures::future::join_all;
use serde_json::{Value, json};

/// Events whose listener makes an element a click target.
const CLICK_EVENTS: &[&str] = &[
    "click",
    "mousedown",
    "mouseup",
    "pointerdown",
    "pointerup",
    "touchstart",
];
/// The object group of the remote objects made here, released at the end.
const GROUP: &str = "warden-clickable";
/// At most this many new nodes are marked per snapshot, in document order (each costs a
/// round trip of ~80 µs; a page whose 3,000 buttons have inline `onclick` handlers would
/// otherwise pay 170 ms for elements that are controls anyway); the rest follow in later
/// snapshots of a changed page. Listing the listeners costs ~25 ms per 3,000.
const MAX_NEW: usize = 100;
/// A pass that takes longer is given up (the snapshot goes on without its marks).
const MARK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);
/// At most this many marked nodes are remembered per tab, then it starts over.
const MAX_KNOWN: usize = 50_000;

/// Adds its arguments to the set `page.js` reads.
const MARK: &str = "function (...els) { const m = (globalThis.__wardenClickable ??= new WeakSet()); for (const e of els) m.add(e); }";

impl Tab {
    /// Mark the nodes of `frame` that have a click listener of their own. Best effort: a
    /// snapshot without the marks still shows every element the DOM says is clickable.
    pub(super) async fn mark_clickable(&self, frame: &str) {
        let started = std::time::Instant::now();
        match tokio::time::timeout(MARK_TIMEOUT, self.try_mark_clickable(frame)).await {
            Ok(Ok(marked)) => tracing::debug!(
                marked,
                ms = started.elapsed().as_secs_f64() * 1000.0,
                "clickable marks"
            ),
            Ok(Err(e)) => tracing::debug!("clickable marks skipped: {e}"),
            Err(_) => tracing::debug!("clickable marks skipped: over {MARK_TIMEOUT:?}"),
        }
        let _ = self
            .call_in(
                frame,
                "Runtime.releaseObjectGroup",
                json!({ "objectGroup": GROUP }),
            )
            .await;
    }

    /// How many nodes it marked now.
    async fn try_mark_clickable(&self, frame: &str) -> Result<usize> {
        // Backend node ids are per session: an out-of-process frame's are its own.
        let session = self.frame_session(frame)?;
        let context = self.world_context(frame).await?;
        // The document as the page's own world holds it: Chromium lists only the listeners
        // of the world the object belongs to.
        let ours = self
            .call_on(
                &session,
                "Runtime.evaluate",
                json!({ "expression": "document", "contextId": context, "objectGroup": GROUP }),
            )
            .await?;
        let described = self
            .call_on(
                &session,
                "DOM.describeNode",
                json!({ "objectId": ours["result"]["objectId"] }),
            )
            .await?;
        let theirs = self
            .call_on(
                &session,
                "DOM.resolveNode",
                json!({ "backendNodeId": described["node"]["backendNodeId"], "objectGroup": GROUP }),
            )
            .await?;
        let listeners = self
            .call_on(
                &session,
                "DOMDebugger.getEventListeners",
                json!({ "objectId": theirs["object"]["objectId"], "depth": -1, "pierce": false }),
            )
            .await?;
        let document = described["node"]["backendNodeId"].as_u64();
        let mut found: Vec<u64> = listeners["listeners"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|l| CLICK_EVENTS.contains(&l["type"].as_str().unwrap_or_default()))
            .filter_map(|l| l["backendNodeId"].as_u64())
            .filter(|id| Some(*id) != document)
            .collect();
        let mut once = std::collections::HashSet::new();
        found.retain(|id| once.insert(*id));
        let new: Vec<u64> = self.state(|t| {
            if t.clickable.values().map(|known| known.len()).sum::<usize>() > MAX_KNOWN {
                t.clickable.clear();
            }
            let known = t.clickable.entry(session.clone()).or_default();
            found
                .into_iter()
                .filter(|id| !known.contains(id))
                .take(MAX_NEW)
                .collect()
        })?;
        if new.is_empty() {
            return Ok(0);
        }
        // Straight to the browser, side by side: a dialog cannot open meanwhile (no script
        // of the page runs for these), and the caller bounds the whole pass in time.
        let resolved = join_all(new.iter().map(|id| {
            self.live.cdp.call_raw(
                Some(&session),
                "DOM.resolveNode",
                json!({ "backendNodeId": id, "executionContextId": context, "objectGroup": GROUP }),
            )
        }))
        .await;
        let args: Vec<Value> = resolved
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .filter_map(|r| r["object"]["objectId"].as_str())
            .map(|id| json!({ "objectId": id }))
            .collect();
        self.call_on(
            &session,
            "Runtime.callFunctionOn",
            json!({ "functionDeclaration": MARK, "executionContextId": context, "arguments": args }),
        )
        .await?;
        let marked = new.len();
        self.state(|t| t.clickable.entry(session).or_default().extend(new))?;
        Ok(marked)
    }
}
