//! What Warden knows about a running browser: its contexts (one per plugin session), whose
//! grants guard each, and every tab's state. Plain data, changed only by the event reducer
//! (`events.rs`) and the operations in `live/` and `tab/`.

use super::census::TabCensus;
use super::downloads::Downloads;
use super::hold::Hold;
use super::log::TabLog;
pub use super::owner::Owner;
use super::routes::SessionExtras;
use super::snapshot::Kept as SnapshotKept;
use super::static_page::{Prefetched, StaticView};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A JavaScript dialog waiting for an answer.
#[derive(Debug, Clone)]
pub struct Dialog {
    pub kind: String,
    pub message: String,
    pub default_prompt: String,
    /// The CDP session that reported it (the tab's, or an out-of-process frame's), which
    /// answers it.
    pub session: String,
}

/// An out-of-process frame of a tab.
#[derive(Debug, Clone)]
pub struct Oopif {
    /// The CDP session attached to it.
    pub session: String,
    /// The session that attached it: that of the renderer holding its parent frame (and its
    /// `<iframe>` element).
    pub parent: String,
}

/// A request in flight that an action may wait for.
#[derive(Debug, Clone, Default)]
pub struct InFlight {
    /// The tab's `request_seq` when it started.
    pub seq: u64,
    /// The document (loader id) that started it, and its frame.
    pub loader: String,
    pub frame: String,
    /// A navigation request (a document's own load).
    pub document: bool,
}

/// What the provider knows about one tab.
pub struct TabState {
    pub session: String,
    pub context: String,
    pub url: String,
    pub title: String,
    pub opener: Option<String>,
    /// The main frame's current document (loader id) and the lifecycle events it reached.
    pub loader: String,
    pub lifecycle: HashSet<String>,
    pub loading: bool,
    /// Counts of main-frame navigations started and of loads stopped, so a waiter can tell
    /// events that happened after it began from earlier ones.
    pub nav_seq: u64,
    pub stop_seq: u64,
    /// `nav_seq` when loading last stopped: a stop counts for a navigation only if it came
    /// after that navigation started (the previous page's stop may arrive late).
    pub stopped_nav: u64,
    /// A navigation the page scheduled for within a second (meta refresh, location change).
    pub scheduled: bool,
    /// How many times the page asked for a new window (window.open, target=_blank).
    pub window_opens: u64,
    /// Navigations refused by the origin guard, with the message for the agent.
    pub blocked: Vec<String>,
    pub blocked_seq: u64,
    /// Frames (by id) showing a document the commit rule refused (`events/commits.rs`),
    /// with the session that leaves it: the tab serves no call until they have left.
    pub refused_frames: HashMap<String, String>,
    pub dialog: Option<Dialog>,
    /// Counts of dialogs opened and of same-document navigations (a hash or history route),
    /// so a waiter can tell those that happened after it began.
    pub dialog_seq: u64,
    pub same_doc_seq: u64,
    /// When the tab attached, in the browser's order: tabs are listed by it.
    pub opened: u64,
    /// Requests in flight by request id; an action waits for those it started to finish.
    pub requests: HashMap<String, InFlight>,
    pub request_seq: u64,
    /// How many downloads the tab's frames have started.
    pub download_seq: u64,
    /// Document URLs the host answers itself with an empty page (a tab writing a saved
    /// state's storage for an origin: the storage needs a document of that origin).
    pub blank_documents: HashSet<String>,
    /// Which frame each document number (see `page.js`) belongs to, and the next number.
    pub docs: HashMap<u32, String>,
    pub next_doc: u32,
    /// Secret values typed into this tab; scrubbed from everything the plugin reads.
    pub secrets: Vec<String>,
    /// Which of the tab's documents hold a secret the host typed (`model/hold.rs`).
    pub hold: Hold,
    pub crashed: bool,
    /// The tab's own owner (capture tabs in the shared default context); else the context's.
    pub owner: Option<Owner>,
    /// The data of a native drag the browser held back for Warden to carry out (see `tab/pointer.rs`).
    pub drag: Option<Value>,
    /// Console messages and requests (`model/log.rs`).
    pub log: TabLog,
    /// Nodes (backend ids, which are per CDP session) already marked clickable in Warden's
    /// world, by session (`tab/clickable.rs`).
    pub clickable: HashMap<String, HashSet<u64>>,
    /// The tab's out-of-process frames (site isolation), by frame id (which is the frame's
    /// target id).
    pub oopifs: HashMap<String, Oopif>,
    /// The session each frame the tab last listed (`tab/script.rs` `frames()`) is read
    /// through, when it is not the tab's own: an out-of-process frame and the frames in its
    /// process.
    pub frame_sessions: HashMap<String, String>,
    /// The last snapshot without and with text (`tab/snapshot.rs`).
    pub snapshots: [Option<std::sync::Arc<SnapshotKept>>; 2],
    /// A page the host read without the browser, shown in place of the tab's document
    /// until an action needs the browser (`tab/static_view.rs`).
    pub view: Option<Box<StaticView>>,
    /// A response the host holds for the browser's next request of its URL (a document).
    pub prefetched: Option<Prefetched>,
}

