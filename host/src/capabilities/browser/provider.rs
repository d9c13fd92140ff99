//! The browser provider: starts Chromium on first use (or attaches to `[browser] endpoint`),
//! keeps one isolated browser context per (plugin, session) behind its network guard
//! (`guard/`), and tracks every tab; the CDP events that update that state are reduced in
//! `events.rs`.
//!
//! New tabs (including popups a page opens) are attached paused; the guard (`Fetch.enable`
//! for document requests) is installed before the tab runs, so a navigation to an origin the
//! plugin was not granted is failed before it leaves the browser and the page never receives
//! the response.

use super::cdp::{Cdp, CdpError, Event};
use super::emulation::Emulation;
use super::events::ready_popups;
use super::guard::NetGuard;
use super::guard::policy::Forbidden;
use super::launch::{self, Launched, Persistent};
use super::observe::TabLog;
use super::routes::SessionExtras;
use crate::audit::GuestScope;
use crate::manifest::grants::Grants;
use crate::manifest::{BrowserConfig, BrowserProfile};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::watch;
use url::Url;

/// Why a browser operation failed; `mod.rs` maps it onto the WIT error variant.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error("{0}")]
    Denied(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Timeout(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Io(String),
    /// An element handle points at a node that is gone from the page.
    #[error("{0}")]
    Stale(String),
    /// The browser behind a handle has exited.
    #[error("{0}")]
    Gone(String),
}

impl BrowserError {
    /// The kind, for audit lines.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Denied(_) => "access_denied",
            Self::NotFound(_) => "not_found",
            Self::Timeout(_) => "timeout",
            Self::Invalid(_) => "invalid_argument",
            Self::Io(_) => "io",
            Self::Stale(_) => "stale_element",
            Self::Gone(_) => "gone",
        }
    }
}

impl From<CdpError> for BrowserError {
    fn from(e: CdpError) -> Self {
        match e {
            CdpError::Closed => Self::Io(
                "the browser exited during this call (it crashed or was killed); the next call starts a fresh browser, without this session's tabs and cookies".into(),
            ),
            other => Self::Io(other.to_string()),
        }
    }
}

pub type Result<T> = std::result::Result<T, BrowserError>;

/// How long set-up steps (starting the browser, opening a tab) may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a closing browser may take to write its profile and exit before it is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(10);

/// Numbers every browser process Warden starts or attaches to, across all providers, so a
/// handle to a tab of one can never be taken for a tab of another.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// A JavaScript dialog waiting for an answer.
#[derive(Debug, Clone)]
pub struct Dialog {
    pub kind: String,
    pub message: String,
    pub default_prompt: String,
}

/// Who owns a browser context or a tab: whose grants its origin guard checks.
#[derive(Clone)]
pub struct Owner {
    pub grants: Arc<Grants>,
    pub scope: GuestScope,
}

/// Which grant the origin guard checks: the agents' browser or the capture profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    Browser,
    Capture,
}

impl Guard {
    pub(super) fn check(self, grants: &Grants, url: &Url) -> std::result::Result<(), String> {
        match self {
            Self::Browser => grants.check_browser_origin(url),
            Self::Capture => grants.check_capture_origin(url),
        }
        .map_err(|d| d.message)
    }

    pub(super) fn capability(self) -> &'static str {
        match self {
            Self::Browser => "browser",
            Self::Capture => "capture.page",
        }
    }
}

