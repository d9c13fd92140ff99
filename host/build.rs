//! Builds the first-party plugins (`plugins/*`) as wasm32-wasip2 components, precompiles each
//! for this machine with the runtime's own compiler settings, and writes
//! `$OUT_DIR/builtin_plugins.rs`, which embeds both as `BUILTIN_PLUGINS`. A first start then
//! compiles nothing for the built-ins (about 2.4 s on two cores otherwise).

use std::path::PathBuf;
use std::{env, fs};
use warden_build_support::{build_components, fail};

#[path = "src/runtime/compiler.rs"]
#[allow(dead_code)] // the baseline tier is the runtime's alone: nothing precompiles for it
mod compiler;

fn main() {
    let engine = wasmtime::Engine::new(&compiler::config())
        .unwrap_or_else(|e| fail(&format!("cannot configure the WebAssembly engine: {e}")));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    let mut code = String::from(
        "/// The built-in plugins (`builtin:NAME` in the manifest): name, component bytes, and\n\
         /// the same compiled for this machine by `build.rs`.\n\
         pub static BUILTIN_PLUGINS: &[(&str, &[u8], &[u8])] = &[\n",
    );
    for component in build_components("plugins") {
        let bytes = fs::read(&component.wasm)
            .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", component.wasm.display())));
        let compiled = engine.precompile_component(&bytes).unwrap_or_else(|e| {
            fail(&format!(
                "cannot precompile {}: {e}",
                component.wasm.display()
            ))
        });
        let cwasm = out.join(format!("{}.cwasm", component.name));
        fs::write(&cwasm, compiled)
            .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", cwasm.display())));
        code.push_str(&format!(
            "    ({:?}, include_bytes!({:?}), include_bytes!({:?})),\n",
            component.name,
            component.wasm.display().to_string(),
            cwasm.display().to_string(),
        ));
    }
    code.push_str("];\n");
    let path = out.join("builtin_plugins.rs");
    fs::write(&path, code)
        .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", path.display())));
}
