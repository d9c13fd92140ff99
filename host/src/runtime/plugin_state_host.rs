//! `warden:plugin/state`: the import, over the host's [`StateStore`]. The scope is the
//! plugin and the call's conversation, both set by the host; a plugin names only keys.
//! Reads and deletes are not audited (they reach nothing outside the plugin's own scope).

use super::bindings::warden::plugin::state::{Host, StateError as WitError};
use super::store_data::PluginState;
use crate::plugin_state::StateError;

impl Host for PluginState {
    async fn get(&mut self, key: String) -> Option<Vec<u8>> {
        self.kept.get(self.plugin(), &self.call.conversation, &key)
    }

    async fn set(&mut self, key: String, value: Vec<u8>) -> Result<(), WitError> {
        self.kept
            .set(
                self.plugin(),
                &self.call.conversation,
                self.state_limit,
                &key,
                value,
            )
            .map_err(|e| match e {
                StateError::LimitReached { .. } => WitError::LimitReached(e.to_string()),
                StateError::InvalidKey(_) => WitError::InvalidKey(e.to_string()),
            })
    }

    async fn delete(&mut self, key: String) {
        self.kept
            .delete(self.plugin(), &self.call.conversation, &key);
    }

    async fn keys(&mut self, prefix: String) -> Vec<String> {
        self.kept
            .keys(self.plugin(), &self.call.conversation, &prefix)
    }
}
