//! Pages that hold a secret: what the plugin may still read of them.
//!
//! Once the host types a secret into a page, the page has it: its own script may show it
//! (a "show password" eye), echo it, log it, store it, download it, or copy it to the
//! clipboard. Scrubbing the known encodings out of what the plugin reads (`secrets.rs`) cannot
//! follow every transformation a page applies. So the rule here is structural:
//!
//! - The tab's main-frame *document* holds the secret from the moment it is typed until the
//!   tab commits a fresh document (the browser's `differentDocument` navigation: a link, a
//!   POST form, a script, `browse_navigate`). A reload and a history step (which restore
//!   form fields) and a GET form submission (which puts the form's fields into the next
//!   URL) keep the hold on the document they load; the back/forward cache restores the very
//!   same document; a commit the browser did not announce keeps it (fail closed); and the
//!   commit that ends the hold drops the tab's history, so no way back is left. Popups of a
//!   holding tab (through their first document), and the tabs in its opener family that
//!   can script it, hold it too; and while a tab of a window's opener family (its opener,
//!   a window it opened) holds a secret, every document the window commits holds it: the
//!   other can post it over (`postMessage` crosses origins).
//! - While a document holds a secret, each way out is refused or neutralised (see
//!   [`Door`]): no pixels, PDFs, extraction, text or selector waits, drags, copy chords,
//!   storage or cookie reads, saved states; snapshots mask every field value and leave the
//!   text out; console and network entries logged meanwhile stay withheld for good;
//!   downloads it starts are cancelled.
//! - The clipboard belongs to the whole browser: once any tab of a browser has held a
//!   secret, paste chords and middle clicks (the selection buffer) are refused on all its
//!   tabs.
//! - Storage and cookies outlive documents: the origins a secret was typed into are
//!   remembered by the session (and by states saved from it), and their storage and their
//!   hosts' cookie values are never read back to the plugin.
//! - A tab's `window.name` outlives its documents, and a page can read what the page before it
//!   left there. Once a tab (or a tab that can script it) has held a secret, each new
//!   top-level document of another origin than the secret's starts with an empty name: a
//!   script the host registers over CDP (`Page.addScriptToEvaluateOnNewDocument`, in a
//!   world of its own) clears it before any script of the document runs, so the page cannot
//!   race it. Windows a holding page opens get the same script before their first document.
//!   Every text the plugin reads of any tab of the session is masked for every secret typed
//!   in the session, not only in that tab.

use serde_json::{Value, json};
use std::collections::{BTreeSet, HashSet};
use url::Url;

/// The isolated world the `window.name` guard runs in: the page's script cannot reach it.
const CARRIER_WORLD: &str = "__warden_carriers__";

/// The main-frame documents (CDP loader ids) of one tab that hold a secret, and what the
/// browser said of the navigations under way.
#[derive(Debug, Default)]
pub struct Hold {
    docs: HashSet<String>,
    /// Navigations under way that load a fresh document: committing one ends the hold.
    fresh: HashSet<String>,
    /// The page asked for a GET form submission: the next navigation carries the form's
    /// fields in its URL.
    get_form: bool,
    /// The tab opened from a holding page: its first navigation keeps the hold (a form the
    /// page sent to a new window).
    first_keeps: bool,
    /// The origins of the secrets this tab's `window.name` guard lets keep the name (the
    /// guard is registered once per origin): empty while the tab has no guard.
    name_kept_on: BTreeSet<String>,
    /// Navigations under way whose referrer names more than its origin to another origin.
    referred: HashSet<String>,
}

impl Hold {
    /// Does document `loader` hold a secret?
    pub fn holds(&self, loader: &str) -> bool {
        self.docs.contains(loader)
    }

    /// A secret was typed into (or can be reached from) document `loader`.
    pub fn take(&mut self, loader: &str) {
        self.docs.insert(loader.to_string());
    }

    /// The tab opened from a page that holds a secret, showing `loader`.
    pub fn opened_from_holder(&mut self, loader: &str) {
        self.take(loader);
        self.first_keeps = true;
    }

