//! What a granted directory holds, against its quota. The count is the directory's, shared
//! by every instance and every plugin granted it (one map of directories in the process),
//! so two conversations writing at once cannot each fill the quota. Growth is reserved
//! before a write runs and stays "in flight" until the write is on disk (settled) or has
//! failed (released); space given back (a removed file, a truncation) is found by a
//! recount of the disk plus what is in flight, which runs when a reservation would not fit.
//! The count may run high between recounts, never low, so a write is never let past the
//! quota on a stale number.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// The disk's allocation unit as counted here: every entry (file, directory, link) holds
/// at least one, a file its size rounded up to whole blocks. An empty file still costs a
/// block, so a plugin cannot exhaust the disk's inodes with empty files either.
pub const BLOCK: u64 = 4096;

/// Entries a recount visits at most; a directory with more is counted as full.
const MAX_ENTRIES: usize = 1_000_000;

/// What an entry of `size` bytes costs.
pub fn cost(size: u64) -> u64 {
    size.div_ceil(BLOCK).max(1).saturating_mul(BLOCK)
}

/// The bytes a directory holds, as last counted plus what was reserved since.
#[derive(Debug)]
pub struct Usage {
    root: PathBuf,
    state: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    /// Counted and reserved; `None` until the first reservation counts the directory.
    total: Option<u64>,
    /// Reserved for writes that may not be on disk yet (a recount does not see them).
    in_flight: u64,
}

/// A reservation did not fit.
#[derive(Debug, Clone, Copy)]
pub struct Full {
    pub held: u64,
    pub wanted: u64,
}

