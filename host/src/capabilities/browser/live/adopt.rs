//! Carry the browsers over a manifest reload whose `[browser]` settings did not change: open
//! sessions, their tabs and logins stay, and take the new grants at once, so a narrowed
//! origin grant guards the very next navigation, even one a page starts on its own.

use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::provider::BrowserProvider;
use crate::manifest::Manifest;
use crate::manifest::grants::Grants;
use std::sync::Arc;

/// The new grants of a plugin that may still use the browser, if it may.
fn browser_grants(manifest: &Manifest, plugin: &str) -> Option<Arc<Grants>> {
    let config = manifest.plugins.iter().find(|p| p.name == plugin)?;
    config.grants.check_browser().ok()?;
    Some(config.grants.clone())
}

impl BrowserProvider {
    /// Apply `manifest`'s grants to every open session; close the sessions of plugins it no
    /// longer lets use the browser, and profile sessions whose profile is no longer granted.
    /// Returns (kept, closed).
    pub async fn adopt(&self, manifest: &Manifest) -> (usize, usize) {
        let (mut kept, mut closed) = (0, 0);
        if let Some(live) = self.current().await {
            let (k, c) = live.adopt(manifest).await;
            kept += k;
            closed += c;
        }
        for (plugin, session, profile) in self.profile_session_names() {
            let granted = browser_grants(manifest, &plugin)
                .is_some_and(|g| g.check_browser_profile(&profile).is_ok());
            if !granted {
                self.close_own_session(&plugin, &session).await;
                closed += 1;
                continue;
            }
            if let Some(live) = self.current_for(&plugin, &session).await {
                let (k, c) = live.adopt(manifest).await;
                kept += k;
                closed += c;
            }
        }
        for (plugin, session) in self.fleet_session_names() {
            if browser_grants(manifest, &plugin).is_none() {
                self.close_own_session(&plugin, &session).await;
                closed += 1;
            } else if let Some(live) = self.current_for(&plugin, &session).await {
                let (k, c) = live.adopt(manifest).await;
                kept += k;
                closed += c;
            }
        }
        (kept, closed)
    }
}

impl Live {
    async fn adopt(&self, manifest: &Manifest) -> (usize, usize) {
        let mut gone = Vec::new();
        let mut kept = 0;
        {
            let mut st = self.lock();
            let owners: Vec<_> = st
                .by_owner
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for ((plugin, session), context) in owners {
                match browser_grants(manifest, &plugin) {
                    Some(grants) => {
                        if let Some(owner) = st.contexts.get_mut(&context) {
                            owner.grants = grants;
                        }
                        kept += 1;
                    }
                    None => gone.push((plugin, session)),
                }
            }
        }
        for (plugin, session) in &gone {
            if let Err(e) = self.close_session(plugin, session).await {
                tracing::warn!(
                    plugin,
                    session,
                    "cannot close a browser session after a reload: {e}"
                );
            }
        }
        (kept, gone.len())
    }
}
