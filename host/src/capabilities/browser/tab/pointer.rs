//! Pointer gestures beyond a click: drags (mouse, native HTML5, touch), taps, and the forced
//! DOM click that skips the actionability checks.
//!
//! Chromium does not start a native HTML5 drag from synthetic mouse events on its own: with
//! `Input.setInterceptDrags` it reports the drag the page started (`Input.dragIntercepted`,
//! kept in the tab's state) and Warden carries it out with `Input.dispatchDragEvent`.

use super::{Tab, split_handle};
use crate::capabilities::browser::error::{BrowserError, Result};
use serde_json::{Value, json};
use std::time::Duration;

/// Intermediate moves of a drag when the caller gives none.
const DEFAULT_STEPS: u32 = 10;
const MAX_STEPS: u32 = 100;
/// How long to wait for the browser to hand over a native drag the page started.
const DRAG_HANDOVER: Duration = Duration::from_secs(2);

/// Where a drag ends.
#[derive(Debug, Clone, Copy)]
pub enum DragTo {
    Element(u64),
    Point(f64, f64),
    /// Relative to where the drag starts.
    Offset(f64, f64),
}

/// How a drag was carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DragKind {
    Mouse,
    Html5,
    Touch,
}

/// The points of a straight move from `from` to `to` in `steps` moves (the last is `to`).
pub fn path(from: (f64, f64), to: (f64, f64), steps: u32) -> Vec<(f64, f64)> {
    let steps = steps.clamp(1, MAX_STEPS);
    (1..=steps)
        .map(|i| {
            let f = f64::from(i) / f64::from(steps);
            (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f)
        })
        .collect()
}

impl Tab {
    /// Mouse event with the left button held (`buttons: 1`) or not.
    async fn mouse_event(&self, kind: &str, (x, y): (f64, f64), held: bool) -> Result<()> {
        let mut params = json!({ "type": kind, "x": x, "y": y, "buttons": i32::from(held) });
        if kind != "mouseMoved" || held {
            params["button"] = json!("left");
        }
        if kind != "mouseMoved" {
            params["clickCount"] = json!(1);
        }
        self.input("Input.dispatchMouseEvent", params).await
    }

    async fn touch_event(&self, kind: &str, at: Option<(f64, f64)>) -> Result<()> {
        let points: Vec<Value> = at
            .map(|(x, y)| json!({ "x": x, "y": y, "radiusX": 1, "radiusY": 1, "force": 1 }))
            .into_iter()
            .collect();
        self.input(
            "Input.dispatchTouchEvent",
            json!({ "type": kind, "touchPoints": points }),
        )
        .await
    }

    /// Make the tab a touch device (touch events, `pointer: coarse`), once per call is cheap.
    async fn touch_on(&self) -> Result<()> {
        self.call(
            "Emulation.setTouchEmulationEnabled",
            json!({ "enabled": true, "maxTouchPoints": 5 }),
        )
        .await
        .map(|_| ())
    }

    fn dialog_open(&self) -> Result<bool> {
        self.state(|t| t.dialog.is_some())
    }

    /// Tap an element with a finger: touch start and end at its center.
    pub async fn tap(&self, handle: u64) -> Result<()> {
        self.no_dialog()?;
        let before = self.mark()?;
        let at = self.point(handle).await?;
        self.touch_on().await?;
        self.touch_event("touchStart", Some(at)).await?;
        if self.dialog_open()? {
            return Ok(());
        }
        self.touch_event("touchEnd", None).await?;
        self.settle(before).await
    }

    /// Click the element itself (a DOM click), without the enabled and not-covered checks.
    pub async fn force_click(&self, handle: u64) -> Result<()> {
        self.no_dialog()?;
        let before = self.mark()?;
        self.on_node(handle, |n| format!("domClick({n})")).await?;
        self.settle(before).await
    }

