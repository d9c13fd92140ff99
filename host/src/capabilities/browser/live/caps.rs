//! Per-plugin caps on what the browser capabilities create: sessions (browser contexts,
//! `limits.browser_sessions`), tabs across them (`limits.browser_tabs`), and the tabs of one
//! capture request (`limits.capture_tabs`). Tabs a page opens itself (`window.open`,
//! `target=_blank`) count too: over the cap they are closed before they run.
//!
//! A cap reached is a tool error naming the limit key and a `capability_denied` audit line;
//! a popup flood writes one line at 1, 2, 4, 8, ... closed windows, so a page cannot flood
//! the log. Other plugins' counts are their own.

use crate::audit::GuestScope;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::events::Effect;
use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::model::state::{Owner, State};
use crate::capabilities::browser::provider::BrowserProvider;
use crate::manifest::grants::Grants;
use std::collections::HashMap;

/// What `check` found: how many there are and the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub open: usize,
    pub cap: usize,
}

impl State {
    /// Who owns `target`: the tab's own owner (a capture request's tab) or its context's.
    fn owner_of_tab(&self, target: &str) -> Option<&Owner> {
        let tab = self.tabs.get(target)?;
        tab.owner
            .as_ref()
            .or_else(|| self.contexts.get(&tab.context))
    }

    /// Browser sessions of `plugin` in this browser.
    fn sessions_of_plugin(&self, plugin: &str) -> usize {
        self.by_owner.keys().filter(|(p, _)| p == plugin).count()
    }

    /// Tabs in the sessions of `plugin`, in this browser and the provider's others.
    fn tabs_of_plugin(&self, plugin: &str) -> usize {
        let elsewhere = self.census.as_ref().map_or(0, |(generation, census)| {
            census.elsewhere(*generation, plugin)
        });
        self.tabs_here(plugin) + elsewhere
    }

    /// Tell the census this browser's tabs when their number changed.
    pub(in crate::capabilities::browser) fn tell_census(&mut self) {
        let Some((generation, census)) = &self.census else {
            return;
        };
        if self.census_told == Some(self.tabs.len()) {
            return;
        }
        let mut tabs: HashMap<String, usize> = HashMap::new();
        for owner in self.by_owner.keys().map(|(p, _)| p) {
            if !tabs.contains_key(owner) {
                tabs.insert(owner.clone(), self.tabs_here(owner));
            }
        }
        census.lock().insert(*generation, tabs);
        self.census_told = Some(self.tabs.len());
    }

    /// Tabs in this browser in the sessions of `plugin` (not capture tabs, which have an
    /// owner of their own).
    fn tabs_here(&self, plugin: &str) -> usize {
        self.tabs
            .iter()
            .filter(|(id, t)| t.owner.is_none() && !self.startup.contains(*id))
            .filter(|(_, t)| {
                self.contexts
                    .get(&t.context)
                    .is_some_and(|o| o.grants.plugin == plugin)
            })
            .count()
    }

    /// Tabs of `plugin`'s capture request (one runs at a time per plugin: its calls are serialized).
    fn capture_tabs_of(&self, plugin: &str) -> usize {
        self.tabs
            .values()
            .filter(|t| t.owner.as_ref().is_some_and(|o| o.grants.plugin == plugin))
            .count()
    }
}

fn refuse(scope: &GuestScope, key: &str, message: String) -> BrowserError {
    scope.denied("browser", key, &message);
    BrowserError::Denied(message)
}

/// May a plugin with `open` sessions open one more?
fn session_cap(grants: &Grants, scope: &GuestScope, open: usize) -> Result<()> {
    let cap = grants.caps.browser_sessions;
    if open < cap {
        return Ok(());
    }
    Err(refuse(
        scope,
        "limits.browser_sessions",
        format!(
            "plugin '{}' has {open} browser sessions open, its limit (limits.browser_sessions = {cap} in the manifest); close one with browse_session close first, or ask the admin to raise limits.browser_sessions",
            grants.plugin
        ),
    ))
}

