//! Operations on one tab: navigation, the element snapshot, actions on element handles,
//! waits, screenshots, evaluation, cookies and dialogs.
//!
//! Element handles are `frame number << 32 | node number`; node numbers come from
//! `page.js`, which runs in Warden's isolated world of each frame and keeps the same number
//! for the same DOM node.

use super::keys;
use super::provider::{BrowserError, Live, Result, TabState};
use base64::Engine as _;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const PAGE_JS: &str = include_str!("page.js");
/// The isolated world Warden's script runs in (shared by all calls, so node numbers stay).
const WORLD: &str = "__warden__";
/// How long an action waits to see whether it started a navigation.
const SETTLE: Duration = Duration::from_millis(150);
/// How long a navigation watches for the page moving on by itself after it loaded.
const AFTER_LOAD: Duration = Duration::from_millis(400);
/// How long an action that opens a window waits for the browser to announce its tab.
const POPUP_ANNOUNCE: Duration = Duration::from_secs(2);
/// How long an action waits for a window it opened to show its URL.
const POPUP_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an action waits for the navigation it started.
const ACTION_NAV_TIMEOUT: Duration = Duration::from_secs(15);
const MASK: &str = "••••";

/// When a navigation counts as done.
#[derive(Debug, Clone, Copy)]
pub enum WaitUntil {
    Load,
    DomContentLoaded,
    NetworkIdle,
}

impl WaitUntil {
    fn event(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::DomContentLoaded => "DOMContentLoaded",
            Self::NetworkIdle => "networkIdle",
        }
    }
}

/// A frame of the tab, in document order (parents before children).
#[derive(Debug, Clone)]
pub struct Frame {
    pub id: String,
    pub parent: Option<usize>,
    pub url: String,
    pub name: String,
}

/// What the snapshot of one frame gave.
#[derive(Debug)]
pub struct FrameSnapshot {
    pub frame: Frame,
    /// Offset of the frame's viewport in the main frame's viewport.
    pub offset: (f64, f64),
    /// The document number and the result of `page.js` `snapshot()`, or none when the frame
    /// could not be read.
    pub data: Option<(u32, Value)>,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Click {
    /// "left", "middle" or "right".
    pub button: &'static str,
    pub count: u8,
    pub modifiers: i64,
}

/// Counts of the windows a tab has opened (see [`Tab::settle_for`]).
#[derive(Debug, Clone, Copy)]
struct Windows {
    opens: u64,
    popups: usize,
    children: usize,
}

/// A tab of a running browser.
#[derive(Clone)]
pub struct Tab {
    pub live: Arc<Live>,
    pub target: String,
}

/// The message of a `Runtime.evaluate` exception.
fn exception_text(ex: &Value) -> &str {
    ex["exception"]["description"]
        .as_str()
        .or_else(|| ex["text"].as_str())
        .unwrap_or("unknown error")
}

pub fn split_handle(handle: u64) -> (u32, u64) {
    ((handle >> 32) as u32, handle & 0xffff_ffff)
}

fn gone(handle: u64) -> BrowserError {
    BrowserError::Stale(format!(
        "element {handle} is gone from the page (the page changed); take a new snapshot"
    ))
}

impl Tab {
    pub(super) fn session(&self) -> Result<String> {
        self.live.with_tab(&self.target, |t| t.session.clone())
    }

    pub(super) fn state<R>(&self, f: impl FnOnce(&mut TabState) -> R) -> Result<R> {
        self.live.with_tab(&self.target, f)
    }

    pub(super) async fn call(&self, method: &str, params: Value) -> Result<Value> {
        let session = self.session()?;
        Ok(self
            .live
            .cdp
            .call_raw(Some(&session), method, params)
            .await?)
    }

    /// Fail fast when a dialog blocks the page: scripts and input would hang behind it.
    pub(super) fn no_dialog(&self) -> Result<()> {
        match self.state(|t| t.dialog.clone())? {
            Some(d) => Err(BrowserError::Invalid(format!(
                "a {} dialog is open (\"{}\"); answer it first (browse_dialog)",
                d.kind, d.message
            ))),
            None => Ok(()),
        }
    }

