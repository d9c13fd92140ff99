//! Where Warden keeps its files when the manifest does not say: the XDG state and cache
//! directories, and `~/` in paths.

use std::path::PathBuf;

/// `~/rest` under `$HOME`; any other path as written.
pub(super) fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

fn xdg_dir(var: &str, fallback: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => expand_home(fallback),
    }
}

/// `$XDG_STATE_HOME/warden`.
pub fn state_dir() -> PathBuf {
    xdg_dir("XDG_STATE_HOME", "~/.local/state").join("warden")
}

/// `$XDG_CACHE_HOME/warden`.
pub fn cache_dir() -> PathBuf {
    xdg_dir("XDG_CACHE_HOME", "~/.cache").join("warden")
}
