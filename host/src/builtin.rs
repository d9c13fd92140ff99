//! First-party plugins, compiled to wasm32-wasip2 by `build.rs` and embedded in the binary,
//! each with its machine code precompiled by `build.rs` for this machine.

include!(concat!(env!("OUT_DIR"), "/builtin_plugins.rs"));

/// Names usable as `source = "builtin:NAME"`.
pub fn names() -> Vec<&'static str> {
    BUILTIN_PLUGINS.iter().map(|(name, _, _)| *name).collect()
}

/// The component bytes of builtin plugin `name`.
pub fn bytes(name: &str) -> Option<&'static [u8]> {
    BUILTIN_PLUGINS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, bytes, _)| *bytes)
}

/// The precompiled form of `component`, when it is a built-in plugin's component.
pub fn precompiled(component: &[u8]) -> Option<&'static [u8]> {
    BUILTIN_PLUGINS
        .iter()
        .find(|(_, bytes, _)| *bytes == component)
        .map(|(_, _, compiled)| *compiled)
}
