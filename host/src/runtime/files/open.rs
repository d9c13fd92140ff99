//! `open-at` as the host does it, in place of wasmtime-wasi's: the same confinement
//! (cap-primitives resolves every path inside the opened directory) and the same flags, plus
//! `O_NONBLOCK` and `O_NOCTTY`. A FIFO in a granted directory would otherwise hold the
//! opening thread until a writer came, which may be never: that thread belongs to the pool
//! the whole process shares, and a call's timeout cannot take it back. With `O_NONBLOCK`
//! the open returns at once, and the opened descriptor itself (not a path looked at
//! before, which another instance could swap) is checked: only directories and regular
//! files are handed to the plugin. A regular file that is one of Warden's secret files
//! (a hard link the directory holds) is refused too.

use crate::manifest::owned::OwnedFiles;
use cap_primitives::fs::{FollowSymlinks, OpenOptions, OpenOptionsExt as _};
use std::path::Path;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorFlags, ErrorCode, OpenFlags, PathFlags,
};
use wasmtime_wasi::{FsPerms, OpenMode};

/// What the guest asked for, checked and turned into options for the open.
pub(super) struct Request {
    pub(super) path: String,
    opts: OpenOptions,
    pub(super) open_mode: OpenMode,
    want_dir: bool,
}

/// What an open found.
pub(super) enum Opened {
    Dir(std::fs::File),
    File(std::fs::File),
    /// A FIFO, socket or device: never handed to a plugin.
    Special(&'static str),
    /// One of Warden's secret files, by inode.
    Owned,
}

/// The checks wasmtime-wasi makes before it opens, with its answers.
pub(super) fn request(
    perms: FsPerms,
    path_flags: PathFlags,
    path: String,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> Result<Request, ErrorCode> {
    let mut opts = OpenOptions::new();
    let mut open_mode = OpenMode::empty();
    let mut create = false;
    if oflags.contains(OpenFlags::CREATE) {
        if oflags.contains(OpenFlags::EXCLUSIVE) {
            opts.create_new(true);
        } else {
            opts.create(true);
        }
        create = true;
        opts.write(true);
        open_mode |= OpenMode::WRITE;
    }
    if oflags.contains(OpenFlags::TRUNCATE) {
        opts.truncate(true).write(true);
        open_mode |= OpenMode::WRITE;
    }
    if flags.contains(DescriptorFlags::READ) {
        opts.read(true);
        open_mode |= OpenMode::READ;
    }
    if flags.contains(DescriptorFlags::WRITE) {
        opts.write(true);
        open_mode |= OpenMode::WRITE;
    } else {
        // Opened for reading so the system lets it open; the permissions refuse the rest.
        opts.read(true);
        open_mode |= OpenMode::READ;
    }
    // cap-primitives' own setter for cap-fs-ext (`OpenOptionsFollowExt`), which cap-std uses.
    opts._cap_fs_ext_follow(if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
        FollowSymlinks::Yes
    } else {
        FollowSymlinks::No
    });
    opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    if flags.intersects(
        DescriptorFlags::FILE_INTEGRITY_SYNC
            | DescriptorFlags::DATA_INTEGRITY_SYNC
            | DescriptorFlags::REQUESTED_WRITE_SYNC,
    ) {
        return Err(ErrorCode::Unsupported);
    }
    let want_dir = oflags.contains(OpenFlags::DIRECTORY);
    if want_dir && oflags.intersects(OpenFlags::CREATE | OpenFlags::EXCLUSIVE | OpenFlags::TRUNCATE)
    {
        return Err(ErrorCode::Invalid);
    }
    if perms.write_not_permitted() && (create || open_mode.contains(OpenMode::WRITE)) {
        return Err(ErrorCode::NotPermitted);
    }
    Ok(Request {
        path,
        opts,
        open_mode,
        want_dir,
    })
}

/// Open `request` under directory `dir`. Blocking, but briefly: no open here waits for a
/// peer. Run it on a blocking thread.
pub(super) fn open(
    dir: &std::fs::File,
    request: &Request,
    owned: &OwnedFiles,
) -> Result<Opened, ErrorCode> {
    let file = cap_primitives::fs::open(dir, Path::new(&request.path), &request.opts)
        .map_err(|e| ErrorCode::from(&e))?;
    let meta = file.metadata().map_err(|e| ErrorCode::from(&e))?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Ok(Opened::Dir(file));
    }
    if request.want_dir {
        return Err(ErrorCode::NotDirectory);
    }
    if !kind.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let what = if kind.is_fifo() {
            "FIFO"
        } else if kind.is_socket() {
            "socket"
        } else if kind.is_char_device() {
            "character device"
        } else if kind.is_block_device() {
            "block device"
        } else {
            "special file"
        };
        return Ok(Opened::Special(what));
    }
    if owned.holds(&meta) {
        return Ok(Opened::Owned);
    }
    // A regular file: reads and writes as the guest expects them (the flag changes nothing
    // for regular files on Linux, but nothing should depend on that).
    let flags =
        rustix::fs::fcntl_getfl(&file).map_err(|e| ErrorCode::from(&std::io::Error::from(e)))?;
    rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK)
        .map_err(|e| ErrorCode::from(&std::io::Error::from(e)))?;
    Ok(Opened::File(file))
}
