//! A running browser ([`Live`]): the connection to it, how it is started (launched over the
//! DevTools pipe, or attached to `[browser] endpoint`) and closed, its browser contexts (one
//! per plugin session, each behind its network guard, `guard/`), and the registry of its
//! tabs. The CDP events that change that state are reduced in `events.rs`.
//!
//! New tabs (including popups a page opens) are attached paused; the guard (`Fetch.enable`
//! for document requests) is installed before the tab runs, so a navigation to an origin the
//! plugin was not granted is failed before it leaves the browser and the page never receives
//! the response.

use crate::capabilities::browser::cdp::{Cdp, Event, s};
use crate::capabilities::browser::emulation::Emulation;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::events::ready_popups;
use crate::capabilities::browser::fleet;
use crate::capabilities::browser::guard::listen::Listen;
use crate::capabilities::browser::guard::{Guard, NetGuard, Owners};
use crate::capabilities::browser::launch::{self, Launched, Persistent};
use crate::capabilities::browser::model::census::TabCensus;
use crate::capabilities::browser::model::downloads::Place;
use crate::capabilities::browser::model::state::{Owner, State, TabState};
use crate::capabilities::browser::netns::Netns;
use crate::manifest::BrowserConfig;
use crate::manifest::grants::Grants;
use crate::net::forbidden::{Registration, Service};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::watch;
use url::Url;

/// How long set-up steps (starting the browser, opening a tab) may take.
pub(crate) const SETUP_TIMEOUT: Duration = Duration::from_secs(30);

/// What a browser is started with: its provider's settings.
pub(crate) struct Setup<'a> {
    pub config: &'a BrowserConfig,
    pub guard: Guard,
    pub persistent: Option<&'a Persistent>,
    /// A remote browser to attach to; `None`: launch one.
    pub endpoint: Option<&'a String>,
    pub census: Arc<TabCensus>,
    pub profile_session: Option<Emulation>,
}

/// How long a closing browser may take to write its profile and exit before it is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(10);

/// A running browser and the connection to it.
pub struct Live {
    pub cdp: Cdp,
    pub generation: u64,
    pub(crate) guard: Guard,
    /// This browser itself, for the network guards of the contexts it creates.
    pub(crate) me: Weak<Live>,
    /// The network guard of the launched browser's default context (its `--proxy-server`).
    net_guard: Option<NetGuard>,
    /// The network guard of each context Warden created (see `guard/`).
    guards: Mutex<HashMap<String, NetGuard>>,
    /// Its DevTools endpoint, if it has a port, forbidden to every request made for a plugin
    /// (`crate::net::forbidden`) while this browser is driven.
    _control: Vec<Registration>,
    /// Where its contexts' guards listen and whom they serve (`guard/listen.rs`).
    pub(crate) listen: Listen,
    state: Mutex<State>,
    /// Bumped on every change a waiter may care about (tabs, lifecycle, dialogs, blocks).
    changed: watch::Sender<u64>,
    /// Events reduced into `state` so far (see [`Live::caught_up`]).
    pub(crate) reduced: AtomicU64,
    /// A browser of one profile session: its session is the default (persistent) context,
    /// and starts with this emulation.
    profile_session: Option<Emulation>,
    /// The local browser process, killed (and a temporary profile removed) when dropped;
    /// taken by [`Live::shutdown`] to close it cleanly.
    pub(super) process: Mutex<Option<Launched>>,
    /// One lock per key for [`Live::one_at_a_time`]: calls of one agent that find its session
    /// without a context or a tab make one between them, while other sessions make theirs
    /// side by side.
    opening: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// A caller's place in [`Live::one_at_a_time`]. The last caller out removes the key's entry,
/// also when its call was dropped while waiting or working, so closed sessions leave nothing
/// behind.
struct Turn<'a> {
    opening: &'a Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    key: String,
    lock: Arc<tokio::sync::Mutex<()>>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut opening = self.opening.lock().unwrap_or_else(|e| e.into_inner());
        if Arc::strong_count(&self.lock) == 2 {
            opening.remove(&self.key);
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // A browser that is gone holds no tabs against its plugins' caps.
        if let Some((generation, census)) = &self.lock().census {
            census.forget(*generation);
        }
    }
}

/// A DevTools URL's `host:port`, forbidden while the registration is held (none when it
/// does not parse).
pub(crate) fn control_endpoint(url: &str) -> Option<Registration> {
    let url = Url::parse(url).ok()?;
    Some(Registration::named(
        url.host_str()?,
        url.port_or_known_default()?,
        Service::BrowserControl,
    ))
}

