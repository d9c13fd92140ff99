//! Sessions and tabs: opening a page, listing, attaching to and closing tabs and sessions.
//! The interface's other functions are forwarded to `extras.rs`, `../profiles.rs` and
//! `../saved_state.rs`.

use super::super::bindings::warden::browser::browser::{
    ConsoleLog, Emulation, Host, NetworkLog, NetworkQuery, Route, RouteAction, SavedState,
    SearchResult, StorageArea, TabInfo,
};
use super::super::bindings::warden::browser::types::Error;
use super::super::scope::SessionKey;
use super::super::search::{self, SearchError};
use super::super::tab::Tab;
use super::ctx::BrowserCtx;
use super::handle::PageHandle;
use crate::capabilities::View;
use wasmtime::component::Resource;

impl Host for View<'_, BrowserCtx> {
    async fn open_page(&mut self, session: Option<String>) -> Result<Resource<PageHandle>, Error> {
        let (session, live, context) = self.session_context(session).await?;
        let target = live.open_tab(&context).await?;
        let generation = live.generation;
        let page = self.handle_for(session, target.clone(), generation).await?;
        let tab = Tab { live, target };
        self.record_action(&page, &tab, "open_page", serde_json::json!({}), None);
        Ok(page)
    }

    async fn first_page(&mut self, session: Option<String>) -> Result<Resource<PageHandle>, Error> {
        let (session, live, context) = self.session_context(session).await?;
        let target = live.first_tab(&context).await?;
        let generation = live.generation;
        let page = self.handle_for(session, target.clone(), generation).await?;
        let tab = Tab { live, target };
        self.record_action(&page, &tab, "first_page", serde_json::json!({}), None);
        Ok(page)
    }

    async fn list_tabs(&mut self, session: Option<String>) -> Result<Vec<TabInfo>, Error> {
        self.browser_allowed()?;
        let session = self.session_key(session)?;
        let Some(live) = self.browser.current_for(self.plugin(), &session).await else {
            // A plugin holds no tab between calls: listing is how it learns the session's
            // browser went away.
            return match self
                .browser
                .exited_for(self.plugin(), &session, &session.to_string())
                .await
            {
                Some(why) => Err(Error::Gone(why)),
                None => Ok(Vec::new()),
            };
        };
        let context = live.context(self.plugin(), &session, &self.owner()).await?;
        let mut tabs = Vec::new();
        for (id, _, _, opener) in live.tabs_of(&context) {
            let tab = Tab {
                live: live.clone(),
                target: id.clone(),
            };
            // A document the commit rule refused is not listed: the tab is listed once it
            // left it, or, if it does not, as what it is.
            let refused = tab.past_refused().await.is_err();
            // As the tab itself shows them: scrubbed; while it holds a secret, the URL
            // without its query and no title.
            tabs.push(TabInfo {
                url: if refused {
                    "(a page its grants refuse; close this tab)".into()
                } else {
                    tab.shown_url().unwrap_or_default()
                },
                title: if refused {
                    String::new()
                } else {
                    tab.shown_title().unwrap_or_default()
                },
                id,
                opener,
            });
        }
        Ok(tabs)
    }

    async fn attach_tab(
        &mut self,
        session: Option<String>,
        id: String,
    ) -> Result<Resource<PageHandle>, Error> {
        let (session, live, context) = self.session_context(session).await?;
        if live.tab_context(&id).as_deref() != Some(context.as_str()) {
            return Err(Error::NotFound(format!(
                "no tab \"{id}\" in session \"{session}\"; list the tabs first"
            )));
        }
        self.handle_for(session, id, live.generation).await
    }

    async fn close_session(&mut self, session: String) -> Result<(), Error> {
        self.browser_allowed()?;
        let session = self.session_key(Some(session))?;
        let browser = &self.browser;
        browser.recorded.end(self.plugin(), &session);
        if browser
            .close_own_session(self.plugin(), &session)
            .await
            .is_some()
        {
            return Ok(());
        }
        let live = browser
            .current()
            .await
            .ok_or_else(|| Error::NotFound(format!("no session named \"{session}\"")))?;
        Ok(live.close_session(self.plugin(), &session).await?)
    }

    async fn list_sessions(&mut self) -> Result<Vec<String>, Error> {
        self.browser_allowed()?;
        let keys = self.browser.sessions_of(self.plugin()).await;
        Ok(keys
            .iter()
            .filter_map(|key| SessionKey::visible(key, &self.conversation))
            .map(str::to_string)
            .collect())
    }

    async fn search(&mut self, query: String, page: u32) -> Result<Vec<SearchResult>, Error> {
        self.browser_allowed()?;
        let Some(config) = self.browser.config().search.clone() else {
            return Err(Error::NotFound(
                "no web search is configured; the admin names a SearXNG-compatible backend in the manifest: [search] endpoint = \"https://searx.example.org/search\"".into(),
            ));
        };
        let query = query.trim();
        if query.is_empty() || query.chars().count() > search::MAX_QUERY {
            return Err(Error::InvalidArgument(format!(
                "a search query has 1-{} characters",
                search::MAX_QUERY
            )));
        }
        let url = search::request_url(&config, query, page);
        // A request the plugin's own pages could make: the same grant, the same network rule.
        let matched: Vec<String> = self
            .granted(self.grants.check_browser_request(&url))?
            .into_iter()
            .map(str::to_string)
            .collect();
        let patterns: Vec<&str> = matched.iter().map(String::as_str).collect();
        let started = std::time::Instant::now();
        let result = search::ask(&url, &patterns, &config).await;
        // The endpoint, never the query: it is the agent's, and may carry anything.
        let detail = match &result {
            Ok(hits) => format!("page {}, {} result(s)", page.max(1), hits.len()),
            Err(_) => format!("page {}", page.max(1)),
        };
        let error = result.as_ref().err().map(|e| match e {
            SearchError::Timeout => "timeout",
            SearchError::Key(_) | SearchError::BadKey(_) | SearchError::Refused(_) => {
                "access-denied"
            }
            _ => "io",
        });
        match &result {
            // Refused by the network rules before anything was sent: the denial is the line.
            Err(SearchError::Net(e)) if e.is_refusal() => {
                self.scope
                    .denied("browser.search", config.endpoint.as_str(), &e.to_string());
            }
            _ => self.scope.used(&crate::audit::Used {
                capability: "browser.search",
                target: config.endpoint.as_str(),
                error,
                duration: started.elapsed(),
                detail: Some(&detail),
                ..Default::default()
            }),
        }
        match result {
            Ok(hits) => Ok(hits
                .into_iter()
                .map(|h| SearchResult {
                    title: h.title,
                    url: h.url,
                    snippet: h.snippet,
                })
                .collect()),
            // Private space no grant pattern names, or Warden's own listener, is a refusal;
            // a name that did not resolve is not.
            Err(SearchError::Net(e)) if e.is_refusal() => Err(Error::AccessDenied(e.to_string())),
            Err(e @ SearchError::Timeout) => Err(Error::Timeout(e.to_string())),
            Err(e @ (SearchError::Key(_) | SearchError::BadKey(_) | SearchError::Refused(_))) => {
                Err(Error::AccessDenied(e.to_string()))
            }
            Err(e) => Err(Error::Io(e.to_string())),
        }
    }

    // Logs, routes, emulation and storage: see `extras.rs`.

    async fn console_messages(
        &mut self,
        page: Resource<PageHandle>,
        since_last: bool,
        clear: bool,
    ) -> Result<ConsoleLog, Error> {
        self.scrubbed_console_log(page, since_last, clear).await
    }

    async fn network_requests(
        &mut self,
        page: Resource<PageHandle>,
        query: NetworkQuery,
    ) -> Result<NetworkLog, Error> {
        self.scrubbed_network_log(page, query).await
    }

    async fn add_route(
        &mut self,
        session: Option<String>,
        url_glob: String,
        action: RouteAction,
    ) -> Result<u32, Error> {
        self.checked_add_route(session, url_glob, action).await
    }

    async fn remove_route(&mut self, session: Option<String>, id: u32) -> Result<(), Error> {
        self.remove_session_route(session, id).await
    }

    async fn list_routes(&mut self, session: Option<String>) -> Result<Vec<Route>, Error> {
        self.session_routes(session).await
    }

    async fn set_emulation(
        &mut self,
        session: Option<String>,
        emulation: Emulation,
    ) -> Result<(), Error> {
        self.apply_emulation(session, emulation).await
    }

    async fn get_emulation(&mut self, session: Option<String>) -> Result<Emulation, Error> {
        self.session_emulation(session).await
    }

    async fn storage_items(
        &mut self,
        page: Resource<PageHandle>,
        area: StorageArea,
    ) -> Result<Vec<(String, String)>, Error> {
        self.scrubbed_storage_items(page, area).await
    }

    async fn set_storage_item(
        &mut self,
        page: Resource<PageHandle>,
        area: StorageArea,
        key: String,
        value: Option<String>,
    ) -> Result<(), Error> {
        self.write_storage_item(page, area, key, value).await
    }

    async fn clear_storage(
        &mut self,
        page: Resource<PageHandle>,
        area: StorageArea,
    ) -> Result<(), Error> {
        self.clear_storage_area(page, area).await
    }

    async fn create_session(
        &mut self,
        session: String,
        profile: Option<String>,
    ) -> Result<(), Error> {
        self.open_profile_session(session, profile).await
    }

    // Saved states: see `../saved_state.rs`.

    async fn save_state(
        &mut self,
        session: Option<String>,
        name: String,
    ) -> Result<SavedState, Error> {
        self.save_session_state(session, name).await
    }

    async fn create_session_from_state(
        &mut self,
        session: String,
        state: String,
    ) -> Result<SavedState, Error> {
        self.open_session_from_state(session, state).await
    }

    async fn list_states(&mut self) -> Result<Vec<SavedState>, Error> {
        self.saved_state_summaries()
    }

    async fn delete_state(&mut self, name: String) -> Result<(), Error> {
        self.forget_saved_state(name)
    }
}
