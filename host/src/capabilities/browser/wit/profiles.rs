//! The WIT side of opening a session with a `[browser.profiles]` entry.

use super::ctx::BrowserCtx;
use crate::capabilities::View;
use crate::capabilities::browser::bindings::warden::browser::types::Error;

impl View<'_, BrowserCtx> {
    pub(crate) async fn open_profile_session(
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
        let owner = self.owner();
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
