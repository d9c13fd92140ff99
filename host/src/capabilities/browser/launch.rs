//! Start a local Chromium with a fresh profile and find its DevTools address.

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

/// A running local browser. Dropping it kills the process and removes the profile.
pub struct Launched {
    pub ws_url: String,
    /// Held for its `Drop`, which kills the process (`kill_on_drop`).
    _child: Child,
    /// Held for its `Drop`, which deletes a temporary profile directory (a persistent
    /// profile stays).
    _profile: Option<tempfile::TempDir>,
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

/// Start Chromium: with a fresh temporary profile, or with `persistent` (created if missing)
/// whose cookies and logins outlive the process.
pub async fn launch(config: &BrowserConfig, persistent: Option<&Path>) -> Result<Launched, String> {
    let exe = executable(config)?;
    let (dir, profile) = match persistent {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                format!(
                    "cannot create the capture profile {}: {e}; fix [capture] profile_dir",
                    dir.display()
                )
            })?;
            (dir.to_path_buf(), None)
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
        _child: child,
        _profile: profile,
    })
}
