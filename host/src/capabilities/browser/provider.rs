//! The browser provider: starts Chromium on first use and restarts it after a crash; a
//! session opened with a profile that has a `user_data_dir` gets a browser of its own, and
//! with `[browser] endpoints` every session gets a connection of its own to a member of the
//! remote fleet (`fleet.rs`). The running browser itself is [`Live`] (`live/`).

use super::emulation::Emulation;
use super::error::{BrowserError, Result};
use super::fleet::{CONNECT_TIMEOUT, Fleet};
use super::guard::Guard;
use super::launch::Persistent;
use super::live::{Live, Setup};
use super::model::census::{Held, TabCensus};
use super::model::conversations::Conversations;
use super::model::state::Owner;
use super::saved_state::SavedStates;
use crate::audit::{AuditLog, Record, Used};
use crate::capabilities::conversation::Owner as Client;
use crate::manifest::{BrowserConfig, BrowserProfile};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// How long set-up steps (starting the browser, opening a tab) may take.
pub(super) use super::live::SETUP_TIMEOUT;

/// Numbers every browser process Warden starts or attaches to, across all providers, so a
/// handle to a tab of one can never be taken for a tab of another.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// A session that runs in a browser of its own: a profile's with its own `user_data_dir`,
/// or its connection to a member of the remote fleet.
struct OwnSession {
    plugin: String,
    session: String,
    /// Who opened it, for the caps per client (`live/caps.rs`).
    client: Client,
    kind: Own,
    browser: Arc<BrowserProvider>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Own {
    /// On the `user_data_dir` of this profile.
    Profile(String),
    /// On this member of the fleet (its index in `[browser] endpoints`).
    Fleet(usize),
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
    /// For a fleet session's browser: the remote member it connects to.
    pub(super) endpoint: Option<String>,
    /// The remote browsers of `[browser] endpoints`, when the manifest names some.
    fleet: Option<Arc<Fleet>>,
    /// Their DevTools endpoints, forbidden to every request made for a plugin while this
    /// manifest's browser runs: from one member's pages, another's port is as good as its own.
    _control: Vec<crate::net::forbidden::Registration>,
    live: tokio::sync::Mutex<Option<Arc<Live>>>,
    /// The sessions running in browsers of their own (profiles', the fleet's).
    profile_sessions: Mutex<Vec<OwnSession>>,
    /// Held while a fleet session is being placed, so one session is placed once.
    placing: tokio::sync::Mutex<()>,
    /// Tabs per plugin in this browser and the sessions' own, shared with those.
    pub(super) census: Arc<TabCensus>,
    /// Session states plugins saved (`saved_state.rs`); kept across browser restarts.
    pub(super) states: SavedStates,
    /// The conversations with sessions here, watched for their end (`conversations.rs`).
    pub(super) conversations: Conversations,
    /// Which call holds which tab (`leases.rs`).
    pub(super) leases: super::leases::TabLeases,
    /// Where a launch without Chromium's sandbox is audited; shared with the browsers of
    /// profile sessions.
    audit: Arc<OnceLock<Arc<AuditLog>>>,
    /// The recordings of its sessions (`[audit] record = ["browser"]`).
    pub(super) recorded: super::recording::Recorded,
}

impl std::fmt::Debug for BrowserProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserProvider")
            .field("config", &self.config.executable)
            .finish_non_exhaustive()
    }
}

/// What a call on a session whose fleet member went away is told.
pub fn lost_message(name: &str, endpoint: &str) -> String {
    format!(
        "browser session \"{name}\" was lost: the remote browser {endpoint} holding it went away, with its tabs and cookies; open a new page to start the session again on another browser of the fleet"
    )
}

/// What a call on a tab whose browser exited is told.
pub fn exited_message() -> String {
    "this tab belonged to a browser that has exited (crashed or was killed); open a new page".into()
}

