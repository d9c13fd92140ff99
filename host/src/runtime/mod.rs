//! The WebAssembly runtime: the engine every plugin runs on, the plugins it loaded, and the
//! store each plugin instance carries.
//!
//! | file | job |
//! |------|-----|
//! | `engine.rs` | [`Runtime`]: the engine, the linker with every import, the component cache, the epoch ticker |
//! | `linker.rs` | the host's imports linked for an engine (the main one, the baseline tier's) |
//! | `compiler.rs`, `cache.rs`, `initial_memory.rs` | engine settings, compiled components on disk, the memory a component needs |
//! | `tiers.rs` | a large component's first start on baseline code while its optimized code compiles |
//! | `bindings.rs` | host bindings of the `warden:plugin/plugin` world |
//! | `group_bindings.rs`, `group_check.rs` | the optional `warden:plugin/groups` export: its bindings, and a plugin's groups checked against its tools |
//! | `call.rs` | the call in progress as the runtime is handed it ([`CallContext`], [`CallEvents`]) |
//! | `store_data.rs` | [`PluginState`]: the data a plugin instance's store carries |
//! | `wasi_ctx.rs` | the WASI context of one instance (granted directories, guest stdout/stderr) |
//! | `sandbox.rs` | the WASI imports as the host serves them (environment, preopens, no sockets) |
//! | `files/` | `wasi:filesystem` over the granted directories: quotas, audit lines |
//! | `context.rs`, `budget.rs` | `warden:plugin/context` (progress, logs, cancellation) and its per-call budgets |
//! | `plugin_state_host.rs` | `warden:plugin/state`, over the host's store of kept values (`crate::plugin_state`) |
//! | `settings.rs` | `wasi:config/store` (rc.1 and the drafts, with `wasi:config/runtime`): a plugin's own `[plugin.settings]` |
//! | `login_handoff.rs` | the capture capability's login hand-off for one call |
//! | `asks.rs`, `approval.rs` | questions a call puts to its client, and `require_approval` |
//! | `entry.rs` | the ways into a plugin ([`plugin::Entry`]) and what comes out |
//! | `kinds.rs` | the three kinds of component: the `warden:plugin` world, plain exported functions, MCP servers |
//! | `exports/` | plain exported functions as tools |
//! | `mcp_server/` | MCP servers built as components, spoken to in-process over HTTP or stdio |
//! | `notify.rs` | a call's log messages and progress passed on under its budgets |
//! | `plugin.rs` | one loaded plugin and the instances that serve its calls |
//! | `fair_queue.rs` | a plugin's places for calls, shared fairly among clients |
//! | `executor.rs` | the guarded path every client request takes into a plugin |
//! | `pulled.rs` | an `oci://` plugin's component, pulled and checked |
//! | `registry.rs`, `registry/` | every plugin of the manifest, and the routing of tools and resources; `registry/groups.rs`: the tool groups each manifest serves, and the gate that refuses a tool not served to the caller |
//! | `native.rs` | `native:echo`, the host-side baseline of the WASM-boundary benchmark |

pub mod approval;
pub mod asks;
pub mod bindings;
pub mod budget;
mod cache;
pub mod call;
pub mod compiler;
mod context;
mod engine;
pub mod entry;
pub mod executor;
pub mod exports;
pub mod fair_queue;
mod files;
pub mod group_bindings;
pub mod group_check;
mod initial_memory;
mod kinds;
mod linker;
mod login_handoff;
pub mod mcp_server;
pub mod native;
mod notify;
pub mod plugin;
mod plugin_state_host;
mod pulled;
pub mod registry;
pub(crate) mod sandbox;
mod settings;
pub mod store_data;
pub mod tiers;
mod wasi_ctx;
#[cfg(test)]
mod wasi_http_tests;

pub use call::{CallContext, CallEvents, LogLevel};
pub use engine::{EPOCH_TICK, Runtime, RuntimeError};
pub use plugin::pool_instances;
pub use store_data::PluginState;
