//! `warden plugin new NAME`: a plugin crate that builds as it is, with a manifest to try it.
//!
//! The crate depends on the `warden-sdk` sources this `warden` was built from (or `--sdk`), and
//! gets a copy of Warden's own `Cargo.lock`, so it builds with the dependency versions Warden
//! is tested with, offline when those crates are already downloaded.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The SDK next to the host crate this binary was built from.
const BUILT_FROM_SDK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdk");
const LOCK: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"));

const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("scaffold/Cargo.toml.in")),
    ("src/lib.rs", include_str!("scaffold/lib.rs.in")),
    ("warden.toml", include_str!("scaffold/warden.toml.in")),
    ("README.md", include_str!("scaffold/README.md.in")),
    (".gitignore", include_str!("scaffold/gitignore.in")),
    ("Cargo.lock", LOCK),
];

/// A crate name that is also a valid `[[plugin]] name`.
fn valid_name(name: &str) -> bool {
    name.len() <= 32
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The `warden-sdk` crate directory: `--sdk`, or the one this binary was built from.
fn sdk_dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = given.map_or_else(|| PathBuf::from(BUILT_FROM_SDK), Path::to_path_buf);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    if !manifest.contains("name = \"warden-sdk\"") {
        match given {
            Some(_) => bail!(
                "{} is not the warden-sdk crate (no Cargo.toml with name = \"warden-sdk\"); pass --sdk the sdk/ directory of a Warden checkout",
                dir.display()
            ),
            None => bail!(
                "the warden-sdk sources this warden was built from are gone ({}); pass --sdk the sdk/ directory of a Warden checkout",
                dir.display()
            ),
        }
    }
    dir.canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))
}

pub fn run(name: &str, path: Option<&Path>, sdk: Option<&Path>) -> anyhow::Result<ExitCode> {
    if !valid_name(name) {
        bail!(
            "plugin name \"{name}\" must be 1-32 characters of a-z, 0-9, '-' and '_', starting with a letter: it names the crate, the component and the [[plugin]]"
        );
    }
    let sdk = sdk_dir(sdk)?;
    let dir = path.map_or_else(|| PathBuf::from(name), Path::to_path_buf);
    if std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some()) {
        bail!(
            "{} exists and is not empty; choose another directory with --path",
            dir.display()
        );
    }
    let sdk_value = toml::Value::String(sdk.display().to_string()).to_string();
    let wasm = name.replace('-', "_");
    for (file, template) in FILES {
        let text = template
            .replace("{{name}}", name)
            .replace("{{plugin}}", name)
            .replace("{{wasm}}", &wasm)
            .replace("{{sdk}}", &sdk_value);
        let target = dir.join(file);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&target, text)
            .with_context(|| format!("cannot write {}", target.display()))?;
    }
    println!(
        "created {} (Cargo.toml, src/lib.rs, warden.toml, README.md) with the tools hello and fetch_status",
        dir.display()
    );
    println!("next:");
    println!("  cd {}", dir.display());
    println!("  rustup target add wasm32-wasip2   # once");
    println!("  cargo build --target wasm32-wasip2 --release");
    println!("  warden check -m warden.toml");
    println!("  warden call -m warden.toml hello '{{\"name\": \"Ada\"}}'");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::valid_name;

    #[test]
    fn names_are_crate_and_plugin_names() {
        for good in ["demo", "demo-tools", "my_tools2", "a"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "",
            "2fast",
            "Demo",
            "demo tools",
            "-x",
            "é",
            &"x".repeat(33),
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
