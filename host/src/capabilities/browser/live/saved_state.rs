//! Saved session states: a session's cookies and the `localStorage` of the origins its tabs
//! show, kept in the host under a name of the plugin's, to open new sessions from (log in
//! once, start clean sessions already logged in). The values never reach the plugin: it
//! sees names, counts and origins. A value that holds a secret typed into the session is
//! left out, so a restored page cannot hand back a secret the new session would not scrub.
//!
//! States live in memory until Warden stops; a persistent profile keeps a session on disk.

use crate::capabilities::browser::cdp::s;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::model::navigation::Navigation;
use crate::capabilities::browser::tab::{Tab, WaitUntil};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Duration;
use url::Url;

/// States one plugin may keep at once for one client (so one client's states never stop
/// another's from being saved).
pub(crate) const MAX_STATES: usize = 32;
/// The largest state kept (cookie and storage names and values together).
pub(crate) const MAX_BYTES: usize = 8 * 1024 * 1024;
/// What one plugin's states of one client may hold together: host memory, so bounded well
/// below the product of the two caps above.
pub(crate) const MAX_TOTAL_BYTES: usize = 32 * 1024 * 1024;
/// How long writing one origin's storage may take.
const RESTORE_TIMEOUT: Duration = Duration::from_secs(10);

/// What a state holds; the values stay here.
#[derive(Clone, Default)]
pub struct State {
    pub(crate) cookies: Vec<Value>,
    /// Origin to its `localStorage` items.
    pub(crate) local: BTreeMap<String, Vec<(String, String)>>,
    pub(crate) left_out: u32,
    /// Origins a secret was typed into in the saved session: a session opened from the
    /// state never reads their storage or cookie values back either (`model/hold.rs`).
    pub(crate) secret_origins: crate::capabilities::browser::model::hold::SecretOrigins,
    /// The client whose call saved it: the caps count per client.
    pub(crate) client: crate::capabilities::conversation::Owner,
}

impl State {
    pub(crate) fn bytes(&self) -> usize {
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
}

/// Every plugin's saved states, by (plugin, name as the host keeps it: `scope.rs`).
#[derive(Default)]
pub struct SavedStates(Mutex<HashMap<(String, String), State>>);

impl SavedStates {
    /// Drop the states saved in the conversation `key` (it ended); returns them as
    /// (plugin, name as the host keeps it).
    pub(in crate::capabilities::browser) fn forget_scope(
        &self,
        key: &str,
    ) -> Vec<(String, String)> {
        let mut gone = Vec::new();
        self.lock().retain(|(plugin, name), _| {
            let keep = crate::capabilities::browser::scope::split(name).1 != key;
            if !keep {
                gone.push((plugin.clone(), name.clone()));
            }
            keep
        });
        gone
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), State>> {
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
    pub(crate) async fn read_state(&self, context: &str) -> Result<State> {
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
    pub(crate) async fn write_state(&self, context: &str, state: &State) -> Result<()> {
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
