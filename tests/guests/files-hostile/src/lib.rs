//! Attacks on granted directories through raw `wasi:filesystem` calls (not `std::fs`, so
//! each door the host serves is tried by name): paths and symlinks out of the directory,
//! hard links and renames between grants, writes to a read-only grant, and every way to
//! make a file grow past the quota.

// The exports wit-bindgen generates are `unsafe extern "C"` functions.
#![allow(unsafe_code)]

wit_bindgen::generate!({ world: "files-hostile", path: "wit" });

use wasip2::filesystem::preopens::get_directories;
use wasip2::filesystem::types::{Descriptor, DescriptorFlags, ErrorCode, OpenFlags, PathFlags};

struct Component;

fn dir(guest: &str) -> Result<Descriptor, String> {
    get_directories()
        .into_iter()
        .find(|(_, name)| name == guest)
        .map(|(d, _)| d)
        .ok_or_else(|| format!("no preopen {guest}"))
}

fn read_at(d: &Descriptor, path: &str, follow: bool) -> Result<String, ErrorCode> {
    let flags = if follow {
        PathFlags::SYMLINK_FOLLOW
    } else {
        PathFlags::empty()
    };
    let f = d.open_at(flags, path, OpenFlags::empty(), DescriptorFlags::READ)?;
    let (bytes, _) = f.read(4096, 0)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn create(d: &Descriptor, path: &str) -> Result<Descriptor, ErrorCode> {
    d.open_at(
        PathFlags::empty(),
        path,
        OpenFlags::CREATE,
        DescriptorFlags::READ | DescriptorFlags::WRITE,
    )
}

/// Write `total` bytes to `path` in 64 KiB pieces by `how`; the bytes that went in and the
/// error that stopped it.
fn fill(d: &Descriptor, path: &str, total: u64, how: &str) -> String {
    let f = match create(d, path) {
        Ok(f) => f,
        Err(e) => return format!("0 bytes; open: {e:?}"),
    };
    let chunk = vec![b'x'; 64 * 1024];
    let mut done = 0u64;
    let stream = match how {
        "stream" => f.write_via_stream(0).ok(),
        "append" => f.append_via_stream().ok(),
        _ => None,
    };
    while done < total {
        let n = chunk
            .len()
            .min(usize::try_from(total - done).unwrap_or(usize::MAX));
        let result = match &stream {
            // `blocking-write-and-flush` takes at most 4096 bytes at a time.
            Some(s) => chunk[..n]
                .chunks(4096)
                .try_for_each(|piece| s.blocking_write_and_flush(piece))
                .map(|()| n as u64)
                .map_err(|e| format!("{e:?}")),
            None => f.write(&chunk[..n], done).map_err(|e| format!("{e:?}")),
        };
        match result {
            Ok(w) => done += w,
            Err(e) => return format!("{done} bytes; stopped: {e}"),
        }
    }
    format!("{done} bytes; all written")
}

impl Guest for Component {
    fn attack(kind: String, arg: String) -> Result<String, String> {
        let data = dir("/data");
        let data = || data.as_ref().map_err(Clone::clone);
        Ok(match kind.as_str() {
            // `arg` is a path relative to /data, read with symlinks followed.
            "read" => format!("{:?}", read_at(data()?, &arg, true)),
            "read-nofollow" => format!("{:?}", read_at(data()?, &arg, false)),
            // Plant a symlink at `link` pointing to `arg`, then read through it.
            "plant" => {
                let d = data()?;
                let made = d.symlink_at(&arg, "planted");
                let read = read_at(d, "planted", true);
                format!("symlink {made:?}; read {read:?}")
            }
            // A hard link from /data/`arg` to the other grant, and to a path above /data.
            "hardlink" => {
                let d = data()?;
                let other = dir("/other")?;
                let across = d.link_at(PathFlags::empty(), &arg, &other, "linked");
                let up = d.link_at(PathFlags::empty(), &arg, d, "../linked");
                let outside = d.link_at(PathFlags::empty(), "../../../etc/passwd", d, "passwd");
                format!("across {across:?}; up {up:?}; from outside {outside:?}")
            }
            "rename" => {
                let d = data()?;
                let other = dir("/other")?;
                let across = d.rename_at(&arg, &other, "moved");
                let up = d.rename_at(&arg, d, "../moved");
                format!("across {across:?}; up {up:?}")
            }
            // Write a file in the read-only grant /ro, every way.
            "write-ro" => {
                let ro = dir("/ro")?;
                let open = create(&ro, "new.txt").map(|_| ());
                let existing = ro.open_at(
                    PathFlags::empty(),
                    &arg,
                    OpenFlags::empty(),
                    DescriptorFlags::READ | DescriptorFlags::WRITE,
                );
                let mkdir = ro.create_directory_at("newdir");
                let unlink = ro.unlink_file_at(&arg);
                format!(
                    "create {open:?}; open for write {:?}; mkdir {mkdir:?}; unlink {unlink:?}",
                    existing.map(|_| ())
                )
            }
            // Fill /data/`arg` with this many bytes (the first word of arg), by write,
            // stream or append: "1048576 write".
            "fill" => {
                let mut words = arg.split_whitespace();
                let total: u64 = words
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("fill: bytes how")?;
                let how = words.next().unwrap_or("write");
                let name = words
                    .next()
                    .map_or_else(|| format!("fill-{how}.bin"), str::to_string);
                fill(data()?, &name, total, how)
            }
            // Grow a file by set-size, or by one byte at a far offset.
            "grow" => {
                let d = data()?;
                let f = create(d, "grown.bin").map_err(|e| format!("{e:?}"))?;
                let size: u64 = arg.parse().map_err(|_| "grow: bytes")?;
                let set = f.set_size(size);
                let sparse = f.write(b"x", size);
                format!("set-size {set:?}; write at {size}: {sparse:?}")
            }
            // Create empty files until refused.
            "many" => {
                let d = data()?;
                let limit: u32 = arg.parse().map_err(|_| "many: count")?;
                let mut made = 0;
                let mut last = String::from("none");
                for i in 0..limit {
                    match create(d, &format!("empty-{i}")) {
                        Ok(_) => made += 1,
                        Err(e) => {
                            last = format!("{e:?}");
                            break;
                        }
                    }
                }
                format!("{made} files; stopped: {last}")
            }
            // Every way to change or remove what /data holds, each on a file the admin put
            // there: truncate by open, truncate by set-size, unlink, rename over another
            // file, remove a directory.
            "destroy" => {
                let d = data()?;
                let by_open = d
                    .open_at(
                        PathFlags::empty(),
                        "t-open.txt",
                        OpenFlags::TRUNCATE,
                        DescriptorFlags::READ | DescriptorFlags::WRITE,
                    )
                    .map(|_| ());
                let by_size = d
                    .open_at(
                        PathFlags::empty(),
                        "t-size.txt",
                        OpenFlags::empty(),
                        DescriptorFlags::READ | DescriptorFlags::WRITE,
                    )
                    .and_then(|f| f.set_size(0));
                let unlink = d.unlink_file_at("gone.txt");
                let over = d.rename_at("new.txt", d, "old.txt");
                let rmdir = d.remove_directory_at("empty-dir");
                format!(
                    "truncate {by_open:?}; set-size {by_size:?}; unlink {unlink:?}; rename over {over:?}; rmdir {rmdir:?}"
                )
            }
            // Nest directories `arg` levels deep (200-byte names, so far past the system's
            // 4096-byte path limit), each opened from the one above, then fill files at the
            // bottom until refused: "40".
            "deep" => {
                let levels: u32 = arg.parse().map_err(|_| "deep: levels")?;
                let name = "d".repeat(200);
                let mut at = data()?.open_at(
                    PathFlags::empty(),
                    ".",
                    OpenFlags::DIRECTORY,
                    DescriptorFlags::READ | DescriptorFlags::MUTATE_DIRECTORY,
                );
                for _ in 0..levels {
                    let d = at.map_err(|e| format!("open: {e:?}"))?;
                    d.create_directory_at(&name)
                        .map_err(|e| format!("mkdir: {e:?}"))?;
                    at = d.open_at(
                        PathFlags::empty(),
                        &name,
                        OpenFlags::DIRECTORY,
                        DescriptorFlags::READ | DescriptorFlags::MUTATE_DIRECTORY,
                    );
                }
                let bottom = at.map_err(|e| format!("open: {e:?}"))?;
                let mut written = 0u64;
                let mut last = String::from("none");
                for i in 0..1000 {
                    let out = fill(&bottom, &format!("f{i}"), 256 * 1024, "write");
                    let n: u64 = out
                        .split_whitespace()
                        .next()
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                    written += n;
                    if !out.ends_with("all written") {
                        last = out;
                        break;
                    }
                }
                format!("{written} bytes written deep; stopped: {last}")
            }
            // Open /data/`arg` for reading and fail the call if the host refuses (so the
            // agent is told why): a FIFO or a hard link to one of Warden's files.
            "must-read" => {
                read_at(data()?, &arg, false).map_err(|e| format!("read {arg}: {e:?}"))?
            }
            // Write into the read-only grant and fail the call when refused.
            "must-write-ro" => {
                let ro = dir("/ro")?;
                create(&ro, &arg).map_err(|e| format!("create {arg}: {e:?}"))?;
                "written".to_string()
            }
            other => return Err(format!("unknown attack {other}")),
        })
    }
}

export!(Component);
