//! Warden: sandboxed WebAssembly tool plugins served as one MCP server.
//!
//! The path of one tool call, and where each step lives:
//!
//! | module | job |
//! |---|---|
//! | [`mcp`] | rmcp `ServerHandler`: aggregated `tools/list`, `tools/call` routing, resources, progress, logs, cancellation; transports (`mcp::stdio`, `mcp::http` with bearer tokens and `mcp::oauth`, the OAuth resource server) |
//! | [`runtime::registry`] | every plugin of the manifest, loaded; public tool name -> plugin; audit line per call; output cap |
//! | [`runtime::plugin`] | one plugin: compiled component, instances that serve one conversation each, calls in parallel up to `limits.concurrency`, shared fairly per client (`runtime::fair_queue`), time limit |
//! | [`runtime`] | one wasmtime `Engine`, the `Linker` built once, compiled-component cache, epoch ticker (`runtime::engine`); the store of each instance (`runtime::store_data`) |
//! | [`runtime::exports`] | a component without the `warden:plugin` world: its plain exported functions as tools (schemas from the WIT types, checked arguments, the dynamic call) |
//! | `runtime::sandbox`, `runtime::wasi_ctx` | the WASI world of a plugin: only the granted directories and environment, no args or network; guest stdio to the host log |
//! | `runtime::files` | granted directories: the host's own `wasi:filesystem/types` (read-only mode, quota, no moves between grants, audit) |
//! | [`capabilities`] | one folder per WIT package: providers that check grants on every call |
//! | [`content`] | a page's HTML to its title and main content as text or Markdown, host-side |
//! | [`manifest`] | `warden.toml`: strict schema, `file:line` errors, typed grants |
//! | [`net`] | the private-network rule: resolve, classify addresses, admit what the grants name; `net::forbidden`, Warden's own listeners, which no grant opens; `net::pinned`, the one way a client for a plugin's request is built; answers from servers read bounded in size and time |
//! | [`scrub`] | a secret's encodings, scrubbed out of text, byte streams and log lines before anything is handed on or written |
//! | [`plugin_state`] | what plugins keep between calls (`warden:plugin/state`), per plugin and conversation |
//! | [`fair_share`] | which client gives way when a cap shared by every client is reached |
//! | [`audit`] | append-only JSONL audit log; [`metrics`] and [`trace`] subscribe to it as sinks |
//! | [`recording`] | session recordings (`[audit] record`): terminals as asciicast, linked from the audit lines |
//! | [`builtin`] | first-party plugins embedded at build time |
//! | [`distribution`] | `oci://` plugins: pull, pin by digest, verify signatures, store for offline loads |
//! | [`app`] | start-up shared by the CLI commands |
//! | [`reload`] | live manifest reload: watch, load completely, swap, notify clients |
//! | [`replica`] | this process's replica name, carried by every session handle it mints |
//! | [`admin`] | the admin listener: metrics, liveness, readiness |
//! | [`shown`] | text Warden did not write, escaped before a person sees it: every CLI printer and log line |
//! | [`access_log`] | a debug line per HTTP request Warden's listeners receive |

pub mod access_log;
pub mod admin;
pub mod app;
pub mod audit;
pub mod builtin;
pub mod capabilities;
pub mod content;
pub mod distribution;
pub mod fair_share;
#[doc(hidden)]
pub mod fuzzing;
pub mod manifest;
pub mod mcp;
pub mod metrics;
pub mod net;
pub mod plugin_state;
pub mod recording;
pub mod reload;
pub mod replica;
pub mod runtime;
pub mod scrub;
pub mod shown;
pub mod trace;
