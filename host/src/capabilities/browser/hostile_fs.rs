//! Files in directories the browser's user owns, handled by a host that does not trust it.
//!
//! A compromised browser can put anything where it may write: a symlink to `/etc/shadow`
//! where a download lands, a fifo that blocks a reader, a hard link to a file of another
//! user. Warden (often root) must never read, write or move a file through such a name for
//! the browser. So every name the browser controls is opened without following symlinks,
//! and only a regular file with one link, owned by the browser's user, on the expected
//! device, is taken; a file the host writes there is created new (never through what is
//! there already) and given to the browser's user.
//!
//! Directories are walked without following symlinks by opening each one (`O_NOFOLLOW |
//! O_DIRECTORY`) and naming what is in it through `/proc/self/fd/N/NAME`, which resolves
//! to the directory that was opened, whatever has been renamed since.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The uid and gid files the browser writes belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub uid: u32,
    pub gid: u32,
}

impl Owner {
    /// Warden's own user: the browser's when Warden is not root (no switch).
    pub fn current() -> io::Result<Self> {
        let me = std::fs::metadata("/proc/self")?;
        Ok(Self {
            uid: me.uid(),
            gid: me.gid(),
        })
    }
}

/// Why a file the browser left is not taken.
fn refused(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, why)
}

/// A name for one entry of a directory: no separator, not `.` or `..`, not empty.
fn plain(name: &str) -> io::Result<&str> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        Err(refused(format!("\"{name}\" is not a file name")))
    } else {
        Ok(name)
    }
}

/// `name` inside the opened directory `dir`, as a path the kernel resolves through the open
/// descriptor (the directory itself, even if its old path now leads elsewhere).
pub fn inside(dir: &File, name: &str) -> io::Result<PathBuf> {
    use std::os::fd::AsRawFd;
    Ok(PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd())).join(plain(name)?))
}

/// Open the directory `name` in `dir` without following a symlink there.
pub fn open_dir_in(dir: &File, name: &str) -> io::Result<File> {
    open_dir(&inside(dir, name)?)
}

/// Open a directory; a symlink in the last part of `path` is refused (the parts before it
/// must be the host's own).
pub fn open_dir(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Open a file the browser wrote at `path` (whose last part the browser may control) for
/// reading: only a regular file with one link, owned by `owner`, on `device` when given.
pub fn open_written(path: &Path, owner: u32, device: Option<u64>) -> io::Result<(File, Metadata)> {
    // O_NONBLOCK: a fifo planted there must not hang the host in open().
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                refused(format!("{} is a symlink", path.display()))
            } else {
                e
            }
        })?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(refused(format!("{} is not a regular file", path.display())));
    }
    if meta.nlink() != 1 {
        return Err(refused(format!(
            "{} has {} hard links (a link to another file)",
            path.display(),
            meta.nlink()
        )));
    }
    if meta.uid() != owner {
        return Err(refused(format!(
            "{} belongs to uid {}, not the browser's {owner}",
            path.display(),
            meta.uid()
        )));
    }
    if device.is_some_and(|d| d != meta.dev()) {
        return Err(refused(format!(
            "{} is on another file system",
            path.display()
        )));
    }
    Ok((file, meta))
}

