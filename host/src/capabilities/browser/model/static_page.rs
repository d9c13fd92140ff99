//! What the fast path (`static_page/`) leaves in a tab: the page the host read without the
//! browser, and the response the browser is answered with when it asks for that document.

use super::navigation::Navigation;
use crate::capabilities::browser::static_page::parse::identity::Identity;
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
    pub nodes: Vec<Identity>,
    pub elements: u64,
    /// The document's HTML (for `extract`).
    pub html: String,
    /// The response, to load the page from in the browser.
    pub response: Prefetched,
}
