//! Each plugin's tabs per client across the browsers of one provider, for
//! `limits.browser_tabs`.

use crate::capabilities::conversation::Owner as Client;
use std::collections::HashMap;
use std::sync::Mutex;

/// Whose tabs: a plugin and one of its clients.
pub type Holder = (String, Client);

/// What a client holds under one of the browser's caps, and what its plugin holds across
/// all its clients.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    pub mine: usize,
    pub all: usize,
}

impl std::ops::Add for Held {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self {
            mine: self.mine + other.mine,
            all: self.all + other.all,
        }
    }
}

/// Each browser's tabs per plugin and client, across the browsers of one provider (the
/// shared one, profiles' and fleet sessions' own), so `limits.browser_tabs` caps a client's
/// tabs, and its plugin's ceiling, in all of them together. Its lock is taken last (never
/// while waiting for a browser's state).
#[derive(Debug, Default)]
pub struct TabCensus(Mutex<HashMap<u64, HashMap<Holder, usize>>>);

impl TabCensus {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, HashMap<Holder, usize>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `plugin`'s tabs in the browsers other than `generation`: `client`'s and all.
    pub(crate) fn elsewhere(&self, generation: u64, plugin: &str, client: &Client) -> Held {
        let mut held = Held::default();
        for (g, tabs) in self.lock().iter() {
            if *g == generation {
                continue;
            }
            for ((p, c), n) in tabs {
                if p == plugin {
                    held.all += n;
                    if c == client {
                        held.mine += n;
                    }
                }
            }
        }
        held
    }

    /// A browser that is gone holds no tabs.
    pub(crate) fn forget(&self, generation: u64) {
        self.lock().remove(&generation);
    }
}
