//! `warden:browser`: a real Chromium for plugins. Every call checks the plugin's browser
//! grant; every request the browser makes passes the network guard (`guard/`); `eval_js`,
//! cookies and secrets have grants of their own. Secret values never reach the plugin.
//!
//! | file | job |
//! |---|---|
//! | `wit/` | the WIT host side: grant checks, handles, conversions, one file per part of the interface |
//! | `provider.rs` | starting and restarting the browser; sessions with browsers of their own (profiles', the fleet's) |
//! | `fleet.rs` | the remote browsers of `[browser] endpoints`: placing sessions, health checks |
//! | `launch.rs` | launching the Chromium process (flags, profile, DevTools pipe) |
//! | `udp.rs` | keeping UDP in a launched browser (WebRTC policy, no lookups, a seccomp filter) |
//! | `live.rs` | a running browser: connecting, contexts (sessions), the tab registry, waits |
//! | `state.rs` | what Warden knows about the browser: contexts, owners, each tab's state |
//! | `events.rs` | the CDP event reducer: event in, state change and commands out (pure, tested) |
//! | `guard/` | the network guard (a filtering proxy per context) |
//! | `tab/` | one tab: navigation, input, dialogs, screenshots, snapshot, ... |
//! | `caps.rs` | per-plugin caps on sessions and tabs |
//! | `leases.rs` | a tab serves one call at a time: the call that holds it, the calls that wait |
//! | `routes.rs`, `emulation.rs`, `profiles.rs`, `adopt.rs` | session routes, emulation, profiles, adopting a manifest |
//! | `secrets.rs`, `observe.rs`, `keys.rs`, `cdp.rs`, `error.rs` | secrets, logs, key tables, the CDP connection, errors |
//! | `marks.rs` | `@eN` marks drawn on a screenshot (set-of-mark) |
//! | `holding.rs` | pages that hold a secret the host typed: what the plugin may still read of them |
//! | `occupancy.rs` | the persistent profile's context serves one plugin's capture calls at a time |
//! | `saved_state.rs` | session states saved in the host, and sessions opened from them |
//! | `downloads.rs` | where sessions save downloads, their progress, the size cap |
//! | `search.rs` | web search through the manifest's `[search]` backend |
//! | `static_page/` | the no-JavaScript fast path: pages read and parsed by the host, without a tab |

mod adopt;
pub mod bindings;
mod caps;
mod cdp;
mod conversations;
mod emulation;
pub(crate) mod error;
mod events;
mod fleet;
#[doc(hidden)]
pub mod fuzzing;
mod guard;
mod keys;
mod launch;
pub(crate) mod leases;
pub(crate) mod live;
mod model;
mod marks;
pub(crate) mod occupancy;
mod profiles;
pub(crate) mod provider;
mod saved_state;
mod scope;
mod search;
mod secrets;
mod static_page;
pub(crate) mod tab;
mod udp;
mod wit;

pub(crate) use model::navigation;
pub(crate) use model::owner::Guard;
pub(crate) use model::state;
pub use provider::BrowserProvider;

use super::HasView;
use super::view::{Base, Project};
use bindings::warden::browser::browser as browser_iface;
use bindings::warden::browser::types;
use std::ops::Deref;
use std::sync::Arc;
use wasmtime::component::Linker;

/// A plugin's browser context: its grants and audit scope, and the shared browser provider
/// (each plugin's sessions are browser contexts of their own).
pub struct BrowserCtx {
    pub base: Base,
    pub browser: Arc<BrowserProvider>,
    /// The conversation of the call in progress: session names are scoped by it.
    pub conversation: crate::capabilities::conversation::Conversation,
    /// The tabs the call in progress holds (`leases.rs`), released when it ends.
    pub(crate) leased: Vec<(String, leases::Lease)>,
}

impl Deref for BrowserCtx {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

/// Link `warden:browser` (types, browser) to the plugins' store.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, BrowserCtx>,
) -> wasmtime::Result<()> {
    types::add_to_linker::<T, HasView<BrowserCtx>>(linker, get)?;
    browser_iface::add_to_linker::<T, HasView<BrowserCtx>>(linker, get)
}

/// A tab handed to a plugin.
#[derive(Debug)]
pub struct PageHandle {
    /// Which browser process the tab lives in; a restarted browser makes old handles stale.
    generation: u64,
    target: String,
    session: String,
}

const DEFAULT_SESSION: &str = "default";
