//! Downloads: a session whose plugin has `grants.browser.download_dir` saves what its pages
//! download under `DIR/PLUGIN/SESSION/`, each file at most `download_max` bytes; every other
//! session's downloads are refused by the browser itself (`Browser.setDownloadBehavior`
//! `deny`), so no page writes a file on the host without a grant.
//!
//! Chromium writes a download under its id in the session's `.partial/` directory; the event
//! reducer follows its progress (cancelling it past the cap) and, once complete, the host
//! moves it to its own name (the page's suggestion, made safe and unique) and audits it.

use super::cdp::s;
use super::events::{Effect, Reduced};
use super::live::Live;
use super::state::{State, TabState};
use crate::audit::Used;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use url::Url;

/// A session lists at most this many downloads (the newest); older files stay on disk.
const KEPT_PER_SESSION: usize = 64;
/// Longest file name kept (bytes); a longer suggestion is shortened, its extension kept.
const MAX_NAME: usize = 160;
const PARTIAL: &str = ".partial";

/// Where one session's downloads go.
#[derive(Debug, Clone)]
pub struct Place {
    pub dir: PathBuf,
    pub max_bytes: u64,
}

impl Place {
    /// `DIR/PLUGIN/SESSION`, with both names made safe as path segments.
    pub fn new(root: &Path, plugin: &str, session: &str, max_bytes: u64) -> Self {
        Self {
            dir: root.join(segment(plugin)).join(segment(session)),
            max_bytes,
        }
    }

    fn partial(&self) -> PathBuf {
        self.dir.join(PARTIAL)
    }
}

/// How a download stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    InProgress,
    Completed,
    /// The page or the browser cancelled it.
    Canceled,
    /// The session has no download directory (no grant).
    Refused,
    /// Larger than the session's `download_max`; cancelled and removed.
    TooLarge,
    /// Completed, but the host could not move it into place.
    Failed,
}

impl Status {
    pub fn finished(self) -> bool {
        self != Self::InProgress
    }
}

/// One download of a session.
#[derive(Debug, Clone)]
pub struct Download {
    pub guid: String,
    /// The browser context (session); empty until known (a download from an unknown frame is
    /// placed by where its file appears).
    pub context: String,
    /// Origin and path of the URL (the query may carry tokens); `data:`/`blob:` by scheme.
    pub source: String,
    pub file_name: String,
    pub path: Option<PathBuf>,
    pub status: Status,
    pub received: u64,
    pub total: Option<u64>,
    pub started: Instant,
    /// The status the plugin was last told (see [`Live::download_news`]).
    reported: Option<Status>,
    /// Order of arrival, for listing.
    seq: u64,
}

/// Every session's downloads and where each session saves them.
#[derive(Default)]
pub struct Downloads {
    places: HashMap<String, Place>,
    items: HashMap<String, Download>,
    seq: u64,
}

impl Downloads {
    /// The downloads of `context`, oldest first.
    fn of(&self, context: &str) -> Vec<&Download> {
        let mut list: Vec<&Download> = self
            .items
            .values()
            .filter(|d| d.context == context)
            .collect();
        list.sort_by_key(|d| d.seq);
        list
    }

    /// Forget a closed session's downloads (its files stay).
    pub fn forget(&mut self, context: &str) {
        self.places.remove(context);
        self.items.retain(|_, d| d.context != context);
    }

    fn trim(&mut self, context: &str) {
        let list = self.of(context);
        if list.len() <= KEPT_PER_SESSION {
            return;
        }
        let drop: Vec<String> = list
            .iter()
            .filter(|d| d.status.finished())
            .take(list.len() - KEPT_PER_SESSION)
            .map(|d| d.guid.clone())
            .collect();
        for guid in drop {
            self.items.remove(&guid);
        }
    }
}

