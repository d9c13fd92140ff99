//! Host bindings for the optional `warden:plugin/groups` export (world
//! `warden:plugin/tool-groups`), generated from `wit/`. Kept apart from the `plugin` world's
//! bindings so that a component without the export still matches that world and loads as
//! before, with all its tools in one group.

wasmtime::component::bindgen!({
    world: "warden:plugin/tool-groups",
    path: "../wit",
    exports: { default: async },
});

pub use self::exports::warden::plugin::groups::{CapabilityKind, ToolGroup};
