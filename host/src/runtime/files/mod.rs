//! Granted directories (`grants.files`) as `wasi:filesystem` preopens, with what
//! wasmtime-wasi does not do: a byte quota for read-write directories, audit lines for
//! every change (one per file per call: writes with their bytes, truncations, removals,
//! renames, creations) and for refusals (naming the grant to add or change, by its guest
//! path: the agent never sees the host's), no rename or hard link between two grants (each
//! keeps its own quota), no FIFO or device opened (it could hold a host thread), and none
//! of Warden's own files reached through a hard link. Confinement itself is cap-std's: every path is resolved inside the preopened
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
//! | `open.rs` | `open-at` without waiting on a FIFO: only files and directories are opened |
//! | `stream.rs` | output streams held to the quota and counted |
//! | `quota.rs` | what a directory holds, shared by every instance granted it |

mod granted;
mod open;
mod quota;
mod stream;
mod types;

pub use granted::Files;
pub use types::add_to_linker;