/// `Browser.downloadWillBegin`: note the download under its session.
pub(super) fn will_begin(st: &mut State, p: &Value) -> Reduced {
    let guid = s(p, "guid").to_string();
    if guid.is_empty() {
        return Reduced::default();
    }
    let (context, held) = match tab_of_frame(st, s(p, "frameId")) {
        Some(tab) => {
            tab.download_seq += 1;
            (tab.context.clone(), tab.holds_secret())
        }
        // A frame Warden has not read: held if any tab may hold a secret (fail closed).
        None => (String::new(), st.tabs.values().any(TabState::holds_secret)),
    };
    let place = st.downloads.places.get(&context).cloned();
    let mut effects = Vec::new();
    let mut shown = source(s(p, "url"));
    let mut file_name = safe_name(s(p, "suggestedFilename"));
    let status = if held {
        // A page that holds a secret may be saving it (`holding.rs`): cancelled, and what
        // the browser wrote of it removed; its name and path stay withheld.
        effects.push(Effect::CancelDownload {
            guid: guid.clone(),
            context: context.clone(),
        });
        if let Some(owner) = st.contexts.get(&context) {
            effects.push(Effect::Deny {
                scope: owner.scope.clone(),
                capability: "browser.download",
                target: super::holding::origin_only(&shown),
                reason: "a page that holds a secret Warden typed into it (fill-secret) started this download, which could carry the secret: it was cancelled. Navigate the tab to a new page (browse_navigate) before downloading".into(),
            });
        }
        shown = super::holding::origin_only(&shown);
        file_name = "(withheld)".into();
        Status::Refused
    } else if place.is_none() && !context.is_empty() {
        if let Some(owner) = st.contexts.get(&context) {
            effects.push(Effect::Deny {
                scope: owner.scope.clone(),
                capability: "browser.download",
                target: source(s(p, "url")),
                reason: "set grants.browser.download_dir to let this plugin's pages save downloads"
                    .into(),
            });
        }
        Status::Refused
    } else {
        Status::InProgress
    };
    let d = &mut st.downloads;
    d.seq += 1;
    d.items.insert(
        guid.clone(),
        Download {
            guid,
            context: context.clone(),
            source: shown,
            file_name,
            path: None,
            status,
            received: 0,
            total: None,
            started: Instant::now(),
            reported: None,
            seq: d.seq,
        },
    );
    d.trim(&context);
    Reduced {
        effects,
        changed: true,
    }
}

/// `Browser.downloadProgress`: bytes so far, the cap, and the end.
pub(super) fn progress(st: &mut State, p: &Value) -> Reduced {
    let guid = s(p, "guid");
    let Some(d) = st.downloads.items.get_mut(guid) else {
        return Reduced::default();
    };
    if d.status.finished() {
        return Reduced::default();
    }
    d.received = p["receivedBytes"].as_f64().unwrap_or(0.0) as u64;
    d.total = p["totalBytes"]
        .as_f64()
        .map(|t| t as u64)
        .filter(|t| *t > 0);
    let max = st
        .downloads
        .places
        .get(&d.context)
        .map_or(u64::MAX, |p| p.max_bytes);
    let mut effects = Vec::new();
    match s(p, "state") {
        "completed" if d.received <= max => {
            effects.push(Effect::PlaceDownload {
                guid: d.guid.clone(),
            });
        }
        "canceled" => d.status = Status::Canceled,
        _ if d.received > max || d.total.is_some_and(|t| t > max) => {
            d.status = Status::TooLarge;
            effects.push(Effect::CancelDownload {
                guid: d.guid.clone(),
                context: d.context.clone(),
            });
            if let Some(owner) = st.contexts.get(&d.context) {
                effects.push(Effect::Deny {
                    scope: owner.scope.clone(),
                    capability: "browser.download",
                    target: d.source.clone(),
                    reason: format!(
                        "{} is larger than grants.browser.download_max ({max} bytes); raise it to keep such files",
                        d.file_name
                    ),
                });
            }
        }
        _ => {}
    }
    Reduced {
        effects,
        changed: true,
    }
}

/// The tab that holds `frame` (its main frame, or a frame Warden has read).
fn tab_of_frame<'a>(st: &'a mut State, frame: &str) -> Option<&'a mut TabState> {
    let id = if st.tabs.contains_key(frame) {
        frame.to_string()
    } else {
        st.tabs
            .iter()
            .find(|(_, t)| t.docs.values().any(|f| f == frame))
            .map(|(id, _)| id.clone())?
    };
    st.tabs.get_mut(&id)
}

