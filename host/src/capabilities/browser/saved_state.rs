//! Saved session states: a session's cookies and the `localStorage` of the origins its tabs
//! show, kept in the host under a name of the plugin's, to open new sessions from (log in
//! once, start clean sessions already logged in). The values never reach the plugin: it
//! sees names, counts and origins. A value that holds a secret typed into the session is
//! left out, so a restored page cannot hand back a secret the new session would not scrub.
//!
//! States live in memory until Warden stops; a persistent profile keeps a session on disk.

use super::BrowserCtx;
use super::bindings::warden::browser::browser::SavedState as WitState;
use super::bindings::warden::browser::types::Error;
use super::cdp::s;
use super::error::{BrowserError, Result};
use super::model::navigation::Navigation;
use super::model::hold::Door;
use super::live::Live;
use super::scope::SessionKey;
use super::tab::{Tab, WaitUntil};
use crate::audit::Used;
use crate::capabilities::View;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Duration;
use url::Url;

/// States one plugin may keep at once for one client (so one client's states never stop
/// another's from being saved).
const MAX_STATES: usize = 32;
/// The largest state kept (cookie and storage names and values together).
const MAX_BYTES: usize = 8 * 1024 * 1024;
/// What one plugin's states of one client may hold together: host memory, so bounded well
/// below the product of the two caps above.
const MAX_TOTAL_BYTES: usize = 32 * 1024 * 1024;
/// How long writing one origin's storage may take.
const RESTORE_TIMEOUT: Duration = Duration::from_secs(10);

/// What a state holds; the values stay here.
#[derive(Clone, Default)]
pub struct State {
    cookies: Vec<Value>,
    /// Origin to its `localStorage` items.
    local: BTreeMap<String, Vec<(String, String)>>,
    left_out: u32,
    /// Origins a secret was typed into in the saved session: a session opened from the
    /// state never reads their storage or cookie values back either (`holding.rs`).
    secret_origins: super::model::hold::SecretOrigins,
    /// The client whose call saved it: the caps count per client.
    client: crate::capabilities::conversation::Owner,
}

impl State {
    fn bytes(&self) -> usize {
        let cookies: usize = self
            .cookies
            .iter()
            .map(|c| s(c, "name").len() + s(c, "value").len())
            .sum();
        let local: usize = self
            .local
            .values()
            .flatten()
            .map(|(k, v)| k.len() + v.len())
            .sum();
        cookies + local
    }

    fn summary(&self, name: &str) -> WitState {
        WitState {
            name: name.to_string(),
            cookies: u32::try_from(self.cookies.len()).unwrap_or(u32::MAX),
            origins: self.local.keys().cloned().collect(),
            left_out: self.left_out,
        }
    }
}

/// Every plugin's saved states, by (plugin, name as the host keeps it: `scope.rs`).
#[derive(Default)]
pub struct SavedStates(Mutex<HashMap<(String, String), State>>);

impl SavedStates {
    /// Drop the states saved in the conversation `key` (it ended); returns them as
    /// (plugin, name as the host keeps it).
    pub(super) fn forget_scope(&self, key: &str) -> Vec<(String, String)> {
        let mut gone = Vec::new();
        self.lock().retain(|(plugin, name), _| {
            let keep = super::scope::split(name).1 != key;
            if !keep {
                gone.push((plugin.clone(), name.clone()));
            }
            keep
        });
        gone
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), State>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The CookieParam `Storage.setCookies` takes, from a cookie `Storage.getCookies` gave.
fn cookie_param(c: &Value) -> Value {
    let mut p = json!({
        "name": c["name"], "value": c["value"], "domain": c["domain"], "path": c["path"],
        "secure": c["secure"], "httpOnly": c["httpOnly"],
    });
    // A session cookie has no expiry (-1 in the browser's answer).
    if c["session"] != json!(true)
        && let Some(e) = c["expires"].as_f64().filter(|e| *e > 0.0)
    {
        p["expires"] = json!(e);
    }
    for key in [
        "sameSite",
        "priority",
        "sourceScheme",
        "sourcePort",
        "partitionKey",
    ] {
        if let Some(v) = c.get(key) {
            p[key] = v.clone();
        }
    }
    p
}

impl Live {
    /// Read `context`'s cookies and the local storage of its tabs' origins, leaving out
    /// every value that holds a secret typed into one of its tabs.
    async fn read_state(&self, context: &str) -> Result<State> {
        let answer = self
            .cdp
            .call_raw(
                None,
                "Storage.getCookies",
                json!({ "browserContextId": context }),
            )
            .await?;
        let (tabs, secrets): (Vec<(String, String)>, Vec<String>) = {
            let st = self.lock();
            let tabs = st
                .tabs
                .values()
                .filter(|t| t.context == context)
                .map(|t| (t.session.clone(), t.url.clone()))
                .collect();
            let secrets = st
                .tabs
                .values()
                .filter(|t| t.context == context)
                .flat_map(|t| t.secrets.iter().cloned())
                .collect();
            (tabs, secrets)
        };
        let holds_secret = |text: &str| secrets.iter().any(|s| !s.is_empty() && text.contains(s));
        let mut state = State {
            secret_origins: self
                .lock()
                .extras
                .get(context)
                .map(|x| x.secret_origins.clone())
                .unwrap_or_default(),
            ..State::default()
        };
        for c in answer["cookies"].as_array().into_iter().flatten() {
            if holds_secret(s(c, "value")) || holds_secret(s(c, "name")) {
                state.left_out += 1;
            } else {
                state.cookies.push(cookie_param(c));
            }
        }
        for (session, url) in tabs {
            let Ok(url) = Url::parse(&url) else { continue };
            if !matches!(url.scheme(), "http" | "https") {
                continue;
            }
            let origin = url.origin().ascii_serialization();
            if state.local.contains_key(&origin) {
                continue;
            }
            let items = self
                .cdp
                .call_raw(
                    Some(&session),
                    "DOMStorage.getDOMStorageItems",
                    json!({ "storageId": { "securityOrigin": origin, "isLocalStorage": true } }),
                )
                .await?;
            let mut kept = Vec::new();
            for kv in items["entries"].as_array().into_iter().flatten() {
                let (k, v) = (kv[0].as_str().unwrap_or(""), kv[1].as_str().unwrap_or(""));
                if holds_secret(k) || holds_secret(v) {
                    state.left_out += 1;
                } else {
                    kept.push((k.to_string(), v.to_string()));
                }
            }
            if !kept.is_empty() {
                state.local.insert(origin, kept);
            }
        }
        Ok(state)
    }

