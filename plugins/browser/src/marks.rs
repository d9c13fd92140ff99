//! Marked screenshots (set-of-mark): the interactive elements the image shows, each framed
//! and tagged with its `@eN` ref, so a vision model can name what it sees by ref.

use crate::memory::TabRefs;
use crate::render::{self, Mode};
use warden_sdk::browser::{Area, ElementStates, Rect};
use warden_sdk::prelude::*;

/// At most this many labels: beyond, the page would disappear under them.
pub const MAX_MARKS: usize = 300;

/// Whether two rects overlap.
fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

/// The screenshot with marks, and the line that says how many were drawn.
pub fn shoot(tab: &mut TabRefs, area: Area, jpeg: bool) -> Result<(Vec<u8>, String), ToolError> {
    let snap = tab.page.snapshot(false)?;
    // Refs as the snapshot gives them (overlays first).
    render::render(&snap, &mut tab.refs, Mode::Interactive);
    let within = match area {
        Area::Element(h) => snap
            .elements
            .iter()
            .find(|e| e.handle == h)
            .and_then(|e| e.bounds),
        _ => None,
    };
    let mut marks = Vec::new();
    let mut left_out = 0;
    for e in snap.elements.iter().filter(|e| e.interactive) {
        let Some(b) = e.bounds.filter(|b| b.width > 0.0 && b.height > 0.0) else {
            continue;
        };
        let shown = match area {
            Area::Viewport => !e.states.contains(ElementStates::OFFSCREEN),
            Area::FullPage => true,
            Area::Element(h) => e.handle != h && within.is_some_and(|w| overlaps(&w, &b)),
        };
        if !shown {
            continue;
        }
        if marks.len() == MAX_MARKS {
            left_out += 1;
            continue;
        }
        marks.push((b, format!("@e{}", tab.refs.ref_of(e.handle))));
    }
    let bytes = tab
        .page
        .screenshot_marked(area, jpeg, &marks)
        .map_err(crate::element_errors::element_error)?;
    let mut note = format!("{} element(s) marked with their @eN ref", marks.len());
    if left_out > 0 {
        note.push_str(&format!(
            " ({left_out} more not marked: at most {MAX_MARKS}; take one element's screenshot with ref to see them)"
        ));
    }
    Ok((bytes, note))
}
