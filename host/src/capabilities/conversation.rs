//! The conversation a call belongs to: one MCP session on the 2025-11-25 wire, the
//! authenticated client on the stateless 2026-07-28 wire, the one local client on stdio and
//! the CLI. State a plugin keeps between calls without a handle on the wire (a browser
//! session's name, its current tab) is scoped by it, so two agents on one server never
//! reach each other's. Made by the MCP layer; read by the capabilities and the plugin.

use std::sync::Arc;

/// Whether the conversation is still open (its MCP session's transport has not closed).
pub type Alive = Arc<dyn Fn() -> bool + Send + Sync>;

/// One conversation: an opaque key, and how to tell it ended.
#[derive(Clone, Default)]
pub struct Conversation {
    /// Empty for the local client; otherwise `s` or `c` and a digest: never the session ID
    /// or the client's name themselves.
    key: Arc<str>,
    alive: Option<Alive>,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Conversation").field(&self.key).finish()
    }
}

impl Conversation {
    /// The MCP session `id` (2025-11-25 wire); it ends when `alive` says so.
    pub fn session(id: &str, alive: Alive) -> Self {
        Self {
            key: format!("s{}", &crate::audit::digest(id.as_bytes())[..16]).into(),
            alive: Some(alive),
        }
    }

    /// A stateless request's client: its authenticated name, or every anonymous request
    /// together (a server without tokens has one client).
    pub fn client(name: Option<&str>) -> Self {
        let name = name.unwrap_or("");
        Self {
            key: format!("c{}", &crate::audit::digest(name.as_bytes())[..16]).into(),
            alive: None,
        }
    }

    /// The opaque key: empty for the local client.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether the conversation has an end to watch for (an MCP session).
    pub fn can_end(&self) -> bool {
        self.alive.is_some()
    }

    /// Whether the conversation is still open; one without an end is always open.
    pub fn is_alive(&self) -> bool {
        self.alive.as_ref().is_none_or(|alive| alive())
    }
}