    /// Replace every secret typed into this tab with a mask.
    pub fn scrub(&self, text: &str) -> String {
        let secrets = self.state(|t| t.secrets.clone()).unwrap_or_default();
        let mut out = text.to_string();
        for secret in secrets.iter().filter(|s| !s.is_empty()) {
            out = out.replace(secret.as_str(), MASK);
        }
        out
    }

    pub fn dialog(&self) -> Result<Option<super::provider::Dialog>> {
        self.state(|t| t.dialog.clone())
    }

    pub fn url(&self) -> Result<String> {
        self.state(|t| t.url.clone())
    }

    // ----------------------------------------------------------------- navigation

    /// The messages of navigations blocked since `seq`.
    fn blocked_since(&self, seq: u64) -> Option<String> {
        self.state(|t| {
            (t.blocked_seq > seq).then(|| {
                let n = usize::try_from(t.blocked_seq - seq).unwrap_or(usize::MAX);
                let start = t.blocked.len().saturating_sub(n);
                t.blocked[start..].join("; ")
            })
        })
        .ok()
        .flatten()
    }

    pub(super) fn blocked_seq(&self) -> Result<u64> {
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
    async fn wait_loaded(
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
    pub(super) async fn settle(&self, seq: u64) -> Result<()> {
        self.settle_for(seq, SETTLE, None).await
    }

    /// What the tab had opened before an action, to tell the windows the action opens.
    fn windows(&self) -> Result<Windows> {
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
    async fn settle_for(&self, seq: u64, window: Duration, popup: Option<Windows>) -> Result<()> {
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

    // ----------------------------------------------------------------- frames and script

    /// The tab's frames, parents first.
    pub async fn frames(&self) -> Result<Vec<Frame>> {
        let tree = self.call("Page.getFrameTree", json!({})).await?;
        let mut out = Vec::new();
        let mut stack = vec![(tree["frameTree"].clone(), None)];
        while let Some((node, parent)) = stack.pop() {
            let frame = &node["frame"];
            let id = frame["id"].as_str().unwrap_or_default().to_string();
            let index = out.len();
            out.push(Frame {
                id,
                parent,
                url: frame["url"].as_str().unwrap_or_default().to_string(),
                name: frame["name"].as_str().unwrap_or_default().to_string(),
            });
            if let Some(children) = node["childFrames"].as_array() {
                for child in children.iter().rev() {
                    stack.push((child.clone(), Some(index)));
                }
            }
        }
        Ok(out)
    }

    /// Call `__warden.<call>` in Warden's isolated world of `frame`; with `expect`, only in
    /// that document (else the answer is `{gone: true}`). Returns the document number.
    pub(super) async fn world(
        &self,
        frame: &str,
        call: &str,
        expect: Option<u32>,
    ) -> Result<(u32, Value)> {
        let world = self
            .call(
                "Page.createIsolatedWorld",
                json!({ "frameId": frame, "worldName": WORLD, "grantUniveralAccess": false }),
            )
            .await?;
        let context = world["executionContextId"].clone();
        let candidate = self.state(|t| {
            t.next_doc = t.next_doc.wrapping_add(1);
            t.next_doc
        })?;
        let check = match expect {
            Some(doc) => {
                format!("if (w.doc !== {doc}) return {{ doc: w.doc, value: {{ gone: true }} }};")
            }
            None => String::new(),
        };
        let expression = format!(
            "(() => {{ const w = (globalThis.__warden ??= ({PAGE_JS})({candidate})); {check} return {{ doc: w.doc, value: w.{call} }}; }})()"
        );
        let result = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "contextId": context, "returnByValue": true }),
            )
            .await?;
        if let Some(ex) = result.get("exceptionDetails") {
            let text = exception_text(ex);
            return Err(BrowserError::Io(format!("the page script failed: {text}")));
        }
        let answer = &result["result"]["value"];
        let doc = answer["doc"]
            .as_u64()
            .and_then(|d| u32::try_from(d).ok())
            .ok_or_else(|| BrowserError::Io("the page script gave no document number".into()))?;
        self.state(|t| {
            t.docs.insert(doc, frame.to_string());
        })?;
        Ok((doc, answer["value"].clone()))
    }

    /// Call `__warden.<call>` for the node of `handle`, mapping "gone"/"error" answers.
    pub(super) async fn on_node(
        &self,
        handle: u64,
        call: impl FnOnce(u64) -> String,
    ) -> Result<(String, Value)> {
        let (doc, node) = split_handle(handle);
        let frame = self
            .state(|t| t.docs.get(&doc).cloned())?
            .ok_or_else(|| gone(handle))?;
        let (_, answer) = self.world(&frame, &call(node), Some(doc)).await?;
        if answer.get("gone").is_some() {
            return Err(gone(handle));
        }
        if let Some(e) = answer.get("error").and_then(Value::as_str) {
            return Err(BrowserError::Invalid(format!(
                "cannot act on that element: {e}"
            )));
        }
        Ok((frame, answer))
    }

    /// Where `frame`'s viewport sits in the main frame's viewport.
    pub(super) async fn frame_offset(&self, frame: &str) -> Result<(f64, f64)> {
        if frame == self.target {
            return Ok((0.0, 0.0));
        }
        let owner = self
            .call("DOM.getFrameOwner", json!({ "frameId": frame }))
            .await?;
        let model = self
            .call(
                "DOM.getBoxModel",
                json!({ "backendNodeId": owner["backendNodeId"] }),
            )
            .await?;
        let content = &model["model"]["content"];
        Ok((
            content[0].as_f64().unwrap_or(0.0),
            content[1].as_f64().unwrap_or(0.0),
        ))
    }

    // ----------------------------------------------------------------- snapshot

    pub async fn snapshot(&self, include_text: bool) -> Result<Vec<FrameSnapshot>> {
        self.no_dialog()?;
        let frames = self.frames().await?;
        let mut out: Vec<FrameSnapshot> = Vec::with_capacity(frames.len());
        let call = format!("snapshot({})", json!({ "text": include_text }));
        // Which child of its parent each frame is, to find its iframe element's position.
        let mut child_index = vec![0usize; frames.len()];
        let mut seen_children = vec![0usize; frames.len()];
        for (i, f) in frames.iter().enumerate() {
            if let Some(p) = f.parent {
                child_index[i] = seen_children[p];
                seen_children[p] += 1;
            }
        }
        for (i, frame) in frames.into_iter().enumerate() {
            let data = self.world(&frame.id, &call, None).await.ok();
            let offset = match frame.parent {
                None => (0.0, 0.0),
                Some(p) => {
                    let parent = &out[p];
                    let pos = parent
                        .data
                        .as_ref()
                        .and_then(|(_, d)| d["frames"].get(child_index[i]))
                        .map(|f| {
                            (
                                f["x"].as_f64().unwrap_or(0.0),
                                f["y"].as_f64().unwrap_or(0.0),
                            )
                        })
                        .unwrap_or((0.0, 0.0));
                    (parent.offset.0 + pos.0, parent.offset.1 + pos.1)
                }
            };
            out.push(FrameSnapshot {
                frame,
                offset,
                data,
            });
        }
        Ok(out)
    }

    // ----------------------------------------------------------------- input

    async fn mouse(&self, kind: &str, x: f64, y: f64, click: Click) -> Result<()> {
        let mut params = json!({ "type": kind, "x": x, "y": y, "modifiers": click.modifiers });
        if kind != "mouseMoved" {
            params["button"] = json!(click.button);
            params["clickCount"] = json!(click.count.max(1));
        }
        self.input("Input.dispatchMouseEvent", params).await
    }

    /// Send an input event; a dialog opened by it ends the wait (the browser answers the
    /// event only once the dialog is closed).
    pub(super) async fn input(&self, method: &str, params: Value) -> Result<()> {
        let session = self.session()?;
        let cdp = self.live.cdp.clone();
        let method_owned = method.to_string();
        let send = async move { cdp.call_raw(Some(&session), &method_owned, params).await };
        let dialog = self
            .live
            .wait_tab(&self.target, Duration::from_secs(3600), |t| {
                t.dialog.is_some().then_some(())
            });
        tokio::select! {
            r = send => { r?; }
            _ = dialog => {}
        }
        Ok(())
    }

    /// Scroll the element into view and return where to click it, in main-frame coordinates.
    pub(super) async fn point(&self, handle: u64) -> Result<(f64, f64)> {
        self.point_of(handle, false).await
    }

    /// [`Tab::point`]; with `force`, without the disabled and covered checks.
    pub(super) async fn point_of(&self, handle: u64, force: bool) -> Result<(f64, f64)> {
        let (frame, p) = self
            .on_node(handle, |n| format!("point({n}, {force})"))
            .await?;
        let (ox, oy) = self.frame_offset(&frame).await?;
        Ok((
            ox + p["x"].as_f64().unwrap_or(0.0),
            oy + p["y"].as_f64().unwrap_or(0.0),
        ))
    }

    pub async fn click(&self, handle: u64, click: Click) -> Result<()> {
        self.no_dialog()?;
        let (x, y) = self.point(handle).await?;
        // Modifier keys or the middle button open a link in a new tab.
        let modified = click.button == "middle" || click.modifiers & !keys::ALT != 0;
        let popup = self
            .on_node(handle, |n| format!("opensWindow({n}, {modified})"))
            .await
            .is_ok_and(|(_, v)| v.as_bool() == Some(true));
        self.click_with(x, y, click, popup).await
    }

    pub async fn click_at(&self, x: f64, y: f64, click: Click) -> Result<()> {
        self.click_with(x, y, click, false).await
    }

    async fn click_with(&self, x: f64, y: f64, click: Click, popup: bool) -> Result<()> {
        self.no_dialog()?;
        let before = if popup { Some(self.windows()?) } else { None };
        let seq = self.blocked_seq()?;
        self.mouse("mouseMoved", x, y, click).await?;
        for n in 1..=click.count.max(1) {
            let c = Click { count: n, ..click };
            self.mouse("mousePressed", x, y, c).await?;
            if self.state(|t| t.dialog.is_some())? {
                return Ok(());
            }
            self.mouse("mouseReleased", x, y, c).await?;
            if self.state(|t| t.dialog.is_some())? {
                return Ok(());
            }
        }
        self.settle_for(seq, SETTLE, before).await
    }

    pub async fn hover(&self, handle: u64) -> Result<()> {
        self.no_dialog()?;
        let (x, y) = self.point(handle).await?;
        self.mouse("mouseMoved", x, y, Click::default()).await
    }

    pub async fn focus(&self, handle: u64) -> Result<()> {
        self.no_dialog()?;
        self.on_node(handle, |n| format!("focusOnly({n})"))
            .await
            .map(|_| ())
    }

    /// Replace a text field's value as a user would: focus, select all, insert the text.
    pub async fn fill(&self, handle: u64, text: &str, secret: bool) -> Result<()> {
        self.no_dialog()?;
        let seq = self.blocked_seq()?;
        self.on_node(handle, |n| format!("focus({n}, true, {secret})"))
            .await?;
        if secret {
            let owned = text.to_string();
            self.state(|t| {
                if !t.secrets.contains(&owned) {
                    t.secrets.push(owned);
                }
            })?;
        }
        if text.is_empty() {
            self.key_press(
                0,
                &keys::key("Delete").ok_or_else(|| BrowserError::Io("no Delete key".into()))?,
            )
            .await?;
        } else {
            self.input("Input.insertText", json!({ "text": text }))
                .await?;
        }
        self.on_node(handle, |n| format!("changed({n}, {secret})"))
            .await?;
        self.settle(seq).await
    }

    async fn key_press(&self, modifiers: i64, key: &keys::Key) -> Result<()> {
        let mut down = json!({
            "type": if key.text.is_some() { "keyDown" } else { "rawKeyDown" },
            "modifiers": modifiers,
            "key": key.key,
            "code": key.code,
            "windowsVirtualKeyCode": key.key_code,
        });
        if let Some(text) = &key.text {
            down["text"] = json!(text);
            down["unmodifiedText"] = json!(text);
        }
        self.input("Input.dispatchKeyEvent", down).await?;
        if self.state(|t| t.dialog.is_some())? {
            return Ok(());
        }
        self.input(
            "Input.dispatchKeyEvent",
            json!({ "type": "keyUp", "modifiers": modifiers, "key": key.key, "code": key.code, "windowsVirtualKeyCode": key.key_code }),
        )
        .await
    }

    /// Type text key by key into the focused element.
    pub async fn type_text(&self, text: &str, delay: Duration) -> Result<()> {
        self.no_dialog()?;
        let seq = self.blocked_seq()?;
        for ch in text.chars() {
            let name = match ch {
                '\n' | '\r' => "Enter".to_string(),
                '\t' => "Tab".to_string(),
                c => c.to_string(),
            };
            match keys::key(&name) {
                Some(k) if name.chars().count() > 1 || k.key == name => {
                    self.key_press(0, &k).await?
                }
                // A character with no key of its own on a US keyboard: insert it as text.
                _ => {
                    self.input("Input.insertText", json!({ "text": ch.to_string() }))
                        .await?
                }
            }
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }
        self.settle(seq).await
    }

    pub async fn press(&self, combo: &str) -> Result<()> {
        self.no_dialog()?;
        let seq = self.blocked_seq()?;
        let (modifiers, key) = keys::combo(combo).map_err(BrowserError::Invalid)?;
        // Hold the modifiers down around the key, as a keyboard does.
        let held: Vec<&str> = [
            (keys::ALT, "Alt"),
            (keys::CTRL, "Control"),
            (keys::META, "Meta"),
            (keys::SHIFT, "Shift"),
        ]
        .iter()
        .filter(|(bit, name)| modifiers & bit != 0 && *name != key.key)
        .map(|(_, name)| *name)
        .collect();
        for name in &held {
            if let Some(k) = keys::key(name) {
                self.input(
                    "Input.dispatchKeyEvent",
                    json!({ "type": "rawKeyDown", "modifiers": modifiers, "key": k.key, "code": k.code, "windowsVirtualKeyCode": k.key_code }),
                )
                .await?;
            }
        }
        self.key_press(modifiers, &key).await?;
        for name in held.iter().rev() {
            if let Some(k) = keys::key(name) {
                self.input(
                    "Input.dispatchKeyEvent",
                    json!({ "type": "keyUp", "modifiers": 0, "key": k.key, "code": k.code, "windowsVirtualKeyCode": k.key_code }),
                )
                .await?;
            }
        }
        self.settle(seq).await
    }

    pub async fn select(&self, handle: u64, values: &[String]) -> Result<Vec<String>> {
        self.no_dialog()?;
        let seq = self.blocked_seq()?;
        let (_, answer) = self
            .on_node(handle, |n| format!("select({n}, {})", json!(values)))
            .await?;
        self.settle(seq).await?;
        Ok(answer["values"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default())
    }

    pub async fn set_checked(&self, handle: u64, checked: bool) -> Result<()> {
        let (_, now) = self.on_node(handle, |n| format!("checked({n})")).await?;
        if now["checked"].as_bool() == Some(checked) {
            return Ok(());
        }
        self.click(
            handle,
            Click {
                button: "left",
                count: 1,
                modifiers: 0,
            },
        )
        .await?;
        let (_, after) = self.on_node(handle, |n| format!("checked({n})")).await?;
        if after["checked"].as_bool() == Some(checked) {
            Ok(())
        } else {
            Err(BrowserError::Invalid(format!(
                "clicking did not {} it (the page may prevent it)",
                if checked { "check" } else { "uncheck" }
            )))
        }
    }

    /// Set the files of a file input (the paths were checked against the grant already).
    pub async fn upload(&self, handle: u64, files: &[String]) -> Result<()> {
        self.no_dialog()?;
        let (doc, node) = split_handle(handle);
        let frame = self
            .state(|t| t.docs.get(&doc).cloned())?
            .ok_or_else(|| gone(handle))?;
        let world = self
            .call(
                "Page.createIsolatedWorld",
                json!({ "frameId": frame, "worldName": WORLD, "grantUniveralAccess": false }),
            )
            .await?;
        let expression = format!(
            "(() => {{ const w = globalThis.__warden; return w && w.doc === {doc} ? w.find({node}) : null; }})()"
        );
        let found = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "contextId": world["executionContextId"], "returnByValue": false }),
            )
            .await?;
        let object = found["result"]["objectId"]
            .as_str()
            .ok_or_else(|| gone(handle))?
            .to_string();
        let seq = self.blocked_seq()?;
        self.call(
            "DOM.setFileInputFiles",
            json!({ "files": files, "objectId": object }),
        )
        .await
        .map_err(|e| match e {
            BrowserError::Io(m) => BrowserError::Invalid(format!(
                "cannot act on that element: it is not a file input ({m})"
            )),
            other => other,
        })?;
        self.settle(seq).await
    }