impl BrowserProvider {
    /// What its browsers are started with.
    fn setup(&self) -> Setup<'_> {
        Setup {
            config: &self.config,
            guard: self.guard,
            persistent: self.persistent.as_ref(),
            endpoint: self.endpoint.as_ref(),
            census: self.census.clone(),
            profile_session: self.profile_session.clone(),
        }
    }

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
            endpoint: None,
            fleet: None,
            _control: Vec::new(),
            live: tokio::sync::Mutex::new(None),
            profile_sessions: Mutex::default(),
            placing: tokio::sync::Mutex::new(()),
            census: Arc::default(),
            states: SavedStates::default(),
            conversations: Conversations::default(),
            leases: super::leases::TabLeases::default(),
            audit: Arc::default(),
            recorded: super::recording::Recorded::default(),
        }
    }

    /// End the recordings of its sessions: the manifest now records browsers differently (or
    /// not at all), and no screencast outlives the policy that asked for it.
    pub(crate) fn end_recordings(&self) {
        self.recorded.end_all();
    }

    /// Audit to `audit` (a browser launched without its sandbox leaves a line there).
    pub fn audit_to(&self, audit: Arc<AuditLog>) {
        let _ = self.audit.set(audit);
    }

    /// The audit line of a launch with `[browser] sandbox = false`: the admin's opt-out is
    /// on record each time a browser runs without its walls, with the plugin whose call
    /// started it.
    fn audit_unsandboxed(&self, live: &Live, by: &str) {
        if self.endpoint.is_some() || !self.config.unsandboxed {
            return;
        }
        let detail = live
            .launch_plan()
            .map_or_else(String::new, |p| p.describe());
        tracing::warn!(
            plugin = by,
            "a browser was launched without Chromium's sandbox: {detail}"
        );
        if let Some(audit) = self.audit.get() {
            audit.write(&Record {
                ts: crate::audit::now(),
                event: "capability_used",
                plugin: by,
                decision: "allowed",
                capability: Some("browser.launch"),
                target: Some("unsandboxed"),
                reason: Some("[browser] sandbox = false"),
                detail: Some(&detail),
                ..Record::default()
            });
        }
    }

    pub fn new(config: BrowserConfig) -> Self {
        let fleet = (!config.endpoints.is_empty()).then(|| Fleet::new(&config.endpoints));
        let control = config
            .endpoints
            .iter()
            .filter_map(|e| super::live::control_endpoint(e))
            .collect();
        Self {
            fleet,
            _control: control,
            ..Self::with(config, Guard::Browser, None, None)
        }
    }

    /// The browser of one fleet session: a connection to `endpoint`.
    fn remote(&self, endpoint: String) -> Self {
        Self {
            endpoint: Some(endpoint),
            census: self.census.clone(),
            audit: self.audit.clone(),
            ..Self::with(self.config.clone(), Guard::Browser, None, None)
        }
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

    /// The running browser, started (or restarted after a crash) when needed. With a fleet,
    /// sessions have browsers of their own: reach them with [`Self::live_for`].
    /// `by`: the plugin whose call needs it (named in the audit line of an unsandboxed start).
    pub async fn live(&self, by: &str) -> Result<Arc<Live>> {
        let mut guard = self.live.lock().await;
        if let Some(live) = guard.as_ref() {
            if !live.cdp.closed().is_cancelled() {
                return Ok(live.clone());
            }
            tracing::warn!("the browser is gone; starting a fresh one");
        }
        let generation = GENERATION.fetch_add(1, Ordering::Relaxed) + 1;
        let live = tokio::time::timeout(SETUP_TIMEOUT, Live::start(self.setup(), generation))
            .await
            .map_err(|_| BrowserError::Timeout("the browser did not start within 30 s".into()))??;
        self.audit_unsandboxed(&live, by);
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
        let (own, members) = {
            let sessions = self.sessions_lock();
            let mut members: Vec<usize> = sessions
                .iter()
                .filter_map(|s| match s.kind {
                    Own::Fleet(m) => Some(m),
                    Own::Profile(_) => None,
                })
                .collect();
            let fleet_sessions = members.len();
            members.sort_unstable();
            members.dedup();
            (
                sessions.len(),
                members.len() + sessions.len() - fleet_sessions,
            )
        };
        let (browsers, sessions) = match self.current().await {
            Some(live) => (1, live.session_count()),
            None => (0, 0),
        };
        (browsers + members, sessions + own)
    }

    /// (healthy, down) members of `[browser] endpoints` ((0, 0) without a fleet).
    pub fn fleet_health(&self) -> (usize, usize) {
        self.fleet.as_ref().map_or((0, 0), |f| f.health())
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

    fn sessions_lock(&self) -> std::sync::MutexGuard<'_, Vec<OwnSession>> {
        self.profile_sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The browser of a session that runs in one of its own, and which kind it is.
    fn own_browser(&self, plugin: &str, session: &str) -> Option<(Arc<BrowserProvider>, Own)> {
        self.sessions_lock()
            .iter()
            .find(|s| s.plugin == plugin && s.session == session)
            .map(|s| (s.browser.clone(), s.kind.clone()))
    }

    /// The browser a session lives in (its profile's own, its fleet member, or the shared
    /// one), started or placed when needed. A fleet session whose member went away is
    /// placed afresh (its tabs' handles say what was lost, see [`Self::lost`]).
    pub async fn live_for(&self, plugin: &str, session: &str, owner: &Owner) -> Result<Arc<Live>> {
        if let Some((browser, kind)) = self.own_browser(plugin, session) {
            match kind {
                Own::Fleet(_) if browser.current().await.is_none() => {
                    self.forget_own(plugin, session);
                }
                _ => return browser.live(plugin).await,
            }
        }
        match &self.fleet {
            Some(fleet) => self.place(fleet, plugin, session, owner).await,
            None => self.live(plugin).await,
        }
    }

    /// The running browser a session lives in, if it runs (no start).
    pub async fn current_for(&self, plugin: &str, session: &str) -> Option<Arc<Live>> {
        match self.own_browser(plugin, session) {
            Some((browser, _)) => browser.current().await,
            None if self.fleet.is_some() => None,
            None => self.current().await,
        }
    }

    /// The remote member a fleet session ran on, when that browser has gone away (its
    /// connection closed): what a call on one of its tabs reports as lost.
    pub async fn lost(&self, plugin: &str, session: &str) -> Option<String> {
        let (browser, _) = self
            .own_browser(plugin, session)
            .filter(|(_, kind)| matches!(kind, Own::Fleet(_)))?;
        match browser.current().await {
            Some(_) => None,
            None => browser.endpoint.as_deref().map(super::fleet::shown),
        }
    }

    /// Why session (plugin, `session`) has no running browser although it had one: its
    /// fleet member went away, or the browser it ran in exited. `None`: it runs, or never
    /// started. What listing its tabs answers, since a plugin holds no tab between calls.
    pub async fn exited_for(&self, plugin: &str, session: &str, name: &str) -> Option<String> {
        if let Some(endpoint) = self.lost(plugin, session).await {
            return Some(lost_message(name, &endpoint));
        }
        let browser = match self.own_browser(plugin, session) {
            Some((browser, _)) => browser,
            None if self.fleet.is_some() => return None,
            None => return self.exited().await.then(exited_message),
        };
        browser.exited().await.then(exited_message)
    }

    /// A browser ran here and has exited (it was not closed by Warden).
    async fn exited(&self) -> bool {
        self.live
            .lock()
            .await
            .as_ref()
            .is_some_and(|l| l.cdp.closed().is_cancelled())
    }

    /// Place a new session on the least-loaded healthy member of the fleet, trying the
    /// next when one does not take the connection.
    async fn place(
        &self,
        fleet: &Arc<Fleet>,
        plugin: &str,
        session: &str,
        owner: &Owner,
    ) -> Result<Arc<Live>> {
        fleet.start_checks();
        let _placing = self.placing.lock().await;
        if let Some((browser, _)) = self.own_browser(plugin, session) {
            return browser.live(plugin).await;
        }
        self.check_session_cap(owner).await?;
        let loads = {
            let sessions = self.sessions_lock();
            move |member: usize| {
                sessions
                    .iter()
                    .filter(|s| s.kind == Own::Fleet(member))
                    .count()
            }
        };
        let order = fleet.candidates(loads);
        let mut refused = Vec::new();
        for member in order {
            let endpoint = fleet.endpoint(member).to_string();
            let shown = fleet.shown(member).to_string();
            let browser = Arc::new(self.remote(endpoint));
            let started = tokio::time::timeout(2 * CONNECT_TIMEOUT, browser.live(plugin))
                .await
                .unwrap_or_else(|_| {
                    Err(BrowserError::Timeout(format!(
                        "no answer within {} s",
                        (2 * CONNECT_TIMEOUT).as_secs()
                    )))
                });
            match started {
                Ok(live) => {
                    fleet.mark(member, Ok(()));
                    tracing::info!(plugin, session, endpoint = shown, "browser session placed");
                    owner.scope.used(&Used {
                        capability: "browser.place",
                        target: &shown,
                        detail: Some(&format!("session {}", super::scope::split(session).0)),
                        ..Used::default()
                    });
                    self.sessions_lock().push(OwnSession {
                        plugin: plugin.to_string(),
                        session: session.to_string(),
                        client: owner.client.clone(),
                        kind: Own::Fleet(member),
                        browser,
                    });
                    return Ok(live);
                }
                Err(e) => {
                    fleet.mark(member, Err(e.to_string()));
                    owner.scope.used(&Used {
                        capability: "browser.place",
                        target: &shown,
                        error: Some("io"),
                        // The member's part of it is bounded already; cut the whole anyway.
                        detail: Some(&crate::scrub::cut(
                            &format!(
                                "session {}: not placed: {e}",
                                super::scope::split(session).0
                            ),
                            1024,
                        )),
                        ..Used::default()
                    });
                    refused.push(format!("{shown}: {e}"));
                }
            }
        }
        Err(BrowserError::Io(format!(
            "no browser of the fleet ([browser] endpoints) took the session: {}; start one or fix the endpoints",
            refused.join("; ")
        )))
    }

    /// Drop a session's own browser from the table (it closed, or its member went away).
    fn forget_own(&self, plugin: &str, session: &str) -> Option<OwnSession> {
        let mut sessions = self.sessions_lock();
        let at = sessions
            .iter()
            .position(|s| s.plugin == plugin && s.session == session)?;
        Some(sessions.remove(at))
    }

    /// (plugin, session) of every session running in a browser of its own.
    pub(super) fn own_session_keys(&self) -> Vec<(String, String)> {
        self.sessions_lock()
            .iter()
            .map(|s| (s.plugin.clone(), s.session.clone()))
            .collect()
    }

    /// (plugin, session, profile) of every session running in a profile's own browser.
    pub(super) fn profile_session_names(&self) -> Vec<(String, String, String)> {
        self.sessions_lock()
            .iter()
            .filter_map(|s| match &s.kind {
                Own::Profile(p) => Some((s.plugin.clone(), s.session.clone(), p.clone())),
                Own::Fleet(_) => None,
            })
            .collect()
    }

    /// (plugin, session) of every session running on a member of the fleet.
    pub(super) fn fleet_session_names(&self) -> Vec<(String, String)> {
        self.sessions_lock()
            .iter()
            .filter(|s| matches!(s.kind, Own::Fleet(_)))
            .map(|s| (s.plugin.clone(), s.session.clone()))
            .collect()
    }

    /// Whether (plugin, session) runs in a profile's own browser.
    pub fn is_profile_session(&self, plugin: &str, session: &str) -> bool {
        self.own_browser(plugin, session)
            .is_some_and(|(_, kind)| matches!(kind, Own::Profile(_)))
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
        let shown = super::scope::split(session).0;
        if let Some(live) = self.current().await
            && live
                .lock()
                .by_owner
                .contains_key(&(plugin.to_string(), session.to_string()))
        {
            return Err(BrowserError::Invalid(format!(
                "session \"{shown}\" is open already; close it (browse_session close) to open it with a profile"
            )));
        }
        let browser = {
            let mut sessions = self.sessions_lock();
            if let Some(s) = sessions
                .iter()
                .find(|s| s.plugin == plugin && s.session == session)
            {
                let with = match &s.kind {
                    Own::Profile(p) => format!(" (with profile \"{p}\")"),
                    Own::Fleet(_) => String::new(),
                };
                return Err(BrowserError::Invalid(format!(
                    "session \"{shown}\" is open already{with}; close it (browse_session close) to open it with a profile"
                )));
            }
            if let Some(s) = sessions
                .iter()
                .find(|s| s.kind == Own::Profile(name.to_string()))
            {
                let (theirs, scope) = super::scope::split(&s.session);
                let whose = if s.plugin != plugin {
                    format!(" of plugin \"{}\"", s.plugin)
                } else if scope != super::scope::split(session).1 {
                    " of another client".to_string()
                } else {
                    String::new()
                };
                return Err(BrowserError::Invalid(format!(
                    "profile \"{name}\" is in use by session \"{theirs}\"{whose}: its user_data_dir serves one session at a time; close that session first"
                )));
            }
            let persistent = Persistent {
                dir,
                key: format!("[browser.profiles.{name}] user_data_dir"),
                proxy: profile.proxy.clone(),
                proxy_bypass: profile.proxy_bypass.clone(),
            };
            let browser = Arc::new(Self {
                census: self.census.clone(),
                audit: self.audit.clone(),
                ..Self::with(
                    self.config.clone(),
                    Guard::Browser,
                    Some(persistent),
                    Some(super::profiles::emulation_of(profile)),
                )
            });
            sessions.push(OwnSession {
                plugin: plugin.to_string(),
                session: session.to_string(),
                client: owner.client.clone(),
                kind: Own::Profile(name.to_string()),
                browser: browser.clone(),
            });
            browser
        };
        // Start it now, so a profile that cannot start is reported here, not on first use.
        let started = async {
            let live = browser.live(plugin).await?;
            live.context(plugin, session, &owner).await
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

    /// Close a session that runs in a browser of its own: a profile's browser closes
    /// cleanly, writing the profile out; a fleet session's context is disposed and its
    /// connection closed. `None` when the session is not one of those.
    pub async fn close_own_session(&self, plugin: &str, session: &str) -> Option<()> {
        let closed = self.forget_own(plugin, session)?;
        if let Own::Fleet(_) = closed.kind
            && let Some(live) = closed.browser.current().await
        {
            let close = live.close_session(plugin, session);
            if let Ok(Err(e)) = tokio::time::timeout(CONNECT_TIMEOUT, close).await {
                tracing::warn!(plugin, session, "closing a fleet session: {e}");
            }
        }
        closed.browser.shutdown_own().await;
        Some(())
    }

    /// The sessions of `plugin` in the shared browser and in browsers of their own: `client`'s
    /// and all.
    pub(in crate::capabilities::browser) async fn sessions_held(
        &self,
        plugin: &str,
        client: &Client,
    ) -> Held {
        let shared = match self.current().await {
            Some(live) => live.sessions_held(plugin, client),
            None => Held::default(),
        };
        let own = self
            .sessions_lock()
            .iter()
            .filter(|s| s.plugin == plugin)
            .fold(Held::default(), |held, s| {
                held + Held {
                    mine: usize::from(s.client == *client),
                    all: 1,
                }
            });
        shared + own
    }

    /// The sessions a plugin has open, in the shared browser and in browsers of their own.
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
