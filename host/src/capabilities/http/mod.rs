//! Standard `wasi:http/outgoing-handler` for plugins, under `grants.http`. wasmtime-wasi-http
//! implements the interfaces; the host owns the one hook that sends ([`HttpCtx`] as its
//! `WasiHttpHooks`), built without a client of its own, so no request leaves another way.
//!
//! | file | job |
//! |---|---|
//! | `context.rs` | [`HttpCtx`]: one instance's context, and the hook that sends |
//! | `services.rs` | [`HttpServices`]: what every instance shares; a request's place under the concurrency cap |
//! | `send.rs` | one request: grant check (origin, method), body and time caps, credential, the private-network rule, the pinned client, the typed `error-code` of a refusal |
//! | `body.rs` | the request body capped while it streams out; the response body capped, timed, decoded and scrubbed while it streams in |
//! | `coding.rs` | a response's content codings (gzip, deflate, br, zstd, stacked) decoded under a cap, so the scrubber reads what the plugin will |
//! | `exchange.rs` | the one audit line of a request: method, origin, path (never the query), status, bytes each way, time |
//! | `credentials.rs` | `[credentials.NAME]` put into a request after the plugin handed it over; OAuth 2 tokens fetched, kept and refreshed |
//!
//! wasi:http follows no redirect: a 3xx goes to the plugin, and whatever it asks next is a
//! new request, checked as the first. A credential goes only to the origins it is bound to,
//! so a redirect elsewhere never carries it.

mod body;
mod coding;
mod context;
pub mod credentials;
mod exchange;
mod send;
mod services;

pub use context::HttpCtx;
pub use services::{CAPABILITY, HttpServices};
