//! The browser's network guard: a filtering forward proxy Warden runs for every browser
//! context (and one for each launched browser's default context), through which Chromium
//! sends every connection any page, frame, worker or browser feature makes, loopback
//! included (`<-loopback>`). It is the one choke point for the browser's network; CDP Fetch
//! interception (`events.rs`) stays in front of it for documents only, for the clear
//! per-navigation message.
//!
//! | file | job |
//! |---|---|
//! | `shared.rs` | what a guard's connections share; the [`Owners`] trait it reads whose grants apply through |
//! | `net_guard.rs` | a running guard ([`NetGuard`]), and its rules for the host's own requests ([`HostRequests`]) |
//! | `proxy.rs` | the HTTP proxy server: CONNECT tunnels, absolute-form requests, 403 refusals |
//! | `policy.rs` | the decision: grants of the context's owners, private-network rule, Warden's own listeners (`crate::net::forbidden`); for the browser's requests and the host's ([`HostRequests`]) |
//! | `upstream.rs` | connecting to the checked address, directly or through an admin's upstream proxy |
//! | `deny_log.rs` | aggregated audit lines for refusals |
//! | `failures.rs` | why a connection was not carried, for the navigation that asked for it |
//!
//! Whose grants apply is read from the browser's state at each connection (the context's
//! owner; in the capture browser's default context, the one plugin occupying it), so a
//! manifest reload applies to open sessions at once.

mod deny_log;
pub mod failures;
pub mod listen;
mod net_guard;
pub mod policy;
mod proxy;
mod shared;
pub mod upstream;

pub use super::model::owner::Guard;
pub use net_guard::{BYPASS, HostRequests, NetGuard};
pub use shared::Owners;
