//! Start a local Chromium, on a fresh temporary profile or a persistent user-data-dir, with
//! its DevTools protocol on a pipe (no TCP port a page could reach), and stop it again. It
//! runs with its own sandbox, as an unprivileged user when Warden is root (`sandbox.rs`),
//! in directories of its own (`own_dirs.rs`), with none of Warden's environment but what it
//! needs.

use super::hostile_fs::{self, Owner};
use super::own_dirs::{OwnDirs, reachable};
use super::sandbox::{Plan, SandboxUnavailable};
use crate::manifest::BrowserConfig;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

/// Where Chromium is looked for when the manifest names no `[browser] executable`.
const CANDIDATES: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

/// How long a launch waits for another browser to let go of a persistent profile (one that
/// Warden is closing, as after a manifest reload) before it reports the profile in use.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// A persistent user-data-dir and the settings that can only be given at launch.
#[derive(Debug, Clone, PartialEq)]
pub struct Persistent {
    pub dir: PathBuf,
    /// The manifest key that names the directory, for messages.
    pub key: String,
    /// A proxy for every request of this browser (a default context has no per-context proxy).
    pub proxy: Option<String>,
    pub proxy_bypass: Vec<String>,
}

/// A running local browser. Dropping it kills the process and removes a temporary profile.
pub struct Launched {
    /// Our ends of the DevTools pipe (commands to the browser, answers and events from it);
    /// taken once by the connection.
    pipe: Option<(pipe::Sender, pipe::Receiver)>,
    /// The last lines the browser wrote to stderr, for a start that fails.
    stderr_tail: Arc<Mutex<Vec<String>>>,
    /// Killed when dropped (`kill_on_drop`); [`Launched::stop`] waits for a clean exit first.
    child: Child,
    /// The browser's own directories (`own_dirs.rs`), removed when dropped, with a
    /// temporary profile (a persistent profile stays).
    dirs: OwnDirs,
    /// Who it runs as and whether sandboxed.
    plan: Plan,
}

/// Why a browser did not launch.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// Its sandbox cannot start here; the message says what to change.
    #[error(transparent)]
    Sandbox(#[from] SandboxUnavailable),
    #[error("{0}")]
    Other(String),
}

impl From<String> for LaunchError {
    fn from(e: String) -> Self {
        Self::Other(e)
    }
}

impl Launched {
    /// The DevTools pipe: (to the browser, from the browser). `None` once taken.
    pub fn take_pipe(&mut self) -> Option<(pipe::Sender, pipe::Receiver)> {
        self.pipe.take()
    }

    /// What the browser said on stderr last (for an error message when it did not start).
    pub fn stderr_tail(&self) -> String {
        self.stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .join(" | ")
    }

    /// Why it did not start, from its last words: the sandbox's fix when it found none.
    pub fn start_failure(&self) -> Option<String> {
        let said = self.stderr_tail();
        if said.is_empty() {
            return None;
        }
        Some(match super::sandbox::from_stderr(&said, &self.plan) {
            Some(sandbox) => sandbox.to_string(),
            None => format!("the browser did not start: {said}"),
        })
    }

    /// The browser's own directories.
    pub fn dirs(&self) -> &OwnDirs {
        &self.dirs
    }

    /// Who it runs as and whether sandboxed.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Wait up to `grace` for the process to exit (after `Browser.close`), then kill it.
    pub async fn stop(mut self, grace: Duration) {
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            tracing::warn!("the browser did not exit within {grace:?} of being closed; killing it");
            let _ = self.child.kill().await;
        }
    }
}

pub fn executable(config: &BrowserConfig) -> Result<PathBuf, String> {
    if let Some(path) = &config.executable {
        return if path.is_file() {
            Ok(path.clone())
        } else {
            Err(format!(
                "[browser] executable = \"{}\" does not exist; install Chromium (Debian: apt-get install chromium) or fix the path",
                path.display()
            ))
        };
    }
    CANDIDATES
        .iter()
        .map(Path::new)
        .find(|p| p.is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            "no Chromium found; install it (Debian: apt-get install chromium) or set [browser] executable in the manifest".to_string()
        })
}

