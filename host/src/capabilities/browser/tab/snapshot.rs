//! The element snapshot: `page.js` `snapshot()` in every readable frame, each placed at its
//! iframe's offset in the main frame's viewport. The last snapshot of each kind is kept:
//! while no frame's document or stamp (`page.js` `stamp()`: a count of the DOM's mutations
//! and of input, focus, hover and scroll events, the URL, the fields' values) changed, it is
//! the answer, so paging through a huge page reads it once.

use super::Tab;
use crate::capabilities::browser::error::Result;
pub use crate::capabilities::browser::model::snapshot::{Frame, FrameSnapshot, Kept};
use serde_json::json;
use std::sync::Arc;

impl Tab {
    pub async fn snapshot(&self, include_text: bool) -> Result<Arc<Vec<FrameSnapshot>>> {
        if let Some(view) = self.static_snapshot(include_text)? {
            return Ok(view);
        }
        self.no_dialog()?;
        let frames = self.frames().await?;
        if let Some(kept) = self.unchanged(&frames, include_text).await {
            return Ok(kept);
        }
        let started = std::time::Instant::now();
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
            self.mark_clickable(&frame.id).await;
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
        let stamps = out
            .iter()
            .map(|f| {
                let read = f.data.as_ref().and_then(|(doc, d)| {
                    let version = d["version"].as_str()?;
                    Some((*doc, version.to_string()))
                });
                (f.frame.id.clone(), read)
            })
            .collect();
        tracing::debug!(
            frames = out.len(),
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "snapshot read"
        );
        let out = Arc::new(out);
        let kept = Arc::new(Kept {
            stamps,
            frames: Arc::clone(&out),
        });
        self.state(|t| t.snapshots[usize::from(include_text)] = Some(kept))?;
        Ok(out)
    }

    /// The kept snapshot of this kind, if every frame is the same document at the same
    /// version as when it was read.
    async fn unchanged(
        &self,
        frames: &[Frame],
        include_text: bool,
    ) -> Option<Arc<Vec<FrameSnapshot>>> {
        let kept = self
            .state(|t| t.snapshots[usize::from(include_text)].clone())
            .ok()??;
        if kept.stamps.len() != frames.len() {
            return None;
        }
        for (frame, (id, stamp)) in frames.iter().zip(&kept.stamps) {
            let (doc, version) = stamp.as_ref()?;
            if frame.id != *id {
                return None;
            }
            // Another document answers `{gone: true}`, which is no stamp.
            let (_, now) = self.world(&frame.id, "stamp()", Some(*doc)).await.ok()?;
            if now.as_str() != Some(version.as_str()) {
                return None;
            }
        }
        Some(Arc::clone(&kept.frames))
    }
}
