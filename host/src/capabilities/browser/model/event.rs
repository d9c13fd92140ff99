//! A CDP event as the reducer reads it, and the one helper for its JSON fields.

use serde_json::Value;

/// An event from the browser: its method, the session it belongs to, and its parameters.
#[derive(Debug)]
pub struct Event {
    pub method: String,
    pub session: Option<String>,
    pub params: Value,
}

/// Read a string field of a JSON object.
pub(in crate::capabilities::browser) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}
