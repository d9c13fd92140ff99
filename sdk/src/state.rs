//! What a plugin keeps between calls. An instance of the plugin serves one conversation only,
//! but a call may run in a fresh one (a parallel call, after a trap or 30 idle seconds), so
//! statics, `thread_local!`s and caches are a cache, never seen by another client's call.
//! Keep what must outlive a call here instead: the
//! host holds it per conversation (an MCP session, or a stateless client), so each agent
//! reads only its own.
//!
//! A write is kept at once, and stays when the call later fails, traps or is cancelled.
//! Calls of one conversation may run at the same time; each key is written whole and the
//! last write wins, so keep what two calls may change under different keys (a tab's refs
//! under the tab's key, not in one map of every tab). A conversation's values go when it
//! ends; the manifest's `limits.state` bounds them (4 MiB by default).
//!
//! ```no_run
//! use warden_sdk::prelude::*;
//! use warden_sdk::state;
//!
//! fn count(_: NoArgs) -> Result<String, ToolError> {
//!     let n: u64 = state::get_json("count")?.unwrap_or(0) + 1;
//!     state::set_json("count", &n)?;
//!     Ok(n.to_string())
//! }
//! # fn main() {}
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ToolError;
use crate::bindings::warden::plugin::state as wit;

/// Why a write was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateError {
    /// The conversation's values would exceed `limits.state`.
    LimitReached(String),
    /// The key is empty or longer than 256 bytes.
    InvalidKey(String),
    /// A value did not encode or decode as JSON (the `_json` helpers).
    Json(String),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::LimitReached(m) | Self::InvalidKey(m) => f.write_str(m),
            Self::Json(m) => write!(f, "kept state is not the expected JSON: {m}"),
        }
    }
}

impl std::error::Error for StateError {}

impl From<wit::StateError> for StateError {
    fn from(e: wit::StateError) -> Self {
        match e {
            wit::StateError::LimitReached(m) => Self::LimitReached(m),
            wit::StateError::InvalidKey(m) => Self::InvalidKey(m),
        }
    }
}

impl From<StateError> for ToolError {
    fn from(e: StateError) -> Self {
        ToolError::failed(e.to_string())
    }
}

/// The bytes kept under `key` in this conversation, if any.
pub fn get(key: &str) -> Option<Vec<u8>> {
    wit::get(key)
}

/// Keep `value` under `key` for this conversation, replacing what was there.
pub fn set(key: &str, value: &[u8]) -> Result<(), StateError> {
    wit::set(key, value).map_err(Into::into)
}

/// Forget `key` (nothing happens if it is not kept).
pub fn delete(key: &str) {
    wit::delete(key);
}

/// Every kept key that starts with `prefix` (all of them for `""`), sorted.
pub fn keys(prefix: &str) -> Vec<String> {
    wit::keys(prefix)
}

/// The value kept under `key`, decoded from JSON.
pub fn get_json<T: DeserializeOwned>(key: &str) -> Result<Option<T>, StateError> {
    get(key)
        .map(|bytes| serde_json::from_slice(&bytes).map_err(|e| StateError::Json(e.to_string())))
        .transpose()
}

/// Keep `value` under `key`, encoded as JSON.
pub fn set_json<T: Serialize + ?Sized>(key: &str, value: &T) -> Result<(), StateError> {
    let bytes = serde_json::to_vec(value).map_err(|e| StateError::Json(e.to_string()))?;
    set(key, &bytes)
}
