//! Host bindings for `warden:browser`, generated from `wit/`; the plugin world reuses them.

wasmtime::component::bindgen!({
    world: "warden:browser/imports",
    path: "../wit",
    imports: { default: async },
    with: {
        "warden:types": crate::capabilities::errors::bindings::warden::types,
        "warden:browser/browser.page": super::PageHandle,
    },
});
