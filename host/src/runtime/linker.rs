//! The host's imports, linked once per engine: the WASI sandbox, standard `wasi:http`, the
//! `warden:plugin` interfaces and every capability. The main engine's linker and the
//! baseline tier's (`tiers.rs`) are the same list, so a plugin reaches the same doors on
//! either tier.

use super::bindings;
use super::sandbox;
use super::store_data::PluginState;
use crate::capabilities;
use wasmtime::Engine;
use wasmtime::component::{HasSelf, Linker};

/// A linker of every import a plugin may use (the WASI sandbox and every capability
/// interface), for `engine`.
pub fn link(engine: &Engine) -> wasmtime::Result<Linker<PluginState>> {
    let mut linker = Linker::new(engine);
    sandbox::add_wasi(&mut linker)?;
    // Standard wasi:http (any 0.2.x a component imports links to it), sent by the host's
    // hook under `grants.http`: a plugin without the grant loads, and its requests are
    // refused and audited.
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
    // `warden:plugin` (context, types) on the store itself; each capability on its own
    // context.
    bindings::warden::plugin::types::add_to_linker::<PluginState, HasSelf<PluginState>>(
        &mut linker,
        |s| s,
    )
    .and_then(|()| {
        bindings::warden::plugin::context::add_to_linker::<PluginState, HasSelf<PluginState>>(
            &mut linker,
            |s| s,
        )
    })
    .and_then(|()| {
        bindings::warden::plugin::state::add_to_linker::<PluginState, HasSelf<PluginState>>(
            &mut linker,
            |s| s,
        )
    })
    .and_then(|()| {
        bindings::wasi::config::store::add_to_linker::<PluginState, HasSelf<PluginState>>(
            &mut linker,
            |s| s,
        )
    })
    .and_then(|()| super::settings::add_drafts_to_linker(&mut linker))
    .and_then(|()| capabilities::add_to_linker(&mut linker, &PluginState::projections()))?;
    Ok(linker)
}
