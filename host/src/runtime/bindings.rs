//! Host bindings for the `warden:plugin/plugin` world, generated from `wit/`.
//! Every import is async (providers do I/O) and none can trap: failures are WIT error values.
//! `warden:plugin/types` counts as an import (the exports `use` it); it holds only types.

wasmtime::component::bindgen!({
    world: "warden:plugin/plugin",
    path: "../wit",
    imports: { default: async },
    exports: { default: async },
    with: {
        "warden:browser/browser.page": crate::capabilities::browser::PageHandle,
        "warden:terminal/terminal.session": crate::capabilities::terminal::SessionHandle,
    },
});

pub use self::exports::warden::plugin::resources::{ResourceInfo, ResourceTemplate};
pub use self::warden::plugin::types::{
    Annotations, ContentBlock, EmbeddedResource, Media, ResourceBody, ToolError, ToolInfo,
    ToolOutput,
};