    /// Guard this tab's `window.name` for a secret of `origin`: the CDP command to send on
    /// its session, `None` when it is guarded for that origin already.
    pub fn guard_name(&mut self, origin: &str) -> Option<Value> {
        self.name_kept_on
            .insert(origin.to_string())
            .then(|| name_guard(origin))
    }

    /// The origins this tab's `window.name` guard was registered for.
    pub fn name_guarded_for(&self) -> Vec<String> {
        self.name_kept_on.iter().cloned().collect()
    }

    /// `Page.frameRequestedNavigation` of the main frame: why the page navigates.
    pub fn requested(&mut self, reason: &str) {
        self.get_form = reason == "formSubmissionGet";
    }

    /// The main frame's request for document `loader` (`Network.requestWillBeSent`) carries
    /// `referrer`, the URL of a document that may hold a secret: when it names more than its
    /// origin to another origin (the page asked for `unsafe-url`, after writing the secret
    /// into its own URL), the document it loads keeps the hold, as a GET form's does.
    pub fn referred(&mut self, loader: &str, url: &str, referrer: &str) {
        if carries_more_than_origin(referrer, url) {
            self.fresh.remove(loader);
            self.referred.insert(loader.to_string());
        }
    }

    /// `Page.frameStartedNavigating` of the main frame. A fresh document (a link, a POST
    /// form, a script, the host's navigation) ends the hold when it commits; a reload, a
    /// history step, a GET form (the fields go into the URL) and a popup's first document
    /// keep it.
    pub fn started(&mut self, loader: &str, kind: &str) {
        let get_form = std::mem::take(&mut self.get_form);
        let first = std::mem::take(&mut self.first_keeps);
        if kind == "differentDocument"
            && !get_form
            && !first
            && !loader.is_empty()
            && !self.referred.contains(loader)
        {
            self.fresh.insert(loader.to_string());
        }
    }

    /// The main frame went from document `from` to `to`. A document that follows a holding
    /// one holds too, unless its navigation loads a fresh one. Returns true when this ended
    /// the hold (the caller drops the tab's history, which leads back to it).
    pub fn committed(&mut self, from: &str, to: &str) -> bool {
        let fresh = self.fresh.remove(to);
        // Navigations that never committed (a download, a 204) are over too.
        self.fresh.clear();
        self.referred.clear();
        if !self.docs.contains(from) {
            return false;
        }
        if fresh {
            return true;
        }
        self.docs.insert(to.to_string());
        false
    }
}

/// The referrer a main-frame document request (`Network.requestWillBeSent`'s `request`)
/// hands its server and the next document: its `Referer` header, or, when the browser did
/// not list it, the URL of the document it leaves (`shown`) if its policy sends the whole URL.
pub fn referrer_of(request: &Value, shown: &str) -> Option<String> {
    let header = request["headers"]
        .as_object()
        .and_then(|h| h.iter().find(|(k, _)| k.eq_ignore_ascii_case("referer")))
        .and_then(|(_, v)| v.as_str());
    match header {
        Some(referrer) => Some(referrer.to_string()),
        None => matches!(
            request["referrerPolicy"].as_str(),
            Some("unsafe-url" | "no-referrer-when-downgrade")
        )
        .then(|| shown.to_string()),
    }
}

/// Does a request for `url` with `referrer` hand another origin more than the referrer's
/// origin (a path, a query)?
fn carries_more_than_origin(referrer: &str, url: &str) -> bool {
    let (Ok(from), Ok(to)) = (Url::parse(referrer), Url::parse(url)) else {
        return false;
    };
    from.origin() != to.origin()
        && (from.path() != "/" || from.query().is_some() || from.fragment().is_some())
}

/// The parameters of `Page.addScriptToEvaluateOnNewDocument` that start every new top-level
/// document of another origin than `origin` with an empty `window.name`. The script runs
/// before the document's own scripts, in a world the page cannot reach; frames keep their
/// names (a form or a link may target one).
pub fn name_guard(origin: &str) -> Value {
    let origin = json!(origin);
    json!({
        "source": format!(
            "if (window.top === window && location.origin !== {origin}) {{ window.name = ''; }}"
        ),
        "worldName": CARRIER_WORLD,
    })
}

