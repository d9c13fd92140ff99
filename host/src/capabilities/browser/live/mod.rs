//! A running browser ([`Live`]) and everything Warden does to it as a whole, one job per
//! file; what is done to one tab is in `tab/`.
//!
//! | file | job |
//! |---|---|
//! | `browser.rs` | connecting, contexts (sessions), the tab registry, waits, closing |
//! | `events.rs` | carrying out what the event reducer says an event calls for |
//! | `guarded.rs` | contexts behind a network guard of their own; whose grants a guard answers for |
//! | `downloads.rs` | where each context saves downloads; placing a finished one |
//! | `routes.rs` | changing a session's routes |

pub(crate) mod adopt;
mod browser;
pub(crate) mod caps;
mod downloads;
pub(crate) mod emulation;
mod events;
mod guarded;
pub(crate) mod occupancy;
pub(crate) mod profiles;
mod routes;
pub(crate) mod saved_state;

pub use browser::Live;
pub(crate) use browser::{SETUP_TIMEOUT, Setup, control_endpoint};
