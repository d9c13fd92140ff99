//! The element snapshot: `page.js` `snapshot()` in every readable frame, each placed at its
//! iframe's offset in the main frame's viewport.

use super::Tab;
use super::script::Frame;
use crate::capabilities::browser::error::Result;
use serde_json::{Value, json};

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

impl Tab {
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
}
