//! Who a request is from, as the HTTP layers attach it to the request for the MCP handler:
//! the authenticated client (set by the token check, `http.rs`) and the MCP session found to
//! be that client's own (set by `session_owners.rs`). Plain markers: every layer reads them,
//! none of them is needed to define them.

use std::sync::Arc;

/// The name of the client that made a request, set by the token check.
#[derive(Debug, Clone)]
pub struct ClientIdentity(pub Arc<str>);

/// Set on a request whose `Mcp-Session-Id` names a session of the requesting client.
#[derive(Debug, Clone)]
pub struct BoundSession(pub Arc<str>);