/// A way a plugin reads (or moves) what a page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    Screenshot,
    Pdf,
    Extract,
    WaitForText,
    Storage,
    Cookies,
    SaveState,
    Drag,
    Copy,
    Paste,
    MiddleClick,
}

impl Door {
    /// What the refusal calls it.
    pub fn what(self) -> &'static str {
        match self {
            Self::Screenshot => "a screenshot",
            Self::Pdf => "a PDF",
            Self::Extract => "extracting its content",
            Self::WaitForText => {
                "waiting for text or a selector (an answer that depends on the page's text)"
            }
            Self::Storage => "reading its storage",
            Self::Cookies => "reading its cookies",
            Self::SaveState => "saving the session's state",
            Self::Drag => "a drag (it moves selected text)",
            Self::Copy => "a copy or cut key chord",
            Self::Paste => "a paste key chord",
            Self::MiddleClick => "a middle click (it pastes the selection)",
        }
    }

    /// The audit line's capability.
    pub fn capability(self) -> &'static str {
        match self {
            Self::Screenshot => "browser.screenshot",
            Self::Pdf => "browser.pdf",
            Self::Extract => "browser.extract",
            Self::WaitForText => "browser.wait_for",
            Self::Storage => "browser.storage",
            Self::Cookies => "browser.cookies",
            Self::SaveState => "browser.save_state",
            Self::Drag => "browser.drag",
            Self::Copy | Self::Paste => "browser.press",
            Self::MiddleClick => "browser.click",
        }
    }
}

/// The refusal of `door` on a page that holds secret(s) typed by the host.
pub fn refusal(door: Door) -> String {
    match door {
        Door::Paste | Door::MiddleClick => format!(
            "{} is refused: a tab of this browser holds a secret Warden typed into it (fill-secret), and the browser's clipboard and selection may now carry it to any page. Type the text instead (browse_type, browse_fill)",
            capitalised(door.what())
        ),
        Door::Storage | Door::Cookies => format!(
            "{} is refused: this page holds a secret Warden typed into it (fill-secret), or its origin had one typed into it in this session, and its script may have stored it. Storage and cookie values of such an origin stay in the browser",
            capitalised(door.what())
        ),
        _ => format!(
            "{} is refused: this page holds a secret Warden typed into it (fill-secret) and could show it. Navigate the tab to a new page first (browse_navigate; to this page's URL to load it afresh): a reload, a step back or forward, or a GET form keeps the hold, and so does a window that opened this tab or that it opened while that window holds a secret (close it with browse_tabs)",
            capitalised(door.what())
        ),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// What replaces what a page logged (or shows in a dialog) while it held a secret.
pub const WITHHELD: &str = "(withheld: the page held a secret Warden typed)";
/// What a tab's title reads while its page holds a secret: the page writes its title (it may
/// put the secret there, in any form), and the browser titles a page without one after its
/// whole URL, query and all.
pub const WITHHELD_TITLE: &str = "(title withheld: the page holds a secret Warden typed)";
/// What replaces a cookie value of a host a secret was typed into.
pub const WITHHELD_VALUE: &str = "(withheld: a secret was typed into this site)";

/// The origins a secret was typed into in one session, kept for its life.
pub type SecretOrigins = HashSet<String>;

/// May a cookie of `domain` (as the browser reports it: `host` or `.domain`) have been set
/// by a page of one of `origins`? A page sets cookies for its own host or a parent domain.
pub fn cookie_of_secret_origin(domain: &str, origins: &SecretOrigins) -> bool {
    let domain = domain.trim_start_matches('.').to_ascii_lowercase();
    origins.iter().any(|origin| {
        url::Url::parse(origin)
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
            .is_some_and(|host| host == domain || host.ends_with(&format!(".{domain}")))
    })
}

/// `url` without its query and fragment (a form the page sent with GET puts its fields there).
pub fn without_query(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut u) if u.query().is_some() || u.fragment().is_some() => {
            u.set_query(None);
            u.set_fragment(None);
            format!("{u}?…")
        }
        _ => url.to_string(),
    }
}

