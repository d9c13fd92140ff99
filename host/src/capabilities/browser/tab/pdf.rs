//! Printing a tab to PDF (`Page.printToPDF`, which only a headless Chromium offers).

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use base64::Engine as _;
use serde_json::json;

/// What to print and how.
#[derive(Debug, Clone, Default)]
pub struct PdfOptions {
    pub landscape: bool,
    pub print_background: bool,
    pub page_ranges: Option<String>,
    /// Paper size in inches.
    pub paper: Option<(f64, f64)>,
}

/// Check page ranges such as `1-3, 5` before the browser sees them.
pub fn check_ranges(ranges: &str) -> std::result::Result<(), String> {
    let bad = || {
        format!(
            "page ranges \"{ranges}\" are not like \"1-3, 5\": page numbers from 1, ranges with '-', separated by commas"
        )
    };
    for part in ranges.split(',') {
        let part = part.trim();
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b) = (a.trim(), b.trim());
        let num = |s: &str| s.is_empty() || s.parse::<u32>().is_ok_and(|n| n >= 1);
        if part.is_empty() || !num(a) || !num(b) {
            return Err(bad());
        }
        if let (Ok(x), Ok(y)) = (a.parse::<u32>(), b.parse::<u32>())
            && x > y
        {
            return Err(bad());
        }
    }
    Ok(())
}

impl Tab {
    pub async fn pdf(&self, o: &PdfOptions) -> Result<Vec<u8>> {
        self.no_dialog()?;
        let mut params = json!({
            "landscape": o.landscape,
            "printBackground": o.print_background,
            "transferMode": "ReturnAsBase64",
        });
        if let Some(ranges) = o.page_ranges.as_deref().filter(|r| !r.trim().is_empty()) {
            check_ranges(ranges).map_err(BrowserError::Invalid)?;
            params["pageRanges"] = json!(ranges);
        }
        if let Some((w, h)) = o.paper {
            let fits = |v: f64| v.is_finite() && (1.0..=200.0).contains(&v);
            if !fits(w) || !fits(h) {
                return Err(BrowserError::Invalid(format!(
                    "paper size {w} x {h} inches is out of range; give 1 to 200 inches per side"
                )));
            }
            params["paperWidth"] = json!(w);
            params["paperHeight"] = json!(h);
        }
        let printed = self
            .call("Page.printToPDF", params)
            .await
            .map_err(|e| match e {
                BrowserError::Io(m) if m.contains("range") => {
                    BrowserError::Invalid(format!("the page ranges do not fit this document ({m})"))
                }
                BrowserError::Io(m) if m.contains("not implemented") => BrowserError::Invalid(
                    "printing to PDF needs a headless browser ([browser] headless = true)".into(),
                ),
                other => other,
            })?;
        base64::engine::general_purpose::STANDARD
            .decode(printed["data"].as_str().unwrap_or_default())
            .map_err(|e| BrowserError::Io(format!("the PDF was not valid base64: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::check_ranges;

    #[test]
    fn page_ranges_are_checked() {
        for ok in ["1", "1-3", "1-3, 5", " 2 - 4 ,7", "3-", "-2"] {
            assert!(check_ranges(ok).is_ok(), "{ok}");
        }
        for bad in ["", "0", "a", "1,,2", "3-1", "1-2-3", "1;2"] {
            assert!(check_ranges(bad).is_err(), "{bad}");
        }
    }
}
