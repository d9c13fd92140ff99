//! The tab's side of the no-JavaScript fast path (`static_page/`): reading a page without
//! the browser, showing it to the plugin (URL, title, snapshot, HTML) while the tab's
//! document stays the one before, and handing it to the browser when an action needs it.

use super::Tab;
use super::navigate::WaitUntil;
use super::script::Frame;
use super::snapshot::FrameSnapshot;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::guard::navigation::Navigation;
use crate::capabilities::browser::static_page::fetch::{self, FetchError, Request};
use crate::capabilities::browser::static_page::parse::{self, Parsed};
use crate::capabilities::browser::static_page::{Prefetched, StaticView};
use crate::net::NetError;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long the browser gets to load a page the host read, when an action needs it.
const TAKE_OVER_TIMEOUT: Duration = Duration::from_secs(30);

/// How a navigation went on the fast path.
#[derive(Debug)]
pub enum Outcome {
    /// The host read the page: the tab shows it until an action needs the browser.
    Read,
    /// The page needs the browser, for this reason; a response the host holds answers the
    /// browser's request for it.
    Browser(String),
}

impl Tab {
    /// Read `to` without the browser when the page and the session allow it. `matched`: the
    /// grant patterns its URL matched.
    pub async fn read_static(
        &self,
        to: &Navigation,
        matched: &[&str],
        timeout: Duration,
    ) -> Result<Outcome> {
        self.drop_static()?;
        if let Some(why) = self.static_refused(to)? {
            return Ok(Outcome::Browser(why.into()));
        }
        let url = to.url();
        let request = Request {
            url,
            matched,
            cookies: self.cookie_header(url).await?,
            user_agent: self.user_agent().await?,
            accept_language: None,
            timeout,
        };
        let response = match fetch::fetch(&request).await {
            Ok(r) => r,
            Err(FetchError::Timeout(_)) => {
                return Err(BrowserError::Timeout(format!(
                    "{} did not respond within {} ms",
                    to.as_str(),
                    timeout.as_millis()
                )));
            }
            // The guard refuses it again, with its own message and audit line.
            Err(e @ FetchError::Net(NetError::Private { .. })) => {
                return Ok(Outcome::Browser(e.to_string()));
            }
            Err(e) => return Ok(Outcome::Browser(format!("the host could not read it: {e}"))),
        };
        let html = match readable(&response) {
            Ok(html) => html.to_string(),
            Err(why) => return self.to_browser(response, why),
        };
        let page_url = url.clone();
        let source = html.clone();
        // Parsing a large page takes a while: keep it off the async workers.
        let parsed = tokio::task::spawn_blocking(move || parse::parse(&source, &page_url))
            .await
            .map_err(|e| BrowserError::Io(format!("reading the page failed: {e}")))?;
        let Parsed {
            interactive,
            with_text,
            nodes,
        } = match parsed {
            Ok(p) => p,
            Err(needs) => return self.to_browser(response, needs.to_string()),
        };
        let title = with_text["meta"]["title"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        self.state(|t| {
            // The view's handles carry a document number no other document of the tab gets.
            t.next_doc = t.next_doc.wrapping_add(1);
            t.view = Some(Box::new(StaticView {
                nav: to.clone(),
                url: to.as_str().to_string(),
                title,
                doc: t.next_doc,
                snapshots: [interactive, with_text],
                nodes,
                html,
                response,
            }));
        })?;
        Ok(Outcome::Read)
    }

    /// Why the fast path is not for this navigation: what the session changes about requests
    /// (routes, emulation) or what holding a secret asks for is done by the browser.
    fn static_refused(&self, to: &Navigation) -> Result<Option<&'static str>> {
        if !matches!(to.url().scheme(), "http" | "https") {
            return Ok(Some("not an http(s) URL"));
        }
        let live = self.live.lock();
        let Some(tab) = live.tabs.get(&self.target) else {
            return Err(BrowserError::NotFound(
                "the tab is closed; open a page with browse_navigate".into(),
            ));
        };
        if tab.dialog.is_some() || tab.crashed || tab.holds_secret() {
            return Ok(Some("the tab is busy"));
        }
        Ok(live.extras.get(&tab.context).and_then(|x| {
            if !x.routes.is_empty() || x.mocked {
                Some("the session has routes")
            } else if !x.secret_origins.is_empty() {
                Some("the session typed a secret")
            } else if x.emulation.user_agent.is_some()
                || x.emulation.locale.is_some()
                || x.emulation.offline
            {
                Some("the session emulates another browser")
            } else {
                None
            }
        }))
    }

