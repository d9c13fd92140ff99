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

pub use super::model::static_page::{Prefetched, StaticView};
