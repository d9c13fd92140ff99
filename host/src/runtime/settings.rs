//! `wasi:config/store`: a plugin reads its own `[plugin.settings]` (always granted; the
//! manifest's `settings.rs` says what a value looks like). The standard interface rather than
//! a Warden one, so components written for other hosts read their configuration here too;
//! implemented on the plugin's bindings (two functions) because `wasmtime-wasi-config` keeps
//! its bindings private and the world's bindgen generates this interface anyway.

use super::bindings::wasi::config::store::{Error, Host};
use super::store_data::PluginState;

impl Host for PluginState {
    async fn get(&mut self, key: String) -> Result<Option<String>, Error> {
        Ok(self.settings.get(&key).cloned())
    }

    async fn get_all(&mut self) -> Result<Vec<(String, String)>, Error> {
        Ok(self
            .settings
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}
