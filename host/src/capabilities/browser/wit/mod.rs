//! The WIT host side of `warden:browser`: each call's grant check, the page handles, and
//! the conversions between WIT types and the browser's own.
//!
//! | file | job |
//! |---|---|
//! | `host.rs` | sessions and tabs (`open-page`, `list-tabs`, ...) |
//! | `page.rs` | the `page` resource: navigation, actions, output |
//! | `snapshot.rs` | the element snapshot as WIT records |
//! | `extras.rs` | logs, routes, emulation, storage |
//! | `downloads.rs` | the session's downloads |
//! | `record.rs` | what of each call goes into the session's recording |

mod ctx;
mod downloads;
mod extras;
mod handle;
mod host;
mod page;
mod profiles;
mod record;
mod saved_state;
pub(super) mod snapshot;

use super::bindings::warden::browser::browser::{
    ClickOptions, Cookie, Modifiers, MouseButton, WaitUntil,
};
use super::bindings::warden::browser::types::{self, Error};
use super::error::BrowserError;
use super::keys;
use super::live::Live;
use super::model::hold::{self as holding, Door};
use super::scope::SessionKey;
use super::tab::{self, Click, Tab};
use crate::capabilities::View;
use crate::manifest::grants::Denied;
use ctx::DEFAULT_SESSION;
pub use ctx::{BrowserCtx, add_to_linker};
pub use handle::PageHandle;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use wasmtime::component::Resource;

impl From<BrowserError> for Error {
    fn from(e: BrowserError) -> Self {
        match e {
            BrowserError::Denied(m) => Self::AccessDenied(m),
            BrowserError::NotFound(m) => Self::NotFound(m),
            BrowserError::Stale(m) => Self::StaleElement(m),
            BrowserError::Gone(m) => Self::Gone(m),
            BrowserError::Timeout(m) => Self::Timeout(m),
            BrowserError::Invalid(m) => Self::InvalidArgument(m),
            BrowserError::Io(m) => Self::Io(m),
        }
    }
}

pub(super) fn wait_until(w: WaitUntil) -> tab::WaitUntil {
    match w {
        WaitUntil::Load => tab::WaitUntil::Load,
        WaitUntil::DomContentLoaded => tab::WaitUntil::DomContentLoaded,
        WaitUntil::NetworkIdle => tab::WaitUntil::NetworkIdle,
    }
}

pub(super) fn timeout(ms: u32) -> Duration {
    Duration::from_millis(u64::from(if ms == 0 { 30_000 } else { ms }))
}

pub(super) fn click(o: ClickOptions) -> Click {
    let mut modifiers = 0;
    for (flag, bit) in [
        (Modifiers::ALT, keys::ALT),
        (Modifiers::CTRL, keys::CTRL),
        (Modifiers::META, keys::META),
        (Modifiers::SHIFT, keys::SHIFT),
    ] {
        if o.modifiers.contains(flag) {
            modifiers |= bit;
        }
    }
    Click {
        button: match o.button {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
        },
        count: o.count.clamp(1, 3),
        modifiers,
    }
}

