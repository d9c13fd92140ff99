//! What a JSON-RPC message will take in host memory once parsed, weighed before it is
//! parsed. rmcp parses a message into `serde_json::Value`s (a tool's arguments stay that
//! tree for the whole call), and a tree costs far more than its text where the text is
//! dense: `[1,1,1,...]` is two bytes per number and some 64 bytes per number parsed. A
//! message heavier than [`limit`] is refused before any tree is built.
//!
//! The weighing is one pass over the text that allocates nothing (a serde visitor that
//! only adds), and it is also the check that the line is JSON. Both wires weigh every
//! message here: stdio in its framing layer, HTTP in [`http`], a layer before rmcp's.
//! A refusal is a `-32600` error under the request's own id, so the client's call ends.

use super::WardenServer;
use crate::audit::{self, Outcome, Record};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// How much of a message's head is searched for its id (JSON-RPC clients write `jsonrpc`
/// and `id` before `params`).
pub const HEAD: usize = 4096;

/// Host memory a message's parsed form may take, at the least.
pub const FLOOR: usize = 16 * 1024 * 1024;

/// Host memory a message's parsed form may take per byte of its text, past the floor.
pub const PER_BYTE: usize = 4;

/// The most the parsed form of a `len`-byte message may take.
pub fn limit(len: usize) -> usize {
    FLOOR.max(len.saturating_mul(PER_BYTE))
}

/// Why a message is not taken.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("{0}")]
    NotJson(#[from] serde_json::Error),
    #[error(
        "the message would take about {} MiB of host memory parsed, more than the {} MiB a message of its size may take (at least {} MiB, {PER_BYTE} bytes per byte of text); send fewer, larger values (bytes as one base64 string, not an array of numbers) or less in one call",
        weight >> 20,
        limit >> 20,
        FLOOR >> 20
    )]
    TooHeavy { weight: usize, limit: usize },
}

/// Weigh `text`: `Ok` when it is JSON whose parsed form is within [`limit`].
pub fn check(text: &[u8]) -> Result<(), Refused> {
    let Weight(tree) = serde_json::from_slice(text)?;
    // rmcp reads a message through serde's buffer (an untagged enum, flattened fields): a
    // tree of serde's own as large as the `Value`s it then builds, both held at once.
    let weight = tree.saturating_mul(2);
    let limit = limit(text.len());
    if weight > limit {
        return Err(Refused::TooHeavy { weight, limit });
    }
    Ok(())
}

/// The `"id"` of a JSON-RPC request from the head of its text: the first `"id":` followed
/// by a number or a string. A client that hides it deeper gets `null`.
pub fn request_id(head: &[u8]) -> serde_json::Value {
    let head = &head[..head.len().min(HEAD)];
    let key = b"\"id\"";
    let Some(at) = head.windows(key.len()).position(|w| w == key) else {
        return serde_json::Value::Null;
    };
    let rest = &head[at + key.len()..];
    let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    let Some(rest) = rest.strip_prefix(b":") else {
        return serde_json::Value::Null;
    };
    match serde_json::Deserializer::from_slice(rest)
        .into_iter::<serde_json::Value>()
        .next()
    {
        Some(Ok(id @ (serde_json::Value::Number(_) | serde_json::Value::String(_)))) => id,
        _ => serde_json::Value::Null,
    }
}

/// `-32600 Invalid Request` for the request whose text begins with `head`.
pub fn invalid_request(head: &[u8], why: &str) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": request_id(head),
        "error": { "code": -32600, "message": format!("Invalid Request: {why}") }
    })
}

/// One audit line per message refused at the wire (too long, or too heavy to parse).
pub fn audit(server: &WardenServer, wire: &'static str, reason: &str) {
    server.registry().services().audit.write(&Record {
        ts: audit::now(),
        event: "request_refused",
        decision: "denied",
        outcome: Outcome::Denied,
        capability: Some("mcp.message"),
        reason: Some(reason),
        session: Some(wire),
        ..Record::default()
    });
}

