//! Caps on what the browser capabilities create: sessions (browser contexts,
//! `limits.browser_sessions`) and tabs across them (`limits.browser_tabs`), per plugin and
//! client, and the tabs of one capture request (`limits.capture_tabs`). Tabs a page opens
//! itself (`window.open`, `target=_blank`) count too: over the cap they are closed before
//! they run.
//!
//! Each client of a plugin has the whole cap to itself, so one client's sessions and tabs
//! never use up another's; the plugin as a whole holds at most [`CEILING_CLIENTS`] clients'
//! worth, which bounds the browser however many clients come. Up to that many clients at
//! once each get their whole cap; past it, the ceiling is taken first come.
//!
//! A cap reached is a tool error naming the limit key and a `capability_denied` audit line;
//! a popup flood writes one line at 1, 2, 4, 8, ... closed windows, so a page cannot flood
//! the log. Other plugins' counts are their own.

use crate::audit::GuestScope;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::events::Effect;
use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::model::census::{Held, Holder};
use crate::capabilities::browser::model::owner::Owner;
use crate::capabilities::browser::model::state::State;
use crate::capabilities::browser::provider::BrowserProvider;
use crate::capabilities::conversation::Owner as Client;
use std::collections::HashMap;

/// How many clients' worth of a per-client cap a plugin may hold across its clients.
pub const CEILING_CLIENTS: usize = 4;

/// Which bound a count is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Over {
    /// The client's own cap.
    Client,
    /// The plugin's ceiling across its clients.
    Plugin,
}

/// Whether `held` is over `cap` per client or the plugin's ceiling; `adding`: whether one
/// more is about to be added (else it was added already).
fn over(held: Held, cap: usize, adding: bool) -> Option<Over> {
    let room = usize::from(!adding);
    let ceiling = cap.saturating_mul(CEILING_CLIENTS);
    if held.mine >= cap + room {
        Some(Over::Client)
    } else if held.all >= ceiling + room {
        Some(Over::Plugin)
    } else {
        None
    }
}

impl State {
    /// Who owns `target`: the tab's own owner (a capture request's tab) or its context's.
    fn owner_of_tab(&self, target: &str) -> Option<&Owner> {
        let tab = self.tabs.get(target)?;
        tab.owner
            .as_ref()
            .or_else(|| self.contexts.get(&tab.context))
    }

    /// Browser sessions of `plugin` in this browser: the client's and all.
    fn sessions_held(&self, plugin: &str, client: &Client) -> Held {
        let mut held = Held::default();
        for ((p, _), id) in &self.by_owner {
            if p != plugin {
                continue;
            }
            held.all += 1;
            if self.contexts.get(id).is_some_and(|o| o.client == *client) {
                held.mine += 1;
            }
        }
        held
    }

    /// Tabs in the sessions of `plugin`, in this browser and the provider's others: the
    /// client's and all.
    fn tabs_held(&self, plugin: &str, client: &Client) -> Held {
        let here = self.tabs_here();
        let mut held = Held::default();
        for ((p, c), n) in &here {
            if p == plugin {
                held.all += n;
                if c == client {
                    held.mine += n;
                }
            }
        }
        let elsewhere = self
            .census
            .as_ref()
            .map_or(Held::default(), |(generation, census)| {
                census.elsewhere(*generation, plugin, client)
            });
        held + elsewhere
    }

    /// Tell the census this browser's tabs when their number changed.
    pub(in crate::capabilities::browser) fn tell_census(&mut self) {
        let Some((generation, census)) = &self.census else {
            return;
        };
        if self.census_told == Some(self.tabs.len()) {
            return;
        }
        census.lock().insert(*generation, self.tabs_here());
        self.census_told = Some(self.tabs.len());
    }

