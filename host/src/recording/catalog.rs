//! The recordings on disk: each file's header (who, what, when), listed oldest first, and
//! one found by its session id (`warden audit recordings`, `warden audit play`).

use super::retention;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Longest header line read.
const MAX_HEADER: u64 = 64 * 1024;

/// One recording on disk.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: PathBuf,
    pub size: u64,
    pub modified: SystemTime,
    /// The header line (asciicast v2 or Warden event lines), `Null` when unreadable.
    pub header: Value,
}

impl Entry {
    /// A field of the header's `warden` object (`session`, `target`, `plugin`, `client`).
    pub fn warden(&self, key: &str) -> Option<&str> {
        self.header.get("warden")?.get(key)?.as_str()
    }

    /// `terminal`, `rdp` or `browser`.
    pub fn kind(&self) -> &str {
        self.warden("kind").unwrap_or("terminal")
    }

    /// When the session began, seconds since the epoch.
    pub fn began(&self) -> u64 {
        self.header
            .get("timestamp")
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }
}

/// The header line of a recording.
pub fn header(path: &Path) -> std::io::Result<Value> {
    let file = std::fs::File::open(path)?;
    let mut line = String::new();
    BufReader::new(file.take(MAX_HEADER)).read_line(&mut line)?;
    Ok(serde_json::from_str(&line).unwrap_or(Value::Null))
}

/// Every recording under `dir`, oldest first.
pub fn list(dir: &Path) -> Vec<Entry> {
    let mut entries: Vec<Entry> = retention::files(dir)
        .into_iter()
        .map(|(path, size, modified)| Entry {
            header: header(&path).unwrap_or(Value::Null),
            path,
            size,
            modified,
        })
        .collect();
    entries.sort_by(|a, b| (a.began(), &a.path).cmp(&(b.began(), &b.path)));
    entries
}

/// `name` as a recording: a path to one, or a session id whose recording is under `dir`.
pub fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    let as_path = Path::new(name);
    if as_path.is_file() {
        return Some(as_path.to_path_buf());
    }
    retention::files(dir)
        .into_iter()
        .map(|(path, _, _)| path)
        .find(|p| {
            p.file_stem().is_some_and(|s| s == name)
                && p.extension()
                    .is_some_and(|e| retention::EXTENSIONS.iter().any(|x| e == *x))
        })
}
