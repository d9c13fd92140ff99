//! The no-JavaScript fast path: a page that runs no script is fetched and parsed by the host
//! into the same snapshot `page.js` gives, without a Chromium navigation. The tab keeps
//! showing its previous document until an action needs the page itself; then the browser
//! loads it from the response the host already holds (no second request, so a one-time
//! link is not spent twice) and `page.js` gives the same node numbers to the same elements,
//! so the agent's refs stay valid.
//!
//! | file | job |
//! |---|---|
//! | `fetch.rs` | the request, decided by the tab's network guard; the context's cookies |
//! | `response.rs` | whether the host can read the answer as the browser shows it |
//! | `encoding.rs` | which text the bytes are, as Chromium decodes them, when that is certain |
//! | `parse/` | HTML to `page.js`'s snapshot JSON, and whether the page needs the browser |
//!
//! A page the host cannot read exactly as Chromium shows it (it runs script, sets cookies,
//! its encoding is not certainly UTF-8 or plain ASCII, it did not answer 200...) goes to the
//! browser, which is answered from the same response.

pub mod encoding;
pub mod fetch;
pub mod parse;
pub mod response;

use super::guard::navigation::Navigation;
use serde_json::Value;

/// A response the host fetched and the browser is answered with when it asks for the same
/// document (`Fetch.fulfillRequest`), instead of sending the request again.
#[derive(Debug, Clone)]
pub struct Prefetched {
    pub url: String,
    pub status: u16,
    /// As received, minus the framing headers the body no longer matches.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// A page the host read without the browser: what the tab shows to the plugin until an action
/// needs the browser's document.
#[derive(Debug, Clone)]
pub struct StaticView {
    /// The URL asked for (checked), which the browser loads when it takes over.
    pub nav: Navigation,
    pub url: String,
    pub title: String,
    /// The document number its handles carry: reserved in the tab's numbering, and given to
    /// the browser's document when it loads the page.
    pub doc: u32,
    /// `page.js` `snapshot()` JSON without and with text.
    pub snapshots: [Value; 2],
    /// Node numbers the snapshots name, with what proves their elements' identity to
    /// `page.js` `adopt`, and how many elements the document has.
    pub nodes: Vec<parse::identity::Identity>,
    pub elements: u64,
    /// The document's HTML (for `extract`).
    pub html: String,
    /// The response, to load the page from in the browser.
    pub response: Prefetched,
}
