//! Makes sure the wasm32-wasip2 target is installed, or says how to install it. The rustc
//! wrapper (`../../rustc-wrapper`) compiles and runs this file on its own, before Cargo
//! compiles anything, so it depends on nothing but the module below.

#[path = "../wasm_target.rs"]
mod wasm_target;

fn main() {
    if let Err(message) = wasm_target::ensure_installed() {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}
