//! File transfer over the host's SSH connection to a host alias (`warden:sftp/sftp`). Every
//! path must stay under one of the plugin's `sftp.roots` once the server has resolved it
//! (symlinks included); changes need `sftp.write`.

use crate::CapabilityError;
use crate::bindings::warden::sftp::sftp as wit;

/// What a path points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// Anything else (socket, device, ...).
    Other,
}

/// Metadata of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileStat {
    /// What the path points to.
    pub kind: FileKind,
    /// Size in bytes.
    pub size: u64,
    /// Unix permission bits.
    pub mode: u32,
    /// Modification time, seconds since the Unix epoch.
    pub modified: Option<u64>,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DirEntry {
    /// The entry's file name.
    pub name: String,
    /// Its metadata.
    pub stat: FileStat,
}

impl From<wit::FileStat> for FileStat {
    fn from(s: wit::FileStat) -> Self {
        let kind = match s.kind {
            wit::FileKind::File => FileKind::File,
            wit::FileKind::Directory => FileKind::Directory,
            wit::FileKind::Symlink => FileKind::Symlink,
            wit::FileKind::Other => FileKind::Other,
        };
        Self {
            kind,
            size: s.size,
            mode: s.mode,
            modified: s.modified,
        }
    }
}

/// Lists the directory `path` on host alias `host`.
pub fn list(host: &str, path: &str) -> Result<Vec<DirEntry>, CapabilityError> {
    Ok(wit::list(host, path)?
        .into_iter()
        .map(|e| DirEntry {
            name: e.name,
            stat: e.stat.into(),
        })
        .collect())
}

/// The metadata of `path` on host alias `host`.
pub fn stat(host: &str, path: &str) -> Result<FileStat, CapabilityError> {
    Ok(wit::stat(host, path)?.into())
}

/// Reads at most `length` bytes of the file `path` on host alias `host`, from `offset`.
pub fn read(host: &str, path: &str, offset: u64, length: u64) -> Result<Vec<u8>, CapabilityError> {
    wit::read(host, path, offset, length).map_err(Into::into)
}

/// How [`write`] treats an existing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WriteMode {
    /// Create a new file; fail if it exists.
    Create,
    /// Create the file or replace its contents.
    Truncate,
    /// Create the file or add to its end.
    Append,
}

/// Writes `data` to `path` on host alias `host`; returns the file's size afterwards.
pub fn write(host: &str, path: &str, data: &[u8], mode: WriteMode) -> Result<u64, CapabilityError> {
    let mode = match mode {
        WriteMode::Create => wit::WriteMode::Create,
        WriteMode::Truncate => wit::WriteMode::Truncate,
        WriteMode::Append => wit::WriteMode::Append,
    };
    wit::write(host, path, data, mode).map_err(Into::into)
}

/// Creates the directory `path` on host alias `host`.
pub fn mkdir(host: &str, path: &str) -> Result<(), CapabilityError> {
    wit::mkdir(host, path).map_err(Into::into)
}

/// Removes a file, a symlink or an empty directory.
pub fn remove(host: &str, path: &str) -> Result<(), CapabilityError> {
    wit::remove(host, path).map_err(Into::into)
}

/// Renames `from` to `to` on host alias `host`.
pub fn rename(host: &str, from: &str, to: &str) -> Result<(), CapabilityError> {
    wit::rename(host, from, to).map_err(Into::into)
}

/// The canonical absolute path of `path` on the server.
pub fn realpath(host: &str, path: &str) -> Result<String, CapabilityError> {
    wit::realpath(host, path).map_err(Into::into)
}

/// The host alias of the open SSH terminal session `session_id` (opened by any plugin, e.g.
/// with `terminal_open`). The calling plugin's SFTP grants for that alias apply exactly as if
/// it had named the alias; a local PTY session has no alias.
pub fn session_host(session_id: &str) -> Result<String, CapabilityError> {
    wit::session_host(session_id).map_err(Into::into)
}
