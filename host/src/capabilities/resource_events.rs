//! Changes of plugin resources that a capability observes (a terminal session printed), for
//! the MCP layer to tell the clients subscribed to them. A plugin names which of its resources
//! a host object backs (`session.watch`); the MCP layer forwards a change only for a URI that
//! plugin serves, so a plugin cannot make clients hear of another plugin's resources, and
//! only to the subscribers of the client that owns the host object, so a user does not hear
//! of another's shell.

use super::conversation::Owner;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Changes held for a slow forwarder; past this the forwarder hears it lagged and treats every
/// subscribed resource as changed.
const BACKLOG: usize = 1024;

/// One resource that changed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceChange {
    pub plugin: Arc<str>,
    pub uri: Arc<str>,
    /// The client whose subscribers hear of it.
    pub owner: Owner,
}

/// The bus of resource changes of one Warden process.
#[derive(Debug)]
pub struct ResourceEvents {
    tx: broadcast::Sender<ResourceChange>,
}

impl Default for ResourceEvents {
    fn default() -> Self {
        Self {
            tx: broadcast::Sender::new(BACKLOG),
        }
    }
}

impl ResourceEvents {
    /// `uri` of `plugin` changed, for `owner`'s subscribers. Costs nothing when nobody listens.
    pub fn changed(&self, plugin: &Arc<str>, uri: &Arc<str>, owner: &Owner) {
        if self.tx.receiver_count() > 0 {
            let _ = self.tx.send(ResourceChange {
                plugin: plugin.clone(),
                uri: uri.clone(),
                owner: owner.clone(),
            });
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<ResourceChange> {
        self.tx.subscribe()
    }
}
