//! Builds the test guests (`tests/guests/*`) and the Rust examples (`examples/*` with a
//! Cargo.toml) as wasm32-wasip2 components and writes
//! `$OUT_DIR/guests.rs` with one `<NAME>_WASM` path constant per guest.

use std::path::PathBuf;
use std::{env, fs};
use warden_build_support::{build_components, fail};

fn main() {
    let mut code = String::new();
    // The test guests, and the Rust examples (the e2e tests run them as a user would).
    let components = build_components("tests/guests")
        .into_iter()
        .chain(build_components("examples"));
    for component in components {
        let constant = format!("{}_WASM", component.name.to_uppercase().replace('-', "_"));
        code.push_str(&format!(
            "/// Path of the `{}` test guest component (`tests/guests/{}`).\n\
             pub const {constant}: &str = {:?};\n",
            component.name,
            component.name,
            component.wasm.display().to_string(),
        ));
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo")).join("guests.rs");
    fs::write(&out, code).unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", out.display())));
}
