//! The browser provider: starts Chromium on first use (or attaches to `[browser] endpoint`)
//! and restarts it after a crash; a session opened with a profile that has a
//! `user_data_dir` gets a browser of its own. The running browser itself is [`Live`]
//! (`live.rs`).

use super::emulation::Emulation;
use super::error::{BrowserError, Result};
use super::guard::Guard;
use super::launch::Persistent;
use super::live::Live;
use super::saved_state::SavedStates;
use super::state::Owner;
use crate::manifest::{BrowserConfig, BrowserProfile};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long set-up steps (starting the browser, opening a tab) may take.
pub(super) const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Numbers every browser process Warden starts or attaches to, across all providers, so a
/// handle to a tab of one can never be taken for a tab of another.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// A session opened with a profile that has its own `user_data_dir`: it runs in a browser
/// of its own on that directory.
struct ProfileSession {
    plugin: String,
    session: String,
    profile: String,
    browser: Arc<BrowserProvider>,
}

/// Starts and restarts the browser; shared by all plugins of one manifest.
pub struct BrowserProvider {
    pub(super) config: BrowserConfig,
    pub(super) guard: Guard,
    /// The persistent user-data-dir this browser runs on (the capture profile, a profile's
    /// `user_data_dir`); a temporary one when `None`.
    pub(super) persistent: Option<Persistent>,
    /// For a profile's own browser: the emulation its session starts with.
    pub(super) profile_session: Option<Emulation>,
    live: tokio::sync::Mutex<Option<Arc<Live>>>,
    /// The sessions running in browsers of their own, one per persistent profile.
    profile_sessions: Mutex<Vec<ProfileSession>>,
    /// Session states plugins saved (`saved_state.rs`); kept across browser restarts.
    pub(super) states: SavedStates,
}

impl std::fmt::Debug for BrowserProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserProvider")
            .field("config", &self.config.executable)
            .finish_non_exhaustive()
    }
}

impl BrowserProvider {
    fn with(
        config: BrowserConfig,
        guard: Guard,
        persistent: Option<Persistent>,
        profile_session: Option<Emulation>,
    ) -> Self {
        Self {
            config,
            guard,
            persistent,
            profile_session,
            live: tokio::sync::Mutex::new(None),
            profile_sessions: Mutex::default(),
            states: SavedStates::default(),
        }
    }

    pub fn new(config: BrowserConfig) -> Self {
        Self::with(config, Guard::Browser, None, None)
    }

    /// The capture browser: its own Chromium on the persistent `[capture] profile_dir` (a
    /// user-data-dir belongs to one process), with the guard on `grants.capture.origins`.
    pub fn capture(config: BrowserConfig) -> Self {
        let persistent = Persistent {
            dir: config.capture_profile.clone(),
            key: "[capture] profile_dir".into(),
            proxy: None,
            proxy_bypass: Vec::new(),
        };
        Self::with(config, Guard::Capture, Some(persistent), None)
    }

    pub fn config(&self) -> &BrowserConfig {
        &self.config
    }

    /// The running browser, started (or restarted after a crash) when needed.
    pub async fn live(&self) -> Result<Arc<Live>> {
        let mut guard = self.live.lock().await;
        if let Some(live) = guard.as_ref() {
            if !live.cdp.closed().is_cancelled() {
                return Ok(live.clone());
            }
            tracing::warn!("the browser is gone; starting a fresh one");
        }
        let generation = GENERATION.fetch_add(1, Ordering::Relaxed) + 1;
        let live = tokio::time::timeout(SETUP_TIMEOUT, Live::start(self, generation))
            .await
            .map_err(|_| BrowserError::Timeout("the browser did not start within 30 s".into()))??;
        *guard = Some(live.clone());
        Ok(live)
    }

    /// The running browser if there is one (no start; a browser that exited is none).
    pub async fn current(&self) -> Option<Arc<Live>> {
        let live = self.live.lock().await.clone();
        live.filter(|l| !l.cdp.closed().is_cancelled())
    }

    /// (running browsers, open sessions) for the metrics: this provider's browser if it
    /// runs, and each profile session with its own browser.
    pub async fn census(&self) -> (usize, usize) {
        let profile_sessions = self.sessions_lock().len();
        let (browsers, sessions) = match self.current().await {
            Some(live) => (1, live.session_count()),
            None => (0, 0),
        };
        (browsers + profile_sessions, sessions + profile_sessions)
    }

    /// Close the browser (cleanly, so a persistent profile is written out) and the browsers
    /// of profile sessions. A later call starts a fresh one.
    pub async fn shutdown(&self) {
        let sessions = std::mem::take(&mut *self.sessions_lock());
        let closing = sessions.iter().map(|s| s.browser.shutdown_own());
        futures::future::join_all(closing).await;
        self.shutdown_own().await;
    }

    pub(super) async fn shutdown_own(&self) {
        let live = self.live.lock().await.take();
        if let Some(live) = live {
            live.shutdown().await;
        }
    }

