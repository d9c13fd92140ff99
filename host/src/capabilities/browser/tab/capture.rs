//! Screenshots of the viewport, the full page or one element.

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use base64::Engine as _;
use serde_json::json;
use std::time::Duration;

/// How long one attempt at a screenshot may take.
const SHOT_TIMEOUT: Duration = Duration::from_secs(5);

impl Tab {
    pub async fn screenshot(&self, area: Area, jpeg: bool) -> Result<Vec<u8>> {
        self.no_dialog()?;
        self.to_front().await?;
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
        // A tab the browser is not drawing (behind others) may never hand over a frame:
        // bring it to the front and ask once more, then give up with an error, never a hang.
        let mut shot = None;
        for attempt in 0..2 {
            if attempt > 0 {
                self.call("Page.bringToFront", json!({})).await?;
            }
            let capture = self.call("Page.captureScreenshot", params.clone());
            if let Ok(answer) = tokio::time::timeout(SHOT_TIMEOUT, capture).await {
                shot = Some(answer?);
                break;
            }
        }
        let shot = shot.ok_or_else(|| {
            BrowserError::Timeout(format!(
                "the browser drew no frame for the screenshot within {} s (the page may be stuck in a script); take a snapshot instead, or try again",
                2 * SHOT_TIMEOUT.as_secs()
            ))
        })?;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .map_err(|e| BrowserError::Io(format!("the screenshot was not valid base64: {e}")))
    }
}

/// Longest a screencast frame may take before it is skipped: a capture asked for while a
/// navigation swaps the page's renderer is never answered.
const FRAME_TIMEOUT: Duration = Duration::from_secs(1);

impl Tab {
    /// A JPEG of the viewport for a recording's screencast (`recording.rs`): the tab is not
    /// brought to the front (the recording must not change what the agent sees), so a tab
    /// the browser is not drawing gives none; a frame that takes too long is skipped.
    pub async fn screencast_frame(&self) -> Result<Option<Vec<u8>>> {
        if self.no_dialog().is_err() {
            return Ok(None);
        }
        let params = json!({ "format": "jpeg", "quality": 60 });
        let capture = self.call("Page.captureScreenshot", params);
        let Ok(shot) = tokio::time::timeout(FRAME_TIMEOUT, capture).await else {
            return Ok(None);
        };
        let shot = shot?;
        Ok(base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap_or_default())
            .ok())
    }
}

/// What a screenshot covers.
#[derive(Debug, Clone, Copy)]
pub enum Area {
    Viewport,
    FullPage,
    Element(u64),
}
