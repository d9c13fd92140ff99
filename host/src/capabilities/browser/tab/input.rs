//! Input on element handles and the keyboard: click, hover, focus, fill, type, press, select,
//! check, upload, scroll. Each action that may start a navigation settles after it
//! (`navigate.rs`).

use super::navigate::SETTLE;
use super::script::WORLD;
use super::{Tab, gone, split_handle};
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::keys;
use serde_json::{Value, json};
use std::time::Duration;

#[derive(Debug, Clone, Copy, Default)]
pub struct Click {
    /// "left", "middle" or "right".
    pub button: &'static str,
    pub count: u8,
    pub modifiers: i64,
}

impl Tab {
    pub(super) async fn mouse(&self, kind: &str, x: f64, y: f64, click: Click) -> Result<()> {
        let mut params = json!({ "type": kind, "x": x, "y": y, "modifiers": click.modifiers });
        if kind != "mouseMoved" {
            params["button"] = json!(click.button);
            params["clickCount"] = json!(click.count.max(1));
        }
        self.input("Input.dispatchMouseEvent", params).await
    }

    /// Send an input event; a dialog opened by it ends the wait (the browser answers the
    /// event only once the dialog is closed).
    pub(crate) async fn input(&self, method: &str, params: Value) -> Result<()> {
        self.to_front().await?;
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
    pub(crate) async fn point(&self, handle: u64) -> Result<(f64, f64)> {
        self.point_of(handle, false).await
    }

    /// [`Tab::point`]; with `force`, without the disabled and covered checks.
    pub(crate) async fn point_of(&self, handle: u64, force: bool) -> Result<(f64, f64)> {
        self.point_with(handle, force, false).await
    }

    /// [`Tab::point`]; with `hover`, without the disabled check.
    async fn point_with(&self, handle: u64, force: bool, hover: bool) -> Result<(f64, f64)> {
        let (frame, p) = self
            .on_node(handle, |n| format!("point({n}, {force}, {hover})"))
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

    pub(super) async fn click_with(&self, x: f64, y: f64, click: Click, popup: bool) -> Result<()> {
        self.no_dialog()?;
        let before = self.mark()?;
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
        self.settle_for(before, SETTLE, popup).await
    }

    pub async fn hover(&self, handle: u64) -> Result<()> {
        self.no_dialog()?;
        let before = self.mark()?;
        let (x, y) = self.point_with(handle, false, true).await?;
        self.mouse("mouseMoved", x, y, Click::default()).await?;
        // A hover may show a tooltip or a menu, or fetch what the menu shows.
        self.settle(before).await
    }

    pub async fn focus(&self, handle: u64) -> Result<()> {
        self.no_dialog()?;
        self.on_node(handle, |n| format!("focusOnly({n})"))
            .await
            .map(|_| ())
    }

    /// Whether a fill (of a secret, with `secret`) would take the element, changing nothing.
    pub async fn check_fill(&self, handle: u64, secret: bool) -> Result<()> {
        self.on_node(handle, |n| format!("fillable({n}, {secret})"))
            .await
            .map(|_| ())
    }

    /// Replace a text field's value as a user would: focus, select all, insert the text.
    pub async fn fill(&self, handle: u64, text: &str, secret: bool) -> Result<()> {
        self.no_dialog()?;
        let before = self.mark()?;
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
        self.settle_page(before).await
    }

    pub(super) async fn key_press(&self, modifiers: i64, key: &keys::Key) -> Result<()> {
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
        let before = self.mark()?;
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
        self.settle(before).await
    }

    pub async fn press(&self, combo: &str) -> Result<()> {
        self.no_dialog()?;
        let before = self.mark()?;
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
        self.settle(before).await
    }

    pub async fn select(&self, handle: u64, values: &[String]) -> Result<Vec<String>> {
        self.no_dialog()?;
        let before = self.mark()?;
        let (_, answer) = self
            .on_node(handle, |n| format!("select({n}, {})", json!(values)))
            .await?;
        self.settle_page(before).await?;
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
        // The frame's own session: node objects are per renderer.
        let session = self.frame_session(&frame)?;
        let world = self
            .call_on(
                &session,
                "Page.createIsolatedWorld",
                json!({ "frameId": frame, "worldName": WORLD, "grantUniveralAccess": false }),
            )
            .await?;
        let expression = format!(
            "(() => {{ const w = globalThis.__warden; return w && w.doc === {doc} ? w.find({node}) : null; }})()"
        );
        let found = self
            .call_on(
                &session,
                "Runtime.evaluate",
                json!({ "expression": expression, "contextId": world["executionContextId"], "returnByValue": false }),
            )
            .await?;
        let object = found["result"]["objectId"]
            .as_str()
            .ok_or_else(|| gone(handle))?
            .to_string();
        let before = self.mark()?;
        self.call_on(
            &session,
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
        self.settle(before).await
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
}