    fn sessions_lock(&self) -> std::sync::MutexGuard<'_, Vec<ProfileSession>> {
        self.profile_sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The browser of a session opened with a persistent profile, if this is one.
    fn profile_browser(&self, plugin: &str, session: &str) -> Option<Arc<BrowserProvider>> {
        self.sessions_lock()
            .iter()
            .find(|s| s.plugin == plugin && s.session == session)
            .map(|s| s.browser.clone())
    }

    /// The browser a session lives in (its profile's own, or the shared one), started when
    /// needed.
    pub async fn live_for(&self, plugin: &str, session: &str) -> Result<Arc<Live>> {
        match self.profile_browser(plugin, session) {
            Some(browser) => browser.live().await,
            None => self.live().await,
        }
    }

    /// The running browser a session lives in, if it runs (no start).
    pub async fn current_for(&self, plugin: &str, session: &str) -> Option<Arc<Live>> {
        match self.profile_browser(plugin, session) {
            Some(browser) => browser.current().await,
            None => self.current().await,
        }
    }

    /// (plugin, session, profile) of every session running in a profile's own browser.
    pub(super) fn profile_session_names(&self) -> Vec<(String, String, String)> {
        self.sessions_lock()
            .iter()
            .map(|s| (s.plugin.clone(), s.session.clone(), s.profile.clone()))
            .collect()
    }

    /// Whether (plugin, session) runs in a profile's own browser.
    pub fn is_profile_session(&self, plugin: &str, session: &str) -> bool {
        self.profile_browser(plugin, session).is_some()
    }

    /// Open (plugin, session) in a browser of its own on `profile`'s `user_data_dir`. One
    /// session at a time per profile: the directory belongs to one browser process.
    pub async fn open_profile_session(
        &self,
        plugin: &str,
        session: &str,
        owner: Owner,
        name: &str,
        profile: &BrowserProfile,
    ) -> Result<()> {
        let Some(dir) = profile.user_data_dir.clone() else {
            return Err(BrowserError::Invalid(format!(
                "profile \"{name}\" has no user_data_dir"
            )));
        };
        self.check_session_cap(&owner).await?;
        if let Some(live) = self.current().await
            && live
                .lock()
                .by_owner
                .contains_key(&(plugin.to_string(), session.to_string()))
        {
            return Err(BrowserError::Invalid(format!(
                "session \"{session}\" is open already; close it (browse_session close) to open it with a profile"
            )));
        }
        let browser = {
            let mut sessions = self.sessions_lock();
            if let Some(s) = sessions
                .iter()
                .find(|s| s.plugin == plugin && s.session == session)
            {
                return Err(BrowserError::Invalid(format!(
                    "session \"{session}\" is open already (with profile \"{}\"); close it (browse_session close) to open it with a profile",
                    s.profile
                )));
            }
            if let Some(s) = sessions.iter().find(|s| s.profile == name) {
                let whose = if s.plugin == plugin {
                    String::new()
                } else {
                    format!(" of plugin \"{}\"", s.plugin)
                };
                return Err(BrowserError::Invalid(format!(
                    "profile \"{name}\" is in use by session \"{}\"{whose}: its user_data_dir serves one session at a time; close that session first",
                    s.session
                )));
            }
            let persistent = Persistent {
                dir,
                key: format!("[browser.profiles.{name}] user_data_dir"),
                proxy: profile.proxy.clone(),
                proxy_bypass: profile.proxy_bypass.clone(),
            };
            let browser = Arc::new(Self::with(
                self.config.clone(),
                Guard::Browser,
                Some(persistent),
                Some(super::profiles::emulation_of(profile)),
            ));
            sessions.push(ProfileSession {
                plugin: plugin.to_string(),
                session: session.to_string(),
                profile: name.to_string(),
                browser: browser.clone(),
            });
            browser
        };
        // Start it now, so a profile that cannot start is reported here, not on first use.
        let started = async {
            let live = browser.live().await?;
            live.context(plugin, session, &owner.grants, &owner.scope)
                .await
        }
        .await;
        if let Err(e) = started {
            self.sessions_lock()
                .retain(|s| !(s.plugin == plugin && s.session == session));
            browser.shutdown_own().await;
            return Err(e);
        }
        Ok(())
    }

    /// Close a session that runs in a profile's own browser: the browser closes cleanly,
    /// writing the profile out. `None` when the session is not one of those.
    pub async fn close_profile_session(&self, plugin: &str, session: &str) -> Option<()> {
        let closed = {
            let mut sessions = self.sessions_lock();
            let at = sessions
                .iter()
                .position(|s| s.plugin == plugin && s.session == session)?;
            sessions.remove(at)
        };
        closed.browser.shutdown_own().await;
        Some(())
    }

    /// The sessions a plugin has open, in the shared browser and in profiles' own.
    pub async fn sessions_of(&self, plugin: &str) -> Vec<String> {
        let mut names = match self.current().await {
            Some(live) => live.sessions_of(plugin),
            None => Vec::new(),
        };
        names.extend(
            self.sessions_lock()
                .iter()
                .filter(|s| s.plugin == plugin)
                .map(|s| s.session.clone()),
        );
        names.sort();
        names
    }
}
