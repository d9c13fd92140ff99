//! What a server component writes, as the host takes it in: counted against the call's
//! bounds, and read as JSON-RPC messages. Both transports (`http_wire.rs`, `stdio_wire.rs`)
//! take their bytes in here.

use super::fault::{Fault, excerpt};
use serde_json::Value;
use std::collections::VecDeque;

/// What a server may write: one message at most `message` bytes, one call at most `call`.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub message: usize,
    pub call: u64,
}

impl Bounds {
    /// From `limits.output`: a message twice it (JSON and base64 make an answer larger than
    /// what it carries), a call four times it.
    pub fn from_output_limit(output: u64) -> Self {
        Self {
            message: usize::try_from(output.saturating_mul(2)).unwrap_or(usize::MAX),
            call: output.saturating_mul(4),
        }
    }
}

/// Bytes a call has read from its server, against the call's bound.
#[derive(Debug)]
pub struct Tally {
    read: u64,
    bounds: Bounds,
}

impl Tally {
    pub fn new(bounds: Bounds) -> Self {
        Self { read: 0, bounds }
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    pub fn add(&mut self, bytes: usize, method: &str) -> Result<(), Fault> {
        self.read = self
            .read
            .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX));
        if self.read > self.bounds.call {
            return Err(Fault::Flood {
                method: method.to_string(),
                bound: self.bounds.call,
            });
        }
        Ok(())
    }

    pub fn overlong(&self) -> Fault {
        Fault::Overlong {
            bound: u64::try_from(self.bounds.message).unwrap_or(u64::MAX),
        }
    }
}

/// One JSON-RPC message, or a batch of them, as the server wrote it, onto `into`.
pub fn parse(bytes: &[u8], into: &mut VecDeque<Value>) -> Result<(), Fault> {
    let not = |why: String| Fault::NotJsonRpc {
        why,
        text: excerpt(bytes),
    };
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Array(batch)) => {
            for message in batch {
                if !message.is_object() {
                    return Err(not("a batch holds something that is not an object".into()));
                }
                into.push_back(message);
            }
            Ok(())
        }
        Ok(message @ Value::Object(_)) => {
            into.push_back(message);
            Ok(())
        }
        Ok(_) => Err(not("not an object".into())),
        Err(e) => Err(not(e.to_string())),
    }
}