/// What `warden check` says of the browser Warden launches: which user it runs as, whether
/// its sandbox is on, and whether that user may create the user namespaces it needs.
pub async fn sandbox_report(config: &BrowserConfig) -> Vec<String> {
    if !config.endpoints.is_empty() {
        return vec![
            "browser: remote [browser] endpoints: each runs its own sandbox (run it as a non-root user, without --no-sandbox)".into(),
        ];
    }
    let plan = match Plan::of(config, None) {
        Ok(plan) => plan,
        Err(e) => return vec![format!("browser: {e}")],
    };
    let mut lines = vec![format!("browser: {}", plan.describe())];
    lines.push(match executable(config) {
        Err(e) => format!("browser: user namespaces not probed: {e}"),
        Ok(exe) => match super::sandbox::probe(&exe, &plan).await {
            Ok(()) => format!("browser: user namespaces: available to {}", plan.user()),
            Err(e) if plan.sandboxed => {
                format!("browser: user namespaces: UNAVAILABLE, the browser will not start: {e}")
            }
            Err(e) => format!("browser: user namespaces: unavailable ({})", e.why),
        },
    });
    lines
}

/// The process that holds a user-data-dir, if one still runs: Chromium's `SingletonLock` is a
/// symlink to `HOSTNAME-PID`.
fn lock_holder(dir: &Path) -> Option<u32> {
    let target = std::fs::read_link(dir.join("SingletonLock")).ok()?;
    let (host, pid) = target.to_str()?.rsplit_once('-')?;
    let pid: u32 = pid.parse().ok()?;
    let ours = std::fs::read_to_string("/proc/sys/kernel/hostname").is_ok_and(|h| h.trim() == host);
    // A zombie still has a /proc entry but holds nothing; and after a crash the pid may have
    // gone to a process that is no browser.
    let alive = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|st| {
        st.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    });
    let browser = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .is_ok_and(|comm| comm.contains("chrom"));
    (ours && alive && browser).then_some(pid)
}

