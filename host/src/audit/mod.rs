//! Append-only JSONL audit log: one line per tool call, one per host request a capability
//! made for a plugin (capture pages, cookies, HTTP), and one per denied capability use.
//! A line is written with a single `write` on an unbuffered file, so it is in the kernel
//! before the response that it describes is sent. Arguments are recorded only as a sha256
//! digest and a size: secret values never reach this file.
//!
//! | file | job |
//! |------|-----|
//! | `record.rs` | one line of the log ([`Record`], [`Outcome`], [`CallTrace`]) and field helpers |
//! | `sink.rs` | [`AuditSink`]: who else sees each record (metrics, traces) |
//! | `log.rs` | [`AuditLog`]: the file, appended one line per record |
//! | `scope.rs` | [`GuestScope`]: who a capability acts for, writing its use and refusal lines |
//! | `query.rs` | reading the log back (`warden audit`) |

mod log;
pub mod query;
mod record;
pub mod scope;
mod sink;

pub use log::{AuditLog, AuditOpenError};
pub use record::{CallTrace, Outcome, Record, RecordingLink, digest, millis, now};
pub use scope::{Caller, GuestScope, Used};
pub use sink::AuditSink;
