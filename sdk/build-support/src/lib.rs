//! What the build scripts of `host` and `tests` share (a build-dependency of both, not part of
//! warden-sdk): building the workspace crates found in a directory as wasm32-wasip2
//! components, with a nested `cargo build` in its own target directory.

pub mod wasm_target;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::{env, fs};
use wasm_target::WASM_TARGET;

/// The Cargo profile of the components (in the workspace's Cargo.toml): small components
/// compile faster when a first start turns them into machine code.
const WASM_PROFILE: &str = "wasm-component";

/// A component built from the crate in `<dir>/<name>/`.
#[derive(Debug)]
pub struct Component {
    /// The crate's directory name, such as `capture`.
    pub name: String,
    /// Absolute path of the built `.wasm` component.
    pub wasm: PathBuf,
}

/// Builds, with the `wasm-component` profile, every crate in the subdirectories of `dir` (relative to the
/// workspace root), sorted by directory name.
pub fn build_components(dir: &str) -> Vec<Component> {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let workspace = manifest_dir
        .parent()
        .expect("the crate is in the workspace root")
        .to_owned();
    let crates_dir = workspace.join(dir);

    for input in ["wit", "sdk", "Cargo.toml", "Cargo.lock"] {
        println!(
            "cargo::rerun-if-changed={}",
            workspace.join(input).display()
        );
    }
    println!("cargo::rerun-if-changed={}", crates_dir.display());
    println!("cargo::rerun-if-env-changed=CARGO_TARGET_DIR");

    let mut crates: Vec<(String, String)> = fs::read_dir(&crates_dir)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", crates_dir.display())))
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let package = package_name(&path.join("Cargo.toml"))?;
            Some((path.file_name()?.to_str()?.to_owned(), package))
        })
        .collect();
    crates.sort();
    if crates.is_empty() {
        fail(&format!("no crates found in {}", crates_dir.display()));
    }

    wasm_target::ensure_installed().unwrap_or_else(|message| fail(&message));

    // A target directory of its own: the outer cargo holds the lock on its own one (and when
    // the outer build itself uses `target/wasm`, go one level down to avoid waiting on it).
    let mut target_dir = match env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("wasm"),
        _ => workspace.join("target").join("wasm"),
    };
    if env::var_os("OUT_DIR").is_some_and(|out| Path::new(&out).starts_with(&target_dir)) {
        target_dir.push("nested");
    }
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&workspace)
        .args(["build", "--locked", "--target", WASM_TARGET])
        .args(["--profile", WASM_PROFILE])
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir);
    for (_, package) in &crates {
        cmd.args(["--package", package]);
    }
    // Settings meant for the outer build: host flags, the outer target and target directory,
    // wrappers such as clippy-driver, and build-script variables that the nested cargo does
    // not overwrite. CARGO_MAKEFLAGS stays, so the nested build shares the outer jobserver.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_RUSTC_WRAPPER",
        "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
        "CLIPPY_ARGS",
        "CARGO_MANIFEST_LINKS",
    ] {
        cmd.env_remove(var);
    }
    for (var, _) in env::vars_os() {
        let var = var.to_string_lossy();
        if ["CARGO_FEATURE_", "CARGO_CFG_", "DEP_"]
            .iter()
            .any(|p| var.starts_with(p))
        {
            cmd.env_remove(&*var);
        }
    }
    // Cargo reads build-script directives from stdout: keep the nested output off it.
    cmd.stdout(Stdio::from(std::io::stderr()));

    let status = cmd
        .status()
        .unwrap_or_else(|e| fail(&format!("cannot run {cmd:?}: {e}")));
    if !status.success() {
        fail(&format!(
            "building {dir}/* for {WASM_TARGET} failed ({status}); cargo's messages are above.\n\
             command: {cmd:?}"
        ));
    }

    crates
        .into_iter()
        .map(|(name, package)| {
            let wasm = target_dir
                .join(WASM_TARGET)
                .join(WASM_PROFILE)
                .join(format!("{}.wasm", package.replace('-', "_")));
            if !wasm.is_file() {
                fail(&format!(
                    "{} was not produced; is {package} a `cdylib` crate?",
                    wasm.display()
                ));
            }
            Component { name, wasm }
        })
        .collect()
}

/// The `name` of the `[package]` of a `Cargo.toml`, if the file exists.
fn package_name(manifest: &Path) -> Option<String> {
    let text = fs::read_to_string(manifest).ok()?;
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package
            && let Some(value) = line.strip_prefix("name").map(str::trim_start)
            && let Some(value) = value.strip_prefix('=')
        {
            return Some(value.trim().trim_matches('"').to_owned());
        }
    }
    fail(&format!("no [package] name in {}", manifest.display()))
}

/// Stops the build script with a readable message (cargo shows its stderr).
pub fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}
