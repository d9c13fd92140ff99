//! One tab of a running browser ([`Tab`]) and what can be done with it, one job per file:
//!
//! | file | job |
//! |---|---|
//! | `navigate.rs` | navigation, history, reload, and the settle after an action |
//! | `wait.rs` | waiting for text, a selector or a URL |
//! | `script.rs` | frames, Warden's isolated world (`page.js`), evaluation |
//! | `snapshot.rs` | the element snapshot of every frame |
//! | `input.rs` | click, hover, focus, fill, type, press, select, check, upload, scroll |
//! | `pointer.rs` | drags, taps, the forced click |
//! | `dialog.rs` | JavaScript dialogs |
//! | `capture.rs` | screenshots |
//! | `pdf.rs`, `extract.rs` | printing and reading the page |
//! | `cookies.rs`, `storage.rs` | cookies, local and session storage |
//!
//! Element handles are `frame number << 32 | node number`; node numbers come from
//! `page.js`, which runs in Warden's isolated world of each frame and keeps the same number
//! for the same DOM node.

mod capture;
mod cookies;
mod dialog;
mod extract;
mod input;
mod navigate;
mod pdf;
mod pointer;
mod script;
mod snapshot;
mod storage;
mod wait;

pub use capture::Area;
pub use input::Click;
pub use navigate::WaitUntil;
pub use pdf::PdfOptions;
pub use pointer::{DragKind, DragTo};
pub use snapshot::FrameSnapshot;
pub use storage::Area as StorageArea;

use super::error::{BrowserError, Result};
use super::live::Live;
use super::state::TabState;
use serde_json::{Value, json};
use std::sync::Arc;

const MASK: &str = "••••";

/// A tab of a running browser.
#[derive(Clone)]
pub struct Tab {
    pub live: Arc<Live>,
    pub target: String,
}

/// The message of a `Runtime.evaluate` exception.
pub(super) fn exception_text(ex: &Value) -> &str {
    ex["exception"]["description"]
        .as_str()
        .or_else(|| ex["text"].as_str())
        .unwrap_or("unknown error")
}

pub fn split_handle(handle: u64) -> (u32, u64) {
    ((handle >> 32) as u32, handle & 0xffff_ffff)
}

pub(super) fn gone(handle: u64) -> BrowserError {
    BrowserError::Stale(format!(
        "element {handle} is gone from the page (the page changed); take a new snapshot"
    ))
}

impl Tab {
    pub(crate) fn session(&self) -> Result<String> {
        self.live.with_tab(&self.target, |t| t.session.clone())
    }

    pub(crate) fn state<R>(&self, f: impl FnOnce(&mut TabState) -> R) -> Result<R> {
        self.live.with_tab(&self.target, f)
    }

    pub(crate) async fn call(&self, method: &str, params: Value) -> Result<Value> {
        let session = self.session()?;
        Ok(self
            .live
            .cdp
            .call_raw(Some(&session), method, params)
            .await?)
    }

    /// Replace every secret typed into this tab (and its encodings, see `secrets.rs`) with a mask.
    pub fn scrub(&self, text: &str) -> String {
        let secrets = self.state(|t| t.secrets.clone()).unwrap_or_default();
        crate::capabilities::browser::secrets::scrub(text, &secrets, MASK)
    }

    pub fn url(&self) -> Result<String> {
        self.state(|t| t.url.clone())
    }

    pub async fn close(&self) -> Result<()> {
        self.live
            .cdp
            .call_raw(
                None,
                "Target.closeTarget",
                json!({ "targetId": self.target }),
            )
            .await?;
        Ok(())
    }
}
