//! The MCP face of Warden: one rmcp `ServerHandler` over all loaded plugins, and its
//! transports.
//!
//! | File | Job |
//! |---|---|
//! | `identity.rs` | who a request is from, as the HTTP layers mark it (client, bound session) |
//! | `convert.rs` | plugin types to and from MCP wire types |
//! | `served.rs` | one loaded registry and its MCP tool list |
//! | `groups.rs` | the `tool_groups` tool: offered tool groups a conversation turns on for itself |
//! | `asks/` | a plugin's questions to the client: session requests, 2026-07-28 input rounds |
//! | `tasks.rs` | the task store of the 2026-07-28 tasks extension |
//! | `subscriptions.rs` | who hears of which resource's changes |
//! | `context.rs` | what a request says about its caller, and the context its call runs in |
//! | `server.rs` | [`WardenServer`]: shared state, reloads, how a request's call runs |
//! | `session_tasks/` | the tasks of 2025-11-25 sessions, and the wire renames they need |
//! | `handler.rs` | the MCP methods (`ServerHandler`) |
//! | `oauth/` | the OAuth resource server (JWT access tokens) |
//! | `limits.rs` | per-client concurrency and rate limits on HTTP |
//! | `session_owners.rs` | an HTTP session answers only the client that opened it |
//! | `http.rs` | streamable HTTP transport (`warden serve --http`) |
//! | `stdio.rs` | stdio transport |
//! | `std_streams.rs` | stdin and stdout on threads of their own, off tokio's shared pool |
//! | `message_weight.rs` | what a message will take in host memory once parsed, weighed before it is |
//!
//! ## Layers
//! 1. **identity** (`identity.rs`, `convert.rs`, `served.rs`, `groups.rs`, `oauth/`): request markers, wire conversions, the served registry.
//! 2. **stores** (`asks/`, `tasks.rs`, `subscriptions.rs`, `context.rs`): client questions, tasks, subscriptions, a request's caller and call context.
//! 3. **server** (`server.rs`, `session_tasks/`, `handler.rs`): the server's state and the MCP methods.
//! 4. **transports** (`limits.rs`, `session_owners.rs`, `http.rs`, `stdio.rs`, `std_streams.rs`, `message_weight.rs`): HTTP layers, the two wires, what a message weighs before it is parsed.

// MCP logging, sampling and roots are deprecated for 2026-07-28 (SEP-2577) but are part of
// 2025-11-25, which we serve; plugin logs reach clients that negotiated it.
#![allow(deprecated)]

mod asks;
mod context;
pub(crate) mod convert;
mod groups;
mod handler;
pub mod http;
mod identity;
pub mod limits;
mod message_weight;
pub mod oauth;
mod served;
mod server;
mod session_owners;
mod session_tasks;
mod std_streams;
pub mod stdio;
mod subscriptions;
mod tasks;

pub use server::WardenServer;
