//! Host bindings for `warden:sftp`, generated from `wit/`; the plugin world reuses them.

wasmtime::component::bindgen!({
    world: "warden:sftp/imports",
    path: "../wit",
    imports: { default: async },
    with: {
        "warden:types": crate::capabilities::errors::bindings::warden::types,
    },
});
