//! Host bindings for `warden:terminal`, generated from `wit/`; the plugin world reuses them.

wasmtime::component::bindgen!({
    world: "warden:terminal/imports",
    path: "../wit",
    imports: { default: async },
    with: {
        "warden:types": crate::capabilities::errors::bindings::warden::types,
        "warden:terminal/terminal.session": super::handle::SessionHandle,
    },
});