impl Usage {
    /// The one count of directory `root` (canonical) in this process.
    pub fn of(root: &Path) -> Arc<Self> {
        static ALL: OnceLock<Mutex<HashMap<PathBuf, Weak<Usage>>>> = OnceLock::new();
        let mut all = ALL
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(usage) = all.get(root).and_then(Weak::upgrade) {
            return usage;
        }
        all.retain(|_, w| w.strong_count() > 0);
        let usage = Arc::new(Self {
            root: root.to_path_buf(),
            state: Mutex::default(),
        });
        all.insert(root.to_path_buf(), Arc::downgrade(&usage));
        usage
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reserve `growth` bytes under `quota`, recounting once before refusing. The caller
    /// settles or releases it when its write is done.
    pub fn reserve(&self, growth: u64, quota: u64) -> Result<(), Full> {
        if growth == 0 {
            return Ok(());
        }
        let mut held = self.held();
        let recount = |h: &Held| count(&self.root).saturating_add(h.in_flight);
        let mut now = match held.total {
            Some(n) => n,
            None => recount(&held),
        };
        if now.saturating_add(growth) > quota {
            now = recount(&held);
        }
        if now.saturating_add(growth) > quota {
            held.total = Some(now);
            return Err(Full {
                held: now,
                wanted: growth,
            });
        }
        held.total = Some(now + growth);
        held.in_flight += growth;
        Ok(())
    }

    /// The write reserved for is on disk: a recount sees it from now on.
    pub fn settle(&self, bytes: u64) {
        let mut held = self.held();
        held.in_flight = held.in_flight.saturating_sub(bytes);
    }

    /// The write reserved for did not happen.
    pub fn release(&self, bytes: u64) {
        let mut held = self.held();
        held.in_flight = held.in_flight.saturating_sub(bytes);
        if let Some(n) = held.total.as_mut() {
            *n = n.saturating_sub(bytes);
        }
    }
}

/// What the tree under `root` holds, symlinks not followed (a link costs a block, whatever
/// it points to), whatever its depth: the walk goes by directory descriptors (`openat`
/// relative to the directory it is in), never by paths, so a tree nested deeper than the
/// system's path limit is counted as any other. One descriptor is open at a time (the walk
/// climbs back by `..`, checked to be the directory it came from), so depth costs no
/// descriptors. A tree changed under the walk (a directory moved while it climbs) is
/// counted again; if it keeps changing, it counts as full. Unreadable entries count a
/// block each.
pub fn count(root: &Path) -> u64 {
    for _ in 0..3 {
        if let Some(total) = walk(root) {
            return total;
        }
    }
    u64::MAX
}

/// One directory on the way down: who it is, and its subdirectories not yet visited.
struct Level {
    id: (u64, u64),
    pending: Vec<std::ffi::CString>,
}

/// One count of the tree, or `None` if it changed under the walk.
fn walk(root: &Path) -> Option<u64> {
    use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags, fstat, openat, statat};
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let id = |st: &rustix::fs::Stat| (st.st_dev, st.st_ino);
    let Ok(mut fd) = openat(CWD, root, dir_flags, Mode::empty()) else {
        return Some(BLOCK);
    };
    let mut stack = vec![Level {
        id: fstat(&fd).map(|st| id(&st)).ok()?,
        pending: Vec::new(),
    }];
    let mut total = 0u64;
    let mut seen = 0usize;
    loop {
        // Count the entries of the directory `fd` is, remembering its subdirectories.
        match Dir::read_from(&fd) {
            Ok(entries) => {
                for entry in entries.map_while(Result::ok) {
                    let name = entry.file_name();
                    if name.to_bytes() == b"." || name.to_bytes() == b".." {
                        continue;
                    }
                    seen += 1;
                    if seen > MAX_ENTRIES {
                        return Some(u64::MAX);
                    }
                    match statat(&fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {
                            total = total.saturating_add(BLOCK);
                            if let Some(level) = stack.last_mut() {
                                level.pending.push(name.to_owned());
                            }
                        }
                        Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => {
                            total =
                                total.saturating_add(cost(u64::try_from(st.st_size).unwrap_or(0)));
                        }
                        _ => total = total.saturating_add(BLOCK),
                    }
                }
            }
            Err(_) => total = total.saturating_add(BLOCK),
        }
        // Down into the next subdirectory not yet visited, climbing up as levels run out.
        loop {
            let next = stack.last_mut()?.pending.pop();
            match next {
                Some(name) => {
                    let Ok(child) = openat(&fd, name.as_c_str(), dir_flags, Mode::empty()) else {
                        total = total.saturating_add(BLOCK);
                        continue;
                    };
                    let child_id = fstat(&child).map(|st| id(&st)).ok()?;
                    stack.push(Level {
                        id: child_id,
                        pending: Vec::new(),
                    });
                    fd = child;
                    break;
                }
                None => {
                    stack.pop();
                    let Some(parent) = stack.last() else {
                        return Some(total);
                    };
                    let up = openat(&fd, c"..", dir_flags, Mode::empty()).ok()?;
                    if fstat(&up).map(|st| id(&st)).ok()? != parent.id {
                        return None;
                    }
                    fd = up;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BLOCK, Usage, cost, count};
    use std::sync::Arc;

    /// A tree deeper than the system's path limit (4096 bytes) is counted whole.
    #[test]
    fn a_tree_past_the_path_limit_is_counted() {
        use rustix::fs::{CWD, Mode, OFlags, mkdirat, openat};
        let dir = tempfile::tempdir().expect("temp dir");
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let mut fd = openat(CWD, dir.path(), flags, Mode::empty()).expect("open");
        let name = "d".repeat(200);
        for _ in 0..40 {
            mkdirat(&fd, name.as_str(), Mode::from_raw_mode(0o755)).expect("mkdir");
            fd = openat(&fd, name.as_str(), flags, Mode::empty()).expect("open");
        }
        let file = openat(
            &fd,
            "f",
            OFlags::WRONLY | OFlags::CREATE | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .expect("create");
        rustix::io::write(&file, &[7u8; 3 * BLOCK as usize]).expect("write");
        assert_eq!(count(dir.path()), 40 * BLOCK + 3 * BLOCK);
    }

    #[test]
    fn entries_cost_whole_blocks() {
        assert_eq!(cost(0), BLOCK);
        assert_eq!(cost(1), BLOCK);
        assert_eq!(cost(BLOCK), BLOCK);
        assert_eq!(cost(BLOCK + 1), 2 * BLOCK);
    }

    #[test]
    fn a_reservation_past_the_quota_is_refused_after_a_recount() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("a"), vec![1u8; 5000]).expect("write");
        std::fs::create_dir(dir.path().join("d")).expect("mkdir");
        assert_eq!(count(dir.path()), 3 * BLOCK);
        let usage = Usage::of(dir.path());
        assert!(usage.reserve(BLOCK, 4 * BLOCK).is_ok());
        // Not on disk yet, and still counted by the recount.
        assert!(usage.reserve(BLOCK, 4 * BLOCK).is_err());
        usage.release(BLOCK);
        assert!(usage.reserve(BLOCK, 4 * BLOCK).is_ok());
        std::fs::write(dir.path().join("b"), b"b").expect("write");
        usage.settle(BLOCK);
        assert!(usage.reserve(BLOCK, 4 * BLOCK).is_err());
        // Space given back outside the count is found by the recount.
        std::fs::remove_file(dir.path().join("a")).expect("rm");
        assert!(usage.reserve(2 * BLOCK, 4 * BLOCK).is_ok());
    }

    /// Writers that reserve at once (threads here; instances of two conversations in
    /// `tests/tests/plain_exports.rs`) share one count: together they get the quota, and
    /// not one block more.
    #[test]
    fn writers_at_once_share_the_quota() {
        let dir = tempfile::tempdir().expect("temp dir");
        let quota = 4096 * BLOCK;
        let start = std::sync::Barrier::new(8);
        let granted: Vec<u64> = std::thread::scope(|s| {
            let writers: Vec<_> = (0..8)
                .map(|_| {
                    // Each writer looks the directory up itself, as each instance does.
                    let usage: Arc<Usage> = Usage::of(dir.path());
                    let start = &start;
                    s.spawn(move || {
                        start.wait();
                        let mut got = 0;
                        while usage.reserve(BLOCK, quota).is_ok() {
                            got += BLOCK;
                        }
                        got
                    })
                })
                .collect();
            writers
                .into_iter()
                .map(|w| w.join().expect("writer"))
                .collect()
        });
        assert_eq!(granted.iter().sum::<u64>(), quota, "{granted:?}");
    }
}
