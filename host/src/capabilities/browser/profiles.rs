//! Sessions opened with a `[browser.profiles]` entry: the browser context's network guard
//! chains to the profile's proxy, and the profile's emulation applies to its tabs.

use super::BrowserCtx;
use super::bindings::warden::browser::types::Error;
use super::emulation::{Emulation, Viewport};
use super::error::{BrowserError, Result};
use super::live::Live;
use super::model::state::Owner;
use crate::audit::GuestScope;
use crate::capabilities::View;
use crate::manifest::BrowserProfile;
use crate::manifest::grants::Grants;
use std::sync::Arc;

/// The emulation a profile starts its sessions with.
pub fn emulation_of(profile: &BrowserProfile) -> Emulation {
    Emulation {
        viewport: profile
            .viewport
            .map(|(width, height, device_scale, mobile)| Viewport {
                width,
                height,
                device_scale,
                mobile,
            }),
        user_agent: profile.user_agent.clone(),
        locale: profile.locale.clone(),
        timezone: profile.timezone.clone(),
        ..Default::default()
    }
}

impl Live {
    /// Create the context of (plugin, session), with `profile` when given. Without a profile
    /// an open session is simply kept; with one, it must not be open yet.
    pub async fn create_session(
        &self,
        plugin: &str,
        session: &str,
        owner: Owner,
        profile: Option<&BrowserProfile>,
    ) -> Result<()> {
        let key = (plugin.to_string(), session.to_string());
        let Some(profile) = profile else {
            self.context(plugin, session, &owner.grants, &owner.scope)
                .await?;
            return Ok(());
        };
        if self.lock().by_owner.contains_key(&key) {
            let session = super::scope::split(session).0;
            return Err(BrowserError::Invalid(format!(
                "session \"{session}\" is open already; close it (browse_session close) to open it with a profile"
            )));
        }
        self.check_session_cap(&owner.grants, &owner.scope)?;
        // The profile's proxy sits behind the context's network guard, which chains to it.
        let upstream = profile
            .proxy
            .as_deref()
            .map(|p| (p, profile.proxy_bypass.as_slice()));
        let downloads = self.download_place(plugin, session, &owner.grants);
        let id = self.guarded_context(upstream, downloads).await?;
        let mut st = self.lock();
        st.extras.entry(id.clone()).or_default().emulation = emulation_of(profile);
        st.bind(key, id, owner);
        Ok(())
    }
}

impl View<'_, BrowserCtx> {
    pub(super) async fn create_session_impl(
        &mut self,
        session: String,
        profile: Option<String>,
    ) -> std::result::Result<(), Error> {
        self.browser_allowed()?;
        let session = self.session_key(Some(session))?;
        let profile = match profile {
            None => None,
            Some(name) => {
                self.granted(self.grants.check_browser_profile(&name))?;
                let found = self.browser.config().profiles.get(&name).cloned();
                let found = found.ok_or_else(|| {
                    Error::NotFound(format!("the manifest has no [browser.profiles.{name}]"))
                })?;
                Some((name, found))
            }
        };
        let owner = Owner {
            grants: Arc::<Grants>::clone(&self.grants),
            scope: GuestScope::clone(&self.scope),
        };
        let browser = &self.browser;
        let plugin = self.plugin();
        match (profile, browser.is_profile_session(plugin, &session)) {
            (Some((name, profile)), _) if profile.user_data_dir.is_some() => Ok(browser
                .open_profile_session(plugin, &session, owner, &name, &profile)
                .await?),
            (Some(_), true) => Err(Error::InvalidArgument(format!(
                "session \"{session}\" is open already; close it (browse_session close) to open it with a profile"
            ))),
            // Kept as it is, in its profile's own browser.
            (None, true) => Ok(()),
            (profile, false) => {
                let live = browser.live_for(plugin, &session, &owner).await?;
                Ok(live
                    .create_session(plugin, &session, owner, profile.as_ref().map(|p| &p.1))
                    .await?)
            }
        }
    }
}
