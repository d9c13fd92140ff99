//! `warden:browser`: a real Chromium for plugins. Every call checks the plugin's browser
//! grant; every request the browser makes passes the network guard (`guard/`); `eval_js`,
//! cookies and secrets have grants of their own. Secret values never reach the plugin.
//!
//! | file | job |
//! |---|---|
//! | `error.rs` | why a browser operation (or a CDP command) failed |
//! | `keys.rs` | key names and combos as CDP input events take them |
//! | `scope.rs` | session names scoped by the conversation that names them |
//! | `leases.rs` | a tab serves one call at a time: the call that holds it, the calls that wait |
//! | `model/` | what Warden knows about the browser, as plain data: contexts, owners, tabs, downloads, holds, routes, logs |
//! | `events.rs`, `events/` | the CDP event reducer: event in, state change and effects out (pure, tested) |
//! | `guard/` | the network guard (a filtering proxy per context) |
//! | `live/` | a running browser: connecting, contexts (sessions), the tab registry, waits; carrying out the reducer's effects; per-plugin caps on sessions and tabs (`caps.rs`), the persistent profile's context serving one plugin's capture calls at a time (`occupancy.rs`), emulation, `[browser.profiles]` sessions, adopting a manifest, session states saved in the host (`saved_state.rs`) |
//! | `tab/` | one tab: navigation, input, dialogs, screenshots, snapshot, typing secrets (`secrets.rs`), `@eN` marks drawn on a screenshot (`marks.rs`), ... |
//! | `cdp.rs` | the CDP connection (pipe or WebSocket) |
//! | `launch.rs` | launching the Chromium process (flags, profile, DevTools pipe, its user and environment) |
//! | `sandbox.rs` | Chromium's own sandbox: the user the browser runs as, the user-namespace probe, the fix when it cannot start, the browser's environment |
//! | `profile_users.rs` | the user of its own each persistent profile's browser runs as (when Warden is root) |
//! | `own_dirs.rs` | the directories a launched browser owns (home, profile, downloads, staged uploads) |
//! | `netns.rs` | the launched browser's network namespace, whose only way out is its guards |
//! | `hostile_fs.rs` | reading and moving what the browser's user wrote without following its symlinks |
//! | `udp.rs` | keeping UDP in a launched browser (WebRTC policy, no lookups, a seccomp filter) |
//! | `preferences.rs` | the profile preferences pinned before a launch (WebRTC's policy, no speculative loading) |
//! | `provider.rs` | starting and restarting the browser; sessions with browsers of their own (profiles', the fleet's) |
//! | `fleet.rs` | the remote browsers of `[browser] endpoints`: placing sessions, health checks |
//! | `conversations.rs` | closing the sessions of conversations that ended |
//! | `search.rs` | web search through the manifest's `[search]` backend |
//! | `recording.rs` | browser sessions recorded for the audit: what the plugin was given and did, URLs, an optional screencast |
//! | `static_page/` | the no-JavaScript fast path: pages read and parsed by the host, without a tab |
//! | `wit/`, `bindings.rs` | the WIT host side: grant checks, handles, conversions, one file per part of the interface |
//! | `fuzzing.rs` | entry points for the fuzz targets |
//!
//! ## Layers
//!
//! Each layer imports only its own and those below it (`tests/lint/module_graph.py` checks).
//! 1. **base** (`error.rs`, `keys.rs`, `scope.rs`, `leases.rs`, `hostile_fs.rs`, `netns.rs`, `static_page/parse/`): code that knows no browser: errors, key tables, session names, tab leases, files in directories an untrusted user owns, a network namespace, and the fast path's HTML parser (a layer of its own below the data because the page the host read keeps the parser's node identities).
//! 2. **data** (`model/`): plain types and the browser's state, no behaviour that reaches the browser.
//! 3. **events** (`events.rs`, `events/`): the CDP event reducer, pure: state and an event in, effects out; no `Live`, no guard.
//! 4. **guard** (`guard/`): the network guard; handed its owners through the `Owners` trait it defines, never reaching up into `Live`.
//! 5. **effects** (`live/`, `tab/`, `cdp.rs`, `launch.rs`, `sandbox.rs`, `profile_users.rs`, `own_dirs.rs`, `udp.rs`, `preferences.rs`, `provider.rs`, `fleet.rs`, `conversations.rs`, `search.rs`, `recording.rs`, `static_page/mod.rs`, `static_page/fetch.rs`, `static_page/response.rs`, `static_page/encoding.rs`): what talks to Chromium or the network; only `live/` holds `impl Live` and only `tab/` holds `impl Tab`.
//! 6. **wit** (`wit/`, `bindings.rs`, `fuzzing.rs`): the WIT host side on top: grant checks and type conversions.

pub mod bindings;
mod cdp;
mod conversations;
pub(crate) mod error;
mod events;
mod fleet;
#[doc(hidden)]
pub mod fuzzing;
mod guard;
pub mod hostile_fs;
mod keys;
mod launch;
pub(crate) mod leases;
pub(crate) mod live;
mod model;
mod netns;
mod own_dirs;
mod preferences;
mod profile_users;
pub(crate) mod provider;
mod recording;
pub mod sandbox;
mod scope;
mod search;
mod static_page;
pub(crate) mod tab;
mod udp;
mod wit;

pub use launch::sandbox_report;
pub(crate) use live::{emulation, occupancy, profiles, saved_state};
pub(crate) use model::navigation;
pub(crate) use model::owner::Guard;
pub(crate) use model::state;
pub use provider::BrowserProvider;
pub(crate) use tab::marks;
pub use wit::{BrowserCtx, PageHandle, add_to_linker};
