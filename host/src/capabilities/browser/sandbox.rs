//! Chromium's own sandbox under Warden: the user a launched browser runs as (never root:
//! when Warden is root, the manifest's `[browser] run_as` or its default), whether the kernel
//! lets that user build the sandbox (unprivileged user namespaces), what to change when it
//! does not, and the environment the browser starts with (none of Warden's secrets).

use super::hostile_fs::Owner;
use crate::manifest::BrowserConfig;
use crate::manifest::browser_sandbox::{RunAs, default_run_as, passwd};
use std::ffi::OsString;
use std::path::Path;

/// Chromium's words when it finds no sandbox it can use.
const NO_USABLE_SANDBOX: &str = "No usable sandbox";

/// Why a browser with its sandbox on cannot start here, and what the admin changes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Chromium's sandbox cannot start on this machine ({why}) for the user the browser runs as ({user}). It needs unprivileged user namespaces: allow them (sysctl user.max_user_namespaces=15000 when it is 0; on Ubuntu 23.10 and later sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile that gives Chromium userns; in a container, a seccomp profile that allows unshare and clone of user namespaces, which the default profiles of Docker and Podman refuse: see the deployment docs for the flags), or set [browser] sandbox = false to run the browser without it (every page is then one renderer exploit away from the browser's user)"
)]
pub struct SandboxUnavailable {
    pub why: String,
    pub user: String,
}

/// Who a launched browser runs as and with which sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The user to switch to (`None`: Warden is not root, the browser runs as Warden's user).
    pub switch: Option<RunAs>,
    /// Whose files the browser writes.
    pub owner: Owner,
    /// Chromium's sandbox on (off only by the admin's `[browser] sandbox = false`).
    pub sandboxed: bool,
    /// For a persistent profile's browser: the shared browser's user, which may have owned
    /// the profile before each profile had a user of its own (it is then handed over).
    pub shared: Option<Owner>,
}

impl Plan {
    /// The plan of the shared browser (`profile`: `None`), or of the browser of the
    /// persistent profile at `profile`, which runs as a user of its own when Warden is root.
    pub fn of(config: &BrowserConfig, profile: Option<&Path>) -> Result<Self, String> {
        let me = Owner::current().map_err(|e| format!("cannot tell which user Warden is: {e}"))?;
        let shared = (me.uid == 0).then(|| {
            config
                .run_as
                .clone()
                .unwrap_or_else(|| default_run_as(&passwd()))
        });
        let switch = match (profile, &shared) {
            (Some(dir), Some(base)) => {
                Some(super::profile_users::user_for(dir, base.uid).map_err(|e| e.to_string())?)
            }
            _ => shared.clone(),
        };
        let owner_of = |u: &RunAs| Owner {
            uid: u.uid,
            gid: u.gid,
        };
        Ok(Self {
            owner: switch.as_ref().map_or(me, owner_of),
            switch,
            sandboxed: !config.unsandboxed,
            shared: profile.and(shared.as_ref().map(owner_of)),
        })
    }

    /// The browser's user for messages: `chromium (uid 998, gid 997)`.
    pub fn user(&self) -> String {
        match &self.switch {
            Some(u) => format!("{} (uid {}, gid {})", u.shown, u.uid, u.gid),
            None => format!("Warden's own user (uid {})", self.owner.uid),
        }
    }

    /// What `warden check` and the start-up log say of it.
    pub fn describe(&self) -> String {
        let sandbox = if self.sandboxed {
            "on"
        } else {
            "OFF ([browser] sandbox = false): a renderer exploit runs as the browser's user with no walls"
        };
        format!("runs as {}, Chromium sandbox {sandbox}", self.user())
    }
}

/// Whether the browser's user may create the user namespaces Chromium's sandbox is built
/// on: a child started as that user tries, as Chromium does, and exits. `Err` says why not.
pub async fn probe(exe: &Path, plan: &Plan) -> Result<(), SandboxUnavailable> {
    let fail = |why: String| SandboxUnavailable {
        why,
        user: plan.user(),
    };
    let mut cmd = tokio::process::Command::new(exe);
    cmd.env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    if let Some(u) = &plan.switch {
        cmd.uid(u.uid).gid(u.gid);
    }
    try_namespaces(&mut cmd);
    let status = match cmd.spawn() {
        Ok(mut child) => child.wait().await,
        Err(e) => return Err(fail(why_not(&e))),
    };
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(fail(format!("the probe ended with {s}"))),
        Err(e) => Err(fail(e.to_string())),
    }
}