    /// Drag from an element to an element or a point.
    pub async fn drag(&self, from: u64, to: DragTo, steps: u32, touch: bool) -> Result<DragKind> {
        self.no_dialog()?;
        let before = self.mark()?;
        let steps = if steps == 0 { DEFAULT_STEPS } else { steps };
        let start = self.point(from).await?;
        let end = match to {
            // The drop target may well sit under what is dragged: no covered check there.
            DragTo::Element(h) => self.point_of(h, true).await?,
            DragTo::Point(x, y) => (x, y),
            DragTo::Offset(dx, dy) => (start.0 + dx, start.1 + dy),
        };
        let kind = if touch {
            self.touch_on().await?;
            self.touch_event("touchStart", Some(start)).await?;
            for p in path(start, end, steps) {
                self.touch_event("touchMove", Some(p)).await?;
            }
            self.touch_event("touchEnd", None).await?;
            DragKind::Touch
        } else {
            self.mouse_drag(from, start, end, steps).await?
        };
        self.settle(before).await?;
        Ok(kind)
    }

    async fn mouse_drag(
        &self,
        from: u64,
        start: (f64, f64),
        end: (f64, f64),
        steps: u32,
    ) -> Result<DragKind> {
        let (doc, _) = split_handle(from);
        let (frame, _) = self.on_node(from, |_| "watchDrag()".into()).await?;
        self.state(|t| t.drag = None)?;
        self.call("Input.setInterceptDrags", json!({ "enabled": true }))
            .await?;
        let result = self.mouse_moves(&frame, doc, start, end, steps).await;
        let _ = self
            .call("Input.setInterceptDrags", json!({ "enabled": false }))
            .await;
        let _ = self.world(&frame, "dragStarted(true)", Some(doc)).await;
        result
    }

    async fn mouse_moves(
        &self,
        frame: &str,
        doc: u32,
        start: (f64, f64),
        end: (f64, f64),
        steps: u32,
    ) -> Result<DragKind> {
        self.mouse_event("mouseMoved", start, false).await?;
        self.mouse_event("mousePressed", start, true).await?;
        let moves = path(start, end, steps);
        for (i, &p) in moves.iter().enumerate() {
            if self.dialog_open()? {
                return Ok(DragKind::Mouse);
            }
            self.mouse_event("mouseMoved", p, true).await?;
            let (_, started) = self.world(frame, "dragStarted(false)", Some(doc)).await?;
            if started.as_bool() == Some(true) {
                let data = self
                    .live
                    .wait_tab(&self.target, DRAG_HANDOVER, |t| t.drag.clone())
                    .await
                    .map_err(|()| {
                        BrowserError::Io(
                            "the page started a drag but the browser did not hand it over".into(),
                        )
                    })?;
                self.html5_drop(&data, p, &moves[i + 1..], end).await?;
                return Ok(DragKind::Html5);
            }
        }
        self.mouse_event("mouseReleased", end, false).await?;
        Ok(DragKind::Mouse)
    }

    /// Carry out a native drag: enter at `at`, move over the rest of the path, drop at `end`.
    async fn html5_drop(
        &self,
        data: &Value,
        at: (f64, f64),
        rest: &[(f64, f64)],
        end: (f64, f64),
    ) -> Result<()> {
        let drag = |kind: &str, (x, y): (f64, f64)| json!({ "type": kind, "x": x, "y": y, "data": data, "modifiers": 0 });
        self.input("Input.dispatchDragEvent", drag("dragEnter", at))
            .await?;
        for &p in rest {
            self.input("Input.dispatchDragEvent", drag("dragOver", p))
                .await?;
        }
        self.input("Input.dispatchDragEvent", drag("dragOver", end))
            .await?;
        self.input("Input.dispatchDragEvent", drag("drop", end))
            .await?;
        self.state(|t| t.drag = None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_ends_on_the_target_in_even_steps() {
        let p = path((0.0, 0.0), (100.0, 50.0), 4);
        assert_eq!(
            p,
            vec![(25.0, 12.5), (50.0, 25.0), (75.0, 37.5), (100.0, 50.0)]
        );
        assert_eq!(path((1.0, 1.0), (2.0, 2.0), 0), vec![(2.0, 2.0)]);
        assert_eq!(path((0.0, 0.0), (1.0, 1.0), 10_000).len(), 100);
    }
}