/// Wait until no other browser holds `dir` (a browser being closed lets go within seconds).
async fn wait_unlocked(persistent: &Persistent) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + LOCK_WAIT;
    while let Some(pid) = lock_holder(&persistent.dir) {
        if tokio::time::Instant::now() >= deadline {
            return Err(format!(
                "the browser profile {} ({}) is in use by another browser (pid {pid}), such as another warden serving the same manifest; a user-data-dir serves one browser at a time: stop that one or give this manifest its own directory",
                persistent.dir.display(),
                persistent.key
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

/// Start Chromium: with a fresh temporary profile, or with `persistent` (created if missing)
/// whose cookies and logins outlive the process. `guard_proxy` is the network guard of its
/// default context: everything the browser sends outside Warden's own contexts goes there.
/// `netns`: the network the browser runs in (`netns.rs`), where its guards listen.
pub async fn launch(
    config: &BrowserConfig,
    persistent: Option<&Persistent>,
    guard_proxy: &str,
    netns: Option<&super::netns::Netns>,
) -> Result<Launched, LaunchError> {
    let exe = executable(config)?;
    let plan = Plan::of(config, persistent.map(|p| p.dir.as_path()))?;
    if plan.sandboxed {
        super::sandbox::probe(&exe, &plan).await?;
    } else {
        tracing::warn!(
            "[browser] sandbox = false: Chromium starts with --no-sandbox; {}",
            plan.describe()
        );
    }
    let dirs = OwnDirs::create(plan.owner)?;
    // `dir`: the profile as the host sees it; `mount`: it is mounted at the browser's own
    // profile directory, for a browser whose user cannot reach where it lies.
    let (dir, mount) = match persistent {
        Some(p) => {
            wait_unlocked(p).await?;
            let mount = own_persistent(p, &plan)?;
            (p.dir.clone(), mount.then(|| dirs.profile()))
        }
        None => (dirs.profile(), None),
    };
    let user_data_dir = mount.clone().unwrap_or_else(|| dir.clone());
    // Settings read only from the profile (WebRTC's policy, no speculative loading: see
    // `preferences.rs`): written before the browser reads them.
    super::preferences::pin(&dir, plan.owner)?;
    let guard_host = url::Url::parse(guard_proxy)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .ok_or_else(|| format!("the network guard's address {guard_proxy} is not a URL"))?;
    // fd 3 of the browser: its commands (it reads); fd 4: its answers and events (it writes).
    let pipe_err = |e: std::io::Error| format!("cannot create the browser's DevTools pipe: {e}");
    let (browser_reads, to_browser) = std::io::pipe().map_err(pipe_err)?;
    let (from_browser, browser_writes) = std::io::pipe().map_err(pipe_err)?;
    let mut cmd = Command::new(&exe);
    cmd.arg("--remote-debugging-pipe")
        .arg(format!("--user-data-dir={}", user_data_dir.display()))
        .args([
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-sync",
            "--disable-breakpad",
            "--disable-crash-reporter",
            "--disable-extensions",
            "--disable-popup-blocking",
            "--disable-prompt-on-repost",
            "--metrics-recording-only",
            "--password-store=basic",
            "--use-mock-keychain",
            "--mute-audio",
            "--hide-scrollbars",
            "--window-size=1280,800",
            // A tab behind another (the opener of a popup) keeps running at full speed:
            // input, timers and frames are not held back while an agent works in it.
            "--disable-background-timer-throttling",
            "--disable-backgrounding-occluded-windows",
            "--disable-renderer-backgrounding",
            // Nothing may leave the browser around its network guard (see guard/ and udp.rs):
            // no QUIC (UDP, not proxied), no DNS prefetching; the WebRTC switch is read only
            // by chrome-headless-shell (Chrome reads the profile's policy, pinned above).
            "--disable-quic",
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--dns-prefetch-disable",
            // Site isolation stays on: a frame of another site runs in a renderer of its own,
            // which Warden attaches to like a tab (`events/frames.rs`).
            "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
        ]);
    if config.headless {
        cmd.args(["--headless=new", "--disable-gpu"]);
    }
    if !plan.sandboxed {
        cmd.arg("--no-sandbox");
    }
    if persistent.is_some() {
        // An earlier browser on this profile may have been killed; do not offer to restore it.
        cmd.arg("--hide-crash-restore-bubble");
    }
    // The profile's own proxy, if any, is chained behind the guard.
    cmd.arg(format!("--proxy-server={guard_proxy}"))
        .arg(format!("--proxy-bypass-list={}", super::guard::BYPASS))
        .arg(super::udp::resolver_rules(&guard_host));
    // None of Warden's environment (it may hold credentials) but what the browser needs.
    cmd.env_clear().envs(super::sandbox::environment(
        std::env::vars_os(),
        config.headless,
        &dirs.home(),
        &dirs.tmp(),
    ));
    let bind = match &mount {
        Some(at) => Some((c_path(&dir)?, c_path(at)?)),
        None => None,
    };
    {
        use std::os::fd::AsRawFd;
        child_setup(
            &mut cmd,
            browser_reads.as_raw_fd(),
            browser_writes.as_raw_fd(),
            Switch {
                user: plan.switch.as_ref().map(|u| (u.uid, u.gid)),
                bind,
                netns: netns.map(super::netns::Netns::raw_fd),
            },
        );
    }
    cmd.args(&config.args)
        .arg("about:blank")
        .current_dir(dirs.home())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| match &mount {
            Some(_) if e.raw_os_error() == Some(libc::EPERM) => format!(
                "cannot start {}: the browser's user ({}) cannot reach its profile {} and Warden may not mount it where it can ({e}); make the directories above it searchable (chmod o+x) or move it ({})",
                exe.display(),
                plan.user(),
                dir.display(),
                persistent.map_or("", |p| p.key.as_str()),
            ),
            _ => format!("cannot start {}: {e}", exe.display()),
        })?;
    // The browser's ends now live in the browser; ours must close so its exit is seen.
    drop((browser_reads, browser_writes));
    let to_browser =
        pipe::Sender::from_owned_fd(std::os::fd::OwnedFd::from(to_browser)).map_err(pipe_err)?;
    let from_browser = pipe::Receiver::from_owned_fd(std::os::fd::OwnedFd::from(from_browser))
        .map_err(pipe_err)?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| "the browser's stderr was not captured".to_string())?;
    let stderr_tail = Arc::new(Mutex::new(Vec::new()));
    let tail = stderr_tail.clone();
    // Keep draining stderr so the browser never blocks on a full pipe; keep its last lines.
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
            if tail.len() >= 20 {
                tail.remove(0);
            }
            tail.push(line);
        }
    });
    Ok(Launched {
        pipe: Some((to_browser, from_browser)),
        stderr_tail,
        child,
        dirs,
        plan,
    })
}

fn c_path(path: &Path) -> Result<CString, String> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("{} has a NUL byte in its name", path.display()))
}