    /// Put a state into `context`, which has no tab yet: its cookies, and its local storage
    /// before any page of those origins loads. The browser writes an origin's storage only
    /// through a document of that origin, so a first tab (kept as the session's) shows an
    /// empty document of each origin, made by the host (no request leaves the browser, no
    /// page script runs), and ends on `about:blank`.
    async fn write_state(&self, context: &str, state: &State) -> Result<()> {
        if !state.secret_origins.is_empty() {
            self.lock()
                .extras
                .entry(context.to_string())
                .or_default()
                .secret_origins
                .extend(state.secret_origins.iter().cloned());
        }
        if !state.cookies.is_empty() {
            self.cdp
                .call_raw(
                    None,
                    "Storage.setCookies",
                    json!({ "cookies": state.cookies, "browserContextId": context }),
                )
                .await?;
        }
        if state.local.is_empty() {
            return Ok(());
        }
        let target = self.open_tab(context).await?;
        let session = self.with_tab(&target, |t| t.session.clone())?;
        let me = self
            .me
            .upgrade()
            .ok_or_else(|| BrowserError::Gone("the browser is closing".into()))?;
        let tab = Tab {
            live: me,
            target: target.clone(),
        };
        for (origin, items) in &state.local {
            let url = format!("{origin}/");
            // Saved from the session's own http(s) tabs; the origin guard checks it again.
            let to = Url::parse(&url)
                .map(Navigation::chosen_by_host)
                .map_err(|e| BrowserError::Io(format!("saved origin {origin}: {e}")))?;
            self.lock()
                .tabs
                .get_mut(&target)
                .map(|t| t.blank_documents.insert(url.clone()));
            let shown = tab.navigate(&to, WaitUntil::Load, RESTORE_TIMEOUT).await;
            self.lock()
                .tabs
                .get_mut(&target)
                .map(|t| t.blank_documents.remove(&url));
            shown?;
            for (key, value) in items {
                self.cdp
                    .call_raw(
                        Some(&session),
                        "DOMStorage.setDOMStorageItem",
                        json!({
                            "storageId": { "securityOrigin": origin, "isLocalStorage": true },
                            "key": key,
                            "value": value,
                        }),
                    )
                    .await?;
            }
        }
        tab.navigate(&Navigation::blank(), WaitUntil::Load, RESTORE_TIMEOUT)
            .await?;
        Ok(())
    }
}

impl View<'_, BrowserCtx> {
    pub(super) async fn save_state_impl(
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
        let context = live
            .context(&plugin, &session, &self.grants, &self.scope)
            .await?;
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
        let summary = state.summary(&name.to_string());
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

    pub(super) async fn create_session_from_state_impl(
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
        let context = live
            .context(&plugin, &session, &self.grants, &self.scope)
            .await?;
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
        Ok(saved.summary(&state))
    }

    /// A state's name as the host keeps it (scoped like a session's); a name no state can
    /// have is simply not found.
    fn state_key(&self, name: &str) -> std::result::Result<String, Error> {
        SessionKey::new(name, &self.conversation)
            .map(SessionKey::into_key)
            .map_err(|_| Error::NotFound(format!("this plugin saved no state named \"{name}\"")))
    }

    pub(super) fn list_states_impl(&self) -> std::result::Result<Vec<WitState>, Error> {
        self.browser_allowed()?;
        let plugin = self.plugin();
        let states = self.browser.states.lock();
        let mut list: Vec<WitState> = states
            .iter()
            .filter(|((p, _), _)| p == plugin)
            .filter_map(|((_, key), st)| {
                SessionKey::visible(key, &self.conversation).map(|name| st.summary(name))
            })
            .collect();
        list.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(list)
    }

    pub(super) fn delete_state_impl(&self, name: String) -> std::result::Result<(), Error> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_cookie_is_restored_without_an_expiry() {
        let c = json!({"name": "sid", "value": "1", "domain": "a.test", "path": "/", "expires": -1,
            "size": 4, "httpOnly": true, "secure": false, "session": true, "sameSite": "Lax"});
        let p = cookie_param(&c);
        assert!(p.get("expires").is_none(), "{p}");
        assert_eq!(p["sameSite"], "Lax");
        assert!(p.get("size").is_none() && p.get("session").is_none(), "{p}");
        let c = json!({"name": "keep", "value": "1", "domain": "a.test", "path": "/",
            "expires": 1.9e9, "httpOnly": false, "secure": true, "session": false});
        assert_eq!(cookie_param(&c)["expires"], 1.9e9);
    }
}
