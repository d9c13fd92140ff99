//! `browse_drag` (mouse, native HTML5 drag-and-drop, touch swipe) and `browse_pdf`.

use crate::actions::act;
use crate::memory;
use crate::refs::RefArg;
use warden_sdk::browser::{DragKind, DragTo, PdfOptions};
use warden_sdk::prelude::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DragArgs {
    /// N of @eN.
    #[serde(rename = "ref")]
    element: RefArg,
    /// Drop on it.
    to_ref: Option<RefArg>,
    /// Or move by dx, dy (sliders).
    dx: Option<f64>,
    dy: Option<f64>,
    /// Or drop at viewport x, y.
    x: Option<f64>,
    y: Option<f64>,
    steps: Option<u32>,
    /// Swipe with a finger.
    touch: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PdfArgs {
    landscape: Option<bool>,
    print_background: Option<bool>,
    /// Like 1-3, 5.
    pages: Option<String>,
    /// letter (default), legal, a4...
    paper: Option<String>,
}

/// Paper sizes in inches.
fn paper_size(name: &str) -> Option<(f64, f64)> {
    Some(match name.to_ascii_lowercase().as_str() {
        "letter" => (8.5, 11.0),
        "legal" => (8.5, 14.0),
        "tabloid" => (11.0, 17.0),
        "a3" => (11.69, 16.54),
        "a4" => (8.27, 11.69),
        "a5" => (5.83, 8.27),
        _ => return None,
    })
}

/// The number of pages of a PDF: its `/Type /Page` objects (not `/Pages`).
pub fn pdf_pages(pdf: &[u8]) -> usize {
    let mut count = 0;
    let mut rest = pdf;
    while let Some(i) = find(rest, b"/Type") {
        rest = &rest[i + 5..];
        let after = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map_or(&[][..], |j| &rest[j..]);
        if after.starts_with(b"/Page") && !after.get(5).is_some_and(u8::is_ascii_alphanumeric) {
            count += 1;
        }
    }
    count
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn browse_drag(args: DragArgs) -> Result<String, ToolError> {
    let to = memory::with(|st| -> Result<DragTo, ToolError> {
        let tab = st.existing_tab()?;
        match (&args.to_ref, args.dx.or(args.dy), args.x, args.y) {
            (Some(r), None, None, None) => Ok(DragTo::Element(tab.refs.handle(r.number()?)?)),
            (None, Some(_), None, None) => Ok(DragTo::Offset(
                args.dx.unwrap_or(0.0),
                args.dy.unwrap_or(0.0),
            )),
            (None, None, Some(x), Some(y)) => Ok(DragTo::Point(x, y)),
            _ => Err(ToolError::invalid_arguments(
                "say where to drop: to_ref (an element), or dx/dy (an offset from the element), or x and y (a point of the viewport)",
            )),
        }
    })?;
    let steps = args.steps.unwrap_or(0).min(100);
    let touch = args.touch.unwrap_or(false);
    let from = args.element.number().unwrap_or(0);
    act(&args.element, |tab, h| {
        let kind = tab.page.drag(h, to, steps, touch)?;
        let target = match (&args.to_ref, to) {
            (Some(r), _) => format!("@e{}", r.number().unwrap_or(0)),
            (None, DragTo::Offset(dx, dy)) => format!("{dx:+}, {dy:+} px"),
            (None, DragTo::Point(x, y)) => format!("({x}, {y})"),
            (None, DragTo::Element(_)) => "the target".into(),
        };
        Ok(match kind {
            DragKind::Html5 => {
                format!("Dragged @e{from} to {target} (HTML5 drag and drop).")
            }
            DragKind::Touch => format!("Swiped @e{from} to {target}."),
            DragKind::Mouse => format!("Dragged @e{from} to {target}."),
        })
    })
}

fn browse_pdf(args: PdfArgs) -> Result<ToolOutput, ToolError> {
    let paper_name = args.paper.as_deref().unwrap_or("letter");
    let (w, h) = paper_size(paper_name).ok_or_else(|| {
        ToolError::invalid_arguments(format!(
            "paper \"{paper_name}\" is not one of letter, legal, tabloid, a3, a4, a5"
        ))
    })?;
    let landscape = args.landscape.unwrap_or(false);
    let options = PdfOptions {
        landscape,
        print_background: args.print_background.unwrap_or(false),
        page_ranges: args.pages.clone(),
        paper_width: Some(w),
        paper_height: Some(h),
    };
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let bytes = tab.page.pdf(&options)?;
        let url = tab.page.url().unwrap_or_default();
        let summary = format!(
            "PDF of {url}: {} page(s), {} bytes ({}, {}).",
            pdf_pages(&bytes),
            bytes.len(),
            paper_name.to_ascii_lowercase(),
            if landscape { "landscape" } else { "portrait" }
        );
        let resource = EmbeddedResource::blob(format!("browser://tab/{}/page.pdf", tab.id), bytes)
            .mime_type("application/pdf");
        Ok(ToolOutput::text(summary).with(Content::Resource(resource)))
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_drag", browse_drag)
            .description(
                "Drag an element onto another, by an offset or to a point (lists, sliders); \
                 returns what changed.",
            )
            .open_world(),
    )
    .tool(
        Tool::new("browse_pdf", browse_pdf)
            .description("Print the page to PDF, returned as an embedded resource.")
            .read_only(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_pages_counts_page_objects_only() {
        let pdf = b"%PDF-1.4\n1 0 obj <</Type /Pages /Kids [3 0 R 4 0 R] /Count 2>>\n\
                    3 0 obj <</Type /Page /Parent 1 0 R>>\n4 0 obj <</Type/Page>>\n\
                    5 0 obj <</Type /PageLabel>>";
        assert_eq!(pdf_pages(pdf), 2);
        assert_eq!(pdf_pages(b"not a pdf"), 0);
    }

    #[test]
    fn paper_names() {
        assert_eq!(paper_size("A4"), Some((8.27, 11.69)));
        assert_eq!(paper_size("letter"), Some((8.5, 11.0)));
        assert_eq!(paper_size("b5"), None);
    }
}