/// Who holds the default context, and how many of its calls are under way.
pub(crate) struct Occupant {
    pub(crate) owner: Owner,
    pub(crate) calls: usize,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) contexts: HashMap<String, Owner>,
    /// The browser's default (persistent) context, whose tabs the capture provider opens.
    pub(crate) default_context: Option<String>,
    pub(crate) by_owner: HashMap<(String, String), String>,
    pub(crate) tabs: HashMap<String, TabState>,
    pub(crate) sessions: HashMap<String, String>,
    /// Routes and emulation of each context that has any.
    pub(crate) extras: HashMap<String, SessionExtras>,
    /// The blank tab a browser started with on a persistent profile: kept (a browser without
    /// a tab may quit) but never listed.
    pub(crate) startup: HashSet<String>,
    /// How many tabs have attached so far (gives each its `opened`).
    pub(crate) attached: u64,
    /// The tab the browser shows in front: the newest, or the last brought to the front.
    pub(crate) front: Option<String>,
    /// Where each session saves downloads, and every session's downloads.
    pub(crate) downloads: Downloads,
    /// The tabs of the other browsers of this provider (profiles', fleet sessions'), so a
    /// plugin's tab cap holds across them: this browser's generation and the shared count.
    pub(crate) census: Option<(u64, std::sync::Arc<TabCensus>)>,
    /// How many tabs this browser had when it last told the census.
    pub(crate) census_told: Option<usize>,
    /// The plugin whose capture calls hold the default context (`occupancy.rs`).
    pub(crate) occupant: Option<Occupant>,
    /// A tab of this browser has held a secret: its clipboard and selection may carry one
    /// (`model/hold.rs`). Never cleared while the browser runs.
    pub(crate) secret_typed: bool,
    /// How many times a secret was typed into a tab of this browser: a screencast frame
    /// taken while this changed may show one (`recording.rs`).
    pub(crate) secrets_typed: u64,
}

/// At most this many requests of a tab are tracked as in flight (long polls and streams
/// stay open for good; an action waits only a bounded time for any of them).
pub const MAX_TRACKED_REQUESTS: usize = 512;

impl TabState {
    /// A tab that has just attached, before any of its events.
    pub fn new(session: String, context: String, opener: Option<String>, opened: u64) -> Self {
        Self {
            session,
            context,
            url: String::new(),
            title: String::new(),
            opener,
            loader: String::new(),
            lifecycle: HashSet::new(),
            loading: false,
            nav_seq: 0,
            stop_seq: 0,
            stopped_nav: 0,
            scheduled: false,
            window_opens: 0,
            blocked: Vec::new(),
            blocked_seq: 0,
            refused_frames: HashMap::new(),
            dialog: None,
            dialog_seq: 0,
            same_doc_seq: 0,
            opened,
            requests: HashMap::new(),
            request_seq: 0,
            download_seq: 0,
            blank_documents: HashSet::new(),
            docs: HashMap::new(),
            next_doc: 0,
            secrets: Vec::new(),
            hold: Hold::default(),
            crashed: false,
            owner: None,
            drag: None,
            log: TabLog::default(),
            clickable: HashMap::new(),
            oopifs: HashMap::new(),
            frame_sessions: HashMap::new(),
            snapshots: [None, None],
            view: None,
            prefetched: None,
        }
    }

    /// The main frame now shows document `loader`: the requests the documents it replaced
    /// started (their fetches, their frames' loads) will never be answered to anyone, and the
    /// browser does not always say so; they are finished here, in the network log too, so no
    /// action waits for them. Navigation requests of the main frame are the navigations'
    /// own to wait for.
    pub fn abandon_requests_before(&mut self, loader: &str, main_frame: &str) {
        let gone: Vec<String> = self
            .requests
            .iter()
            .filter(|(_, r)| {
                !r.loader.is_empty() && r.loader != loader && !(r.document && r.frame == main_frame)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            self.requests.remove(&id);
            self.log.abandon(&id);
        }
    }

    /// Does the document the tab shows hold a secret the host typed (`model/hold.rs`)?
    /// The URL and title the plugin sees: those of the page the host read, if the tab shows
    /// one, else of the tab's document.
    pub fn shown(&self) -> (&str, &str) {
        match &self.view {
            Some(v) => (&v.url, &v.title),
            None => (&self.url, &self.title),
        }
    }

    pub fn holds_secret(&self) -> bool {
        self.hold.holds(&self.loader)
    }

    /// Requests in flight that started after `seq`.
    pub fn requests_since(&self, seq: u64) -> usize {
        self.requests.values().filter(|r| r.seq > seq).count()
    }

    /// Requests in flight that started after `after`, up to and including `upto`.
    pub fn requests_between(&self, after: u64, upto: u64) -> usize {
        self.requests
            .values()
            .filter(|r| r.seq > after && r.seq <= upto)
            .count()
    }
}

impl State {
    /// Make browser context `id` the session `key` (plugin, session) of `owner`.
    pub(crate) fn bind(&mut self, key: (String, String), id: String, owner: Owner) {
        self.contexts.insert(id.clone(), owner);
        self.by_owner.insert(key, id);
    }