/// What the audit and the plugin see of a download's URL.
fn source(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {
            format!("{}{}", u.origin().ascii_serialization(), u.path())
        }
        Ok(u) => format!("{}:", u.scheme()),
        Err(_) => "(no URL)".into(),
    }
}

/// A path segment from a plugin or session name: no separators, no `..`, no hidden files.
fn segment(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() || cleaned.starts_with('.') {
        format!("_{cleaned}")
    } else {
        cleaned
    }
}

/// A file name from the page's suggestion: its last path part, without control characters
/// or a leading dot, not too long (the extension kept); `download` when nothing is left.
pub fn safe_name(suggested: &str) -> String {
    let last = suggested.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .filter(|c| !c.is_control() && *c != ':')
        .collect();
    let trimmed = cleaned.trim().trim_start_matches('.').trim();
    if trimmed.is_empty() {
        return "download".into();
    }
    if trimmed.len() <= MAX_NAME {
        return trimmed.to_string();
    }
    let (stem, ext) = match trimmed.rsplit_once('.') {
        Some((stem, ext)) if ext.len() <= 16 && !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (trimmed, String::new()),
    };
    let mut keep = MAX_NAME - ext.len();
    while !stem.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}{ext}", &stem[..keep])
}

/// `name` in `dir`, or `stem (2).ext`, `stem (3).ext`, ... if taken.
fn unique(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    (2..10_000)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}-{}{ext}", std::process::id())))
}

impl Live {
    /// Set where the pages of `context` save downloads (`None`: refused). Called when the
    /// session's context is created, before any of its tabs runs.
    pub(super) async fn set_downloads(
        &self,
        context: &str,
        place: Option<Place>,
    ) -> super::error::Result<()> {
        let params = match &place {
            Some(place) => {
                let partial = place.partial();
                std::fs::create_dir_all(&partial).map_err(|e| {
                    super::error::BrowserError::Io(format!(
                        "cannot create the download directory {}: {e}",
                        partial.display()
                    ))
                })?;
                json!({
                    "behavior": "allowAndName",
                    "browserContextId": context,
                    "downloadPath": partial,
                    "eventsEnabled": true,
                })
            }
            None => json!({
                "behavior": "deny",
                "browserContextId": context,
                "eventsEnabled": true,
            }),
        };
        self.cdp
            .call_raw(None, "Browser.setDownloadBehavior", params)
            .await?;
        let mut st = self.lock();
        match place {
            Some(place) => st.downloads.places.insert(context.to_string(), place),
            None => st.downloads.places.remove(context),
        };
        Ok(())
    }

    /// Every download of `context` the session still lists, oldest first.
    pub fn downloads_of(&self, context: &str) -> Vec<Download> {
        self.lock()
            .downloads
            .of(context)
            .into_iter()
            .cloned()
            .collect()
    }

    /// The downloads of `context` that started or changed state since the last call: what
    /// an action's answer reports.
    pub fn download_news(&self, context: &str) -> Vec<Download> {
        let mut st = self.lock();
        let mut news = Vec::new();
        for d in st.downloads.items.values_mut() {
            if d.context == context && d.reported != Some(d.status) {
                d.reported = Some(d.status);
                news.push(d.clone());
            }
        }
        news.sort_by_key(|d| d.seq);
        news
    }

    /// Wait until `context` has a download and none is in progress, or `timeout`; returns
    /// whether that happened.
    pub async fn wait_downloads(&self, context: &str, timeout: Duration) -> bool {
        self.wait_for(timeout, |st| {
            let list = st.downloads.of(context);
            (!list.is_empty() && list.iter().all(|d| d.status.finished())).then_some(())
        })
        .await
        .is_ok()
    }

