//! Start a local Chromium, on a fresh temporary profile or a persistent user-data-dir, with
//! its DevTools protocol on a pipe (no TCP port a page could reach), and stop it again.

use crate::manifest::BrowserConfig;
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
    /// Held for its `Drop`, which deletes a temporary profile directory (a persistent
    /// profile stays).
    _profile: Option<tempfile::TempDir>,
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

/// Chromium must run without its sandbox when Warden runs as root (it refuses otherwise).
fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
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
pub async fn launch(
    config: &BrowserConfig,
    persistent: Option<&Persistent>,
    guard_proxy: &str,
) -> Result<Launched, String> {
    let exe = executable(config)?;
    let (dir, profile) = match persistent {
        Some(p) => {
            std::fs::create_dir_all(&p.dir).map_err(|e| {
                format!(
                    "cannot create the browser profile {}: {e}; fix {}",
                    p.dir.display(),
                    p.key
                )
            })?;
            wait_unlocked(p).await?;
            (p.dir.clone(), None)
        }
        None => {
            let temp = tempfile::Builder::new()
                .prefix("warden-browser-")
                .tempdir()
                .map_err(|e| format!("cannot create a browser profile directory: {e}"))?;
            (temp.path().to_path_buf(), Some(temp))
        }
    };
    // WebRTC's policy lives in the profile (see `udp.rs`): written before the browser reads it.
    super::udp::pin_preferences(&dir)?;
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
        .arg(format!("--user-data-dir={}", dir.display()))
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
    if running_as_root() {
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
    {
        use std::os::fd::AsRawFd;
        child_setup(
            &mut cmd,
            browser_reads.as_raw_fd(),
            browser_writes.as_raw_fd(),
        );
    }
    cmd.args(&config.args)
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
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
        _profile: profile,
    })
}

/// In the child, before exec: put the DevTools pipe on fds 3 and 4 (where
/// `--remote-debugging-pipe` expects it), have the kernel kill the browser when Warden
/// dies without closing it (SIGKILL, a crash): an orphaned browser would keep running and
/// hold its persistent profile (the signal is tied to the thread that spawns the browser: a
/// tokio worker, which lives as long as Warden), and start it under the filter that keeps
/// UDP in (`udp.rs`); a kernel that refuses the filter refuses the launch.
#[allow(unsafe_code)]
fn child_setup(cmd: &mut Command, reads: std::os::fd::RawFd, writes: std::os::fd::RawFd) {
    let warden = std::process::id();
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    let no_udp = super::udp::filter::program();
    // SAFETY: between fork and exec only async-signal-safe calls are made (fcntl, dup2,
    // prctl, getppid, kill on ourselves), and nothing is allocated.
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
            let _ = warden;
            Ok(())
        });
    }
}