/// Read at most `max` bytes of a file the browser wrote (see [`open_written`]).
pub fn read_written(path: &Path, owner: u32, max: u64) -> io::Result<Vec<u8>> {
    let (file, meta) = open_written(path, owner, None)?;
    if meta.len() > max {
        return Err(refused(format!(
            "{} is larger than {max} bytes",
            path.display()
        )));
    }
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Write `bytes` as `name` in the opened directory `dir`: into a new file (created, never
/// opened through what is there), given to `owner`, then renamed over `name` (a rename
/// replaces a symlink, it does not follow it).
pub fn replace_in(dir: &File, name: &str, bytes: &[u8], owner: Option<Owner>) -> io::Result<()> {
    let temp = inside(dir, &format!("{name}.warden-{}", std::process::id()))?;
    // A leftover of an earlier run (or anything planted under this name) goes first;
    // removing a symlink removes the link, not its target.
    if let Err(e) = std::fs::remove_file(&temp)
        && e.kind() != io::ErrorKind::NotFound
    {
        return Err(e);
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temp)?;
    let written = file.write_all(bytes).and_then(|()| {
        if let Some(o) = owner {
            std::os::unix::fs::fchown(&file, Some(o.uid), Some(o.gid))?;
        }
        std::fs::rename(&temp, inside(dir, name)?)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Move the file the browser wrote at `from` (whose last part it controls) to `to`, a path
/// outside its reach, through `held`: a directory of the host's own on the same file system.
/// The name is renamed into `held` first (what is there then no longer changes), checked
/// ([`open_written`]), and only then moved on, or copied when `to` is on another file system.
/// What is refused is removed. The placed file is the host's (owner and mode 0644).
pub fn take(from: &Path, held: &Path, to: &Path, owner: u32) -> io::Result<u64> {
    let name = from
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| refused(format!("{} has no file name", from.display())))?;
    let parked = held.join(plain(name)?);
    std::fs::rename(from, &parked)?;
    let result = place(&parked, held, to, owner);
    if result.is_err() {
        let _ = std::fs::remove_file(&parked);
    }
    result
}

/// The second half of [`take`]: check the file parked in `held` and move it to `to`.
fn place(parked: &Path, held: &Path, to: &Path, owner: u32) -> io::Result<u64> {
    let device = std::fs::symlink_metadata(held)?.dev();
    let (mut file, meta) = open_written(parked, owner, Some(device))?;
    let me = Owner::current()?;
    // The browser may still hold the file open; from here on it is the host's.
    std::os::unix::fs::fchown(&file, Some(me.uid), Some(me.gid))?;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))?;
    match std::fs::rename(parked, to) {
        Ok(()) => Ok(meta.len()),
        Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {
            let mut out = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(to)?;
            let copied = io::copy(&mut file, &mut out);
            if copied.is_err() {
                let _ = std::fs::remove_file(to);
            }
            let _ = std::fs::remove_file(parked);
            copied
        }
        Err(e) => Err(e),
    }
}

/// Give the tree at `dir` to `owner` (a persistent profile written while the browser ran as
/// Warden's user): every entry, symlinks themselves and not their targets, on `dir`'s file
/// system only. Done before the browser starts, on a tree no other user could write.
pub fn hand_over(dir: &Path, owner: Owner) -> io::Result<()> {
    let device = std::fs::symlink_metadata(dir)?.dev();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.dev() != device {
            continue;
        }
        std::os::unix::fs::lchown(&path, Some(owner.uid), Some(owner.gid))?;
        if meta.file_type().is_dir() {
            for entry in std::fs::read_dir(&path)? {
                pending.push(entry?.path());
            }
        }
    }
    Ok(())
}

/// Create the directory `path` (its parent is the host's) for `owner`, mode 0700; an
/// existing one is refused unless it is a directory (not a symlink to one).
pub fn make_dir(path: &Path, mode: u32, owner: Option<Owner>) -> io::Result<()> {
    match std::fs::create_dir(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if !std::fs::symlink_metadata(path)?.file_type().is_dir() {
                return Err(refused(format!("{} is not a directory", path.display())));
            }
        }
        Err(e) => return Err(e),
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    if let Some(o) = owner {
        std::os::unix::fs::lchown(path, Some(o.uid), Some(o.gid))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> u32 {
        Owner::current().expect("uid").uid
    }

    #[test]
    fn a_symlink_where_a_download_lands_is_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "root's secret").expect("write");
        let planted = dir.path().join("guid-1");
        std::os::unix::fs::symlink(&secret, &planted).expect("symlink");
        let err = open_written(&planted, me(), None).expect_err("a symlink is refused");
        assert!(err.to_string().contains("symlink"), "{err}");
        assert!(read_written(&planted, me(), 1 << 20).is_err());
        // Taken as a download: refused, and neither the link's target nor its text is moved.
        let held = dir.path().join("held");
        std::fs::create_dir(&held).expect("held");
        let to = dir.path().join("report.pdf");
        assert!(take(&planted, &held, &to, me()).is_err());
        assert!(!to.exists() && std::fs::symlink_metadata(&to).is_err());
        assert_eq!(
            std::fs::read_to_string(&secret).expect("kept"),
            "root's secret"
        );
        assert_eq!(std::fs::read_dir(&held).expect("held").count(), 0);
    }

    #[test]
    fn fifos_hard_links_and_other_owners_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            let err = open_written(&fifo, me(), None).expect_err("a fifo is refused");
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
        let file = dir.path().join("file");
        std::fs::write(&file, "x").expect("write");
        std::fs::hard_link(&file, dir.path().join("link")).expect("link");
        let err = open_written(&file, me(), None).expect_err("two links are refused");
        assert!(err.to_string().contains("hard links"), "{err}");
        let lone = dir.path().join("lone");
        std::fs::write(&lone, "x").expect("write");
        let err = open_written(&lone, me().wrapping_add(1), None).expect_err("another owner");
        assert!(err.to_string().contains("belongs to uid"), "{err}");
        assert!(open_written(&lone, me(), None).is_ok());
    }

    #[test]
    fn a_regular_download_is_taken_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let held = dir.path().join("held");
        std::fs::create_dir(&held).expect("held");
        let from = dir.path().join("guid-2");
        std::fs::write(&from, b"%PDF-1.7 bytes").expect("write");
        let to = dir.path().join("report.pdf");
        assert_eq!(take(&from, &held, &to, me()).expect("taken"), 14);
        assert_eq!(std::fs::read(&to).expect("read"), b"%PDF-1.7 bytes");
        assert!(!from.exists());
    }

    #[test]
    fn writing_into_a_browser_directory_replaces_a_planted_symlink_instead_of_following_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("passwd");
        std::fs::write(&target, "root:x:0:0").expect("write");
        let profile = dir.path().join("Default");
        std::fs::create_dir(&profile).expect("dir");
        std::os::unix::fs::symlink(&target, profile.join("Preferences")).expect("symlink");
        let temp = format!("Preferences.warden-{}", std::process::id());
        std::os::unix::fs::symlink(&target, profile.join(temp)).expect("symlink");
        let opened = open_dir(&profile).expect("open");
        replace_in(&opened, "Preferences", b"{}", None).expect("written");
        assert_eq!(
            std::fs::read_to_string(&target).expect("kept"),
            "root:x:0:0"
        );
        let meta = std::fs::symlink_metadata(profile.join("Preferences")).expect("meta");
        assert!(meta.file_type().is_file());
        // A directory planted as a symlink is not entered either.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("dir");
        std::os::unix::fs::symlink(&elsewhere, dir.path().join("Linked")).expect("symlink");
        let base = open_dir(dir.path()).expect("open");
        assert!(open_dir_in(&base, "Linked").is_err());
        assert!(inside(&base, "../x").is_err());
    }
}
