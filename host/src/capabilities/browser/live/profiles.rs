//! Sessions opened with a `[browser.profiles]` entry: the browser context's network guard
//! chains to the profile's proxy, and the profile's emulation applies to its tabs.

use crate::capabilities::browser::emulation::{Emulation, Viewport};
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::model::state::Owner;
use crate::manifest::BrowserProfile;

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
            self.context(plugin, session, &owner).await?;
            return Ok(());
        };
        if self.lock().by_owner.contains_key(&key) {
            let session = crate::capabilities::browser::scope::split(session).0;
            return Err(BrowserError::Invalid(format!(
                "session \"{session}\" is open already; close it (browse_session close) to open it with a profile"
            )));
        }
        self.check_session_cap(&owner)?;
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