impl BrowserProvider {
    /// May the owner open one more session, counting those in the shared browser and in
    /// profiles' own browsers?
    pub(in crate::capabilities::browser) async fn check_session_cap(
        &self,
        owner: &Owner,
    ) -> Result<()> {
        let open = self.sessions_of(&owner.grants.plugin).await.len();
        session_cap(&owner.grants, &owner.scope, open)
    }
}

impl Live {
    /// May the plugin of `grants` open one more browser session in this browser?
    pub(in crate::capabilities::browser) fn check_session_cap(
        &self,
        grants: &Grants,
        scope: &GuestScope,
    ) -> Result<()> {
        let open = self.lock().sessions_of_plugin(&grants.plugin);
        session_cap(grants, scope, open)
    }

    /// May the owner of `context` open one more tab in it? (A context without an owner is
    /// the capture browser's default one, whose requests are capped on their popups.)
    pub(in crate::capabilities::browser) fn check_tab_cap(&self, context: &str) -> Result<()> {
        let st = self.lock();
        let Some(owner) = st.contexts.get(context) else {
            return Ok(());
        };
        let open = st.tabs_of_plugin(&owner.grants.plugin);
        let cap = owner.grants.caps.browser_tabs;
        if open < cap {
            return Ok(());
        }
        let (plugin, scope) = (owner.grants.plugin.clone(), owner.scope.clone());
        drop(st);
        Err(refuse(
            &scope,
            "limits.browser_tabs",
            format!(
                "plugin '{plugin}' has {open} browser tabs open across its sessions, its limit (limits.browser_tabs = {cap} in the manifest); close some with browse_tabs close first, or ask the admin to raise limits.browser_tabs"
            ),
        ))
    }
}

impl State {
    /// A tab the page `target`'s opener opened has just attached, paused: when its owner is
    /// over a tab cap, forget it, tell the opener's next answer, and return what to do (close
    /// it before it runs; audit it, aggregated: a line at 1, 2, 4, 8, ... closed windows).
    pub(in crate::capabilities::browser) fn close_popup_over_cap(
        &mut self,
        target: &str,
    ) -> Option<Vec<Effect>> {
        let tab = self.tabs.get(target)?;
        let (Some(opener), context, capture) =
            (tab.opener.clone(), tab.context.clone(), tab.owner.is_some())
        else {
            return None;
        };
        let owner = self.owner_of_tab(target).cloned()?;
        let plugin = &owner.grants.plugin;
        let (key, count) = if capture {
            (
                "limits.capture_tabs",
                Count {
                    open: self.capture_tabs_of(plugin),
                    cap: owner.grants.caps.capture_tabs,
                },
            )
        } else {
            (
                "limits.browser_tabs",
                Count {
                    open: self.tabs_of_plugin(plugin),
                    cap: owner.grants.caps.browser_tabs,
                },
            )
        };
        if count.open <= count.cap {
            return None;
        }
        let message = format!(
            "the page opened more windows than plugin '{plugin}' may have tabs ({key} = {} in the manifest); the extra windows were closed before they loaded",
            count.cap
        );
        let extras = self.extras.entry(context).or_default();
        extras.popups_closed += 1;
        let closed = extras.popups_closed;
        if let Some(tab) = self.tabs.get_mut(&opener) {
            tab.blocked.push(message.clone());
            tab.blocked_seq += 1;
        }
        // Forgotten at once, so it counts no more and any request it makes is failed as one of
        // a tab nobody owns.
        let session = self.tabs.remove(target).map(|t| t.session);
        if let Some(session) = &session {
            self.sessions.remove(session);
        }
        let mut effects = Vec::new();
        if closed.is_power_of_two() {
            effects.push(Effect::Deny {
                scope: owner.scope.clone(),
                capability: "browser",
                target: key.to_string(),
                reason: format!("{message} ({closed} closed in this session so far)"),
            });
        }
        effects.push(Effect::ClosePopup {
            session,
            target: target.to_string(),
        });
        Some(effects)
    }
}