    pub async fn scroll_into_view(&self, handle: u64) -> Result<()> {
        self.no_dialog()?;
        self.on_node(handle, |n| format!("rectOf({n})"))
            .await
            .map(|_| ())
    }

    pub async fn scroll(&self, handle: Option<u64>, dx: f64, dy: f64) -> Result<()> {
        self.no_dialog()?;
        let (x, y) = match handle {
            Some(h) => self.point(h).await?,
            None => {
                let metrics = self.call("Page.getLayoutMetrics", json!({})).await?;
                let vp = &metrics["cssLayoutViewport"];
                (
                    vp["clientWidth"].as_f64().unwrap_or(800.0) / 2.0,
                    vp["clientHeight"].as_f64().unwrap_or(600.0) / 2.0,
                )
            }
        };
        self.input(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy }),
        )
        .await?;
        // Let the scroll (and any lazy loading it triggers) happen before the next snapshot.
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(())
    }

    // ----------------------------------------------------------------- waits

    /// Evaluate `call` in every readable frame; true when any frame answers true.
    async fn any_frame(&self, call: &str) -> Result<bool> {
        for frame in self.frames().await? {
            if self
                .world(&frame.id, call, None)
                .await
                .ok()
                .and_then(|(_, v)| v.as_bool())
                == Some(true)
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    pub async fn wait_text(&self, text: &str, gone: bool, timeout: Duration) -> Result<()> {
        let call = format!("hasText({})", json!(text));
        self.poll(
            timeout,
            &format!(
                "text \"{text}\" to {}",
                if gone { "disappear" } else { "appear" }
            ),
            || async { Ok(self.any_frame(&call).await? != gone) },
        )
        .await
    }

    pub async fn wait_selector(&self, selector: &str, timeout: Duration) -> Result<()> {
        let call = format!("hasSelector({})", json!(selector));
        self.poll(timeout, &format!("selector \"{selector}\""), || async {
            self.any_frame(&call).await
        })
        .await
    }

    pub async fn wait_url(&self, pattern: &str, timeout: Duration) -> Result<()> {
        let glob = super::routes::url_glob(pattern)?;
        self.poll(timeout, &format!("URL matching \"{pattern}\""), || async {
            Ok(glob.is_match(self.url()?))
        })
        .await
    }

    async fn poll<F, Fut>(&self, timeout: Duration, what: &str, mut check: F) -> Result<()>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool>>,
    {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            self.no_dialog()?;
            if check().await? {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(BrowserError::Timeout(format!(
                    "waited {} ms for the {what}; it did not happen",
                    timeout.as_millis()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    // ----------------------------------------------------------------- output

    pub async fn screenshot(&self, area: Area, jpeg: bool) -> Result<Vec<u8>> {
        self.no_dialog()?;
        let mut params = json!({ "format": if jpeg { "jpeg" } else { "png" } });
        if jpeg {
            params["quality"] = json!(80);
        }
        match area {
            Area::Viewport => {}
            Area::FullPage => {
                let metrics = self.call("Page.getLayoutMetrics", json!({})).await?;
                let size = &metrics["cssContentSize"];
                let width = size["width"].as_f64().unwrap_or(1280.0).clamp(1.0, 8192.0);
                let height = size["height"].as_f64().unwrap_or(800.0).clamp(1.0, 16384.0);
                params["captureBeyondViewport"] = json!(true);
                params["clip"] =
                    json!({ "x": 0, "y": 0, "width": width, "height": height, "scale": 1 });
            }
            Area::Element(handle) => {
                let (frame, r) = self.on_node(handle, |n| format!("rectOf({n})")).await?;
                let (ox, oy) = self.frame_offset(&frame).await?;
                let width = r["width"].as_f64().unwrap_or(0.0);
                let height = r["height"].as_f64().unwrap_or(0.0);
                if width < 1.0 || height < 1.0 {
                    return Err(BrowserError::Invalid(
                        "that element has no size on screen".into(),
                    ));
                }
                params["clip"] = json!({
                    "x": ox + r["x"].as_f64().unwrap_or(0.0),
                    "y": oy + r["y"].as_f64().unwrap_or(0.0),
                    "width": width, "height": height, "scale": 1,
                });
            }
        }
        let shot = self.call("Page.captureScreenshot", params).await?;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .map_err(|e| BrowserError::Io(format!("the screenshot was not valid base64: {e}")))
    }

    /// Evaluate an expression in the page's own world; the result as JSON text.
    pub async fn evaluate(&self, expression: &str) -> Result<String> {
        self.no_dialog()?;
        let result = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true, "userGesture": true }),
            )
            .await?;
        if let Some(ex) = result.get("exceptionDetails") {
            let text = exception_text(ex);
            return Err(BrowserError::Invalid(format!(
                "the script threw: {}",
                self.scrub(text)
            )));
        }
        let r = &result["result"];
        let text = match (
            r.get("value"),
            r["unserializableValue"].as_str(),
            r["type"].as_str(),
        ) {
            (Some(v), _, _) => v.to_string(),
            (None, Some(u), _) => u.to_string(),
            (None, None, Some("undefined")) => "undefined".to_string(),
            _ => r["description"].as_str().unwrap_or("null").to_string(),
        };
        Ok(self.scrub(&text))
    }

    pub async fn cookies(&self) -> Result<Vec<Value>> {
        let url = self.url()?;
        let answer = self
            .call("Network.getCookies", json!({ "urls": [url] }))
            .await?;
        Ok(answer["cookies"].as_array().cloned().unwrap_or_default())
    }

    pub async fn set_cookie(&self, cookie: Value) -> Result<()> {
        let answer = self.call("Network.setCookie", cookie).await?;
        if answer["success"].as_bool() == Some(false) {
            return Err(BrowserError::Invalid(
                "the browser rejected that cookie (check its domain and path)".into(),
            ));
        }
        Ok(())
    }

    pub async fn clear_cookies(&self) -> Result<()> {
        let context = self.live.tab_context(&self.target).unwrap_or_default();
        self.live
            .cdp
            .call_raw(
                None,
                "Storage.clearCookies",
                json!({ "browserContextId": context }),
            )
            .await?;
        Ok(())
    }

    pub async fn answer_dialog(&self, accept: bool, prompt: Option<&str>) -> Result<()> {
        if self.state(|t| t.dialog.is_none())? {
            return Err(BrowserError::Invalid(
                "no dialog is open on this tab".into(),
            ));
        }
        let mut params = json!({ "accept": accept });
        if let Some(text) = prompt {
            params["promptText"] = json!(text);
        }
        self.call("Page.handleJavaScriptDialog", params).await?;
        self.state(|t| t.dialog = None)?;
        Ok(())
    }

    pub async fn close(&self) -> Result<()> {
        self.live
            .cdp
            .call_raw(
                None,
                "Target.closeTarget",
                json!({ "targetId": self.target }),
            )
            .await?;
        Ok(())
    }
}

/// What a screenshot covers.
#[derive(Debug, Clone, Copy)]
pub enum Area {
    Viewport,
    FullPage,
    Element(u64),
}