/// In the probe's child, before it would exec: a user namespace, then a network namespace
/// inside it (what needs the capabilities the new namespace gives; Ubuntu's AppArmor rule
/// lets the first succeed and withholds those), then exit without running anything.
#[allow(unsafe_code)]
fn try_namespaces(cmd: &mut tokio::process::Command) {
    // SAFETY: only unshare and _exit run between fork and exec, both async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            if libc::unshare(libc::CLONE_NEWUSER) != 0 || libc::unshare(libc::CLONE_NEWNET) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::_exit(0)
        });
    }
}

/// The kernel's refusal, in the admin's terms.
fn why_not(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOSPC) => {
            "creating a user namespace failed with ENOSPC: user.max_user_namespaces is 0 here".into()
        }
        Some(libc::EPERM) => "creating a user namespace failed with EPERM: the kernel (kernel.unprivileged_userns_clone=0, an AppArmor rule) or a seccomp profile forbids it".into(),
        Some(libc::EINVAL) => {
            "creating a user namespace failed with EINVAL: this kernel has no user namespaces".into()
        }
        _ => format!("creating a user namespace failed: {e}"),
    }
}

/// The same error, when Chromium itself says it found no sandbox (a rule the probe did not
/// meet); `None` when its last words say something else.
pub fn from_stderr(stderr: &str, plan: &Plan) -> Option<SandboxUnavailable> {
    stderr
        .contains(NO_USABLE_SANDBOX)
        .then(|| SandboxUnavailable {
            why: "Chromium found no usable sandbox".into(),
            user: plan.user(),
        })
}

/// Warden's variables the browser keeps: what it needs to find programs, fonts, its locale
/// and time zone, and a display when it has a window. Everything else (tokens, passwords,
/// cloud credentials an admin put in Warden's environment) stays out of it.
fn kept(name: &str, headless: bool) -> bool {
    matches!(
        name,
        "PATH" | "LANG" | "LANGUAGE" | "TZ" | "FONTCONFIG_FILE" | "FONTCONFIG_PATH"
    ) || name.starts_with("LC_")
        || (!headless
            && matches!(
                name,
                "DISPLAY" | "WAYLAND_DISPLAY" | "XAUTHORITY" | "XDG_RUNTIME_DIR"
            ))
}

/// The browser's whole environment: the kept part of `vars` (Warden's), and `HOME` and
/// `TMPDIR` in directories the browser owns.
pub fn environment(
    vars: impl Iterator<Item = (OsString, OsString)>,
    headless: bool,
    home: &Path,
    tmp: &Path,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| k.to_str().is_some_and(|k| kept(k, headless)))
        .collect();
    if !env.iter().any(|(k, _)| k == "PATH") {
        env.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    env.push(("HOME".into(), home.into()));
    env.push(("TMPDIR".into(), tmp.into()));
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browser_gets_no_secret_from_wardens_environment() {
        let warden = [
            ("PATH", "/usr/bin:/bin"),
            ("HOME", "/root"),
            ("LANG", "de_DE.UTF-8"),
            ("LC_TIME", "C"),
            ("AWS_SECRET_ACCESS_KEY", "hunter2"),
            ("APP_PASSWORD", "hunter2"),
            ("DISPLAY", ":0"),
            ("XDG_CONFIG_HOME", "/root/.config"),
            ("LD_PRELOAD", "/tmp/evil.so"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = environment(
            warden.clone().into_iter(),
            true,
            Path::new("/b/home"),
            Path::new("/b/home/tmp"),
        );
        let names: Vec<&str> = env.iter().filter_map(|(k, _)| k.to_str()).collect();
        assert_eq!(names, ["PATH", "LANG", "LC_TIME", "HOME", "TMPDIR"]);
        assert!(env.iter().all(|(_, v)| v != "hunter2" && v != "/root"));
        let windowed = environment(
            warden.into_iter(),
            false,
            Path::new("/b/home"),
            Path::new("/b/tmp"),
        );
        assert!(windowed.iter().any(|(k, _)| k == "DISPLAY"));
    }

    #[test]
    fn chromiums_own_refusal_maps_to_the_fix() {
        let plan = Plan {
            switch: None,
            owner: Owner { uid: 1, gid: 1 },
            sandboxed: true,
            shared: None,
        };
        let said = "[1:1:ERROR:zygote_host_impl_linux.cc(128)] No usable sandbox! If you are running on Ubuntu 23.10+ ...";
        let e = from_stderr(said, &plan).expect("mapped");
        let text = e.to_string();
        assert!(text.contains("user.max_user_namespaces") && text.contains("sandbox = false"));
        assert!(from_stderr("something else", &plan).is_none());
    }
}
