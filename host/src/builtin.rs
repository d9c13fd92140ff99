//! First-party plugins, compiled to wasm32-wasip2 by `build.rs` and embedded in the binary.

include!(concat!(env!("OUT_DIR"), "/builtin_plugins.rs"));

/// Names usable as `source = "builtin:NAME"`.
pub fn names() -> Vec<&'static str> {
    BUILTIN_PLUGINS.iter().map(|(name, _)| *name).collect()
}

/// The component bytes of builtin plugin `name`.
pub fn bytes(name: &str) -> Option<&'static [u8]> {
    BUILTIN_PLUGINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, bytes)| *bytes)
}
