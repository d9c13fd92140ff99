//! `grants.files`: host directories a plugin sees as `wasi:filesystem` preopens, each under
//! a guest path, read-only or read-write with a byte quota. A granted directory is shared by
//! every conversation of the plugin (and by any other plugin granted the same directory):
//! it is the admin's directory, not a per-conversation scratch space.

use super::owned::OwnedFiles;
use super::validate::Validator;
use super::values::size_text;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

/// Quota of a read-write directory whose grant names none.
pub const DEFAULT_QUOTA: u64 = 64 * 1024 * 1024;

/// `grants.files = [{ host = "data/", guest = "/data", mode = "read-write", quota = "10MiB" }]`
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileGrantSpec {
    /// The host directory, relative to the manifest or absolute; it must exist. Example:
    /// `host = "data/"`.
    pub host: Spanned<String>,
    /// Where the plugin sees it: an absolute path, distinct from (and not inside) the
    /// plugin's other guest paths. Example: `guest = "/data"`.
    pub guest: Spanned<String>,
    /// `"read-only"` (the default) or `"read-write"`.
    pub mode: Option<Spanned<String>>,
    /// For a read-write directory: how much the directory may hold, counted as the disk
    /// holds it (each file and directory at least 4 KiB). Default `"64MiB"`. Example:
    /// `quota = "10MiB"`.
    pub quota: Option<Spanned<String>>,
}

/// One granted directory.
#[derive(Debug, Clone)]
pub struct FileGrant {
    /// The host directory, canonical (symlinks in the admin's path resolved at load).
    pub host: PathBuf,
    /// The guest path, as the plugin opens it.
    pub guest: String,
    pub write: bool,
    /// Bytes the directory may hold (read-write only; 0 for read-only).
    pub quota: u64,
    /// Warden's secret files by inode: a file opened here that is one of them (a hard
    /// link) is refused.
    pub owned: Arc<OwnedFiles>,
}

impl FileGrant {
    /// This grant as the start-up log and `warden check` show it.
    pub fn summary(&self) -> String {
        let mode = if self.write {
            format!(
                "mode = \"read-write\", quota = \"{}\"",
                size_text(self.quota)
            )
        } else {
            "mode = \"read-only\"".to_string()
        };
        format!(
            "{{ guest = \"{}\", host = \"{}\", {mode} }}",
            self.guest,
            self.host.display()
        )
    }

    /// How a refusal names this grant to the agent: by its guest path and mode, never the
    /// host directory (the admin's log and `warden check` show that).
    pub fn describe(&self) -> String {
        format!(
            "the grants.files entry {{ guest = \"{}\", mode = \"{}\" }}",
            self.guest,
            if self.write {
                "read-write"
            } else {
                "read-only"
            }
        )
    }
}

impl Validator<'_> {
    pub(super) fn file_grants(&mut self, specs: &[FileGrantSpec]) -> Vec<FileGrant> {
        let mut grants: Vec<FileGrant> = Vec::new();
        for spec in specs {
            let guest = spec.guest.get_ref().trim_end_matches('/');
            let guest = if guest.is_empty() { "/" } else { guest };
            if !guest.starts_with('/') || guest.split('/').any(|c| c == ".." || c == ".") {
                self.error(
                    spec.guest.span(),
                    format!(
                        "grants.files: guest = \"{}\" must be an absolute path without . or .. (like \"/data\")",
                        spec.guest.get_ref()
                    ),
                );
                continue;
            }
            if let Some(other) = grants.iter().find(|g| nested(&g.guest, guest)) {
                self.error(
                    spec.guest.span(),
                    format!(
                        "grants.files: guest path \"{guest}\" overlaps \"{}\"; give each directory a guest path of its own, neither inside the other",
                        other.guest
                    ),
                );
                continue;
            }
            let write = match spec.mode.as_ref().map(|m| m.get_ref().as_str()) {
                None | Some("read-only") => false,
                Some("read-write") => true,
                Some(other) => {
                    let span = spec.mode.as_ref().map(Spanned::span).unwrap_or_default();
                    self.error(
                        span,
                        format!("grants.files: mode = \"{other}\"; write \"read-only\" or \"read-write\""),
                    );
                    continue;
                }
            };
            if !write && let Some(q) = &spec.quota {
                self.error(
                    q.span(),
                    "grants.files: a quota limits writes, and this directory is read-only: remove quota, or set mode = \"read-write\"".into(),
                );
                continue;
            }
            let quota = if write {
                self.size("grants.files.quota", spec.quota.as_ref(), DEFAULT_QUOTA)
            } else {
                0
            };
            let path = self.resolve(spec.host.get_ref());
            let host = match path.canonicalize() {
                Ok(p) if p.is_dir() => p,
                Ok(_) => {
                    self.error(
                        spec.host.span(),
                        format!(
                            "grants.files: host = \"{}\" is not a directory ({})",
                            spec.host.get_ref(),
                            path.display()
                        ),
                    );
                    continue;
                }
                Err(e) => {
                    self.error(
                        spec.host.span(),
                        format!(
                            "grants.files: host directory \"{}\" cannot be opened ({}: {e}); create it first",
                            spec.host.get_ref(),
                            path.display()
                        ),
                    );
                    continue;
                }
            };
            if let Some(other) = grants
                .iter()
                .find(|g| host.starts_with(&g.host) || g.host.starts_with(&host))
            {
                self.error(
                    spec.host.span(),
                    format!(
                        "grants.files: host directory {} overlaps {} of the same plugin; a file must belong to one grant (one mode, one quota): grant the directories side by side",
                        host.display(),
                        other.host.display()
                    ),
                );
                continue;
            }
            grants.push(FileGrant {
                host,
                guest: guest.to_string(),
                write,
                quota,
                owned: self.owned_files.clone(),
            });
        }
        grants
    }
}

/// `a` and `b` are the same guest path or one holds the other.
fn nested(a: &str, b: &str) -> bool {
    let (a, b) = (Path::new(a), Path::new(b));
    a.starts_with(b) || b.starts_with(a)
}
