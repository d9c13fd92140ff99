//! Paths of Warden's test guest components. `build.rs` builds every crate in
//! `tests/guests/` for wasm32-wasip2 and defines one constant per guest:
//!
//! - [`ECHO_WASM`]: `echo`, `progress`, `log`, `count` (well-behaved tools).
//! - [`HOSTILE_WASM`]: `spin`, `spin_checking`, `alloc_bomb`, `panic`, `count`, `read_file`,
//!   `connect`, `read_env`, `fetch`, `flood`, `stderr_flood`, `sockets`, `log_flood`,
//!   `progress_flood`, `say` (misbehaving tools).
//! - [`RESOURCES_WASM`]: the resources `hostile://flood/{bytes}` and `hostile://spin`
//!   (misbehaving resource reads).
//! - [`SHAPES_WASM`]: plain exported functions (no `warden:plugin` world) of every WIT type.
//! - [`HOLDER_WASM`]: exports a function taking a resource handle (refused at load).
//! - [`FILES_HOSTILE_WASM`]: `attack`, raw `wasi:filesystem` attacks on granted directories.
//! - [`NOTES_WASM`], [`GREETER_WASM`]: components in the style of other hosts' (plain
//!   exports; a preopened directory; `wasi:config` and environment variables).
//! - [`CONFORMANCE_WASM`]: the fixture tools and `test://` resources of the official MCP
//!   conformance suite (`tests/e2e/test_conformance.py`).

include!(concat!(env!("OUT_DIR"), "/guests.rs"));
