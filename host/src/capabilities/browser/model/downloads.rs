//! Downloads: a session whose plugin has `grants.browser.download_dir` saves what its pages
//! download under `DIR/PLUGIN/SESSION/`, each file at most `download_max` bytes; every other
//! session's downloads are refused by the browser itself (`Browser.setDownloadBehavior`
//! `deny`), so no page writes a file on the host without a grant.
//!
//! Chromium writes a download under its id in a directory of the browser's own (`partial`,
//! in the browser's tree: `own_dirs.rs`); the event reducer follows its progress (cancelling
//! it past the cap) and, once complete, the host takes it out of the browser's reach, checks
//! it is a plain file the browser wrote (`hostile_fs.rs`: never a symlink to a file of the
//! host's), and places it under its own name (the page's suggestion, made safe and unique),
//! and audits it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use url::Url;

/// A session lists at most this many downloads (the newest); older files stay on disk.
const KEPT_PER_SESSION: usize = 64;
/// Longest file name kept (bytes); a longer suggestion is shortened, its extension kept.
const MAX_NAME: usize = 160;

/// Where one session's downloads go.
#[derive(Debug, Clone)]
pub struct Place {
    pub dir: PathBuf,
    pub max_bytes: u64,
    /// Where the browser writes them (a directory of its own) until they are placed.
    partial: PathBuf,
}

impl Place {
    /// `DIR/PLUGIN/SESSION`, with both names made safe as path segments; the browser writes
    /// in `partial` meanwhile.
    pub fn new(root: &Path, plugin: &str, session: &str, max_bytes: u64, partial: PathBuf) -> Self {
        Self {
            dir: root.join(segment(plugin)).join(segment(session)),
            max_bytes,
            partial,
        }
    }

    pub(crate) fn partial(&self) -> &Path {
        &self.partial
    }
}

/// How a download stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    InProgress,
    Completed,
    /// The page or the browser cancelled it.
    Canceled,
    /// The session has no download directory (no grant).
    Refused,
    /// Larger than the session's `download_max`; cancelled and removed.
    TooLarge,
    /// Completed, but the host could not move it into place.
    Failed,
}

impl Status {
    pub fn finished(self) -> bool {
        self != Self::InProgress
    }
}

/// One download of a session.
#[derive(Debug, Clone)]
pub struct Download {
    pub guid: String,
    /// The browser context (session); empty until known (a download from an unknown frame is
    /// placed by where its file appears).
    pub context: String,
    /// Origin and path of the URL (the query may carry tokens); `data:`/`blob:` by scheme.
    pub source: String,
    pub file_name: String,
    pub path: Option<PathBuf>,
    pub status: Status,
    pub received: u64,
    pub total: Option<u64>,
    pub started: Instant,
    /// The status the plugin was last told (see [`Live::download_news`]).
    pub(crate) reported: Option<Status>,
    /// Order of arrival, for listing.
    pub(crate) seq: u64,
}

/// Every session's downloads and where each session saves them.
#[derive(Default)]
pub struct Downloads {
    pub(crate) places: HashMap<String, Place>,
    pub(crate) items: HashMap<String, Download>,
    pub(crate) seq: u64,
}

impl Downloads {
    /// The downloads of `context`, oldest first.
    pub(crate) fn of(&self, context: &str) -> Vec<&Download> {
        let mut list: Vec<&Download> = self
            .items
            .values()
            .filter(|d| d.context == context)
            .collect();
        list.sort_by_key(|d| d.seq);
        list
    }

    /// Forget a closed session's downloads (its files stay).
    pub fn forget(&mut self, context: &str) {
        self.places.remove(context);
        self.items.retain(|_, d| d.context != context);
    }

    pub(crate) fn trim(&mut self, context: &str) {
        let list = self.of(context);
        if list.len() <= KEPT_PER_SESSION {
            return;
        }
        let drop: Vec<String> = list
            .iter()
            .filter(|d| d.status.finished())
            .take(list.len() - KEPT_PER_SESSION)
            .map(|d| d.guid.clone())
            .collect();
        for guid in drop {
            self.items.remove(&guid);
        }
    }
}

/// `Browser.downloadWillBegin`: note the download under its session.
/// What the audit and the plugin see of a download's URL.
pub(crate) fn source(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {
            format!("{}{}", u.origin().ascii_serialization(), u.path())
        }
        Ok(u) => format!("{}:", u.scheme()),
        Err(_) => "(no URL)".into(),
    }
}

/// A path segment from a plugin or session name: no separators, no `..`, no hidden files.
fn segment(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() || cleaned.starts_with('.') {
        format!("_{cleaned}")
    } else {
        cleaned
    }
}

/// A file name from the page's suggestion: its last path part, without control characters
/// or a leading dot, not too long (the extension kept); `download` when nothing is left.
pub fn safe_name(suggested: &str) -> String {
    let last = suggested.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .filter(|c| !c.is_control() && *c != ':')
        .collect();
    let trimmed = cleaned.trim().trim_start_matches('.').trim();
    if trimmed.is_empty() {
        return "download".into();
    }
    if trimmed.len() <= MAX_NAME {
        return trimmed.to_string();
    }
    let (stem, ext) = match trimmed.rsplit_once('.') {
        Some((stem, ext)) if ext.len() <= 16 && !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (trimmed, String::new()),
    };
    let mut keep = MAX_NAME - ext.len();
    while !stem.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}{ext}", &stem[..keep])
}

/// `name` in `dir`, or `stem (2).ext`, `stem (3).ext`, ... if taken.
pub(crate) fn unique(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    (2..10_000)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}-{}{ext}", std::process::id())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_page_are_made_safe() {
        assert_eq!(safe_name("report.csv"), "report.csv");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("..\\..\\boot.ini"), "boot.ini");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name("a\u{0}b\nc.txt"), "abc.txt");
        assert_eq!(safe_name(""), "download");
        assert_eq!(safe_name("/"), "download");
        assert_eq!(safe_name("..."), "download");
        let long = format!("{}.pdf", "é".repeat(200));
        let short = safe_name(&long);
        assert!(
            short.len() <= MAX_NAME && short.ends_with(".pdf"),
            "{short}"
        );
    }

    #[test]
    fn session_names_cannot_leave_the_download_directory() {
        let place = Place::new(
            Path::new("/srv/dl"),
            "browser",
            "../../etc",
            1,
            PathBuf::new(),
        );
        assert_eq!(place.dir, Path::new("/srv/dl/browser/_.._.._etc"));
        let place = Place::new(Path::new("/srv/dl"), "b", "..", 1, PathBuf::new());
        assert_eq!(place.dir, Path::new("/srv/dl/b/_.."));
        let place = Place::new(Path::new("/srv/dl"), "b", "", 1, PathBuf::new());
        assert_eq!(place.dir, Path::new("/srv/dl/b/_"));
    }

    #[test]
    fn a_taken_name_gets_a_number() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "x").expect("write");
        std::fs::write(dir.path().join("a (2).txt"), "x").expect("write");
        assert_eq!(unique(dir.path(), "a.txt"), dir.path().join("a (3).txt"));
        assert_eq!(unique(dir.path(), "b"), dir.path().join("b"));
    }
}
