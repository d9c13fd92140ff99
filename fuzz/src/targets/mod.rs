//! The fuzz targets, one file each.

mod audit;
mod browser;
mod http;
mod manifest;
mod plugin_json;
mod sftp;
mod stdio;
mod terminal;
mod tool_args;

use crate::Target;
use std::path::Path;
use std::sync::OnceLock;

/// Every target, in the order a run goes through them.
pub const ALL: &[Target] = &[
    stdio::TARGET,
    tool_args::TARGET,
    manifest::TARGET,
    plugin_json::TARGET,
    browser::TARGET,
    terminal::TARGET,
    sftp::TARGET,
    http::TARGET,
    audit::TARGET,
];

pub fn named(name: &str) -> Option<&'static Target> {
    ALL.iter().find(|t| t.name == name)
}

/// A scratch directory for the whole process (audit logs, manifests' relative paths).
fn scratch() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
        .path()
}

/// `input` as JSON, or nothing (a mutant that broke the JSON reaches no further).
fn json(input: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(input).ok()
}

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn seeds(list: &[&str]) -> Vec<Vec<u8>> {
    list.iter().map(|s| s.as_bytes().to_vec()).collect()
}