/// What the provider knows about one tab.
pub struct TabState {
    pub session: String,
    pub context: String,
    pub url: String,
    pub title: String,
    pub opener: Option<String>,
    /// The main frame's current document (loader id) and the lifecycle events it reached.
    pub loader: String,
    pub lifecycle: HashSet<String>,
    pub loading: bool,
    /// Counts of main-frame navigations started and of loads stopped, so a waiter can tell
    /// events that happened after it began from earlier ones.
    pub nav_seq: u64,
    pub stop_seq: u64,
    /// A navigation the page scheduled for within a second (meta refresh, location change).
    pub scheduled: bool,
    /// How many times the page asked for a new window (window.open, target=_blank).
    pub window_opens: u64,
    /// Navigations refused by the origin guard, with the message for the agent.
    pub blocked: Vec<String>,
    pub blocked_seq: u64,
    pub dialog: Option<Dialog>,
    /// Which frame each document number (see `page.js`) belongs to, and the next number.
    pub docs: HashMap<u32, String>,
    pub next_doc: u32,
    /// Secret values typed into this tab; scrubbed from everything the plugin reads.
    pub secrets: Vec<String>,
    pub crashed: bool,
    /// The tab's own owner (capture tabs in the shared default context); else the context's.
    pub owner: Option<Owner>,
    /// The data of a native drag the browser held back for Warden to carry out (see `pointer.rs`).
    pub drag: Option<Value>,
    /// Console messages and requests (`observe.rs`).
    pub log: TabLog,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) contexts: HashMap<String, Owner>,
    /// The browser's default (persistent) context, whose tabs the capture provider opens.
    pub(super) default_context: Option<String>,
    pub(super) by_owner: HashMap<(String, String), String>,
    pub(super) tabs: HashMap<String, TabState>,
    pub(super) sessions: HashMap<String, String>,
    /// Routes and emulation of each context that has any.
    pub(super) extras: HashMap<String, SessionExtras>,
    /// The blank tab a browser started with on a persistent profile: kept (a browser without
    /// a tab may quit) but never listed.
    pub(super) startup: HashSet<String>,
    /// The network guard of each context Warden created (see `guard/`).
    pub(super) guards: HashMap<String, NetGuard>,
}

impl State {
    /// Make browser context `id` the session `key` (plugin, session) of `owner`.
    pub(super) fn bind(&mut self, key: (String, String), id: String, owner: Owner) {
        self.contexts.insert(id.clone(), owner);
        self.by_owner.insert(key, id);
    }

    /// The CDP sessions of the tabs of `context`.
    pub(super) fn tab_sessions(&self, context: &str) -> Vec<String> {
        self.tabs
            .values()
            .filter(|t| t.context == context)
            .map(|t| t.session.clone())
            .collect()
    }
}

