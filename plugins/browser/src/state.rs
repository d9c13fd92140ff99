//! What the plugin remembers between calls, per conversation (each agent its own): the
//! sessions it opened, their tabs, each tab's refs and last rendering (for diffs). It lives
//! in the plugin's long-lived instance.

use crate::refs::RefMap;
use crate::render::Rendered;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use warden_sdk::browser::{self, Page};
use warden_sdk::prelude::*;

pub const DEFAULT_SESSION: &str = "default";

/// One tab the plugin holds.
pub struct TabRefs {
    pub page: Page,
    pub id: String,
    pub refs: RefMap,
    pub last: Option<Rendered>,
}

impl TabRefs {
    pub fn new(page: Page) -> Self {
        Self {
            id: page.id(),
            page,
            refs: RefMap::default(),
            last: None,
        }
    }
}

#[derive(Default)]
pub struct Session {
    pub tabs: Vec<TabRefs>,
    pub current: usize,
}

impl Session {
    /// Hold the tabs the host still has open for this session when this instance holds none:
    /// the host keeps sessions across a manifest reload or a restarted plugin instance, so
    /// the agent goes on where it was (the first tab current; refs start afresh).
    fn adopt_open_tabs(&mut self, name: &str) -> Result<(), ToolError> {
        if !self.tabs.is_empty() {
            return Ok(());
        }
        for info in browser::list_tabs(Some(name))? {
            // A tab that closed meanwhile is simply not held.
            if let Ok(page) = browser::attach_tab(Some(name), &info.id) {
                self.tabs.push(TabRefs::new(page));
            }
        }
        self.current = 0;
        Ok(())
    }
}

pub struct State {
    pub sessions: BTreeMap<String, Session>,
    pub current: String,
}

/// Conversations whose state is held at once; past it the least recently used is dropped (its
/// agent finds its sessions again through the host, see `adopt_open_tabs`; refs start afresh).
const CONVERSATIONS: usize = 256;

/// Each conversation's state (one plugin instance serves every agent of the server), with
/// when it was last used.
#[derive(Default)]
struct Conversations {
    states: HashMap<String, (u64, State)>,
    clock: u64,
}

thread_local! {
    static STATE: RefCell<Conversations> = RefCell::new(Conversations::default());
}

/// Run `f` with the state of the calling conversation: its current session, tabs and refs.
pub fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let key = warden_sdk::context::conversation();
    STATE.with(|all| {
        let mut all = all.borrow_mut();
        all.clock += 1;
        let now = all.clock;
        if !all.states.contains_key(&key) && all.states.len() >= CONVERSATIONS {
            let oldest = all
                .states
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                all.states.remove(&oldest);
            }
        }
        let (used, state) = all.states.entry(key).or_insert_with(|| {
            (
                0,
                State {
                    sessions: BTreeMap::new(),
                    current: DEFAULT_SESSION.to_string(),
                },
            )
        });
        *used = now;
        f(state)
    })
}

/// The host answers this when a tab's browser has exited.
pub fn browser_gone(e: &CapabilityError) -> bool {
    matches!(e, CapabilityError::Gone(_))
}

impl State {
    pub fn session(&mut self) -> &mut Session {
        self.sessions.entry(self.current.clone()).or_default()
    }

    /// The current tab, opening one when the session has none.
    pub fn tab(&mut self) -> Result<&mut TabRefs, ToolError> {
        let name = self.current.clone();
        let session = self.sessions.entry(name.clone()).or_default();
        session.adopt_open_tabs(&name)?;
        if session.tabs.is_empty() {
            let page = browser::open_page(Some(&name))?;
            session.tabs.push(TabRefs::new(page));
            session.current = 0;
        }
        let i = session.current.min(session.tabs.len() - 1);
        Ok(&mut session.tabs[i])
    }

    /// The current tab, only if one is open.
    pub fn existing_tab(&mut self) -> Result<&mut TabRefs, ToolError> {
        let name = self.current.clone();
        let session = self.session();
        session.adopt_open_tabs(&name)?;
        let i = session.current;
        session.tabs.get_mut(i).ok_or_else(|| {
            ToolError::not_found("no tab is open in this session; open a page with browse_navigate")
        })
    }

    /// Forget every tab of every session (after the browser exited).
    pub fn forget_tabs(&mut self) {
        for session in self.sessions.values_mut() {
            session.tabs.clear();
            session.current = 0;
        }
    }
}
