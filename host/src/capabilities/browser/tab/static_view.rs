//! The tab's side of the no-JavaScript fast path (`static_page/`): reading a page without
//! the browser, showing it to the plugin (URL, title, snapshot, HTML) while the tab's
//! document stays the one before, and handing it to the browser when an action needs it.

use super::Tab;
use super::navigate::WaitUntil;
use super::script::Frame;
use super::snapshot::FrameSnapshot;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::guard::policy::Purpose;
use crate::capabilities::browser::guard::{HostRequests, NetGuard};
use crate::capabilities::browser::model::navigation::Navigation;
use crate::capabilities::browser::static_page::fetch::{self, Dest, FetchError, Request};
use crate::capabilities::browser::static_page::parse::{self, Parsed};
use crate::capabilities::browser::static_page::{Prefetched, StaticView, response};
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
    /// Read `to` without the browser when the page and the session allow it.
    pub async fn read_static(&self, to: &Navigation, timeout: Duration) -> Result<Outcome> {
        self.drop_static()?;
        if let Some(why) = self.static_refused(to)? {
            return Ok(Outcome::Browser(why.into()));
        }
        let Some(guard) = self.host_requests()? else {
            return Ok(Outcome::Browser(
                "the session has no network guard of its own".into(),
            ));
        };
        let url = to.url();
        // The tab's network guard decides the host's request as it decides the browser's;
        // a refusal is audited there, and the browser's own request is refused again.
        let addrs = match guard
            .admit(url, Purpose::Document, "document, read by the host")
            .await
        {
            Ok(addrs) => addrs,
            Err(refusal) => {
                return Ok(Outcome::Browser(format!(
                    "Warden's network guard refused it: {}",
                    refusal.reason
                )));
            }
        };
        let user_agent = self.user_agent().await?;
        let request = Request {
            url,
            dest: Dest::Document,
            addrs: &addrs,
            cookies: self.cookie_header(url).await?,
            user_agent: user_agent.clone(),
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
            Err(e) => return Ok(Outcome::Browser(format!("the host could not read it: {e}"))),
        };
        let html = match response::readable(&response) {
            Ok(html) => html.to_string(),
            Err(why) => return self.to_browser(response, why),
        };
        // Parsing a large page takes a while: keep it off the async workers.
        let (page_url, source) = (url.clone(), html.clone());
        let prepared = tokio::task::spawn_blocking(move || parse::prepare(&source, &page_url))
            .await
            .map_err(|e| BrowserError::Io(format!("reading the page failed: {e}")))?;
        let prepared = match prepared {
            Ok(p) => p,
            Err(needs) => return self.to_browser(response, needs.to_string()),
        };
        let sheets = match self
            .read_stylesheets(&guard, prepared.stylesheets(), url, &user_agent, timeout)
            .await?
        {
            Ok(sheets) => sheets,
            Err(why) => return self.to_browser(response, why),
        };
        let page_url = url.clone();
        let parsed =
            tokio::task::spawn_blocking(move || parse::finish(&prepared, &sheets, &page_url))
                .await
                .map_err(|e| BrowserError::Io(format!("reading the page failed: {e}")))?;
        let Parsed {
            interactive,
            with_text,
            nodes,
            elements,
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
                elements,
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

    /// The text of each style sheet the page at `page` links to, fetched as the browser
    /// would (decided by the tab's network guard, with the session's cookies), or why the
    /// browser must read the page: a sheet refused, not loaded, too large, or in an encoding
    /// the host cannot be sure of.
    async fn read_stylesheets(
        &self,
        guard: &HostRequests,
        urls: &[url::Url],
        page: &url::Url,
        user_agent: &str,
        timeout: Duration,
    ) -> Result<std::result::Result<Vec<String>, String>> {
        let mut sheets = Vec::with_capacity(urls.len());
        let mut total = 0;
        for url in urls {
            let addrs = match guard
                .admit(url, Purpose::Resource, "stylesheet, read by the host")
                .await
            {
                Ok(addrs) => addrs,
                Err(refusal) => {
                    return Ok(Err(format!(
                        "Warden's network guard refused its style sheet: {}",
                        refusal.reason
                    )));
                }
            };
            let request = Request {
                url,
                dest: Dest::Style(page),
                addrs: &addrs,
                cookies: self.cookie_header(url).await?,
                user_agent: user_agent.to_string(),
                accept_language: None,
                timeout,
            };
            let sheet = match fetch::fetch(&request).await {
                Ok(answer) => response::stylesheet(&answer),
                Err(e) => Err(format!("the host could not read its style sheet: {e}")),
            };
            match sheet {
                Ok(css) => {
                    total += css.len();
                    if total > fetch::MAX_SHEET * 2 {
                        return Ok(Err("its style sheets are larger than the host reads".into()));
                    }
                    sheets.push(css);
                }
                Err(why) => return Ok(Err(why)),
            }
        }
        Ok(Ok(sheets))
    }

    /// The network guard of the tab's browser context, for the host's own requests.
    fn host_requests(&self) -> Result<Option<HostRequests>> {
        let Some(context) = self
            .live
            .lock()
            .tabs
            .get(&self.target)
            .map(|t| t.context.clone())
        else {
            return Err(BrowserError::NotFound(
                "the tab is closed; open a page with browse_navigate".into(),
            ));
        };
        Ok(self
            .live
            .guards()
            .get(&context)
            .map(NetGuard::host_requests))
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
        let nodes: Vec<Value> = view.nodes.iter().map(|n| n.to_json()).collect();
        let call = format!("adopt({}, {})", view.elements, Value::from(nodes));
        let (doc, adopted) = self
            .world_numbered(&self.target, &call, None, Some(view.doc))
            .await?;
        let taken = adopted["taken"].as_u64();
        if doc != view.doc || taken != Some(view.nodes.len() as u64) {
            // The browser's document is not the one the host read: no ref the agent has may
            // act in it (one could reach a neighbour), so the action is refused.
            let why = match adopted["why"].as_str() {
                Some(why) if doc == view.doc => why.to_string(),
                _ => "the page was numbered before".to_string(),
            };
            tracing::debug!(url = %view.url, doc, expected = view.doc, %why,
                "the browser's document did not take the host's numbers");
            return Err(BrowserError::Stale(format!(
                "the page changed when the browser loaded it ({why}), so its elements may not be \
                 the ones your snapshot showed; nothing was done: take a new snapshot \
                 (browse_snapshot) and use its refs"
            )));
        }
        Ok(())
    }
}
