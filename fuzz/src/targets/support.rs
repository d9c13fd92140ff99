//! What the fuzz targets share: a scratch directory, reading a mutant as JSON, seeds.

use std::path::Path;
use std::sync::OnceLock;

/// A scratch directory for the whole process (audit logs, manifests' relative paths).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"))
        .path()
}

/// `input` as JSON, or nothing (a mutant that broke the JSON reaches no further).
pub fn json(input: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(input).ok()
}

pub fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub fn seeds(list: &[&str]) -> Vec<Vec<u8>> {
    list.iter().map(|s| s.as_bytes().to_vec()).collect()
}
