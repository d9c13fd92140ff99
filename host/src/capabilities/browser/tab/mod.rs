//! One tab of a running browser ([`Tab`]) and what can be done with it, one job per file:
//!
//! | file | job |
//! |---|---|
//! | `base.rs` | the tab itself: its state, its CDP calls, handles, closing |
//! | `hold.rs` | what a tab that held a secret the host typed still shows |
//! | `navigate.rs` | navigation, history, reload, the settle after an action, and leaving a document the commit rule refused |
//! | `wait.rs` | waiting for text, a selector or a URL |
//! | `script.rs` | frames, Warden's isolated world (`page.js`), evaluation |
//! | `snapshot.rs` | the element snapshot of every frame |
//! | `static_view.rs` | a page the host read without the browser (`static_page/`), until an action needs it |
//! | `clickable.rs` | marking what the page made clickable with a listener alone |
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

mod base;
mod capture;
mod clickable;
mod cookies;
mod dialog;
mod extract;
mod hold;
mod input;
pub(crate) mod marks;
mod navigate;
mod pdf;
mod pointer;
pub(super) mod script;
pub(crate) mod secrets;
mod snapshot;
mod static_view;
mod storage;
mod wait;

pub use base::{Tab, split_handle};
pub(crate) use base::{exception_text, gone};
pub use capture::Area;
pub use input::Click;
pub use navigate::WaitUntil;
pub use pdf::PdfOptions;
pub use pointer::{DragKind, DragTo};
pub use snapshot::FrameSnapshot;
pub use static_view::Outcome as StaticOutcome;
pub use storage::Area as StorageArea;