/// Only the origin of `url`: what a log entry recorded while the page held a secret shows.
pub fn origin_only(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => {
            format!("{}/… {WITHHELD}", u.origin().ascii_serialization())
        }
        Ok(u) => format!("{}:… {WITHHELD}", u.scheme()),
        Err(_) => WITHHELD.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_document_ends_the_hold_reloads_history_and_get_forms_keep_it() {
        let mut h = Hold::default();
        h.take("d1");
        // A reload, a step back: the next document holds it too.
        h.started("d2", "reload");
        assert!(!h.committed("d1", "d2") && h.holds("d2"));
        h.started("d3", "historyDifferentDocument");
        assert!(!h.committed("d2", "d3") && h.holds("d3"));
        // A GET form puts the fields into the URL of the next document.
        h.requested("formSubmissionGet");
        h.started("d4", "differentDocument");
        assert!(!h.committed("d3", "d4") && h.holds("d4"));
        // A commit nobody announced keeps it (fail closed).
        assert!(!h.committed("d4", "d5") && h.holds("d5"));
        // A POST form (or a link, a script, the host): a fresh document.
        h.requested("formSubmissionPost");
        h.started("d6", "differentDocument");
        assert!(h.committed("d5", "d6"));
        assert!(!h.holds("d6"));
        // The cache brings d1 back: the same document, still holding.
        assert!(h.holds("d1"));
        // A clean document moving on stays clean.
        h.started("d7", "reload");
        assert!(!h.committed("d6", "d7") && !h.holds("d7"));
    }

    #[test]
    fn a_referrer_that_hands_another_origin_a_url_keeps_the_hold() {
        let mut h = Hold::default();
        h.take("d1");
        // The origin alone (the default policy across origins): a fresh document.
        h.referred("d2", "http://b.test/board", "http://a.test/");
        h.started("d2", "differentDocument");
        assert!(h.committed("d1", "d2"));
        h.take("d2");
        // The page's URL, query and all, to another origin: the next document holds too.
        h.started("d3", "differentDocument");
        h.referred("d3", "http://c.test/board", "http://b.test/login?k=secret");
        assert!(!h.committed("d2", "d3") && h.holds("d3"));
        // To its own origin it stays with the trusted page.
        h.referred("d4", "http://b.test/home", "http://b.test/login?k=secret");
        h.started("d4", "differentDocument");
        assert!(h.committed("d3", "d4"));
    }

    #[test]
    fn a_popup_of_a_holding_page_keeps_the_hold_through_its_first_document() {
        let mut h = Hold::default();
        h.opened_from_holder("");
        h.started("p1", "differentDocument");
        assert!(!h.committed("", "p1") && h.holds("p1"));
        h.started("p2", "differentDocument");
        assert!(h.committed("p1", "p2") && !h.holds("p2"));
    }

    #[test]
    fn urls_as_a_holding_page_shows_them() {
        assert_eq!(
            without_query("http://a.test/login?password=x#f"),
            "http://a.test/login?…"
        );
        assert_eq!(without_query("http://a.test/login"), "http://a.test/login");
        assert!(
            origin_only("http://a.test:8080/p/secret?x=1").starts_with("http://a.test:8080/… ")
        );
        assert!(origin_only("data:text/plain,secret").starts_with("data:… "));
    }

    #[test]
    fn cookies_a_secret_origin_could_set() {
        let origins: SecretOrigins = ["https://login.acme.test".to_string()].into();
        assert!(cookie_of_secret_origin("login.acme.test", &origins));
        assert!(cookie_of_secret_origin(".acme.test", &origins));
        assert!(!cookie_of_secret_origin("other.acme.test", &origins));
        assert!(!cookie_of_secret_origin("acme.example", &origins));
        let local: SecretOrigins = ["http://127.0.0.1:8080".to_string()].into();
        assert!(cookie_of_secret_origin("127.0.0.1", &local));
    }
}