    /// The `Cookie` header the browser would send to `url` from this tab's session.
    async fn cookie_header(&self, url: &url::Url) -> Result<Option<String>> {
        let cookies = self
            .call("Network.getCookies", json!({ "urls": [url.as_str()] }))
            .await?;
        let pairs: Vec<String> = cookies["cookies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| Some(format!("{}={}", c["name"].as_str()?, c["value"].as_str()?)))
            .collect();
        Ok((!pairs.is_empty()).then(|| pairs.join("; ")))
    }

    async fn user_agent(&self) -> Result<String> {
        let version = self
            .live
            .cdp
            .call_raw(None, "Browser.getVersion", json!({}))
            .await?;
        Ok(version["userAgent"]
            .as_str()
            .unwrap_or("Mozilla/5.0")
            .to_string())
    }

    /// The page goes to the browser, which is answered from `response`.
    fn to_browser(&self, response: Prefetched, why: String) -> Result<Outcome> {
        self.state(|t| t.prefetched = Some(response))?;
        Ok(Outcome::Browser(why))
    }

    /// Forget the page the host read (the tab goes elsewhere, or closes).
    pub fn drop_static(&self) -> Result<()> {
        self.state(|t| {
            t.view = None;
            t.prefetched = None;
        })
    }

    /// The snapshot of the page the host read, if the tab shows one.
    pub(super) fn static_snapshot(
        &self,
        include_text: bool,
    ) -> Result<Option<Arc<Vec<FrameSnapshot>>>> {
        self.state(|t| {
            t.view.as_ref().map(|v| {
                Arc::new(vec![FrameSnapshot {
                    frame: Frame {
                        id: self.target.clone(),
                        parent: None,
                        url: v.url.clone(),
                        name: String::new(),
                    },
                    offset: (0.0, 0.0),
                    data: Some((v.doc, v.snapshots[usize::from(include_text)].clone())),
                }])
            })
        })
    }

    /// The HTML of the page the host read, if the tab shows one.
    pub(super) fn static_html(&self) -> Result<Option<String>> {
        self.state(|t| t.view.as_ref().map(|v| v.html.clone()))
    }

    /// Hand the page the host read to the browser: it loads it from the response the host
    /// holds, and `page.js` gives its elements the numbers the agent's refs name. Nothing to
    /// do when the tab shows the browser's own document.
    pub async fn take_over(&self) -> Result<()> {
        let Some(view) = self.state(|t| t.view.take())? else {
            return Ok(());
        };
        self.state(|t| t.prefetched = Some(view.response.clone()))?;
        let loaded = self
            .navigate(&view.nav, WaitUntil::Load, TAKE_OVER_TIMEOUT)
            .await;
        self.state(|t| t.prefetched = None)?;
        loaded?;
        let call = format!(
            "adopt({})",
            Value::from(
                view.nodes
                    .iter()
                    .map(|(id, name)| json!([id, name]))
                    .collect::<Vec<_>>()
            )
        );
        let (doc, taken) = self
            .world_numbered(&self.target, &call, None, Some(view.doc))
            .await?;
        if doc != view.doc || taken.as_u64() != Some(view.nodes.len() as u64) {
            // The refs of the page the agent saw do not reach this document: an action on one
            // says it is gone, and the agent takes a new snapshot.
            tracing::debug!(
                url = %view.url,
                doc,
                expected = view.doc,
                taken = %taken,
                nodes = view.nodes.len(),
                "the browser's document did not take the host's numbers"
            );
        }
        Ok(())
    }
}

/// The HTML of a response the fast path can read whole, or why the browser reads it: a
/// document that sets cookies goes to the browser so its cookie jar keeps them.
fn readable(response: &Prefetched) -> std::result::Result<&str, String> {
    if response.status != 200 {
        return Err(format!("it answered {}", response.status));
    }
    if !fetch::utf8_html(&response.headers) {
        return Err("it is not UTF-8 HTML".into());
    }
    if fetch::header(&response.headers, "set-cookie").is_some() {
        return Err("it sets cookies".into());
    }
    std::str::from_utf8(&response.body).map_err(|_| "it is not UTF-8 HTML".to_string())
}