/// Make a persistent profile the browser's: created for it, or handed over when Warden's
/// own user wrote it (a browser that ran as Warden before); refused when another user owns
/// it. Returns whether the browser's user cannot reach it where it lies (then it is mounted
/// in the browser's own tree).
fn own_persistent(p: &Persistent, plan: &Plan) -> Result<bool, String> {
    let owner = plan.owner;
    let fail = |e: std::io::Error| {
        format!(
            "cannot prepare the browser profile {}: {e}; fix {}",
            p.dir.display(),
            p.key
        )
    };
    match std::fs::metadata(&p.dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = p.dir.parent() {
                std::fs::create_dir_all(parent).map_err(fail)?;
            }
            hostile_fs::make_dir(&p.dir, 0o700, Some(owner)).map_err(fail)?;
        }
        Err(e) => return Err(fail(e)),
        Ok(meta) => {
            use std::os::unix::fs::MetadataExt;
            if !meta.is_dir() {
                return Err(format!(
                    "the browser profile {} is not a directory; fix {}",
                    p.dir.display(),
                    p.key
                ));
            }
            let me = Owner::current().map_err(fail)?;
            // Warden's, the shared browser's, or a profile user's of a table since lost.
            let ours = meta.uid() == me.uid
                || plan.shared.is_some_and(|s| s.uid == meta.uid())
                || super::profile_users::is_profile_id(meta.uid());
            if meta.uid() != owner.uid {
                if !ours {
                    return Err(format!(
                        "the browser profile {} belongs to uid {}, not to the browser's user {}: give it to that user (chown -R {}:{} {}) or give {} a directory of its own",
                        p.dir.display(),
                        meta.uid(),
                        plan.user(),
                        owner.uid,
                        owner.gid,
                        p.dir.display(),
                        p.key
                    ));
                }
                tracing::warn!(
                    "the browser profile {} ({}) was Warden's or the shared browser's; handing it to the browser's user {}",
                    p.dir.display(),
                    p.key,
                    plan.user()
                );
                hostile_fs::hand_over(&p.dir, owner).map_err(fail)?;
            }
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p.dir, std::fs::Permissions::from_mode(0o700))
                .map_err(fail)?;
        }
    }
    Ok(!reachable(&p.dir, owner))
}

/// How the child becomes the browser: a persistent profile mounted where it can reach it
/// (host path, mount point), then the user it runs as (uid, gid).
struct Switch {
    user: Option<(u32, u32)>,
    bind: Option<(CString, CString)>,
    /// The network namespace to join (while the child may still: before the user switch).
    netns: Option<std::os::fd::RawFd>,
}

/// In the child, before exec: put the DevTools pipe on fds 3 and 4 (where
/// `--remote-debugging-pipe` expects it); join the browser's network namespace; mount a persistent profile where the browser's
/// user can reach it (in a mount namespace of the browser's own, so nothing else sees it);
/// become the browser's user (no supplementary groups); have the kernel kill the browser
/// when Warden dies without closing it (SIGKILL, a crash): an orphaned browser would keep
/// running and hold its persistent profile (the signal is tied to the thread that spawns
/// the browser: a tokio worker, which lives as long as Warden; set after the switch, which
/// clears it), and start it under the filter that keeps UDP in (`udp.rs`); a kernel that
/// refuses the filter refuses the launch.
#[allow(unsafe_code)]
fn child_setup(
    cmd: &mut Command,
    reads: std::os::fd::RawFd,
    writes: std::os::fd::RawFd,
    switch: Switch,
) {
    let warden = std::process::id();
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    let no_udp = super::udp::filter::program();
    // SAFETY: between fork and exec only async-signal-safe calls are made (fcntl, dup2,
    // setns, unshare, mount, setgroups, setgid, setuid, prctl, getppid, kill on ourselves), on
    // data prepared before the fork, and nothing is allocated.
    unsafe {
        cmd.pre_exec(move || {
            // Copied above 10 first, so neither end is overwritten by the other's dup2
            // (either may be fd 3 or 4 already); dup2 clears close-on-exec on 3 and 4.
            let high_reads = libc::fcntl(reads, libc::F_DUPFD_CLOEXEC, 10);
            let high_writes = libc::fcntl(writes, libc::F_DUPFD_CLOEXEC, 10);
            if high_reads < 0
                || high_writes < 0
                || libc::dup2(high_reads, 3) < 0
                || libc::dup2(high_writes, 4) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            {
                if let Some(ns) = switch.netns
                    && libc::setns(ns, libc::CLONE_NEWNET) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                if let Some((from, to)) = &switch.bind
                    && (libc::unshare(libc::CLONE_NEWNS) != 0
                        || libc::mount(
                            std::ptr::null(),
                            c"/".as_ptr(),
                            std::ptr::null(),
                            libc::MS_REC | libc::MS_SLAVE,
                            std::ptr::null(),
                        ) != 0
                        || libc::mount(
                            from.as_ptr(),
                            to.as_ptr(),
                            std::ptr::null(),
                            libc::MS_BIND,
                            std::ptr::null(),
                        ) != 0)
                {
                    return Err(std::io::Error::last_os_error());
                }
                if let Some((uid, gid)) = switch.user
                    && (libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(gid) != 0
                        || libc::setuid(uid) != 0)
                {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // Warden died before the prctl took effect: the browser was re-parented already.
                if u32::try_from(libc::getppid()) != Ok(warden) {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                }
                #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
                super::udp::filter::install(&no_udp)?;
            }
            #[cfg(not(target_os = "linux"))]
            let _ = (warden, &switch);
            Ok(())
        });
    }
}
