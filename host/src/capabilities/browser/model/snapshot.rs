//! A tab's frames and the element snapshot read of them, kept until the page changes.

use serde_json::Value;
use std::sync::Arc;

/// A frame of the tab, in document order (parents before children).
#[derive(Debug, Clone)]
pub struct Frame {
    pub id: String,
    pub parent: Option<usize>,
    pub url: String,
    pub name: String,
}

/// A tab's last snapshot of one kind (with or without text), and what it was read from.
pub struct Kept {
    /// Each frame's id, and its document and stamp when it was read (none: not read).
    pub(crate) stamps: Vec<(String, Option<(u32, String)>)>,
    pub(crate) frames: Arc<Vec<FrameSnapshot>>,
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
