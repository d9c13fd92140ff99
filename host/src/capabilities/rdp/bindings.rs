//! Host bindings for `warden:rdp`, generated from `wit/`; the plugin world reuses them.

wasmtime::component::bindgen!({
    world: "warden:rdp/imports",
    path: "../wit",
    imports: { default: async },
    with: {
        "warden:types": crate::capabilities::errors::bindings::warden::types,
    },
});