/// A running browser and the connection to it.
pub struct Live {
    pub cdp: Cdp,
    pub generation: u64,
    pub(super) guard: Guard,
    /// This browser itself, for the network guards of the contexts it creates.
    pub(super) me: Weak<Live>,
    /// The network guard of the launched browser's default context (its `--proxy-server`).
    net_guard: Option<NetGuard>,
    /// What no page of this browser may reach: its DevTools endpoint, if it has a port.
    pub(super) forbidden: Forbidden,
    state: Mutex<State>,
    /// Bumped on every change a waiter may care about (tabs, lifecycle, dialogs, blocks).
    changed: watch::Sender<u64>,
    /// A browser of one profile session: its session is the default (persistent) context,
    /// and starts with this emulation.
    profile_session: Option<Emulation>,
    /// The local browser process, killed (and a temporary profile removed) when dropped;
    /// taken by [`Live::shutdown`] to close it cleanly.
    process: Mutex<Option<Launched>>,
}

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
    config: BrowserConfig,
    guard: Guard,
    /// The persistent user-data-dir this browser runs on (the capture profile, a profile's
    /// `user_data_dir`); a temporary one when `None`.
    persistent: Option<Persistent>,
    /// For a profile's own browser: the emulation its session starts with.
    profile_session: Option<Emulation>,
    live: tokio::sync::Mutex<Option<Arc<Live>>>,
    /// The sessions running in browsers of their own, one per persistent profile.
    profile_sessions: Mutex<Vec<ProfileSession>>,
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

    /// Close the browser (cleanly, so a persistent profile is written out) and the browsers
    /// of profile sessions. A later call starts a fresh one.
    pub async fn shutdown(&self) {
        let sessions = std::mem::take(&mut *self.sessions_lock());
        let closing = sessions.iter().map(|s| s.browser.shutdown_own());
        futures::future::join_all(closing).await;
        self.shutdown_own().await;
    }

    async fn shutdown_own(&self) {
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

/// Read a string field of a JSON object.
pub(super) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

impl Live {
    async fn start(provider: &BrowserProvider, generation: u64) -> Result<Arc<Self>> {
        let (config, guard) = (&provider.config, provider.guard);
        let persistent = provider.persistent.as_ref();
        let endpoint = config
            .endpoint
            .as_ref()
            .filter(|_| guard == Guard::Browser && persistent.is_none());
        let mut forbidden = Forbidden::default();
        let (cdp, events, process, net_guard) = match endpoint {
            Some(endpoint) => {
                // A remote browser's DevTools endpoint stays out of its pages' reach too.
                if let Ok(url) = Url::parse(endpoint)
                    && let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default())
                    && let Ok(addrs) = crate::net::resolve(host, port).await
                {
                    addrs.into_iter().for_each(|a| forbidden.add(a));
                }
                let (cdp, events) = Cdp::connect(endpoint).await.map_err(|e| {
                    BrowserError::Io(format!("cannot connect to the browser at {endpoint}: {e}"))
                })?;
                (cdp, events, None, None)
            }
            None => {
                // The default context's guard: every request of a persistent profile's tabs
                // (and anything else the browser sends outside Warden's contexts) passes it,
                // chained to the profile's own proxy if it has one.
                let upstream = persistent
                    .and_then(|p| p.proxy.as_deref().map(|u| (u, p.proxy_bypass.as_slice())));
                let net_guard = NetGuard::start(guard, upstream, Forbidden::default())
                    .await
                    .map_err(BrowserError::Io)?;
                let mut launched = launch::launch(config, persistent, &net_guard.proxy_server())
                    .await
                    .map_err(BrowserError::Io)?;
                // Over the DevTools pipe: the browser opens no port for pages to find.
                let (to, from) = launched.take_pipe().ok_or_else(|| {
                    BrowserError::Io("the browser's DevTools pipe is gone".into())
                })?;
                let (cdp, events) = Cdp::connect_pipe(to, from);
                (cdp, events, Some(launched), Some(net_guard))
            }
        };
        let live = Arc::new_cyclic(|me| Self {
            cdp,
            generation,
            guard,
            me: me.clone(),
            net_guard,
            forbidden,
            state: Mutex::new(State::default()),
            changed: watch::channel(0).0,
            profile_session: provider.profile_session.clone(),
            process: Mutex::new(process),
        });
        if let Some(net_guard) = &live.net_guard {
            net_guard.bind(Arc::downgrade(&live), None);
        }
        tokio::spawn(event_loop(Arc::downgrade(&live), events));
        // The first answer also tells that a launched browser started.
        let discover = live.cdp.call_raw(
            None,
            "Target.setDiscoverTargets",
            json!({ "discover": true }),
        );
        if let Err(e) = discover.await {
            let said = live
                .process
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .map(|p| p.stderr_tail())
                .filter(|t| !t.is_empty());
            return Err(match said {
                Some(said) => BrowserError::Io(format!("the browser did not start: {said}")),
                None => e.into(),
            });
        }
        if persistent.is_some() {
            // The persistent cookies live in the default context: find its id on the first tab.
            let targets = live
                .cdp
                .call_raw(None, "Target.getTargets", json!({}))
                .await?;
            let pages: Vec<&Value> = targets["targetInfos"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| s(t, "type") == "page")
                .collect();
            let id = pages
                .first()
                .map(|t| s(t, "browserContextId").to_string())
                .filter(|id| !id.is_empty())
                .ok_or_else(|| {
                    BrowserError::Io(
                        "the browser has no default page to find its profile by".into(),
                    )
                })?;
            let mut st = live.lock();
            st.default_context = Some(id);
            st.startup = pages.iter().map(|t| s(t, "targetId").to_string()).collect();
        }
        // Every new target starts paused, so its guard is in place before it runs.
        live.cdp
            .call_raw(
                None,
                "Target.setAutoAttach",
                json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true }),
            )
            .await?;
        tracing::info!(generation, "browser ready");
        Ok(live)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Close a browser Warden started the way its window's close button would, so it writes
    /// its profile (cookies are kept in memory for up to 30 s) and releases the directory;
    /// kill it if it does not exit in time. A remote browser is left running: only the
    /// connection (and with it the contexts Warden made) goes.
    pub async fn shutdown(&self) {
        let process = self
            .process
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(process) = process else { return };
        if !self.cdp.closed().is_cancelled() {
            let close = self.cdp.call_raw(None, "Browser.close", json!({}));
            let _ = tokio::time::timeout(CLOSE_GRACE, close).await;
        }
        process.stop(CLOSE_GRACE).await;
        tracing::info!(generation = self.generation, "browser closed");
    }

    pub(super) fn bump(&self) {
        self.changed.send_modify(|v| *v += 1);
    }

    /// The browser context of (plugin, session), created on first use. The grants are
    /// refreshed on every call, so a manifest reload applies to open sessions too.
    pub async fn context(
        &self,
        plugin: &str,
        session: &str,
        grants: &Arc<Grants>,
        scope: &GuestScope,
    ) -> Result<String> {
        let key = (plugin.to_string(), session.to_string());
        let owner = Owner {
            grants: grants.clone(),
            scope: scope.clone(),
        };
        {
            let mut st = self.lock();
            if let Some(id) = st.by_owner.get(&key).cloned() {
                if let Some(ctx) = st.contexts.get_mut(&id) {
                    *ctx = owner;
                }
                return Ok(id);
            }
            // A profile's own browser: the session is the persistent default context.
            if let Some(emulation) = &self.profile_session {
                let id = st.default_context.clone().ok_or_else(|| {
                    BrowserError::Io("the profile's browser has no default context".into())
                })?;
                st.extras.entry(id.clone()).or_default().emulation = emulation.clone();
                st.bind(key, id.clone(), owner);
                return Ok(id);
            }
        }
        self.check_session_cap(grants, scope)?;
        let id = self.guarded_context(None).await?;
        self.lock().bind(key, id.clone(), owner);
        Ok(id)
    }

    /// The session names a plugin has open.
    pub fn sessions_of(&self, plugin: &str) -> Vec<String> {
        let st = self.lock();
        let mut names: Vec<String> = st
            .by_owner
            .keys()
            .filter(|(p, _)| p == plugin)
            .map(|(_, s)| s.clone())
            .collect();
        names.sort();
        names
    }

    pub async fn close_session(&self, plugin: &str, session: &str) -> Result<()> {
        let id = self
            .lock()
            .by_owner
            .remove(&(plugin.to_string(), session.to_string()))
            .ok_or_else(|| BrowserError::NotFound(format!("no session named \"{session}\"")))?;
        self.cdp
            .call_raw(
                None,
                "Target.disposeBrowserContext",
                json!({ "browserContextId": id }),
            )
            .await?;
        let mut st = self.lock();
        st.contexts.remove(&id);
        st.extras.remove(&id);
        st.guards.remove(&id);
        st.tabs.retain(|_, t| t.context != id);
        Ok(())
    }

    /// Open a blank tab in a context and wait until its guard is installed.
    pub async fn open_tab(&self, context: &str) -> Result<String> {
        self.check_tab_cap(context)?;
        let created = self
            .cdp
            .call_raw(
                None,
                "Target.createTarget",
                json!({ "url": "about:blank", "browserContextId": context }),
            )
            .await?;
        let target = s(&created, "targetId").to_string();
        self.wait_for(SETUP_TIMEOUT, |st| {
            st.tabs.contains_key(&target).then_some(())
        })
        .await
        .map_err(|_| BrowserError::Timeout("the new tab did not attach within 30 s".into()))?;
        // The renderer answers in order: once it answers this, it has applied the set-up sent
        // on attach (logs, emulation), so the tab's first navigation starts with it in place.
        let session = self.lock().tabs.get(&target).map(|t| t.session.clone());
        if let Some(session) = session {
            let settled = self.cdp.call_raw(
                Some(&session),
                "Runtime.evaluate",
                json!({ "expression": "0" }),
            );
            let _ = tokio::time::timeout(SETUP_TIMEOUT, settled).await;
        }
        Ok(target)
    }

    /// Open a blank tab in the default (persistent) context for one request of `owner`,
    /// whose grants guard its navigations.
    pub async fn open_owned_tab(&self, owner: Owner) -> Result<String> {
        let context = self.lock().default_context.clone().ok_or_else(|| {
            BrowserError::Invalid("this browser has no persistent profile".into())
        })?;
        let target = self.open_tab(&context).await?;
        self.with_tab(&target, |t| t.owner = Some(owner))?;
        Ok(target)
    }

    /// How many tabs opened for a request (`open_owned_tab`) are still open.
    pub fn owned_tab_count(&self) -> usize {
        self.lock()
            .tabs
            .values()
            .filter(|t| t.owner.is_some())
            .count()
    }

    /// Wait (up to `timeout`) until `target` is gone from the browser.
    pub async fn wait_closed(&self, target: &str, timeout: Duration) {
        let _ = self
            .wait_for(timeout, |st| (!st.tabs.contains_key(target)).then_some(()))
            .await;
    }

    /// Tabs of a context: (id, url, title, opener).
    pub fn tabs_of(&self, context: &str) -> Vec<(String, String, String, Option<String>)> {
        let st = self.lock();
        let mut tabs: Vec<_> = st
            .tabs
            .iter()
            .filter(|(id, t)| t.context == context && !st.startup.contains(*id))
            .map(|(id, t)| (id.clone(), t.url.clone(), t.title.clone(), t.opener.clone()))
            .collect();
        tabs.sort();
        tabs
    }

    /// Run `f` on a tab's state; a closed or crashed tab is an error.
    pub fn with_tab<R>(&self, target: &str, f: impl FnOnce(&mut TabState) -> R) -> Result<R> {
        let mut st = self.lock();
        let tab = st.tabs.get_mut(target).ok_or_else(|| {
            BrowserError::NotFound(
                "this tab is closed; list the tabs (browse_tabs) or open a new page".into(),
            )
        })?;
        if tab.crashed {
            return Err(BrowserError::Io(
                "this tab crashed; close it and open a new page".into(),
            ));
        }
        Ok(f(tab))
    }

    /// The context a tab belongs to.
    pub fn tab_context(&self, target: &str) -> Option<String> {
        self.lock().tabs.get(target).map(|t| t.context.clone())
    }

    /// Wait until `check` returns something, or `timeout`.
    async fn wait_for<R>(
        &self,
        timeout: Duration,
        mut check: impl FnMut(&State) -> Option<R>,
    ) -> std::result::Result<R, ()> {
        let mut rx = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(r) = check(&self.lock()) {
                return Ok(r);
            }
            if self.cdp.closed().is_cancelled() {
                return Err(());
            }
            tokio::select! {
                changed = rx.changed() => if changed.is_err() { return Err(()) },
                () = tokio::time::sleep_until(deadline) => return Err(()),
                () = self.cdp.closed().cancelled() => return Err(()),
            }
        }
    }

    /// Tabs the page `opener` opened that have shown a URL or had their navigation blocked.
    pub fn popups_of(&self, opener: &str) -> usize {
        ready_popups(&self.lock(), opener)
    }

    /// Every tab the page `opener` opened that is still open, shown or not.
    pub fn children_of(&self, opener: &str) -> usize {
        self.lock()
            .tabs
            .values()
            .filter(|t| t.opener.as_deref() == Some(opener))
            .count()
    }

    /// Wait until `opener` has opened more than `before` tabs; false when it did not.
    pub async fn wait_child(&self, opener: &str, before: usize, timeout: Duration) -> bool {
        self.wait_for(timeout, |st| {
            let n = st
                .tabs
                .values()
                .filter(|t| t.opener.as_deref() == Some(opener))
                .count();
            (n > before).then_some(())
        })
        .await
        .is_ok()
    }

    /// Wait until `opener` has more than `before` such popups.
    pub async fn wait_popup(&self, opener: &str, before: usize, timeout: Duration) {
        let _ = self
            .wait_for(timeout, |st| {
                (ready_popups(st, opener) > before).then_some(())
            })
            .await;
    }

    /// Wait on a tab's state (see [`Live::wait_for`]).
    pub async fn wait_tab<R>(
        &self,
        target: &str,
        timeout: Duration,
        mut check: impl FnMut(&TabState) -> Option<R>,
    ) -> std::result::Result<R, ()> {
        self.wait_for(timeout, |st| st.tabs.get(target).and_then(&mut check))
            .await
    }
}

async fn event_loop(live: Weak<Live>, mut events: tokio::sync::mpsc::UnboundedReceiver<Event>) {
    while let Some(ev) = events.recv().await {
        let Some(live) = live.upgrade() else { break };
        live.on_event(ev);
    }
    if let Some(live) = live.upgrade() {
        live.bump();
    }
}
