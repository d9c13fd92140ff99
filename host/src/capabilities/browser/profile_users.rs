//! Each persistent profile's browser runs as a user of its own when Warden is root, so a
//! browser process that escaped Chromium's sandbox reads its own profile and no other's
//! (cookies, logins, storage). The ids are numbers no account has (no passwd entry is
//! needed to run as one), kept in `browser-users.json` in Warden's state directory so a
//! profile keeps its owner across restarts.

use crate::manifest::browser_sandbox::RunAs;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The first id a profile's browser gets: just above the shared browser's default (61000).
pub const FIRST_ID: u32 = 61_001;
/// The last: below systemd's dynamic users (61184-65519), and within the 65536 ids every
/// user namespace a container runtime maps.
pub const LAST_ID: u32 = 61_183;
/// The table is a few lines; a larger file is not Warden's.
const MAX_TABLE: u64 = 1024 * 1024;

/// Is `uid` one a profile's browser may have been given (so a profile it owns is Warden's)?
pub fn is_profile_id(uid: u32) -> bool {
    (FIRST_ID..=LAST_ID).contains(&uid)
}

/// One process allocates at a time.
static TABLE: Mutex<()> = Mutex::new(());

/// Why a profile has no user.
#[derive(Debug, thiserror::Error)]
pub enum ProfileUserError {
    #[error(
        "cannot keep the browser profiles' users in {path}: {why}; make Warden's state directory writable by Warden alone, or remove a damaged file (each profile then gets a new user and is handed over at its next launch)"
    )]
    Table { path: PathBuf, why: String },
    #[error(
        "every id from {FIRST_ID} to {LAST_ID} already runs a browser profile; remove the entries of profiles no longer in use from {0}"
    )]
    Exhausted(PathBuf),
}

/// The user the browser of the profile at `dir` runs as, allocated on first use. `avoid`:
/// the shared browser's user, which a profile never shares.
pub fn user_for(dir: &Path, avoid: u32) -> Result<RunAs, ProfileUserError> {
    let path = crate::manifest::state_dir().join("browser-users.json");
    let _one = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    let table_error = |why: String| ProfileUserError::Table {
        path: path.clone(),
        why,
    };
    let mut table = read(&path).map_err(table_error)?;
    let key = dir.to_string_lossy().into_owned();
    let id = match table.get(&key) {
        Some(id) => *id,
        None => {
            let taken = accounts(&crate::manifest::browser_sandbox::passwd());
            let id = (FIRST_ID..=LAST_ID)
                .find(|id| *id != avoid && !taken.contains(id) && !table.values().any(|t| t == id))
                .ok_or_else(|| ProfileUserError::Exhausted(path.clone()))?;
            table.insert(key, id);
            write(&path, &table).map_err(table_error)?;
            tracing::info!(
                "browser profile {}: its browser runs as uid and gid {id}, a user of its own",
                dir.display()
            );
            id
        }
    };
    Ok(RunAs {
        uid: id,
        gid: id,
        shown: format!("the profile's own user {id}:{id}"),
    })
}

fn read(path: &Path) -> Result<BTreeMap<String, u32>, String> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e.to_string()),
    };
    let mut text = String::new();
    file.take(MAX_TABLE + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_TABLE {
        return Err("it is larger than 1 MiB".into());
    }
    let table: BTreeMap<String, u32> =
        serde_json::from_str(&text).map_err(|e| format!("it is not a table of ids ({e})"))?;
    if let Some((dir, id)) = table
        .iter()
        .find(|(_, id)| !(FIRST_ID..=LAST_ID).contains(*id))
    {
        return Err(format!(
            "it gives {dir} the id {id}, outside {FIRST_ID}-{LAST_ID}"
        ));
    }
    Ok(table)
}

/// Written beside and renamed over, `0600` in a `0700` directory: the table is Warden's.
fn write(path: &Path, table: &BTreeMap<String, u32>) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let dir = path.parent().ok_or("it has no directory")?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| e.to_string())?;
    let text = serde_json::to_string_pretty(table).map_err(|e| e.to_string())?;
    let tmp = dir.join(format!(".browser-users.{}.tmp", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| e.to_string())?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, path).map_err(|e| e.to_string())
}

/// The uids of the accounts in `passwd` (its text), which a profile's id must not be.
fn accounts(passwd: &str) -> Vec<u32> {
    passwd
        .lines()
        .filter_map(|line| line.split(':').nth(2)?.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_are_read_from_passwd() {
        let passwd = "root:x:0:0::/root:/bin/sh\nchromium:x:61001:61001::/:/bin/false\nbroken\n";
        assert_eq!(accounts(passwd), vec![0, 61001]);
    }

    #[test]
    fn a_table_outside_the_range_is_refused() {
        let dir = std::env::temp_dir().join(format!("warden-users-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("browser-users.json");
        let mut table = BTreeMap::new();
        table.insert("/srv/profiles/crm".to_string(), FIRST_ID);
        write(&path, &table).expect("written");
        assert_eq!(read(&path).expect("read"), table);
        std::fs::write(&path, "{\"/srv/p\": 0}").expect("written");
        assert!(read(&path).expect_err("root").contains("outside"));
        std::fs::write(&path, "not json").expect("written");
        assert!(read(&path).expect_err("junk").contains("not a table"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
