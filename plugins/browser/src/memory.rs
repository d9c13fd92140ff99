//! What the plugin remembers between calls for its agent: the current session, each
//! session's current tab, each tab's refs and last rendering (for diffs). An instance's
//! memory is only a cache (calls of one agent may run in different instances), so it is
//! kept by the host (`warden:plugin/state`, scoped to the conversation) and read back by
//! each use:
//!
//! | key | value |
//! |---|---|
//! | `current` | the current session's name |
//! | `cur/SESSION` | the id of the session's current tab |
//! | `tab/SESSION/TAB` | the tab's refs and last rendering (JSON) |
//!
//! A call attaches only the tabs it acts on (the current one, or the one it names), so calls
//! of one agent on different tabs run side by side; the host serializes calls on the same
//! tab (the first handle a call gets on a tab holds it until the call ends).
//! Each tab is kept under its own key and written only when the call changed it, so such
//! calls never overwrite each other's refs. Session names are letters, digits, `-` and `_`,
//! so `/` separates the parts of a key.

use crate::refs::RefMap;
use crate::render::Rendered;
use std::collections::BTreeMap;
use warden_sdk::browser::{self, Page};
use warden_sdk::prelude::*;
use warden_sdk::{context, state as kept};

pub const DEFAULT_SESSION: &str = "default";

const CURRENT: &str = "current";

fn current_tab_key(session: &str) -> String {
    format!("cur/{session}")
}

fn tabs_prefix(session: &str) -> String {
    format!("tab/{session}/")
}

fn tab_key(session: &str, id: &str) -> String {
    format!("{}{id}", tabs_prefix(session))
}

/// A tab's part of the kept state, as read back.
#[derive(Default, Deserialize)]
struct KeptTab {
    refs: RefMap,
    last: Option<Rendered>,
}

/// A tab's part of the kept state, as written.
#[derive(Serialize)]
struct KeptTabRef<'a> {
    refs: &'a RefMap,
    last: &'a Option<Rendered>,
}

/// One tab this call holds.
pub struct TabRefs {
    pub page: Page,
    pub id: String,
    pub refs: RefMap,
    pub last: Option<Rendered>,
    /// The kept bytes as last read or written, to write only a change.
    saved: Option<Vec<u8>>,
}

impl TabRefs {
    /// A tab the call just opened: no refs yet.
    pub fn new(page: Page) -> Self {
        Self {
            id: page.id(),
            page,
            refs: RefMap::default(),
            last: None,
            saved: None,
        }
    }

    /// Tab `id` of `session`, with what earlier calls kept of it.
    fn attach(session: &str, id: &str) -> Result<Self, ToolError> {
        Ok(Self::adopt(
            session,
            browser::attach_tab(Some(session), id)?,
        ))
    }

    /// A tab of `session` this call holds now, with what earlier calls kept of it.
    fn adopt(session: &str, page: Page) -> Self {
        let id = page.id();
        let saved = kept::get(&tab_key(session, &id));
        let tab: KeptTab = saved
            .as_deref()
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or_default();
        Self {
            id,
            page,
            refs: tab.refs,
            last: tab.last,
            saved,
        }
    }

    fn save(&mut self, session: &str) {
        let tab = KeptTabRef {
            refs: &self.refs,
            last: &self.last,
        };
        let Ok(bytes) = serde_json::to_vec(&tab) else {
            return;
        };
        if self.saved.as_ref() != Some(&bytes) {
            keep(&tab_key(session, &self.id), &bytes);
            self.saved = Some(bytes);
        }
    }
}

/// Write one kept value; a refusal (over `limits.state`) costs only what it would have kept:
/// the agent is told to take a new snapshot when a ref is missing.
fn keep(key: &str, bytes: &[u8]) {
    loop {
        match kept::set(key, bytes) {
            Ok(()) => return,
            // Kept pages are a cache: they give way to the tabs' own state.
            Err(kept::StateError::LimitReached(_)) if crate::cache::make_room() => {}
            Err(e) => {
                context::log(
                    context::Level::Warning,
                    format!("browser state not kept: {e}"),
                );
                return;
            }
        }
    }
}

/// One session as this call holds it: the tabs it attached, and which is current.
#[derive(Default)]
pub struct Session {
    pub tabs: Vec<TabRefs>,
    pub current: usize,
    /// The current tab when this call has not attached it yet: attaching takes the tab's
    /// lease, so a call that only lists or opens tabs never waits for a call on this one.
    pending: Option<String>,
    /// The kept current tab id, as read or last written.
    saved_current: Option<String>,
    /// Why the tab the agent was on is no longer there, when it is not.
    lost: Option<String>,
}

impl Session {
    /// The session `name` as earlier calls left it: its current tab (the first open tab when
    /// none was kept or it closed), and kept tabs that closed meanwhile forgotten. The host
    /// keeps sessions across calls, reloads and restarted instances.
    fn load(name: &str) -> Result<Self, ToolError> {
        let (open, gone) = match browser::list_tabs(Some(name)) {
            Ok(open) => (open, None),
            // The session's browser went away: no tab is left; a navigation opens a new one.
            Err(CapabilityError::Gone(why)) => (Vec::new(), Some(why)),
            Err(e) => return Err(e.into()),
        };
        let saved_current =
            kept::get(&current_tab_key(name)).and_then(|bytes| String::from_utf8(bytes).ok());
        let lost = match &saved_current {
            Some(id) if !open.iter().any(|t| t.id == *id) => Some(gone.unwrap_or_else(|| {
                "the tab this session was on has closed (the page closed it, or its browser went away); open a page with browse_navigate".into()
            })),
            _ => None,
        };
        for key in kept::keys(&tabs_prefix(name)) {
            let id = &key[tabs_prefix(name).len()..];
            if !open.iter().any(|t| t.id == id) {
                kept::delete(&key);
            }
        }
        let pending = saved_current
            .as_deref()
            .filter(|id| open.iter().any(|t| t.id == *id))
            .or_else(|| open.first().map(|t| t.id.as_str()))
            .map(str::to_string);
        Ok(Self {
            tabs: Vec::new(),
            current: 0,
            pending,
            saved_current,
            lost,
        })
    }

