//! Builds the first-party plugins (`plugins/*`) as wasm32-wasip2 components and writes
//! `$OUT_DIR/builtin_plugins.rs`, which embeds them as `BUILTIN_PLUGINS`.

include!("../sdk/build-support/wasm_components.rs");

fn main() {
    let mut code = String::from(
        "/// The built-in plugins (`builtin:NAME` in the manifest): name and component bytes.\n\
         pub static BUILTIN_PLUGINS: &[(&str, &[u8])] = &[\n",
    );
    for component in build_components("plugins") {
        code.push_str(&format!(
            "    ({:?}, include_bytes!({:?})),\n",
            component.name,
            component.wasm.display().to_string(),
        ));
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo")).join("builtin_plugins.rs");
    fs::write(&out, code).unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", out.display())));
}