/// The addresses a DevTools URL's host resolves to (none when it does not parse or resolve).
async fn addresses_of(url: &str) -> Vec<std::net::SocketAddr> {
    match Url::parse(url) {
        Ok(url) => match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => crate::net::resolve(host, port).await.unwrap_or_default(),
            _ => Vec::new(),
        },
        Err(_) => Vec::new(),
    }
}

/// Said once: without root, the browser shares the host's network.
fn warn_no_netns() {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        tracing::warn!("[browser] Warden is not root, so the browser shares this machine's network: its requests still pass the network guard, but a browser process that escaped Chromium's sandbox could connect to loopback ports directly; run Warden as root (a service) to give each browser a network namespace whose only way out is the guard");
    });
}

impl Live {
    pub(crate) async fn start(provider: Setup<'_>, generation: u64) -> Result<Arc<Self>> {
        let (config, guard) = (provider.config, provider.guard);
        let persistent = provider.persistent;
        let mut control = Vec::new();
        let mut listen = Listen::loopback();
        let (cdp, events, process, net_guard) = match provider.endpoint {
            Some(endpoint) => {
                let ws = fleet::resolve(endpoint).await.map_err(|e| {
                    BrowserError::Io(format!("the browser at {}: {e}", fleet::shown(endpoint)))
                })?;
                // No page (nor any plugin's request) reaches this browser's DevTools endpoint;
                // the other members' are forbidden by the provider for as long as it runs.
                control.extend(control_endpoint(endpoint));
                control.extend(control_endpoint(&ws));
                // A guard on another address serves the addresses this member connects from.
                if let Some(ip) = config.guard_address {
                    let mut own = addresses_of(endpoint).await;
                    own.extend(addresses_of(&ws).await);
                    listen = Listen::for_member(ip, own.iter().map(|a| a.ip()).collect());
                }
                let (cdp, events) = Cdp::connect(&ws).await.map_err(|e| {
                    BrowserError::Io(format!(
                        "cannot connect to the browser at {}: {e}",
                        fleet::shown(endpoint)
                    ))
                })?;
                (cdp, events, None, None)
            }
            None => {
                // The default context's guard: every request of a persistent profile's tabs
                // (and anything else the browser sends outside Warden's contexts) passes it,
                // chained to the profile's own proxy if it has one.
                let upstream = persistent
                    .and_then(|p| p.proxy.as_deref().map(|u| (u, p.proxy_bypass.as_slice())));
                // A network of its own, whose only way out is its guards (`netns.rs`).
                let netns = if Netns::wanted() {
                    Some(Arc::new(Netns::create().map_err(BrowserError::Io)?))
                } else {
                    warn_no_netns();
                    None
                };
                listen = Listen::loopback_in(netns.clone());
                let net_guard = NetGuard::start(guard, upstream, &listen)
                    .await
                    .map_err(BrowserError::Io)?;
                let mut launched = launch::launch(
                    config,
                    persistent,
                    &net_guard.proxy_server(),
                    netns.as_deref(),
                )
                .await
                .map_err(|e| BrowserError::Io(e.to_string()))?;
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
            guards: Mutex::default(),
            _control: control,
            listen,
            state: Mutex::new(State {
                census: Some((generation, provider.census)),
                ..State::default()
            }),
            changed: watch::channel(0).0,
            reduced: AtomicU64::new(0),
            profile_session: provider.profile_session,
            process: Mutex::new(process),
            opening: Mutex::default(),
        });
        if let Some(net_guard) = &live.net_guard {
            let me: Weak<dyn Owners> = Arc::downgrade(&live) as Weak<dyn Owners>;
            net_guard.bind(me, None);
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
                .and_then(launch::Launched::start_failure);
            return Err(match said {
                Some(said) => BrowserError::Io(said),
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
        // No page saves a file on the host unless its session is granted a download
        // directory: the default context (capture tabs, profiles) refuses downloads.
        live.cdp
            .call_raw(
                None,
                "Browser.setDownloadBehavior",
                json!({ "behavior": "deny", "eventsEnabled": true }),
            )
            .await?;
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

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The network guards of the contexts Warden created, by context id. Taken alone, or
    /// after the state's lock (never before it).
    pub(crate) fn guards(&self) -> std::sync::MutexGuard<'_, HashMap<String, NetGuard>> {
        self.guards.lock().unwrap_or_else(|e| e.into_inner())
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

    pub(crate) fn bump(&self) {
        self.changed.send_modify(|v| *v += 1);
    }

    /// The browser context of (plugin, session), created on first use. The grants are
    /// refreshed on every call, so a manifest reload applies to open sessions too.
    pub async fn context(&self, plugin: &str, session: &str, owner: &Owner) -> Result<String> {
        let key = (plugin.to_string(), session.to_string());
        let bound = |owner: &Owner| {
            let mut st = self.lock();
            let id = st.by_owner.get(&key).cloned()?;
            if let Some(ctx) = st.contexts.get_mut(&id) {
                *ctx = owner.clone();
            }
            Some(id)
        };
        if let Some(id) = bound(owner) {
            return Ok(id);
        }
        // Concurrent first calls of one session would each make a context, and all but the
        // last bound would be left open with their tabs: one makes it, the others use it.
        self.one_at_a_time(format!("context:{plugin}/{session}"), async {
            match bound(owner) {
                Some(id) => Ok(id),
                None => self.new_context(key.clone(), owner.clone()).await,
            }
        })
        .await
    }

    /// Make (plugin, session)'s context and bind it to `owner`.
    async fn new_context(&self, key: (String, String), owner: Owner) -> Result<String> {
        let grants = &owner.grants;
        let (plugin, session) = (key.0.as_str(), key.1.as_str());
        // A profile's own browser: the session is the persistent default context.
        if let Some(emulation) = &self.profile_session {
            let id = self.lock().default_context.clone().ok_or_else(|| {
                BrowserError::Io("the profile's browser has no default context".into())
            })?;
            self.set_downloads(&id, self.download_place(plugin, session, grants))
                .await?;
            let mut st = self.lock();
            st.extras.entry(id.clone()).or_default().emulation = emulation.clone();
            st.bind(key, id.clone(), owner);
            return Ok(id);
        }
        self.check_session_cap(&owner)?;
        let id = self
            .guarded_context(None, self.download_place(plugin, session, grants))
            .await?;
        self.lock().bind(key, id.clone(), owner);
        Ok(id)
    }

    /// Where a session of `plugin` saves downloads: under its grant's `download_dir`, in a
    /// browser Warden runs on this machine (a remote browser would write on its own disk).
    pub(crate) fn download_place(
        &self,
        plugin: &str,
        session: &str,
        grants: &Grants,
    ) -> Option<Place> {
        let grant = grants.browser.as_ref()?;
        let root = grant.download_dir.as_ref()?;
        // The browser writes in a directory of its own; the host places what it finished.
        let partial = self
            .process
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()?
            .dirs()
            .download_dir()
            .inspect_err(|e| tracing::warn!("no download directory for the browser: {e}"))
            .ok()?;
        Some(Place::new(
            root,
            plugin,
            session,
            grant.download_max,
            partial,
        ))
    }

    /// Who a browser Warden launched runs as and whether sandboxed (`None`: remote).
    pub(crate) fn launch_plan(&self) -> Option<crate::capabilities::browser::sandbox::Plan> {
        self.process
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|p| p.plan().clone())
    }

    /// The files to upload as the browser reads them: for a browser Warden launched, copies
    /// in its own tree (`own_dirs.rs`), since its user may not read the originals and a
    /// name could be swapped between the grant's check and the browser's read; a remote
    /// browser gets the paths as they are (its own disk).
    pub(crate) fn stage_uploads(&self, files: &[std::path::PathBuf]) -> Result<Vec<String>> {
        let process = self.process.lock().unwrap_or_else(|e| e.into_inner());
        files
            .iter()
            .map(|f| match process.as_ref() {
                Some(p) => p
                    .dirs()
                    .stage_upload(f)
                    .map(|staged| staged.display().to_string())
                    .map_err(|e| BrowserError::Io(format!("cannot upload {}: {e}", f.display()))),
                None => Ok(f.display().to_string()),
            })
            .collect()
    }

    /// Whether (plugin, session) has a context in this browser.
    pub fn has_session(&self, plugin: &str, session: &str) -> bool {
        self.lock()
            .by_owner
            .contains_key(&(plugin.to_string(), session.to_string()))
    }

    /// How many plugin sessions this browser holds (for the metrics).
    pub fn session_count(&self) -> usize {
        self.lock().by_owner.len()
    }

    /// (plugin, session) of every session this browser holds.
    pub(crate) fn session_keys(&self) -> Vec<(String, String)> {
        self.lock().by_owner.keys().cloned().collect()
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
            .ok_or_else(|| {
                let name = crate::capabilities::browser::scope::split(session).0;
                BrowserError::NotFound(format!("no session named \"{name}\""))
            })?;
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
        st.downloads.forget(&id);
        st.tabs.retain(|_, t| t.context != id);
        let state = &mut *st;
        state.sessions.retain(|_, t| state.tabs.contains_key(t));
        st.tell_census();
        drop(st);
        self.guards().remove(&id);
        Ok(())
    }

    /// The context's first tab, or a new blank one when it has none. Calls that race here
    /// share one tab: without the lock, each of an agent's concurrent first navigations
    /// would open a tab of its own and leave the others behind.
    pub async fn first_tab(&self, context: &str) -> Result<String> {
        self.one_at_a_time(format!("tab:{context}"), async {
            match self.tabs_of(context).into_iter().next() {
                Some((id, ..)) => Ok(id),
                None => self.open_tab(context).await,
            }
        })
        .await
    }

    /// Run `work` while no other work under `key` runs.
    async fn one_at_a_time<T>(&self, key: String, work: impl Future<Output = T>) -> T {
        let lock = {
            let mut opening = self.opening.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(opening.entry(key.clone()).or_default())
        };
        let turn = Turn {
            opening: &self.opening,
            key,
            lock,
        };
        let _held = turn.lock.lock().await;
        work.await
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

    /// Tabs of a context, in the order they opened: (id, url, title, opener).
    pub fn tabs_of(&self, context: &str) -> Vec<(String, String, String, Option<String>)> {
        let st = self.lock();
        let mut tabs: Vec<_> = st
            .tabs
            .iter()
            .filter(|(id, t)| t.context == context && !st.startup.contains(*id))
            .collect();
        tabs.sort_by_key(|(_, t)| t.opened);
        tabs.into_iter()
            .map(|(id, t)| {
                let (url, title) = t.shown();
                (
                    id.clone(),
                    url.to_string(),
                    title.to_string(),
                    t.opener.clone(),
                )
            })
            .collect()
    }

    /// Forget a tab that was closed (the browser's report of it may come later, or never).
    pub fn forget_tab(&self, target: &str) {
        let mut st = self.lock();
        if st.remove_tab(target).is_some() {
            drop(st);
            self.bump();
        }
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

    /// End the tunnels the default context's pages have open (`occupancy.rs`).
    pub(crate) fn drop_default_tunnels(&self) {
        if let Some(guard) = &self.net_guard {
            guard.drop_tunnels();
        }
    }

    /// Why the network guard of tab `target`'s context did not carry the last connection
    /// to `host:port` (within a minute), for the navigation's error.
    pub(crate) fn guard_failure(
        &self,
        target: &str,
        host: &str,
        port: u16,
    ) -> Option<crate::capabilities::browser::guard::failures::Failure> {
        let st = self.lock();
        let context = st.tabs.get(target).map(|t| t.context.clone())?;
        let default = st.default_context.as_deref() == Some(context.as_str());
        drop(st);
        if let Some(guard) = self.guards().get(&context) {
            return guard.failure(host, port);
        }
        if default {
            return self.net_guard.as_ref()?.failure(host, port);
        }
        None
    }

    /// The context a tab belongs to.
    pub fn tab_context(&self, target: &str) -> Option<String> {
        self.lock().tabs.get(target).map(|t| t.context.clone())
    }

    /// Wait until `check` returns something, or `timeout`.
    pub(crate) async fn wait_for<R>(
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

    /// Wait until every event the browser sent before now is in the state: events travel
    /// from the connection to the event loop through a queue, so an answer can arrive before
    /// the events that preceded it are reduced. Bounded: a stalled loop only costs the wait.
    pub(crate) async fn caught_up(&self) {
        let sent = self.cdp.events_sent();
        let deadline = tokio::time::Instant::now() + CATCH_UP;
        let mut spins = 0u32;
        while self.reduced.load(Ordering::Acquire) < sent
            && tokio::time::Instant::now() < deadline
            && !self.cdp.closed().is_cancelled()
        {
            // The loop runs on another worker and needs microseconds: yield before sleeping.
            if spins < 16 {
                spins += 1;
                tokio::task::yield_now().await;
            } else {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
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

/// The longest [`Live::caught_up`] waits.
const CATCH_UP: Duration = Duration::from_millis(50);

async fn event_loop(live: Weak<Live>, mut events: tokio::sync::mpsc::UnboundedReceiver<Event>) {
    while let Some(ev) = events.recv().await {
        let Some(live) = live.upgrade() else { break };
        live.on_event(ev);
    }
    if let Some(live) = live.upgrade() {
        live.bump();
    }
}
