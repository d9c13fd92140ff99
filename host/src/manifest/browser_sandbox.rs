//! `[browser] run_as` and `sandbox`: which unprivileged user a browser Warden launches runs
//! as when Warden is root, and the explicit opt-out of Chromium's own sandbox.

use super::validate::Validator;
use toml::Spanned;

/// The user a browser runs as when `run_as` names none: a dedicated account an admin can
/// create (`useradd --system warden-browser`) ...
pub const DEFAULT_USER: &str = "warden-browser";
/// ... or, without one, this uid and gid. Above Debian's and Ubuntu's regular users
/// (1000-59999), below systemd's dynamic users (61184-65519), and within the 65536 ids every
/// user namespace a container runtime maps (rootless Podman, Docker's userns-remap), so the
/// switch works there too. It is nobody's (not `nobody`, 65534, whose files exist).
pub const DEFAULT_ID: u32 = 61_000;

/// An unprivileged user and group (never 0), and how the admin named it, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunAs {
    pub uid: u32,
    pub gid: u32,
    /// The name as written, or `UID:GID`.
    pub shown: String,
}

/// Why a `run_as` value is refused (the text follows the key).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunAsError {
    #[error(
        "\"{0}\" is root (uid or gid 0); name an unprivileged user, such as \"{DEFAULT_USER}\" (useradd --system --no-create-home {DEFAULT_USER}) or \"{DEFAULT_ID}:{DEFAULT_ID}\""
    )]
    Root(String),
    #[error(
        "no user \"{0}\" in /etc/passwd; create it (useradd --system --no-create-home {0}) or write \"UID:GID\""
    )]
    NoSuchUser(String),
    #[error("\"{0}\" is neither a user name nor \"UID:GID\" (two numbers below 4294967295)")]
    Malformed(String),
}

/// Parse `run_as`: `"UID:GID"`, or a user name looked up in `passwd` (the text of
/// /etc/passwd), with its primary group.
pub fn parse_run_as(value: &str, passwd: &str) -> Result<RunAs, RunAsError> {
    let (uid, gid) = if let Some((u, g)) = value.split_once(':') {
        match (u.parse::<u32>(), g.parse::<u32>()) {
            (Ok(u), Ok(g)) if u != u32::MAX && g != u32::MAX => (u, g),
            _ => return Err(RunAsError::Malformed(value.to_string())),
        }
    } else if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c == '/') {
        return Err(RunAsError::Malformed(value.to_string()));
    } else {
        lookup(value, passwd).ok_or_else(|| RunAsError::NoSuchUser(value.to_string()))?
    };
    if uid == 0 || gid == 0 {
        return Err(RunAsError::Root(value.to_string()));
    }
    Ok(RunAs {
        uid,
        gid,
        shown: value.to_string(),
    })
}

/// (uid, gid) of `name` in the text of /etc/passwd (`name:x:uid:gid:...`).
pub fn lookup(name: &str, passwd: &str) -> Option<(u32, u32)> {
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != name {
            return None;
        }
        let _password = fields.next()?;
        Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
    })
}

/// The user a browser runs as when `run_as` names none (see [`DEFAULT_USER`], [`DEFAULT_ID`]).
pub fn default_run_as(passwd: &str) -> RunAs {
    match lookup(DEFAULT_USER, passwd) {
        Some((uid, gid)) if uid != 0 && gid != 0 => RunAs {
            uid,
            gid,
            shown: DEFAULT_USER.into(),
        },
        _ => RunAs {
            uid: DEFAULT_ID,
            gid: DEFAULT_ID,
            shown: format!("{DEFAULT_ID}:{DEFAULT_ID}"),
        },
    }
}

/// The text of /etc/passwd (empty when unreadable: names then do not resolve).
pub fn passwd() -> String {
    std::fs::read_to_string("/etc/passwd").unwrap_or_default()
}

impl Validator<'_> {
    /// `run_as` and `sandbox`: both about a browser Warden launches, so neither goes with
    /// remote `endpoints`. Returns (run_as, sandbox on).
    pub(super) fn browser_sandbox(
        &mut self,
        run_as: Option<Spanned<String>>,
        sandbox: Option<Spanned<bool>>,
        remote: bool,
    ) -> (Option<RunAs>, bool) {
        let remote_error = |key: &str| {
            format!(
                "browser.{key} is about a browser Warden launches; remote [browser] endpoints run their own (see deploy.md for what they need): remove one of the two"
            )
        };
        let on = match sandbox {
            Some(s) if remote => {
                self.error(s.span(), remote_error("sandbox"));
                true
            }
            Some(s) => *s.get_ref(),
            None => true,
        };
        let run_as = run_as.and_then(|value| {
            if remote {
                self.error(value.span(), remote_error("run_as"));
                return None;
            }
            match parse_run_as(value.get_ref(), &passwd()) {
                Ok(user) => Some(user),
                Err(why) => {
                    self.error(value.span(), format!("browser.run_as: {why}"));
                    None
                }
            }
        });
        (run_as, on)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
        nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n\
        chromium:x:998:997::/var/lib/chromium:/usr/sbin/nologin\n\
        broken:x:abc:1::/:/bin/false\n";

    #[test]
    fn names_and_ids_resolve() {
        let user = parse_run_as("chromium", PASSWD).expect("chromium");
        assert_eq!(
            (user.uid, user.gid, user.shown.as_str()),
            (998, 997, "chromium")
        );
        let ids = parse_run_as("61000:61001", PASSWD).expect("ids");
        assert_eq!((ids.uid, ids.gid), (61000, 61001));
    }

    #[test]
    fn root_is_refused_by_name_and_by_number() {
        for value in ["root", "0:0", "0:100", "100:0"] {
            assert!(
                matches!(parse_run_as(value, PASSWD), Err(RunAsError::Root(_))),
                "{value}"
            );
        }
    }

    #[test]
    fn unknown_and_malformed_values_say_what_to_write() {
        assert_eq!(
            parse_run_as("ghost", PASSWD),
            Err(RunAsError::NoSuchUser("ghost".into()))
        );
        assert!(
            parse_run_as("ghost", PASSWD)
                .err()
                .is_some_and(|e| e.to_string().contains("useradd"))
        );
        for value in [
            "",
            "1:",
            ":1",
            "a:b",
            "1:2:3",
            "-1:5",
            "4294967295:1",
            "x y",
            "broken",
        ] {
            assert!(parse_run_as(value, PASSWD).is_err(), "{value}");
        }
    }

    #[test]
    fn the_default_is_the_dedicated_user_else_a_fixed_id() {
        let with = format!("{PASSWD}warden-browser:x:990:990::/:/usr/sbin/nologin\n");
        assert_eq!(default_run_as(&with).uid, 990);
        let without = default_run_as(PASSWD);
        assert_eq!((without.uid, without.gid), (DEFAULT_ID, DEFAULT_ID));
        // A `warden-browser` that is root is never taken.
        let rooted = format!("{PASSWD}warden-browser:x:0:0::/:/bin/sh\n");
        assert_eq!(default_run_as(&rooted).uid, DEFAULT_ID);
    }
}
