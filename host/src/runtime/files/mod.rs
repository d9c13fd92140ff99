//! Granted directories (`grants.files`) as `wasi:filesystem` preopens, with what
//! wasmtime-wasi does not do: a byte quota for read-write directories, audit lines for
//! writes (one per file per call, with the bytes) and for refusals (naming the grant to
//! add or change), and no rename or hard link between two grants (each keeps its own
//! quota). Confinement itself is cap-std's: every path is resolved inside the preopened
//! directory, `..` and symlinks that lead out of it are refused.
//!
//! The choke point is `wasi:filesystem/types` itself: the host links its own `descriptor`
//! methods over wasmtime-wasi's (as `sandbox.rs` does for sockets), so every way a plugin
//! can make a file grow (`write`, `set-size`, the streams of `write-via-stream` and
//! `append-via-stream`, creating entries) passes one check.
//!
//! | file | job |
//! |---|---|
//! | `granted.rs` | the granted directories as one instance sees them ([`Files`]), refusal texts |
//! | `types.rs` | the shadowed `descriptor` methods: checks, then wasmtime-wasi's own |
//! | `stream.rs` | output streams held to the quota and counted |
//! | `quota.rs` | what a directory holds, shared by every instance granted it |

mod granted;
mod quota;
mod stream;
mod types;

pub use granted::Files;
pub use types::add_to_linker;