/// The HTTP wire's weighing: a POST body (already bounded by `[server.http] max_body`)
/// too heavy to parse is answered here, as JSON, and never reaches rmcp.
pub async fn http(
    State((server, max_body)): State<(WardenServer, usize)>,
    request: Request,
    next: Next,
) -> Response {
    if *request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, max_body).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body larger than {max_body} bytes ([server.http] max_body)"),
        )
            .into_response();
    };
    match check(&bytes) {
        Err(refused @ Refused::TooHeavy { .. }) => {
            tracing::warn!(
                "a request body of {} bytes answered with -32600: {refused}",
                bytes.len()
            );
            audit(&server, "http", &refused.to_string());
            let reply = invalid_request(&bytes, &refused.to_string());
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                reply.to_string(),
            )
                .into_response()
        }
        // Not JSON: rmcp answers that itself, as it always has.
        Ok(()) | Err(Refused::NotJson(_)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

/// The bytes a JSON value takes as a `serde_json::Value`, with its containers' slack.
struct Weight(usize);

/// One `Value`.
const NODE: usize = std::mem::size_of::<serde_json::Value>();
/// What the allocator adds to each heap allocation.
const ALLOC: usize = 16;
/// What an object entry adds beside its value: the key's `String` (and its allocation)
/// and its share of a B-tree node.
const ENTRY: usize = 24 + ALLOC + 16;

impl<'de> Deserialize<'de> for Weight {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Weigh)
    }
}

struct Weigh;

impl<'de> Visitor<'de> for Weigh {
    type Value = Weight;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Weight, E> {
        Ok(Weight(NODE))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Weight, E> {
        Ok(Weight(NODE))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Weight, E> {
        Ok(Weight(NODE))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Weight, E> {
        Ok(Weight(NODE))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Weight, E> {
        Ok(Weight(NODE + s.len() + ALLOC))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Weight, E> {
        Ok(Weight(NODE))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Weight, A::Error> {
        // A vector that doubles as it grows holds up to twice its items' slots.
        let mut total = NODE + ALLOC;
        while let Some(Weight(w)) = seq.next_element::<Weight>()? {
            total = total.saturating_add(w + NODE);
        }
        Ok(Weight(total))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Weight, A::Error> {
        let mut total = NODE + ALLOC;
        while let Some(Key(k)) = map.next_key::<Key>()? {
            let Weight(w) = map.next_value::<Weight>()?;
            total = total.saturating_add(ENTRY + k + w);
        }
        Ok(Weight(total))
    }
}

/// An object key, by its length (read without allocating where the text has no escape).
struct Key(usize);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct K;
        impl<'de> Visitor<'de> for K {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
                Ok(Key(s.len()))
            }
        }
        d.deserialize_str(K)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_numbers_weigh_more_than_one_long_string() {
        let numbers = format!("[{}1]", "1,".repeat(4_000_000));
        let string = format!("[\"{}\"]", "A".repeat(4_000_000));
        assert!(matches!(
            check(numbers.as_bytes()),
            Err(Refused::TooHeavy { .. })
        ));
        assert!(check(string.as_bytes()).is_ok());
        assert!(matches!(check(b"{\"a\":"), Err(Refused::NotJson(_))));
    }

    #[test]
    fn a_refusal_carries_the_request_id() {
        assert_eq!(request_id(br#"{"id":"a-1","x":"#), "a-1");
        assert_eq!(request_id(br#"{"jsonrpc":"2.0","id": 7,"params":{"#), 7);
        assert_eq!(
            request_id(br#"{"method":"x","params":{"data":"AAAA"#),
            serde_json::Value::Null
        );
        assert_eq!(
            invalid_request(b"{\"id\":3", "why")["error"]["code"],
            -32600
        );
    }
}
