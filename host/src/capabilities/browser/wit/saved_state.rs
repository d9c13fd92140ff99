//! The WIT side of saved session states: grant checks, names in the conversation's scope,
//! and what the plugin sees of a state (names, counts, origins; never a value).

use super::ctx::BrowserCtx;
use crate::audit::Used;
use crate::capabilities::View;
use crate::capabilities::browser::bindings::warden::browser::browser::SavedState as WitState;
use crate::capabilities::browser::bindings::warden::browser::types::Error;
use crate::capabilities::browser::error::BrowserError;
use crate::capabilities::browser::model::hold::Door;
use crate::capabilities::browser::saved_state::{MAX_BYTES, MAX_STATES, MAX_TOTAL_BYTES, State};
use crate::capabilities::browser::scope::SessionKey;

/// What the plugin sees of a saved state: its name and counts, never a value.
fn summary(state: &State, name: &str) -> WitState {
    WitState {
        name: name.to_string(),
        cookies: u32::try_from(state.cookies.len()).unwrap_or(u32::MAX),
        origins: state.local.keys().cloned().collect(),
        left_out: state.left_out,
    }
}

impl View<'_, BrowserCtx> {
    pub(crate) async fn save_session_state(
        &mut self,
        session: Option<String>,
        name: String,
    ) -> std::result::Result<WitState, Error> {
        self.browser_allowed()?;
        let session = self.session_key(session)?;
        let name = self.session_key(Some(name)).map_err(|_| {
            Error::InvalidArgument("a state's name is 1-64 letters, digits, '-' or '_'".into())
        })?;
        let plugin = self.plugin().to_string();
        let live = self
            .browser
            .current_for(&plugin, &session)
            .await
            .filter(|l| l.has_session(&plugin, &session))
            .ok_or_else(|| Error::NotFound(format!("no session named \"{session}\" is open")))?;
        let context = live.context(&plugin, &session, &self.owner()).await?;
        // A page that holds a secret may have put it anywhere its state reaches.
        if live.lock().context_holds_secret(&context) {
            return Err(self.held_at(&format!("session {session}"), Door::SaveState));
        }
        let mut state = live.read_state(&context).await?;
        state.client = self.conversation.owner().clone();
        if state.bytes() > MAX_BYTES {
            return Err(Error::LimitReached(format!(
                "session \"{session}\" holds {} bytes of cookies and storage, more than a saved state keeps ({MAX_BYTES}); clear what it does not need (browse_storage, browse_cookies) first",
                state.bytes()
            )));
        }
        let summary = summary(&state, &name.to_string());
        {
            let mut states = self.browser.states.lock();
            let key = (plugin.clone(), name.clone().into_key());
            // The state it replaces does not count: saving again under a name frees the old.
            // Other clients' states do not count either.
            let others = states
                .iter()
                .filter(|(k, st)| k.0 == plugin && **k != key && st.client == state.client);
            let (mine, held) = others.fold((0, 0), |(n, b), (_, st)| (n + 1, b + st.bytes()));
            if mine >= MAX_STATES {
                return Err(Error::LimitReached(format!(
                    "this plugin keeps {MAX_STATES} saved states of yours already; delete one (browse_session {{\"action\": \"delete_state\"}}) first"
                )));
            }
            if held + state.bytes() > MAX_TOTAL_BYTES {
                return Err(Error::LimitReached(format!(
                    "your saved states in this plugin hold {held} bytes; with this one ({} bytes) they would pass {MAX_TOTAL_BYTES}; delete one (browse_session {{\"action\": \"delete_state\"}}) first",
                    state.bytes()
                )));
            }
            states.insert(key, state);
        }
        self.scope.used(&Used {
            capability: "browser.save_state",
            target: &name,
            detail: Some(&format!(
                "session {session}: {} cookies, local storage of {} origins, {} values left out",
                summary.cookies,
                summary.origins.len(),
                summary.left_out
            )),
            ..Default::default()
        });
        Ok(summary)
    }

    pub(crate) async fn open_session_from_state(
        &mut self,
        session: String,
        state: String,
    ) -> std::result::Result<WitState, Error> {
        self.browser_allowed()?;
        let session = self.session_key(Some(session))?;
        let plugin = self.plugin().to_string();
        let key = self.state_key(&state)?;
        let saved = self
            .browser
            .states
            .lock()
            .get(&(plugin.clone(), key))
            .cloned()
            .ok_or_else(|| {
                Error::NotFound(format!(
                    "this plugin saved no state named \"{state}\"; list them with browse_session"
                ))
            })?;
        if self.browser.is_profile_session(&plugin, &session) {
            return Err(Error::InvalidArgument(format!(
                "session \"{session}\" runs on a persistent profile, which keeps its own cookies and storage; open the state in another session"
            )));
        }
        let live = self.session_browser(&session).await?;
        if live.has_session(&plugin, &session) {
            return Err(Error::InvalidArgument(format!(
                "session \"{session}\" is open already; close it (browse_session close) or pick another name to open the state in"
            )));
        }
        let context = live.context(&plugin, &session, &self.owner()).await?;
        if let Err(e) = live.write_state(&context, &saved).await {
            let _ = live.close_session(&plugin, &session).await;
            return Err(
                BrowserError::Io(format!("could not restore state \"{state}\": {e}")).into(),
            );
        }
        self.scope.used(&Used {
            capability: "browser.restore_state",
            target: &state,
            detail: Some(&format!("into session {session}")),
            ..Default::default()
        });
        Ok(summary(&saved, &state))
    }

    /// A state's name as the host keeps it (scoped like a session's); a name no state can
    /// have is simply not found.
    fn state_key(&self, name: &str) -> std::result::Result<String, Error> {
        SessionKey::new(name, &self.conversation)
            .map(SessionKey::into_key)
            .map_err(|_| Error::NotFound(format!("this plugin saved no state named \"{name}\"")))
    }

    pub(crate) fn saved_state_summaries(&self) -> std::result::Result<Vec<WitState>, Error> {
        self.browser_allowed()?;
        let plugin = self.plugin();
        let states = self.browser.states.lock();
        let mut list: Vec<WitState> = states
            .iter()
            .filter(|((p, _), _)| p == plugin)
            .filter_map(|((_, key), st)| {
                SessionKey::visible(key, &self.conversation).map(|name| summary(st, name))
            })
            .collect();
        list.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(list)
    }

    pub(crate) fn forget_saved_state(&self, name: String) -> std::result::Result<(), Error> {
        self.browser_allowed()?;
        let plugin = self.plugin().to_string();
        let key = self.state_key(&name)?;
        self.browser
            .states
            .lock()
            .remove(&(plugin, key))
            .map(|_| ())
            .ok_or_else(|| Error::NotFound(format!("this plugin saved no state named \"{name}\"")))
    }
}
