//! The experimental tasks of MCP 2025-11-25, served on that revision's sessions over the task
//! store of the 2026-07-28 extension (`../tasks.rs`): same ids, owners, TTL and cap.
//!
//! - `tools/call` with `params.task` answers at once with `CreateTaskResult` (`{task}`) and
//!   the call runs on; a tool that forbids tasks refuses it (-32601), and a tool that runs
//!   only as a task refuses a call without one (-32601), as that revision says.
//! - `tasks/get` shows the task; `tasks/result` waits for its end and gives the tool's result
//!   (or the JSON-RPC error of a call that produced none); `tasks/list` pages through the
//!   caller's tasks; `tasks/cancel` cancels the call (the plugin sees `cancelled`).
//! - A task's questions are requests to the session's client, as for any call of a session,
//!   tagged with the task in `_meta`; the task is `input_required` while they are out.
//!
//! A task belongs to the authenticated HTTP client and the HTTP session that made it (on
//! stdio the process is the session): to any other it is unknown (-32602).
//!
//! rmcp knows only the 2026-07-28 shapes, so [`wire`] renames these requests of a session to
//! the internal [`Method`]s before rmcp parses them (it would drop `params.task`), and adds
//! the `tasks` capability and each tool's `execution.taskSupport` to the answers.
//!
//! | File | Job |
//! |---|---|
//! | `method.rs` | the internal names of the task requests |
//! | `wire.rs` | the renames and answer patches on the wire (HTTP and stdio) |
//! | `serve.rs` | serving each task request |

mod method;
mod serve;
pub mod wire;

pub use method::{Method, required};
pub use serve::serve;
