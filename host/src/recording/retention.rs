//! `[audit] retention`: recordings older than `days` are removed, then the oldest until the
//! rest fit in `bytes`. Files still being written are never removed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Where recordings are and how much of them is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retention {
    pub dir: PathBuf,
    pub days: u32,
    pub bytes: u64,
}

/// What one pass removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Removed {
    pub files: usize,
    pub bytes: u64,
}

/// The extensions of recording files: asciicast (terminals), Warden event lines (the rest).
pub const EXTENSIONS: [&str; 2] = ["cast", "jsonl"];

/// The recording files under `dir` (`DAY/NAME.cast`, `DAY/NAME.jsonl`): path, size, last
/// write.
pub fn files(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let mut found = Vec::new();
    let Ok(days) = std::fs::read_dir(dir) else {
        return found;
    };
    for day in days.flatten() {
        let Ok(entries) = std::fs::read_dir(day.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path
                .extension()
                .is_none_or(|e| !EXTENSIONS.iter().any(|x| e == *x))
            {
                continue;
            }
            if let Ok(meta) = entry.metadata()
                && meta.is_file()
            {
                let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                found.push((path, meta.len(), modified));
            }
        }
    }
    found
}

/// Remove what `retention` no longer keeps, except `open` files; oldest first.
pub fn enforce(retention: &Retention, open: &HashSet<PathBuf>) -> Removed {
    let found = files(&retention.dir);
    let mut total: u64 = found.iter().map(|(_, size, _)| size).sum();
    let mut all: Vec<_> = found
        .into_iter()
        .filter(|(p, _, _)| !open.contains(p))
        .collect();
    all.sort_by_key(|(_, _, modified)| *modified);
    let oldest_kept = SystemTime::now()
        .checked_sub(Duration::from_secs(u64::from(retention.days) * 86_400))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut removed = Removed::default();
    for (path, size, modified) in all {
        if modified >= oldest_kept && total <= retention.bytes {
            break;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {
                total = total.saturating_sub(size);
                removed.files += 1;
                removed.bytes += size;
                // The day's directory goes with its last recording.
                if let Some(day) = path.parent() {
                    let _ = std::fs::remove_dir(day);
                }
            }
            Err(e) => {
                tracing::warn!(file = %path.display(), "retention could not remove a recording: {e}")
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, day: &str, name: &str, size: usize, age: Duration) -> PathBuf {
        let path = dir.join(day).join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, vec![b'x'; size]).expect("write");
        let when = SystemTime::now() - age;
        let f = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        f.set_modified(when).expect("mtime");
        path
    }

    #[test]
    fn old_recordings_go_then_the_oldest_until_the_rest_fit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let day = Duration::from_secs(86_400);
        let ancient = write(dir.path(), "2020-01-01", "a.cast", 10, day * 40);
        let old = write(dir.path(), "2026-11-20", "b.cast", 600, day * 3);
        let open = write(dir.path(), "2026-11-20", "c.cast", 600, day * 2);
        let newer = write(dir.path(), "2026-11-28", "d.cast", 300, day);
        let newest = write(dir.path(), "2026-11-28", "e.cast", 300, Duration::ZERO);
        let other = write(dir.path(), "2026-11-28", "notes.txt", 5000, day * 90);
        let retention = Retention {
            dir: dir.path().to_path_buf(),
            days: 30,
            bytes: 1300,
        };
        let removed = enforce(&retention, &HashSet::from([open.clone()]));
        // 40 days old: gone. Then 1800 bytes of .cast > 1300: the oldest (not open) goes.
        assert_eq!(
            removed,
            Removed {
                files: 2,
                bytes: 610
            }
        );
        assert!(!ancient.exists() && !ancient.parent().expect("day").exists());
        assert!(!old.exists());
        for kept in [&open, &newer, &newest, &other] {
            assert!(kept.exists(), "{}", kept.display());
        }
        // Within both limits: nothing more goes.
        assert_eq!(enforce(&retention, &HashSet::new()), Removed::default());
    }
}
