//! What Warden knows about a running browser, as plain data: no file here talks to the
//! browser. The event reducer (`events.rs`) and the effects (`live/`, `tab/`) change it.
//!
//! | file | job |
//! |---|---|
//! | `state.rs` | the browser's contexts, their owners, each tab's state |
//! | `owner.rs` | who a context or tab belongs to; which origin grant guards it |
//! | `navigation.rs` | a URL a tab may be sent to, made only from a checked plugin URL |
//! | `event.rs` | a CDP event as the reducer reads it |
//! | `downloads.rs` | where a session saves downloads, their progress, safe file names |
//! | `hold.rs` | which documents hold a secret the host typed, and what is withheld from them |
//! | `log.rs` | each tab's console and network log |
//! | `routes.rs` | a session's routes (block, mock) and emulation |
//! | `snapshot.rs` | a tab's frames and its last element snapshot |
//! | `static_page.rs` | a page the host read without the browser, and the response it holds |
//! | `conversations.rs` | the conversations that opened sessions and can end |
//! | `census.rs` | each plugin's tabs across the browsers of one provider |

pub mod census;
pub mod conversations;
pub mod downloads;
pub mod event;
pub mod hold;
pub mod log;
pub mod navigation;
pub mod owner;
pub mod routes;
pub mod snapshot;
pub mod state;
pub mod static_page;
