//! Set-of-mark screenshots: each interactive element framed and tagged with its `@eN` on
//! the image, for vision models. The labels are drawn by the page script in a closed shadow
//! root of the main frame, above everything, and removed right after the screenshot.

use crate::capabilities::browser::error::Result;
use crate::capabilities::browser::tab::{Area, Tab};
use serde_json::json;

/// At most this many marks are drawn (more would hide the page under labels).
pub const MAX_MARKS: usize = 300;

/// One mark: where the element is in the main frame's viewport (CSS pixels), and its label.
pub struct Mark {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub label: String,
}

impl Tab {
    pub async fn screenshot_marked(
        &self,
        area: Area,
        jpeg: bool,
        marks: &[Mark],
    ) -> Result<Vec<u8>> {
        let list: Vec<_> = marks
            .iter()
            .take(MAX_MARKS)
            .map(|m| json!([m.x, m.y, m.width, m.height, m.label]))
            .collect();
        self.world(&self.target, &format!("showMarks({})", json!(list)), None)
            .await?;
        let shot = self.screenshot(area, jpeg).await;
        // The labels go whether or not the screenshot worked.
        let hidden = self.world(&self.target, "hideMarks()", None).await;
        let bytes = shot?;
        hidden?;
        Ok(bytes)
    }
}
