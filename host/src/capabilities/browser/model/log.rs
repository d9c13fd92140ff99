//! What a tab logs: console messages, uncaught exceptions and browser log entries, and its
//! network requests, each in a bounded ring (the oldest entries make room for new ones and
//! are counted). Requests are recorded without headers or bodies, so no cookie or
//! authorization value ever reaches a log.

use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// How many console messages a tab keeps.
pub const CONSOLE_CAPACITY: usize = 500;
/// How many requests a tab keeps.
pub const NETWORK_CAPACITY: usize = 500;
/// Longer message texts and URLs are cut (a data: URL can be megabytes).
const MAX_TEXT: usize = 2000;
const MAX_URL: usize = 1000;

/// A bounded log whose entries are numbered from 1 in the order they were added.
#[derive(Debug)]
pub struct Ring<T> {
    items: VecDeque<(u64, T)>,
    capacity: usize,
    next: u64,
    dropped: u64,
    /// The highest number handed out by the last read (for "since the last read").
    read: u64,
}

impl<T: Clone> Ring<T> {
    pub fn new(capacity: usize) -> Self {
        Self {
            items: VecDeque::new(),
            capacity: capacity.max(1),
            next: 1,
            dropped: 0,
            read: 0,
        }
    }

    /// Add an entry, dropping the oldest when full; returns its number.
    pub fn push(&mut self, item: T) -> u64 {
        if self.items.len() == self.capacity {
            self.items.pop_front();
            self.dropped += 1;
        }
        let seq = self.next;
        self.next += 1;
        self.items.push_back((seq, item));
        seq
    }

    /// The entry numbered `seq`, if it is still kept.
    pub fn get_mut(&mut self, seq: u64) -> Option<&mut T> {
        let first = self.items.front()?.0;
        let index = usize::try_from(seq.checked_sub(first)?).ok()?;
        self.items.get_mut(index).map(|(_, t)| t)
    }