    /// The id of the tab the agent is on, attached or not.
    pub fn current_id(&self) -> Option<&str> {
        match &self.pending {
            Some(id) => Some(id),
            None => self.tabs.get(self.current).map(|t| t.id.as_str()),
        }
    }

    /// Attach the current tab if this call has not yet (a tab that closed meanwhile is
    /// simply not held).
    fn attach_current(&mut self, name: &str) {
        if let Some(id) = self.pending.take()
            && let Ok(i) = self.hold(name, &id)
        {
            self.current = i;
        }
    }

    /// Make the tab at `index` (of `tabs`) the current one.
    pub fn select(&mut self, index: usize) {
        self.pending = None;
        self.current = index;
    }

    /// Make tab `id` the current one (attached or not); `None`: the session has no tab left.
    pub fn point_at(&mut self, id: Option<String>) {
        match id {
            Some(id) => match self.tabs.iter().position(|t| t.id == id) {
                Some(i) => self.select(i),
                None => self.pending = Some(id),
            },
            None => self.select(0),
        }
    }

    /// The tab the agent was on went away with its browser or closed, and none is left.
    pub fn is_lost(&self) -> bool {
        self.tabs.is_empty() && self.pending.is_none() && self.lost.is_some()
    }

    /// Tab `id` of this session (`name`), attached now when this call does not hold it yet.
    pub fn hold(&mut self, name: &str, id: &str) -> Result<usize, ToolError> {
        if let Some(i) = self.tabs.iter().position(|t| t.id == id) {
            return Ok(i);
        }
        self.tabs.push(TabRefs::attach(name, id)?);
        Ok(self.tabs.len() - 1)
    }

    fn save(&mut self, name: &str) {
        for tab in &mut self.tabs {
            tab.save(name);
        }
        let current = self.current_id().map(str::to_string);
        if current.is_some() && current != self.saved_current {
            if let Some(id) = &current {
                keep(&current_tab_key(name), id.as_bytes());
            }
            self.saved_current = current;
        }
    }
}

pub struct State {
    /// The sessions this call loaded.
    sessions: BTreeMap<String, Session>,
    pub current: String,
    saved_current: String,
}

/// Run `f` with the calling agent's state: its current session, tabs and refs, read from
/// the host. What `f` changes is kept for the agent's later calls before this returns.
/// Nothing is cached in the instance: an instance may serve several calls of its agent, and
/// another instance may have served one in between.
pub fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut state = State::load();
    let out = f(&mut state);
    state.save();
    out
}

/// The host answers this when a tab's browser has exited.
pub fn browser_gone(e: &CapabilityError) -> bool {
    matches!(e, CapabilityError::Gone(_))
}

impl State {
    fn load() -> Self {
        let current = kept::get(CURRENT)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_else(|| DEFAULT_SESSION.to_string());
        Self {
            sessions: BTreeMap::new(),
            saved_current: current.clone(),
            current,
        }
    }

    fn save(&mut self) {
        if self.current != self.saved_current {
            keep(CURRENT, self.current.as_bytes());
            self.saved_current = self.current.clone();
        }
        for (name, session) in &mut self.sessions {
            session.save(name);
        }
    }

    /// The current session, loaded on first use in this call.
    pub fn session(&mut self) -> Result<&mut Session, ToolError> {
        let name = self.current.clone();
        if !self.sessions.contains_key(&name) {
            let session = Session::load(&name)?;
            self.sessions.insert(name.clone(), session);
        }
        self.sessions
            .get_mut(&name)
            .ok_or_else(|| ToolError::failed("session state vanished"))
    }

    /// The current tab, opening one when the session has none.
    pub fn tab(&mut self) -> Result<&mut TabRefs, ToolError> {
        let name = self.current.clone();
        let session = self.session()?;
        session.attach_current(&name);
        if session.tabs.is_empty() {
            // Another call of this agent may be opening the session's first tab right now:
            // the host hands both the same one, with what that call keeps of it.
            let page = browser::first_page(Some(&name))?;
            session.tabs.push(TabRefs::adopt(&name, page));
            session.current = 0;
        }
        let i = session.current.min(session.tabs.len() - 1);
        Ok(&mut session.tabs[i])
    }

    /// The current tab, only if one is open.
    pub fn existing_tab(&mut self) -> Result<&mut TabRefs, ToolError> {
        let name = self.current.clone();
        let session = self.session()?;
        session.attach_current(&name);
        let i = session.current;
        let lost = session.lost.clone();
        session.tabs.get_mut(i).ok_or_else(|| match lost {
            Some(why) => ToolError::failed(why),
            None => ToolError::not_found(
                "no tab is open in this session; open a page with browse_navigate",
            ),
        })
    }

    /// Forget every tab this call holds (after the browser exited); what was kept of them
    /// is forgotten when their session is next loaded.
    pub fn forget_tabs(&mut self) {
        for session in self.sessions.values_mut() {
            session.tabs.clear();
            session.select(0);
        }
    }

    /// Forget session `name` and what was kept of it (it was closed).
    pub fn forget_session(&mut self, name: &str) {
        self.sessions.remove(name);
        kept::delete(&current_tab_key(name));
        for key in kept::keys(&tabs_prefix(name)) {
            kept::delete(&key);
        }
    }
}