    /// Tabs in this browser by the plugin and client of their session (not capture tabs,
    /// which have an owner of their own, nor the startup tab).
    fn tabs_here(&self) -> HashMap<Holder, usize> {
        let mut tabs: HashMap<Holder, usize> = HashMap::new();
        for (id, tab) in &self.tabs {
            if tab.owner.is_some() || self.startup.contains(id) {
                continue;
            }
            if let Some(o) = self.contexts.get(&tab.context) {
                *tabs
                    .entry((o.grants.plugin.clone(), o.client.clone()))
                    .or_default() += 1;
            }
        }
        tabs
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

/// May the owner, holding `held` sessions, open one more?
fn session_cap(owner: &Owner, held: Held) -> Result<()> {
    let cap = owner.grants.caps.browser_sessions;
    let plugin = &owner.grants.plugin;
    let message = match over(held, cap, true) {
        None => return Ok(()),
        Some(Over::Client) => format!(
            "this client has {} browser sessions open in plugin '{plugin}', its limit (limits.browser_sessions = {cap} per client in the manifest); close one with browse_session close first, or ask the admin to raise limits.browser_sessions",
            held.mine
        ),
        Some(Over::Plugin) => format!(
            "plugin '{plugin}' has {} browser sessions open across its clients, its ceiling ({CEILING_CLIENTS} × limits.browser_sessions = {cap}); this client holds {}; close one with browse_session close, or ask the admin to raise limits.browser_sessions",
            held.all, held.mine
        ),
    };
    Err(refuse(&owner.scope, "limits.browser_sessions", message))
}

impl BrowserProvider {
    /// May the owner open one more session, counting those in the shared browser and in
    /// profiles' own browsers?
    pub(in crate::capabilities::browser) async fn check_session_cap(
        &self,
        owner: &Owner,
    ) -> Result<()> {
        let held = self
            .sessions_held(&owner.grants.plugin, &owner.client)
            .await;
        session_cap(owner, held)
    }
}

impl Live {
    /// Sessions of `plugin` in this browser: `client`'s and all.
    pub(in crate::capabilities::browser) fn sessions_held(
        &self,
        plugin: &str,
        client: &Client,
    ) -> Held {
        self.lock().sessions_held(plugin, client)
    }

    /// May the owner open one more browser session in this browser?
    pub(in crate::capabilities::browser) fn check_session_cap(&self, owner: &Owner) -> Result<()> {
        let held = self.sessions_held(&owner.grants.plugin, &owner.client);
        session_cap(owner, held)
    }

    /// May the owner of `context` open one more tab in it? (A context without an owner is
    /// the capture browser's default one, whose requests are capped on their popups.)
    pub(in crate::capabilities::browser) fn check_tab_cap(&self, context: &str) -> Result<()> {
        let st = self.lock();
        let Some(owner) = st.contexts.get(context) else {
            return Ok(());
        };
        let held = st.tabs_held(&owner.grants.plugin, &owner.client);
        let cap = owner.grants.caps.browser_tabs;
        let Some(over) = over(held, cap, true) else {
            return Ok(());
        };
        let (plugin, scope) = (owner.grants.plugin.clone(), owner.scope.clone());
        drop(st);
        let message = match over {
            Over::Client => format!(
                "this client has {} browser tabs open across its sessions of plugin '{plugin}', its limit (limits.browser_tabs = {cap} per client in the manifest); close some with browse_tabs close first, or ask the admin to raise limits.browser_tabs",
                held.mine
            ),
            Over::Plugin => format!(
                "plugin '{plugin}' has {} browser tabs open across its clients, its ceiling ({CEILING_CLIENTS} × limits.browser_tabs = {cap}); this client holds {}; close some with browse_tabs close, or ask the admin to raise limits.browser_tabs",
                held.all, held.mine
            ),
        };
        Err(refuse(&scope, "limits.browser_tabs", message))
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
        let (key, cap, over) = if capture {
            let cap = owner.grants.caps.capture_tabs;
            let open = self.capture_tabs_of(plugin);
            (
                "limits.capture_tabs",
                cap,
                (open > cap).then_some(Over::Client),
            )
        } else {
            let cap = owner.grants.caps.browser_tabs;
            let held = self.tabs_held(plugin, &owner.client);
            ("limits.browser_tabs", cap, over(held, cap, false))
        };
        let message = match over? {
            Over::Client => format!(
                "the page opened more windows than this client may have tabs in plugin '{plugin}' ({key} = {cap} in the manifest); the extra windows were closed before they loaded"
            ),
            Over::Plugin => format!(
                "the page opened more windows than plugin '{plugin}' may have tabs across its clients ({CEILING_CLIENTS} × {key} = {cap}); the extra windows were closed before they loaded"
            ),
        };
        let extras = self.extras.entry(context).or_default();
        extras.popups_closed += 1;
        let closed = extras.popups_closed;
        if let Some(tab) = self.tabs.get_mut(&opener) {
            tab.blocked.push(message.clone());
            tab.blocked_seq += 1;
        }
        // Forgotten at once, so it counts no more and any request it makes is failed as one of
        // a tab nobody owns.
        // (With the sessions of its frames in other processes, if any attached already.)
        let session = self.remove_tab(target).map(|t| t.session);
        let mut effects = Vec::new();
        if closed.is_power_of_two() {
            effects.push(Effect::Deny {
                scope: owner.scope.clone(),
                capability: "browser",
                target: key.to_string(),
                reason: format!("{message} ({closed} closed in this session so far)"),
            });
        }
        effects.push(Effect::CloseUnseen {
            session,
            target: target.to_string(),
        });
        Some(effects)
    }
}

#[cfg(test)]
mod tests {
    use super::{CEILING_CLIENTS, Held, Over, over};

    fn held(mine: usize, all: usize) -> Held {
        Held { mine, all }
    }

    #[test]
    fn a_client_has_its_whole_cap_beside_others_up_to_the_ceiling() {
        // Three other clients at their cap: the fourth still gets all of its own.
        assert_eq!(over(held(1, 7), 2, true), None);
        assert_eq!(over(held(2, 8), 2, true), Some(Over::Client));
        // A fifth client finds the ceiling reached.
        assert_eq!(
            over(held(0, 2 * CEILING_CLIENTS), 2, true),
            Some(Over::Plugin)
        );
    }

    #[test]
    fn what_was_added_already_counts_against_the_same_bounds() {
        // A popup is counted once it attached: over means past the cap, not at it.
        assert_eq!(over(held(3, 3), 3, false), None);
        assert_eq!(over(held(4, 4), 3, false), Some(Over::Client));
        assert_eq!(over(held(1, 13), 3, false), Some(Over::Plugin));
    }
}
