//! The `wasm32-wasip2` target that the plugins are built for. A toolchain file's `targets` are
//! added by rustup only when it installs the toolchain, so a machine that already had the
//! pinned toolchain lacks the target: the build adds it through rustup when rustup runs the
//! build, and otherwise stops with the command to run.
//!
//! Used by `check-wasm-target`, which `rustc-wrapper` runs before Cargo compiles anything, and
//! by `build_components` in the build scripts (for builds that replace the wrapper, such as
//! `RUSTC_WRAPPER=sccache`).

use std::path::PathBuf;
use std::process::Command;

/// The target of the plugin and guest components.
pub const WASM_TARGET: &str = "wasm32-wasip2";

/// What the build does about the target, given what it found.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// The target's standard library is installed.
    Ready,
    /// Rustup runs this build: add the target to its toolchain.
    Install { toolchain: String },
    /// Nothing the build can do: stop with this message.
    Fail(String),
}

/// Decides from what the build found: whether the target is `installed`, the rustup toolchain
/// that runs the build (`RUSTUP_TOOLCHAIN`, which rustup's proxies set; `None` for a toolchain
/// that rustup does not manage), and rustup's error if the build already tried to install.
pub fn decide(
    installed: bool,
    rustup_toolchain: Option<&str>,
    install_error: Option<&str>,
) -> Decision {
    if installed {
        return Decision::Ready;
    }
    match (rustup_toolchain, install_error) {
        (Some(toolchain), None) => Decision::Install {
            toolchain: toolchain.to_owned(),
        },
        (Some(toolchain), Some(error)) => Decision::Fail(format!(
            "the Rust target {WASM_TARGET} is not installed, and rustup could not add it:\n\
             {error}\n\
             The WebAssembly plugins need it. Add it with:\n\n    \
             rustup target add {WASM_TARGET} --toolchain {toolchain}\n"
        )),
        (None, _) => Decision::Fail(format!(
            "the Rust target {WASM_TARGET} is not installed, and the WebAssembly plugins need it.\n\
             This Rust toolchain is not run by rustup, so the build cannot add it. Install the\n\
             {WASM_TARGET} standard library for this compiler, or build with rustup's toolchain\n\
             (https://rustup.rs), which this build then completes itself; with rustup:\n\n    \
             rustup target add {WASM_TARGET}\n"
        )),
    }
}

/// Makes sure the target is installed, adding it through rustup when rustup runs the build.
/// The error is a message for the person building.
pub fn ensure_installed() -> Result<(), String> {
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN")
        .ok()
        .filter(|t| !t.is_empty());
    let mut install_error = None;
    loop {
        match decide(
            is_installed(),
            toolchain.as_deref(),
            install_error.as_deref(),
        ) {
            Decision::Ready => return Ok(()),
            Decision::Fail(message) => return Err(message),
            Decision::Install { toolchain } => {
                eprintln!("adding the Rust target {WASM_TARGET} to {toolchain} (rustup)");
                // Checked again either way: a concurrent build may have added it meanwhile.
                install_error = Some(match add_target(&toolchain) {
                    Ok(()) => "rustup reported success, yet the target is missing".to_owned(),
                    Err(error) => error,
                });
            }
        }
    }
}

/// Whether the compiler that Cargo uses has the target's standard library.
fn is_installed() -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    Command::new(rustc)
        .args(["--print", "target-libdir", "--target", WASM_TARGET])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .is_some_and(|dir| dir.is_dir())
}

/// `rustup target add` for `toolchain`; on failure, what rustup said.
fn add_target(toolchain: &str) -> Result<(), String> {
    let out = Command::new("rustup")
        .args(["target", "add", WASM_TARGET, "--toolchain", toolchain])
        .output()
        .map_err(|e| format!("cannot run rustup: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`rustup target add {WASM_TARGET} --toolchain {toolchain}` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_target_needs_nothing_whoever_runs_the_build() {
        assert_eq!(decide(true, Some("1.95.0"), None), Decision::Ready);
        assert_eq!(decide(true, None, None), Decision::Ready);
    }

    #[test]
    fn a_missing_target_is_added_to_the_toolchain_rustup_runs() {
        assert_eq!(
            decide(false, Some("1.95.0-x86_64-unknown-linux-gnu"), None),
            Decision::Install {
                toolchain: "1.95.0-x86_64-unknown-linux-gnu".to_owned()
            }
        );
    }

    #[test]
    fn a_failed_install_stops_with_rustups_error_and_the_exact_command() {
        let Decision::Fail(message) = decide(false, Some("1.95.0"), Some("network down")) else {
            panic!("expected a failure");
        };
        assert!(message.contains("network down"), "{message}");
        assert!(
            message.contains("rustup target add wasm32-wasip2 --toolchain 1.95.0"),
            "{message}"
        );
    }

    #[test]
    fn without_rustup_the_build_stops_and_says_what_to_install() {
        let Decision::Fail(message) = decide(false, None, None) else {
            panic!("expected a failure");
        };
        assert!(message.contains("not run by rustup"), "{message}");
        assert!(
            message.contains("rustup target add wasm32-wasip2"),
            "{message}"
        );
    }
}
