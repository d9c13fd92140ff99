//! Host bindings for `warden:capture`, generated from `wit/`; the plugin world reuses them.

wasmtime::component::bindgen!({
    world: "warden:capture/imports",
    path: "../wit",
    imports: { default: async },
    with: {
        "warden:types": crate::capabilities::errors::bindings::warden::types,
    },
});
