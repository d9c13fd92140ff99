//! Start a local Chromium, on a fresh temporary profile or a persistent user-data-dir, find
//! its DevTools address, and stop it again.

use crate::manifest::BrowserConfig;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Where Chromium is looked for when the manifest names no `[browser] executable`.
const CANDIDATES: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

const START_TIMEOUT: Duration = Duration::from_secs(30);

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
    pub ws_url: String,
    /// Killed when dropped (`kill_on_drop`); [`Launched::stop`] waits for a clean exit first.
    child: Child,
    /// Held for its `Drop`, which deletes a temporary profile directory (a persistent
    /// profile stays).
    _profile: Option<tempfile::TempDir>,
}

impl Launched {
    /// The DevTools TCP port the browser listens on, if any.
    pub fn debug_port(&self) -> Option<u16> {
        url::Url::parse(&self.ws_url).ok()?.port()
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
    let mut cmd = Command::new(&exe);
    cmd.arg("--remote-debugging-port=0")
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
            // Nothing may leave the browser around its network guard (see guard/): no QUIC
            // (UDP, not proxied), no WebRTC UDP outside the proxy, no DNS prefetching.
            "--disable-quic",
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--dns-prefetch-disable",
            // Frames from other sites stay in the page's process, so the page's origin
            // guard sees their navigations and the snapshot can read them.
            "--disable-features=IsolateOrigins,site-per-process,Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
            "--disable-site-isolation-trials",
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
        .arg(format!("--proxy-bypass-list={}", super::guard::BYPASS));
    die_with_parent(&mut cmd);
    cmd.args(&config.args)
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| "the browser's stderr was not captured".to_string())?;
    let mut lines = BufReader::new(stderr).lines();
    let mut tail = Vec::new();
    let found = tokio::time::timeout(START_TIMEOUT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.trim().strip_prefix("DevTools listening on ") {
                return Some(url.to_string());
            }
            if tail.len() < 20 {
                tail.push(line);
            }
        }
        None
    })
    .await;
    let ws_url = match found {
        Ok(Some(url)) => url,
        Ok(None) => {
            return Err(format!(
                "{} exited before it was ready: {}",
                exe.display(),
                tail.join(" | ")
            ));
        }
        Err(_) => return Err(format!("{} did not start within 30 s", exe.display())),
    };
    // Keep draining stderr so the browser never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Launched {
        ws_url,
        child,
        _profile: profile,
    })
}

/// Have the kernel kill the browser when Warden dies without closing it (SIGKILL, a crash):
/// an orphaned browser would keep running and hold its persistent profile. The signal is
/// tied to the thread that spawns the browser: a tokio worker, which lives as long as Warden.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(cmd: &mut Command) {
    let warden = std::process::id();
    // SAFETY: between fork and exec only async-signal-safe calls are made (prctl, getppid,
    // kill on ourselves), and nothing is allocated.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Warden died before the prctl took effect: the browser was re-parented already.
            if u32::try_from(libc::getppid()) != Ok(warden) {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_cmd: &mut Command) {}
