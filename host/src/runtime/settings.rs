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

/// The error of the `0.2.0-draft` interfaces: the same cases as rc.1's, under another
/// type name (`error` in `store`, `config-error` in the older `runtime`), which the
/// component model does not compare. Never returned: the settings are in memory.
#[derive(
    wasmtime::component::ComponentType, wasmtime::component::Lift, wasmtime::component::Lower,
)]
#[component(variant)]
enum DraftError {
    #[component(name = "upstream")]
    Upstream(String),
    #[component(name = "io")]
    Io(String),
}

type GetResult = (Result<Option<String>, DraftError>,);
type GetAllResult = (Result<Vec<(String, String)>, DraftError>,);

/// The `0.2.0-draft` versions components in the wild import (`wasi:config/store`, and
/// `wasi:config/runtime` before it was renamed), serving the same settings as rc.1. Each is
/// its own instance name, so semver matching cannot link a draft to rc.1.
pub fn add_drafts_to_linker(
    linker: &mut wasmtime::component::Linker<PluginState>,
) -> wasmtime::Result<()> {
    for name in [
        "wasi:config/store@0.2.0-draft",
        "wasi:config/runtime@0.2.0-draft",
    ] {
        let mut instance = linker.instance(name)?;
        instance.func_wrap(
            "get",
            |store: wasmtime::StoreContextMut<'_, PluginState>,
             (key,): (String,)|
             -> wasmtime::Result<GetResult> {
                Ok((Ok(store.data().settings.get(&key).cloned()),))
            },
        )?;
        instance.func_wrap(
            "get-all",
            |store: wasmtime::StoreContextMut<'_, PluginState>,
             (): ()|
             -> wasmtime::Result<GetAllResult> {
                let all = store
                    .data()
                    .settings
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                Ok((Ok(all),))
            },
        )?;
    }
    Ok(())
}