    /// Move a completed download from `.partial/GUID` to its own name and audit it. Done on
    /// the event loop on purpose: it is one metadata operation on the same filesystem, and
    /// doing the placements one at a time is what keeps two downloads of one name from both
    /// choosing the same free name (`rename` replaces what is there).
    pub(super) fn place_download(&self, guid: String) {
        let (download, places) = {
            let st = self.lock();
            let Some(d) = st.downloads.items.get(&guid) else {
                return;
            };
            (d.clone(), st.downloads.places.clone())
        };
        // A download from a frame Warden had not seen is found by where its file is.
        let found = places
            .iter()
            .filter(|(ctx, _)| download.context.is_empty() || **ctx == download.context)
            .find(|(_, p)| p.partial().join(&guid).is_file())
            .map(|(ctx, p)| (ctx.clone(), p.clone()));
        let placed = match &found {
            Some((_, place)) => {
                let to = unique(&place.dir, &download.file_name);
                std::fs::rename(place.partial().join(&guid), &to)
                    .map(|()| to)
                    .map_err(|e| e.to_string())
            }
            None => Err("its file is not in the session's download directory".into()),
        };
        let mut st = self.lock();
        let owner = found
            .as_ref()
            .and_then(|(ctx, _)| st.contexts.get(ctx))
            .cloned();
        if let Some(d) = st.downloads.items.get_mut(&guid) {
            if let Some((ctx, _)) = &found {
                d.context = ctx.clone();
            }
            match &placed {
                Ok(path) => {
                    d.status = Status::Completed;
                    d.file_name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    d.path = Some(path.clone());
                }
                Err(why) => {
                    tracing::warn!("download {guid} could not be placed: {why}");
                    d.status = Status::Failed;
                }
            }
        }
        drop(st);
        if let Some(owner) = owner {
            let detail = match &placed {
                Ok(path) => format!("saved to {}", path.display()),
                Err(why) => format!("not saved: {why}"),
            };
            owner.scope.used(&Used {
                capability: "browser.download",
                target: &download.source,
                error: placed.is_err().then_some("io"),
                duration: download.started.elapsed(),
                detail: Some(&detail),
                bytes: Some(download.received),
                ..Default::default()
            });
        }
        self.bump();
    }

    /// Cancel a download past the session's cap and remove what it wrote.
    pub(super) fn cancel_download(&self, guid: String, context: String) {
        let cdp = self.cdp.clone();
        let partial = self
            .lock()
            .downloads
            .places
            .get(&context)
            .map(|p| p.partial().join(&guid));
        tokio::spawn(async move {
            let mut params = json!({ "guid": guid });
            if !context.is_empty() {
                params["browserContextId"] = json!(context);
            }
            if let Err(e) = cdp.call_raw(None, "Browser.cancelDownload", params).await {
                tracing::debug!("cancelling a download past its cap failed: {e}");
            }
            if let Some(partial) = partial {
                let _ = tokio::fs::remove_file(partial).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_page_are_made_safe() {
        assert_eq!(safe_name("report.csv"), "report.csv");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("..\\..\\boot.ini"), "boot.ini");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name("a\u{0}b\nc.txt"), "abc.txt");
        assert_eq!(safe_name(""), "download");
        assert_eq!(safe_name("/"), "download");
        assert_eq!(safe_name("..."), "download");
        let long = format!("{}.pdf", "é".repeat(200));
        let short = safe_name(&long);
        assert!(
            short.len() <= MAX_NAME && short.ends_with(".pdf"),
            "{short}"
        );
    }

    #[test]
    fn session_names_cannot_leave_the_download_directory() {
        let place = Place::new(Path::new("/srv/dl"), "browser", "../../etc", 1);
        assert_eq!(place.dir, Path::new("/srv/dl/browser/_.._.._etc"));
        let place = Place::new(Path::new("/srv/dl"), "b", "..", 1);
        assert_eq!(place.dir, Path::new("/srv/dl/b/_.."));
        let place = Place::new(Path::new("/srv/dl"), "b", "", 1);
        assert_eq!(place.dir, Path::new("/srv/dl/b/_"));
    }

    #[test]
    fn a_taken_name_gets_a_number() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "x").expect("write");
        std::fs::write(dir.path().join("a (2).txt"), "x").expect("write");
        assert_eq!(unique(dir.path(), "a.txt"), dir.path().join("a (3).txt"));
        assert_eq!(unique(dir.path(), "b"), dir.path().join("b"));
    }
}
