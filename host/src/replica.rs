//! This process's name among replicas behind a load balancer (`warden serve --replica NAME`
//! or `[server] replica`). Every handle the host mints for state it keeps in memory (terminal,
//! SSH and RDP sessions, tasks) starts with `NAME.`, so a load balancer can send a request to
//! the replica that holds its state by reading the handle, and a replica handed another
//! replica's handle says where it belongs instead of "not found". Set once at start-up: a
//! handle must keep naming the process that made it.

use std::sync::OnceLock;

static NAME: OnceLock<String> = OnceLock::new();

/// The longest replica name: handles stay short.
pub const MAX_NAME: usize = 32;

/// Why a name cannot be a replica name.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NameError {
    #[error(
        "replica name \"{0}\" must be 1 to {MAX_NAME} characters of a-z, 0-9 and '-', e.g. \"r1\""
    )]
    Invalid(String),
    #[error(
        "this process is replica \"{0}\" already; its handles keep that name until it restarts"
    )]
    AlreadySet(String),
}

/// Check a replica name: what a load balancer rule and a handle can carry unquoted.
pub fn check(name: &str) -> Result<(), NameError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(NameError::Invalid(name.to_string()))
    }
}

/// Name this process (once, before any handle is minted).
pub fn set(name: &str) -> Result<(), NameError> {
    check(name)?;
    let stored = NAME.get_or_init(|| name.to_string());
    if stored == name {
        Ok(())
    } else {
        Err(NameError::AlreadySet(stored.clone()))
    }
}

/// This replica's name, when it has one.
pub fn name() -> Option<&'static str> {
    NAME.get().map(String::as_str)
}

/// A handle for state this process keeps: `local` under this replica's name.
pub fn handle(local: String) -> String {
    prefixed(name(), local)
}

fn prefixed(replica: Option<&str>, local: String) -> String {
    match replica {
        Some(r) => format!("{r}.{local}"),
        None => local,
    }
}

/// `handle` without this replica's name in front (as minted by [`handle`]).
pub fn local(handle: &str) -> &str {
    name()
        .and_then(|me| handle.strip_prefix(me)?.strip_prefix('.'))
        .unwrap_or(handle)
}

/// A handle this process cannot hold because another replica made it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "'{handle}' was made by replica \"{owner}\", and this is replica \"{me}\": the request reached the wrong replica, or \"{owner}\" stopped and its sessions are lost; open a new one"
)]
pub struct Elsewhere {
    pub handle: String,
    pub owner: String,
    pub me: String,
}

/// Whether `handle` names another replica than this one (only when this one has a name).
pub fn elsewhere(handle: &str) -> Option<Elsewhere> {
    elsewhere_of(name(), handle)
}

fn elsewhere_of(me: Option<&str>, handle: &str) -> Option<Elsewhere> {
    let me = me?;
    let (owner, _) = handle.split_once('.')?;
    (check(owner).is_ok() && owner != me).then(|| Elsewhere {
        handle: handle.to_string(),
        owner: owner.to_string(),
        me: me.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_lowercase_words() {
        assert!(check("r1").is_ok());
        assert!(check("eu-west-2").is_ok());
        for bad in ["", "R1", "r.1", "r 1", "r/1", &"a".repeat(MAX_NAME + 1)] {
            assert_eq!(check(bad), Err(NameError::Invalid(bad.to_string())));
        }
    }

    #[test]
    fn handles_carry_the_replica_and_are_unchanged_without_one() {
        assert_eq!(prefixed(Some("r2"), "pty-1a2b3c".into()), "r2.pty-1a2b3c");
        assert_eq!(prefixed(None, "pty-1a2b3c".into()), "pty-1a2b3c");
    }

    #[test]
    fn another_replicas_handle_is_named_as_such() {
        let e = elsewhere_of(Some("r1"), "r2.pty-1a2b3c").expect("elsewhere");
        assert_eq!((e.owner.as_str(), e.me.as_str()), ("r2", "r1"));
        assert!(e.to_string().contains("open a new one"), "{e}");
        // Its own handles, unnamed handles, and a process without a name: not elsewhere.
        assert_eq!(elsewhere_of(Some("r1"), "r1.pty-1a2b3c"), None);
        assert_eq!(elsewhere_of(Some("r1"), "pty-1a2b3c"), None);
        assert_eq!(elsewhere_of(None, "r2.pty-1a2b3c"), None);
        // A dot in something that is not a replica name (a file name) is not a replica.
        assert_eq!(elsewhere_of(Some("r1"), "Notes.TXT"), None);
    }
}
