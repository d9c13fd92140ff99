//! A real Chromium driven by the host (`warden:browser/browser`). Every navigation is
//! checked against the plugin's `browser.origins` grant, in the browser itself.
//!
//! The snapshot types ([`Snapshot`], [`Element`], ...) are plain data; element handles are
//! stable for the same DOM node, so a plugin can map them to short references of its own.

use crate::bindings::warden::browser::browser as wit;

mod net;
mod options;
mod page;

pub use net::*;
pub use options::{Area, DragTo, WaitCondition, WaitUntil};
pub use page::{
    Page, attach_tab, close_session, first_page, list_sessions, list_tabs, open_page, search,
};

pub use wit::{
    ClickOptions, ContentFormat, Cookie, DialogInfo, Download, DownloadStatus, DragKind, Element,
    ElementStates, FrameInfo, Modifiers, MouseButton, Overlay, PageContent, PageMeta, PdfOptions,
    Rect, SearchResult, Snapshot, TabInfo,
};