impl View<'_, BrowserCtx> {
    /// The session `name` (or the default one) of the call's conversation, as the host
    /// keeps it.
    pub(super) fn session_key(&self, name: Option<String>) -> Result<SessionKey, Error> {
        SessionKey::new(
            name.as_deref().unwrap_or(DEFAULT_SESSION),
            &self.conversation,
        )
    }

    /// A grant check's refusal, audited, as the WIT `access-denied` error.
    pub(super) fn granted<T>(&self, check: Result<T, Denied>) -> Result<T, Error> {
        check.map_err(|d| Error::AccessDenied(self.refuse("browser", &d)))
    }

    /// The plugin's `url` as a navigation its grants allow, through the one door every
    /// plugin-chosen URL passes ([`super::navigation::check`]); a refusal is audited.
    pub(super) fn navigation(
        &self,
        guard: super::Guard,
        url: &str,
    ) -> Result<super::navigation::Navigation, Error> {
        super::navigation::check(guard, &self.grants, url).map_err(|refused| {
            match refused.denied() {
                Some(denied) => Error::AccessDenied(self.refuse("browser", denied)),
                None => Error::InvalidArgument(refused.to_string()),
            }
        })
    }

    /// Where the manifest keeps secret `name` (its value is resolved only to type it).
    pub(super) fn secret_source(
        &self,
        name: &str,
    ) -> Result<&crate::manifest::SecretSource, Error> {
        self.browser.config().secrets.get(name).ok_or_else(|| {
            Error::NotFound(format!("the manifest defines no [browser.secrets] {name}"))
        })
    }

    /// Refuse `door` (with an audit line) while `tab`'s document holds a secret the host
    /// typed (`model/hold.rs`).
    pub(super) fn unheld(&self, tab: &Tab, door: Door) -> Result<(), Error> {
        if tab.holds_secret()? {
            return Err(self.held(tab, door));
        }
        Ok(())
    }

    /// The refusal of `door` on `tab` because of a secret the host typed, audited.
    pub(super) fn held(&self, tab: &Tab, door: Door) -> Error {
        self.held_at(&tab.shown_url().unwrap_or_default(), door)
    }

    /// The refusal of `door` at `target` (what the audit line names; never a secret).
    pub(crate) fn held_at(&self, target: &str, door: Door) -> Error {
        let message = holding::refusal(door);
        self.scope.denied(door.capability(), target, &message);
        Error::AccessDenied(message)
    }

    pub(super) fn browser_allowed(&self) -> Result<(), Error> {
        self.granted(self.grants.check_browser())
    }

    /// The tab behind a handle, with the browser's own document: a page the host read
    /// without the browser (`static_page/`) is loaded into it first, so every action acts on
    /// the real page. Only the calls that read what the plugin was shown use [`Self::shown_tab`].
    pub(super) async fn tab(&mut self, page: &Resource<PageHandle>) -> Result<Tab, Error> {
        let tab = self.shown_tab(page).await?;
        tab.take_over().await?;
        Ok(tab)
    }

    /// May navigations of this page's session take the no-JavaScript fast path? Not when the
    /// admin turned it off, nor where the browser reaches the web in a way the host does not
    /// (a remote browser, a profile with its own proxy and identity).
    pub(super) async fn static_pages(&mut self, page: &Resource<PageHandle>) -> bool {
        let config = self.browser.config();
        if !config.static_pages || !config.endpoints.is_empty() {
            return false;
        }
        let Ok(session) = self.table().get(page).map(|h| h.session.clone()) else {
            return false;
        };
        !self.browser.is_profile_session(self.plugin(), &session)
    }

    /// The tab behind a handle, in the running browser, showing what the plugin was shown
    /// (a page the host read, if it did); refreshes the session's grants.
    pub(super) async fn shown_tab(&mut self, page: &Resource<PageHandle>) -> Result<Tab, Error> {
        self.browser_allowed()?;
        let handle = self
            .table()
            .get(page)
            .map_err(|_| Error::NotFound("no such page".into()))?;
        let (generation, target, session) = (
            handle.generation,
            handle.target.clone(),
            handle.session.clone(),
        );
        // A handle kept from another conversation's call (a plugin that shares its state
        // across clients) does not reach that conversation's tab.
        let Some(name) = SessionKey::visible(&session, &self.conversation) else {
            return Err(Error::NotFound(
                "this tab belongs to another client's session; open a page in this one".into(),
            ));
        };
        let name = name.to_string();
        self.lease(&target).await;
        let live = self
            .browser
            .current_for(self.plugin(), &session)
            .await
            .filter(|l| l.generation == generation && !l.cdp.closed().is_cancelled());
        let Some(live) = live else {
            return Err(Error::Gone(
                match self.browser.lost(self.plugin(), &session).await {
                    Some(endpoint) => super::provider::lost_message(&name, &endpoint),
                    None => super::provider::exited_message(),
                },
            ));
        };
        live.context(self.plugin(), &session, &self.owner()).await?;
        let tab = Tab { live, target };
        // No call reads or acts in a document the commit rule refused (`events/commits.rs`).
        tab.past_refused().await?;
        Ok(tab)
    }

    /// The browser (plugin, `session`) lives in, started or placed on a fleet member when
    /// needed.
    /// The session key, the running browser and the context of (this plugin, `session`).
    pub(super) async fn session_context(
        &mut self,
        session: Option<String>,
    ) -> Result<(SessionKey, Arc<Live>, String), Error> {
        self.browser_allowed()?;
        let session = self.session_key(session)?;
        let live = self.session_browser(&session).await?;
        let context = live.context(self.plugin(), &session, &self.owner()).await?;
        Ok((session, live, context))
    }

    pub(super) async fn session_browser(&mut self, session: &str) -> Result<Arc<Live>, Error> {
        self.browser
            .conversation_started(&self.conversation, &self.scope.audit);
        let owner = self.owner();
        Ok(self
            .browser
            .live_for(self.plugin(), session, &owner)
            .await?)
    }

    /// Hold tab `target` for the rest of the call in progress, waiting while another call
    /// holds it (`leases.rs`). Every way to a tab passes here: a new handle, and every use of
    /// a handle (one the plugin kept from an earlier call of its conversation included).
    pub(super) async fn lease(&mut self, target: &str) {
        if !self.leased.iter().any(|(held, _)| held == target) {
            let lease = self.browser.leases.lease(target).await;
            self.leased.push((target.to_string(), lease));
        }
    }

    /// A handle on tab `target` for the plugin, once this call holds the tab.
    pub(super) async fn handle_for(
        &mut self,
        session: SessionKey,
        target: String,
        generation: u64,
    ) -> Result<Resource<PageHandle>, Error> {
        self.lease(&target).await;
        self.table()
            .push(PageHandle {
                generation,
                target,
                session: session.into_key(),
            })
            .map_err(|e| Error::Io(format!("cannot hand out the tab: {e}")))
    }
}

pub(super) fn cookie_from_json(c: &Value) -> Cookie {
    Cookie {
        name: c["name"].as_str().unwrap_or_default().to_string(),
        value: c["value"].as_str().unwrap_or_default().to_string(),
        domain: c["domain"].as_str().unwrap_or_default().to_string(),
        path: c["path"].as_str().unwrap_or("/").to_string(),
        expires: c["expires"].as_f64().filter(|e| *e > 0.0),
        http_only: c["httpOnly"].as_bool().unwrap_or(false),
        secure: c["secure"].as_bool().unwrap_or(false),
        same_site: c["sameSite"].as_str().map(str::to_string),
    }
}

impl types::Host for View<'_, BrowserCtx> {}