    /// The entries (all, or only those added since the previous read), oldest first; then
    /// empties the ring when `clear`.
    pub fn read(&mut self, since_last: bool, clear: bool) -> Vec<(u64, T)> {
        let from = if since_last { self.read } else { 0 };
        self.read = self.next - 1;
        let out = self
            .items
            .iter()
            .filter(|(seq, _)| *seq > from)
            .cloned()
            .collect();
        if clear {
            self.items.clear();
        }
        out
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[derive(Debug, Clone)]
pub struct ConsoleEntry {
    pub level: &'static str,
    pub source: String,
    pub text: String,
    pub location: Option<String>,
    /// Logged while the page held a secret the host typed: withheld from the plugin.
    pub held: bool,
}

#[derive(Debug, Clone, Default)]
pub struct NetEntry {
    pub method: String,
    pub url: String,
    pub resource_type: String,
    pub status: Option<u16>,
    pub mime: Option<String>,
    pub encoded_bytes: Option<u64>,
    pub started: f64,
    pub duration_ms: Option<f64>,
    pub failure: Option<String>,
    pub intercepted: Option<String>,
    pub done: bool,
    /// Sent (or redirected) while the page held a secret the host typed: its URL is
    /// withheld from the plugin.
    pub held: bool,
}

/// The logs of one tab.
#[derive(Debug)]
pub struct TabLog {
    pub console: Ring<ConsoleEntry>,
    pub network: Ring<NetEntry>,
    /// The entry number of each request id's latest hop.
    requests: HashMap<String, u64>,
    /// The tab's document holds a secret now: what is logged is marked held.
    pub held: bool,
}

impl Default for TabLog {
    fn default() -> Self {
        Self {
            console: Ring::new(CONSOLE_CAPACITY),
            network: Ring::new(NETWORK_CAPACITY),
            requests: HashMap::new(),
            held: false,
        }
    }
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// `URL:line` of a script position (lines counted from 1), when there is a URL.
fn location(url: &str, line: Option<i64>) -> Option<String> {
    (!url.is_empty()).then(|| match line {
        Some(l) => format!("{}:{}", cut(url, MAX_URL), l + 1),
        None => cut(url, MAX_URL),
    })
}

/// A console argument as text: its value, or the description the browser gives objects.
fn arg_text(arg: &Value) -> String {
    match arg.get("value") {
        Some(Value::String(s)) => s.clone(),
        Some(v) if !v.is_null() || s(arg, "subtype") == "null" => v.to_string(),
        _ => arg
            .get("unserializableValue")
            .or_else(|| arg.get("description"))
            .and_then(Value::as_str)
            .unwrap_or(s(arg, "type"))
            .to_string(),
    }
}

fn console_level(kind: &str) -> &'static str {
    match kind {
        "debug" | "verbose" => "debug",
        "info" => "info",
        "warning" | "warn" => "warning",
        "error" | "assert" => "error",
        _ => "log",
    }
}

impl TabLog {
    /// Record a tab event if it is one of the logs'; true when it was.
    pub fn on_event(&mut self, method: &str, p: &Value) -> bool {
        match method {
            "Runtime.consoleAPICalled" => {
                let text = p["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(arg_text)
                    .collect::<Vec<_>>()
                    .join(" ");
                let frame = &p["stackTrace"]["callFrames"][0];
                self.console.push(ConsoleEntry {
                    level: console_level(s(p, "type")),
                    source: "console".into(),
                    text: cut(&text, MAX_TEXT),
                    location: location(s(frame, "url"), frame["lineNumber"].as_i64()),
                    held: self.held,
                });
            }
            "Runtime.exceptionThrown" => {
                let d = &p["exceptionDetails"];
                let text = d["exception"]["description"]
                    .as_str()
                    .unwrap_or_else(|| s(d, "text"));
                self.console.push(ConsoleEntry {
                    level: "error",
                    source: "exception".into(),
                    text: cut(text, MAX_TEXT),
                    location: location(s(d, "url"), d["lineNumber"].as_i64()),
                    held: self.held,
                });
            }
            "Log.entryAdded" => {
                let e = &p["entry"];
                self.console.push(ConsoleEntry {
                    level: console_level(s(e, "level")),
                    source: s(e, "source").to_string(),
                    text: cut(s(e, "text"), MAX_TEXT),
                    location: location(s(e, "url"), e["lineNumber"].as_i64()),
                    held: self.held,
                });
            }
            "Network.requestWillBeSent" => self.on_request(p),
            "Network.responseReceived" => {
                let r = &p["response"];
                let id = s(p, "requestId");
                // An answer before its request (a tab changed process) starts the entry; the
                // answer of a request whose entry was cleared or dropped adds none.
                if self.entry(id).is_none() && !self.requests.contains_key(id) {
                    let started = r["timing"]["requestTime"].as_f64().unwrap_or(0.0);
                    self.start(id, "", s(r, "url"), s(p, "type"), started, None);
                }
                if let Some(entry) = self.entry(id) {
                    entry.status = r["status"].as_u64().and_then(|c| u16::try_from(c).ok());
                    entry.mime = Some(s(r, "mimeType").to_string()).filter(|m| !m.is_empty());
                    entry.done = true;
                }
            }
            "Network.loadingFinished" => {
                let id = s(p, "requestId").to_string();
                if let Some(entry) = self.entry(&id) {
                    entry.encoded_bytes = p["encodedDataLength"].as_f64().map(|b| b as u64);
                    finish(entry, p["timestamp"].as_f64());
                }
                self.requests.remove(&id);
            }
            "Network.loadingFailed" => {
                let id = s(p, "requestId").to_string();
                if let Some(entry) = self.entry(&id) {
                    let mut reason = s(p, "errorText").to_string();
                    // "inspector" is Warden's own route; the entry says so already.
                    if let Some(blocked) = p["blockedReason"].as_str().filter(|b| *b != "inspector")
                    {
                        reason = format!("{reason} ({blocked})");
                    }
                    if p["canceled"].as_bool() == Some(true) && reason.is_empty() {
                        reason = "canceled".into();
                    }
                    entry.failure = Some(reason);
                    finish(entry, p["timestamp"].as_f64());
                }
                self.requests.remove(&id);
            }
            _ => return false,
        }
        true
    }

    /// Request `request` will never be answered: the document that started it was
    /// replaced. Its entry, still waiting, is finished as such; a late event of it still
    /// finds the entry (and may say more) rather than starting a new one.
    pub fn abandon(&mut self, request: &str) {
        if let Some(entry) = self.entry(request)
            && !entry.done
        {
            entry.failure = Some("abandoned: the page that sent it was replaced".into());
            entry.done = true;
        }
    }

    fn entry(&mut self, request: &str) -> Option<&mut NetEntry> {
        let seq = *self.requests.get(request)?;
        self.network.get_mut(seq)
    }

    fn on_request(&mut self, p: &Value) {
        let id = s(p, "requestId");
        let at = p["timestamp"].as_f64().unwrap_or(0.0);
        let request = &p["request"];
        // A redirect: the previous hop ends with the redirect's answer.
        if let Some(redirect) = p.get("redirectResponse")
            && let Some(entry) = self.entry(id)
        {
            entry.status = redirect["status"]
                .as_u64()
                .and_then(|c| u16::try_from(c).ok());
            entry.mime = Some(s(redirect, "mimeType").to_string()).filter(|m| !m.is_empty());
            finish(entry, Some(at));
        }
        self.start(
            id,
            s(request, "method"),
            s(request, "url"),
            s(p, "type"),
            at,
            None,
        );
    }

    /// Record the start of a request (or of its next redirect hop). The browser may report
    /// a request twice, or report its answer first (right after a tab changes process):
    /// an entry still waiting for its answer is completed rather than repeated.
    fn start(
        &mut self,
        id: &str,
        method: &str,
        url: &str,
        kind: &str,
        at: f64,
        note: Option<String>,
    ) {
        let held = self.held;
        if let Some(entry) = self.entry(id)
            && !entry.done
        {
            if !method.is_empty() {
                entry.method = method.to_string();
            }
            if !kind.is_empty() {
                entry.resource_type = kind.to_string();
            }
            if at > 0.0 {
                entry.started = at;
            }
            entry.url = cut(url, MAX_URL);
            entry.held |= held;
            if note.is_some() {
                entry.intercepted = note;
            }
            return;
        }
        // Without the request itself the method is known only for kinds that always GET.
        let method = match (method, kind) {
            ("", "Document" | "Stylesheet" | "Image" | "Media" | "Font" | "Script") => "GET",
            ("", _) => "?",
            (m, _) => m,
        };
        let seq = self.network.push(NetEntry {
            method: method.to_string(),
            url: cut(url, MAX_URL),
            resource_type: kind.to_string(),
            started: at,
            intercepted: note,
            held: self.held,
            ..NetEntry::default()
        });
        self.requests.insert(id.to_string(), seq);
        // Requests that never finish (a tab closed mid-load) must not grow the index forever.
        if self.requests.len() > NETWORK_CAPACITY * 2 {
            let oldest_kept = seq.saturating_sub(NETWORK_CAPACITY as u64);
            self.requests.retain(|_, s| *s > oldest_kept);
        }
    }

    /// Note what Warden did with a paused request (blocked, mocked), by its network request
    /// id; the request is recorded from the pause when its network events are missing (not
    /// when its entry was cleared since).
    pub fn note(&mut self, request: &str, what: String, method: &str, url: &str, kind: &str) {
        let held = self.held;
        if let Some(entry) = self.entry(request) {
            entry.intercepted = Some(what);
            entry.held |= held;
        } else if !self.requests.contains_key(request) {
            self.start(request, method, url, kind, 0.0, Some(what));
        }
    }
}

fn finish(entry: &mut NetEntry, at: Option<f64>) {
    entry.done = true;
    if let Some(at) = at
        && entry.started > 0.0
    {
        entry.duration_ms = Some(((at - entry.started) * 1000.0).max(0.0));
    }
}

/// Does a request count as failed: it failed, was blocked, or was answered 400 or more.
pub fn failed(entry: &NetEntry) -> bool {
    entry.failure.is_some()
        || entry
            .intercepted
            .as_deref()
            .is_some_and(|i| !i.starts_with("mock"))
        || entry.status.is_some_and(|c| c >= 400)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ring_keeps_the_newest_and_counts_the_dropped() {
        let mut ring = Ring::new(3);
        for i in 0..5 {
            ring.push(i);
        }
        assert_eq!(ring.dropped(), 2);
        let all: Vec<_> = ring.read(false, false);
        assert_eq!(all, vec![(3, 2), (4, 3), (5, 4)]);
        assert!(ring.get_mut(2).is_none());
        assert_eq!(ring.get_mut(4), Some(&mut 3));
    }

    #[test]
    fn ring_since_last_and_clear() {
        let mut ring = Ring::new(10);
        ring.push("a");
        ring.push("b");
        assert_eq!(ring.read(true, false).len(), 2);
        assert!(ring.read(true, false).is_empty());
        ring.push("c");
        assert_eq!(ring.read(true, false), vec![(3, "c")]);
        assert_eq!(ring.read(false, true).len(), 3);
        assert!(ring.read(false, false).is_empty());
        ring.push("d");
        assert_eq!(ring.read(false, false), vec![(4, "d")]);
    }

    #[test]
    fn console_messages_and_exceptions() {
        let mut log = TabLog::default();
        log.on_event(
            "Runtime.consoleAPICalled",
            &json!({ "type": "warning", "args": [{ "type": "string", "value": "low" }, { "type": "number", "value": 3 }, { "type": "object", "description": "Object" }],
                     "stackTrace": { "callFrames": [{ "url": "http://x/a.js", "lineNumber": 4 }] } }),
        );
        log.on_event(
            "Runtime.exceptionThrown",
            &json!({ "exceptionDetails": { "text": "Uncaught", "exception": { "description": "Error: boom" }, "url": "http://x/", "lineNumber": 0 } }),
        );
        let entries = log.console.read(false, false);
        assert_eq!(entries[0].1.text, "low 3 Object");
        assert_eq!(entries[0].1.level, "warning");
        assert_eq!(entries[0].1.location.as_deref(), Some("http://x/a.js:5"));
        assert_eq!(entries[1].1.text, "Error: boom");
        assert_eq!(entries[1].1.source, "exception");
    }

    #[test]
    fn requests_redirects_and_notes() {
        let mut log = TabLog::default();
        log.note("1", "route *.png".into(), "GET", "http://x/a.png", "Image");
        log.on_event(
            "Network.requestWillBeSent",
            &json!({ "requestId": "1", "type": "Image", "timestamp": 1.0, "request": { "method": "GET", "url": "http://x/a.png" } }),
        );
        log.on_event(
            "Network.loadingFailed",
            &json!({ "requestId": "1", "timestamp": 1.5, "errorText": "net::ERR_BLOCKED_BY_CLIENT" }),
        );
        log.on_event(
            "Network.requestWillBeSent",
            &json!({ "requestId": "2", "type": "Document", "timestamp": 2.0, "request": { "method": "GET", "url": "http://x/r" } }),
        );
        log.on_event(
            "Network.requestWillBeSent",
            &json!({ "requestId": "2", "type": "Document", "timestamp": 2.1, "redirectResponse": { "status": 302 }, "request": { "method": "GET", "url": "http://x/b" } }),
        );
        log.on_event(
            "Network.responseReceived",
            &json!({ "requestId": "2", "response": { "status": 200, "mimeType": "text/html" } }),
        );
        log.on_event(
            "Network.loadingFinished",
            &json!({ "requestId": "2", "timestamp": 2.6, "encodedDataLength": 120.0 }),
        );
        let entries: Vec<NetEntry> = log
            .network
            .read(false, false)
            .into_iter()
            .map(|e| e.1)
            .collect();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].intercepted.as_deref(), Some("route *.png"));
        assert!(failed(&entries[0]));
        assert_eq!(entries[1].status, Some(302));
        assert_eq!(entries[2].status, Some(200));
        assert_eq!(entries[2].encoded_bytes, Some(120));
        let ms = entries[2].duration_ms.unwrap_or_default();
        assert!((ms - 500.0).abs() < 1.0, "{ms}");
        assert!(!failed(&entries[2]));
    }

    #[test]
    fn a_cleared_request_does_not_come_back_with_its_late_events() {
        // Seen in CI: a blocked navigation's answer arrived after the agent cleared the log,
        // and showed up in the emptied log as a new request.
        let mut log = TabLog::default();
        log.on_event(
            "Network.requestWillBeSent",
            &json!({ "requestId": "9", "type": "Document", "timestamp": 1.0, "request": { "method": "GET", "url": "http://x/evil" } }),
        );
        log.note("9", "blocked".into(), "GET", "http://x/evil", "Document");
        assert_eq!(log.network.read(false, true).len(), 1);
        log.note("9", "blocked".into(), "GET", "http://x/evil", "Document");
        log.on_event(
            "Network.responseReceived",
            &json!({ "requestId": "9", "type": "Document", "response": { "status": 204, "url": "http://x/evil" } }),
        );
        log.on_event(
            "Network.loadingFailed",
            &json!({ "requestId": "9", "timestamp": 1.5, "errorText": "net::ERR_ABORTED" }),
        );
        assert!(log.network.read(false, false).is_empty());
        // An answer that comes before its request still makes an entry.
        log.on_event(
            "Network.responseReceived",
            &json!({ "requestId": "10", "type": "Fetch", "response": { "status": 200, "url": "http://x/api" } }),
        );
        assert_eq!(log.network.read(false, false).len(), 1);
    }
}
