//! The directories a launched browser owns, one tree per browser process, removed with it:
//!
//! ```text
//! warden-browser-XXXX/    the host's, 0711 (the browser passes through, lists nothing)
//!   home/                 the browser's, 0700: HOME, and tmp/ (TMPDIR)
//!   profile/              the browser's, 0700: a temporary profile, or where a persistent
//!                         one is mounted when the browser's user cannot reach it
//!   downloads/            the host's, 0711; downloads/N/ the browser's, 0700: where one
//!                         session's downloads are written, before the host takes them
//!   held/                 the host's, 0700: a finished download, out of the browser's reach
//!                         while the host checks it (`hostile_fs::take`)
//!   uploads/              the host's, 0711; uploads/N/FILE: a copy of a file to upload,
//!                         the browser's to read, in a directory it cannot change
//! ```
//!
//! Everything the browser writes is in a directory it owns, and every directory the host
//! reads from or moves out of is one the browser cannot rename things in.

use super::hostile_fs::{self, Owner};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A launched browser's tree (see the module's documentation).
#[derive(Debug)]
pub struct OwnDirs {
    root: tempfile::TempDir,
    owner: Owner,
    next: AtomicU64,
}

impl OwnDirs {
    /// Create the tree for a browser whose files belong to `owner`.
    pub fn create(owner: Owner) -> Result<Self, String> {
        let fail = |e: std::io::Error| format!("cannot create the browser's directories: {e}");
        // Under Warden's TMPDIR if the browser's user can reach it, else under /tmp.
        let base = std::env::temp_dir();
        let base = if reachable(&base, owner) {
            base
        } else {
            PathBuf::from("/tmp")
        };
        let root = tempfile::Builder::new()
            .prefix("warden-browser-")
            .tempdir_in(&base)
            .map_err(fail)?;
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o711))
            .map_err(fail)?;
        let dirs = Self {
            root,
            owner,
            next: AtomicU64::new(0),
        };
        let path = dirs.root.path();
        hostile_fs::make_dir(&path.join("home"), 0o700, Some(owner)).map_err(fail)?;
        hostile_fs::make_dir(&dirs.tmp(), 0o700, Some(owner)).map_err(fail)?;
        hostile_fs::make_dir(&dirs.profile(), 0o700, Some(owner)).map_err(fail)?;
        for host_own in ["downloads", "uploads"] {
            hostile_fs::make_dir(&path.join(host_own), 0o711, None).map_err(fail)?;
        }
        hostile_fs::make_dir(&dirs.held(), 0o700, None).map_err(fail)?;
        Ok(dirs)
    }

    pub fn owner(&self) -> Owner {
        self.owner
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn tmp(&self) -> PathBuf {
        self.home().join("tmp")
    }

    pub fn profile(&self) -> PathBuf {
        self.root.path().join("profile")
    }

    pub fn held(&self) -> PathBuf {
        self.root.path().join("held")
    }

    fn number(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// A new directory for one session's downloads, the browser's.
    pub fn download_dir(&self) -> std::io::Result<PathBuf> {
        let dir = self
            .root
            .path()
            .join("downloads")
            .join(self.number().to_string());
        hostile_fs::make_dir(&dir, 0o700, Some(self.owner))?;
        Ok(dir)
    }

    /// A copy of `source` (a file a plugin may upload, already checked against its grant)
    /// the browser can read: taken through a descriptor opened without following a symlink,
    /// so what is uploaded is the file that was checked, whoever can write where it lies.
    pub fn stage_upload(&self, source: &Path) -> std::io::Result<PathBuf> {
        let mut from = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(source)?;
        if !from.metadata()?.file_type().is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is not a regular file", source.display()),
            ));
        }
        let name = source
            .file_name()
            .map_or_else(|| "upload".into(), |n| n.to_os_string());
        let dir = self
            .root
            .path()
            .join("uploads")
            .join(self.number().to_string());
        hostile_fs::make_dir(&dir, 0o711, None)?;
        let to = dir.join(name);
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o400)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&to)?;
        std::io::copy(&mut from, &mut out)?;
        std::os::unix::fs::fchown(&out, Some(self.owner.uid), Some(self.owner.gid))?;
        Ok(to)
    }
}

/// Whether `owner` (with no supplementary groups) can pass through every directory above
/// `path`, and `path` itself. ACLs are not read: a directory they open counts as closed, and
/// the caller then takes the other way round (a mount of the directory in reach).
pub fn reachable(path: &Path, owner: Owner) -> bool {
    path.ancestors().all(|dir| match std::fs::metadata(dir) {
        Ok(meta) => {
            let mode = meta.permissions().mode();
            let bit = if meta.uid() == owner.uid {
                0o100
            } else if meta.gid() == owner.gid {
                0o010
            } else {
                0o001
            };
            mode & bit != 0
        }
        // What does not exist yet is created by the host, reachable.
        Err(_) => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_parent_makes_a_directory_unreachable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let inner = dir.path().join("a/b");
        std::fs::create_dir_all(&inner).expect("dirs");
        let stranger = Owner {
            uid: 61_000,
            gid: 61_000,
        };
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        assert!(!reachable(&inner, stranger));
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711))
            .expect("chmod");
        let system_tmp_reachable = reachable(dir.path(), stranger);
        assert_eq!(reachable(&inner, stranger), system_tmp_reachable);
    }

    #[test]
    fn an_upload_is_staged_as_a_copy_and_a_symlink_is_refused() {
        let me = Owner::current().expect("me");
        let dirs = OwnDirs::create(me).expect("dirs");
        let src = tempfile::tempdir().expect("tempdir");
        let file = src.path().join("cv.pdf");
        std::fs::write(&file, b"%PDF").expect("write");
        let staged = dirs.stage_upload(&file).expect("staged");
        assert_eq!(std::fs::read(&staged).expect("read"), b"%PDF");
        assert!(staged.ends_with("cv.pdf") && staged.starts_with(dirs.root.path()));
        let link = src.path().join("link.pdf");
        std::os::unix::fs::symlink("/etc/passwd", &link).expect("symlink");
        assert!(dirs.stage_upload(&link).is_err());
    }
}
