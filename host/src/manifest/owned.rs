//! What Warden owns on the host, and the rule that no grant of a host directory reaches it.
//!
//! Warden's own paths are the manifest, every file the manifest names for Warden's use
//! (credential and key files, `known_hosts`, certificates, trust keys, plugin components,
//! the browser's executable and persistent profiles), the audit log, the recordings, the
//! state and compiled-component cache directories, and the temporary directory where each
//! browser's tree is made. A plugin that could read them would see credentials; one that
//! could write them could grant itself more (the manifest, under live reload), cut or forge
//! the audit log, or replace code Warden runs. So a grant that names a host directory
//! (`grants.files`, `grants.browser.upload_dirs`, `grants.browser.download_dir`) and holds,
//! or lies inside, one of them is a load error, at start and at every reload. Paths are
//! compared canonical (symlinks in either resolved), and a file of Warden's that a granted
//! directory reaches through a hard link is refused when opened ([`OwnedFiles`]).

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// What a grant may do with an owned path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Nothing: it holds credentials or what Warden records (no grant may reach it).
    Secret,
    /// Read it: it is code or trust Warden runs on, public but not to be changed (a
    /// read-only grant may reach it, a writable one may not).
    Integrity,
}

/// One path Warden owns.
#[derive(Debug, Clone)]
pub struct Owned {
    /// Canonical where it exists (the nearest existing ancestor canonical otherwise).
    pub path: PathBuf,
    /// What it is, as an error names it: "the manifest", "the audit log", ...
    pub what: String,
    pub reach: Reach,
    /// A grant of a directory inside it is fine (the temporary directory: only the trees
    /// Warden makes there are its own).
    pub inside_ok: bool,
}

/// Every path Warden owns under one manifest.
#[derive(Debug, Clone, Default)]
pub struct OwnedPaths(Vec<Owned>);

/// How the trees Warden makes in the temporary directory begin: each browser's
/// (`capabilities/browser/own_dirs.rs`) and an SSH key's (`capabilities/terminal/ssh.rs`).
const TEMP_TREES: [&str; 2] = ["warden-browser-", "warden-key-"];

impl OwnedPaths {
    pub fn add(&mut self, path: &Path, what: impl Into<String>, reach: Reach) {
        self.0.push(Owned {
            path: canonical(path),
            what: what.into(),
            reach,
            inside_ok: false,
        });
    }

    /// The temporary directory Warden makes its trees in: a grant holding it is refused,
    /// one of a directory inside it only when that is one of Warden's trees.
    pub fn add_temp(&mut self, dir: &Path) {
        self.0.push(Owned {
            path: canonical(dir),
            what:
                "the temporary directory where Warden makes each browser's tree (warden-browser-*)"
                    .to_string(),
            reach: Reach::Secret,
            inside_ok: true,
        });
    }

    /// The owned path a grant of directory `dir` (canonical) would reach, if any: one the
    /// directory holds, or one that holds the directory.
    pub fn reached_by(&self, dir: &Path, write: bool) -> Option<&Owned> {
        let dir = canonical(dir);
        self.0.iter().find(|owned| {
            if owned.reach == Reach::Integrity && !write {
                return false;
            }
            if owned.path.starts_with(&dir) {
                return true;
            }
            match dir.strip_prefix(&owned.path) {
                Ok(_) if !owned.inside_ok => true,
                Ok(rest) => matches!(
                    rest.components().next(),
                    Some(Component::Normal(first))
                        if TEMP_TREES.iter().any(|t| first.to_string_lossy().starts_with(t))
                ),
                Err(_) => false,
            }
        })
    }

    /// The files among them that hold secrets, by device and inode, for the check at open.
    pub fn secret_files(&self) -> OwnedFiles {
        let inodes = self
            .0
            .iter()
            .filter(|o| o.reach == Reach::Secret)
            .filter_map(|o| std::fs::metadata(&o.path).ok())
            .filter(|m| m.is_file())
            .map(|m| (m.dev(), m.ino()))
            .collect();
        OwnedFiles(inodes)
    }
}

/// Warden's secret files by (device, inode): a granted directory holding a hard link to one
/// of them is not caught by comparing paths, so each file a plugin opens is checked too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedFiles(BTreeSet<(u64, u64)>);

impl OwnedFiles {
    pub fn holds(&self, meta: &std::fs::Metadata) -> bool {
        self.0.contains(&(meta.dev(), meta.ino()))
    }
}

/// `path` with symlinks resolved: canonical if it exists, else its nearest existing
/// ancestor canonical with the rest appended (an audit log not yet written, say).
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let mut rest = Vec::new();
    let mut at = path;
    while let Some(parent) = at.parent() {
        if let Some(name) = at.file_name() {
            rest.push(name.to_os_string());
        }
        if let Ok(p) = parent.canonicalize() {
            let mut out = p;
            out.extend(rest.iter().rev());
            return out;
        }
        at = parent;
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::{OwnedPaths, Reach};

    #[test]
    fn a_grant_reaches_what_it_holds_and_what_holds_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let conf = dir.path().join("conf");
        std::fs::create_dir(&conf).expect("mkdir");
        std::fs::write(conf.join("warden.toml"), "").expect("write");
        std::fs::create_dir(dir.path().join("data")).expect("mkdir");
        std::fs::create_dir(dir.path().join("state")).expect("mkdir");
        let mut owned = OwnedPaths::default();
        owned.add(&conf.join("warden.toml"), "the manifest", Reach::Secret);
        owned.add(
            &dir.path().join("state"),
            "the state directory",
            Reach::Secret,
        );
        owned.add(&conf.join("x.wasm"), "a plugin component", Reach::Integrity);
        assert!(owned.reached_by(&conf, false).is_some());
        assert!(owned.reached_by(dir.path(), false).is_some());
        assert!(
            owned
                .reached_by(&dir.path().join("state/sub"), false)
                .is_some()
        );
        assert!(owned.reached_by(&dir.path().join("data"), true).is_none());
        // Through a symlink to the same directory.
        std::os::unix::fs::symlink(&conf, dir.path().join("link")).expect("symlink");
        assert!(owned.reached_by(&dir.path().join("link"), false).is_some());
    }

    #[test]
    fn code_may_be_read_not_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut owned = OwnedPaths::default();
        owned.add(
            &dir.path().join("p.wasm"),
            "a plugin component",
            Reach::Integrity,
        );
        assert!(owned.reached_by(dir.path(), false).is_none());
        assert!(owned.reached_by(dir.path(), true).is_some());
    }

    #[test]
    fn inside_the_temporary_directory_only_warden_s_trees_are_its_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut owned = OwnedPaths::default();
        owned.add_temp(dir.path());
        assert!(owned.reached_by(dir.path(), false).is_some());
        assert!(
            owned
                .reached_by(&dir.path().join("scratch"), true)
                .is_none()
        );
        assert!(
            owned
                .reached_by(&dir.path().join("warden-browser-x1/profile"), false)
                .is_some()
        );
    }

    #[test]
    fn a_hard_link_is_the_same_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let secret = dir.path().join("token");
        std::fs::write(&secret, "s").expect("write");
        let mut owned = OwnedPaths::default();
        owned.add(&secret, "a credential file", Reach::Secret);
        let link = dir.path().join("innocent");
        std::fs::hard_link(&secret, &link).expect("link");
        let files = owned.secret_files();
        assert!(files.holds(&std::fs::metadata(&link).expect("meta")));
    }
}
