//! How JSON-RPC messages reach a server component and come back: as one incoming HTTP
//! request each (`http_wire.rs`), or as lines on its stdin and stdout (`stdio_wire.rs`),
//! behind one interface for the conversation (`session.rs`).

use super::fault::Fault;
use super::http_wire::HttpWire;
use super::stdio_wire::StdioWire;
use serde_json::Value;

pub enum Wire<'a> {
    Http(HttpWire<'a>),
    Stdio(&'a mut StdioWire),
}

impl Wire<'_> {
    /// Send one message; `method` names the request it belongs to, for errors.
    pub async fn send(&mut self, message: &Value, method: &str) -> Result<(), Fault> {
        match self {
            Self::Http(w) => w.send(message, method).await,
            Self::Stdio(w) => w.send(message, method).await,
        }
    }

    /// The next message from the server.
    pub async fn recv(&mut self, method: &str) -> Result<Value, Fault> {
        match self {
            Self::Http(w) => w.recv(method),
            Self::Stdio(w) => w.recv(method).await,
        }
    }

    /// The protocol revision the server answered `initialize` with.
    pub fn speaks(&mut self, version: &str) {
        if let Self::Http(w) = self {
            w.speaks(version);
        }
    }
}
