//! The conversation a call belongs to: one MCP session on the 2025-11-25 wire, the
//! authenticated client on the stateless 2026-07-28 wire, the one local client on stdio and
//! the CLI. State a plugin keeps between calls without a handle on the wire (a browser
//! session's name, its current tab) is scoped by it, so two agents on one server never
//! reach each other's. Made by the MCP layer; read by the capabilities and the plugin.
//!
//! A conversation also names its [`Owner`]: the authenticated client it belongs to. Sessions
//! an agent comes back to from a later conversation (terminals, remote desktops) are bound to
//! the owner, not to one conversation.

use std::sync::Arc;

/// Whether the conversation is still open (its MCP session's transport has not closed).
pub type Alive = Arc<dyn Fn() -> bool + Send + Sync>;

/// Who a session that outlives one conversation belongs to: the authenticated HTTP client
/// (by the name the manifest gives it), or the local client (stdio, the CLI, and every
/// request of an HTTP server without tokens: such a server has one client).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Owner(Option<Arc<str>>);

impl Owner {
    /// The client named `name` by its token; `None`: the local (or anonymous) client.
    pub fn client(name: Option<&str>) -> Self {
        Self(name.map(Arc::from))
    }
}

impl std::fmt::Debug for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(name) => write!(f, "Owner({name})"),
            None => f.write_str("Owner(local)"),
        }
    }
}

/// One conversation: an opaque key, how to tell it ended, and whose it is.
#[derive(Clone, Default)]
pub struct Conversation {
    /// Empty for the local client; otherwise `s` or `c` and a digest: never the session ID
    /// or the client's name themselves.
    key: Arc<str>,
    alive: Option<Alive>,
    owner: Owner,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Conversation").field(&self.key).finish()
    }
}

impl Conversation {
    /// The MCP session `id` (2025-11-25 wire) of the authenticated `client`; it ends when
    /// `alive` says so. The key covers the client too: the transport lets only the session's
    /// own client name it, and should that ever fail, another client's key still differs.
    pub fn session(id: &str, client: Option<&str>, alive: Alive) -> Self {
        let named = format!("{}\n{id}", client.unwrap_or(""));
        Self {
            key: format!("s{}", &crate::audit::digest(named.as_bytes())[..16]).into(),
            alive: Some(alive),
            owner: Owner::client(client),
        }
    }

    /// A stateless request's client: its authenticated name, or every anonymous request
    /// together (a server without tokens has one client).
    pub fn client(name: Option<&str>) -> Self {
        Self {
            key: format!(
                "c{}",
                &crate::audit::digest(name.unwrap_or("").as_bytes())[..16]
            )
            .into(),
            alive: None,
            owner: Owner::client(name),
        }
    }

    /// The client the conversation belongs to.
    pub fn owner(&self) -> &Owner {
        &self.owner
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
