//! What can go wrong talking MCP to a server component, each case said so that the admin
//! or the server's author knows what to change; and how each reaches the agent as a tool
//! error.

use super::super::bindings::ToolError;

/// JSON-RPC's "invalid params".
const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;
/// MCP's "resource not found".
const RESOURCE_NOT_FOUND: i64 = -32002;

/// A conversation with an MCP server component that did not end in an answer.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    /// One message longer than the bound (a flood, or an answer too large).
    #[error(
        "the MCP server wrote a message of more than {bound} bytes (twice its limits.output): it floods its output, or its answer is too large; ask for less, or raise limits.output in the manifest"
    )]
    Overlong { bound: u64 },
    /// More bytes in one call than the call's bound, none of them the answer.
    #[error(
        "the MCP server wrote more than {bound} bytes in this call without answering {method} (four times its limits.output): it floods its output with messages"
    )]
    Flood { method: String, bound: u64 },
    #[error("the MCP server wrote something that is not a JSON-RPC message ({why}): {text:?}")]
    NotJsonRpc { why: String, text: String },
    /// A stdio server's `run` returned, or closed its output.
    #[error("the MCP server exited before it answered {method}{detail}")]
    Exited { method: String, detail: String },
    #[error("the MCP server answered {method} with HTTP {status}: {body:?}")]
    Http {
        method: String,
        status: u16,
        body: String,
    },
    /// An HTTP server's handler ended without the message answering the request.
    #[error("the MCP server's response to {method} did not hold its answer{detail}")]
    NoAnswer { method: String, detail: String },
    #[error("the MCP server answered {method} with JSON-RPC error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        message: String,
    },
    /// An answer that does not have the shape MCP gives it.
    #[error("the MCP server's answer to {method} is not what MCP says it must be: {why}")]
    Shape { method: String, why: String },
    /// The server does not serve what was asked (it declared no such capability).
    #[error("the MCP server declared no {0} capability in its answer to initialize")]
    Undeclared(&'static str),
    /// The instance trapped: not a fault of the conversation, so the caller reports it as a crash.
    #[error("{0}")]
    Trap(wasmtime::Error),
}

impl Fault {
    /// The fault as the agent reads it; `None` for a trap, which the plugin reports as a crash.
    pub fn into_tool_error(self) -> Result<ToolError, wasmtime::Error> {
        Ok(match self {
            Self::Trap(trap) => return Err(trap),
            Self::Rpc { code, message, .. } if code == INVALID_PARAMS => {
                ToolError::InvalidArguments(message)
            }
            Self::Rpc { code, message, .. }
                if code == METHOD_NOT_FOUND || code == RESOURCE_NOT_FOUND =>
            {
                ToolError::NotFound(message)
            }
            other => ToolError::Failed(other.to_string()),
        })
    }
}

/// The first bytes of `text`, for an error message: a server's output is the guest's words,
/// so no more of it than it takes to recognise.
pub fn excerpt(text: &[u8]) -> String {
    const SHOWN: usize = 200;
    let text = String::from_utf8_lossy(text);
    let mut cut = text.len().min(SHOWN);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut shown = text[..cut].to_string();
    if cut < text.len() {
        shown.push('…');
    }
    shown
}