    /// The CDP sessions of the tabs of `context`.
    pub(crate) fn tab_sessions(&self, context: &str) -> Vec<String> {
        self.tabs
            .values()
            .filter(|t| t.context == context)
            .map(|t| t.session.clone())
            .collect()
    }

    /// The CDP sessions of the out-of-process frames of the tabs of `context`.
    pub(crate) fn frame_sessions(&self, context: &str) -> Vec<String> {
        self.tabs
            .values()
            .filter(|t| t.context == context)
            .flat_map(|t| t.oopifs.values().map(|o| o.session.clone()))
            .collect()
    }

    /// Forget tab `target` and every CDP session that served it (its own, its frames').
    pub(crate) fn remove_tab(&mut self, target: &str) -> Option<TabState> {
        let tab = self.tabs.remove(target)?;
        self.sessions.retain(|_, t| t != target);
        Some(tab)
    }
}

/// Secrets the host typed: which tabs and sessions hold one (`hold.rs`).
impl State {
    /// The host is about to type a secret bound to `origin` into tab `target`: its document,
    /// and those of the tabs that can script it (its openers and the windows it opened), hold
    /// it from now on; the session remembers the origin and every form of the secret (to
    /// mask them in all its tabs), the browser that its clipboard may carry a secret.
    /// Returns the `window.name` guards to register first: (session, command parameters).
    pub(crate) fn hold_secret(
        &mut self,
        target: &str,
        origin: &str,
        variants: &[String],
    ) -> Vec<(String, Value)> {
        self.secret_typed = true;
        self.secrets_typed += 1;
        let Some(context) = self.tabs.get(target).map(|t| t.context.clone()) else {
            return Vec::new();
        };
        let mut family = vec![target.to_string()];
        let mut i = 0;
        while i < family.len() {
            let me = family[i].clone();
            let opener = self.tabs.get(&me).and_then(|t| t.opener.clone());
            let opened = self
                .tabs
                .iter()
                .filter(|(_, t)| t.context == context && t.opener.as_deref() == Some(me.as_str()))
                .map(|(id, _)| id.clone());
            for id in opener.into_iter().chain(opened.collect::<Vec<_>>()) {
                if !family.contains(&id) {
                    family.push(id);
                }
            }
            i += 1;
        }
        let mut guards = Vec::new();
        for id in &family {
            if let Some(t) = self.tabs.get_mut(id) {
                let loader = t.loader.clone();
                t.hold.take(&loader);
                if let Some(guard) = t.hold.guard_name(origin) {
                    guards.push((t.session.clone(), guard));
                }
            }
        }
        let extras = self.extras.entry(context).or_default();
        extras.secret_origins.insert(origin.to_string());
        for v in variants {
            if !extras.secret_variants.contains(v) {
                extras.secret_variants.push(v.clone());
            }
        }
        // Longest first, so a variant that contains another is masked whole.
        extras
            .secret_variants
            .sort_by_key(|s| std::cmp::Reverse(s.len()));
        guards
    }

    /// Every form of every secret typed in `context`'s session, longest first.
    pub(crate) fn session_secrets(&self, context: &str) -> &[String] {
        self.extras
            .get(context)
            .map_or(&[], |x| x.secret_variants.as_slice())
    }

    /// Does a tab that can message tab `target` (its opener, a window it opened) hold a
    /// secret now? A cross-origin window still reaches the other by `postMessage`.
    pub(crate) fn family_holds_secret(&self, target: &str) -> bool {
        let Some(tab) = self.tabs.get(target) else {
            return false;
        };
        let opener = tab.opener.as_ref().and_then(|o| self.tabs.get(o));
        opener.is_some_and(|o| o.context == tab.context && o.holds_secret())
            || self.tabs.values().any(|t| {
                t.context == tab.context && t.opener.as_deref() == Some(target) && t.holds_secret()
            })
    }

    /// Has `origin` had a secret typed into it in `context`'s session?
    pub(crate) fn secret_origin(&self, context: &str, origin: &str) -> bool {
        self.extras
            .get(context)
            .is_some_and(|x| x.secret_origins.contains(origin))
    }

    /// Does a tab of `context` hold a secret now?
    pub(crate) fn context_holds_secret(&self, context: &str) -> bool {
        self.tabs
            .values()
            .any(|t| t.context == context && t.holds_secret())
    }
}
