//! The WIT side of a tab's logs (console, network), a session's routes and emulation, and a
//! page's storage. Everything read from a tab is scrubbed of the secrets typed into it.

use super::super::bindings::warden::browser::browser::{
    ConsoleEntry, ConsoleLog, Emulation, Geolocation, MockResponse, NetworkEntry, NetworkLog,
    NetworkQuery, Route, RouteAction, StorageArea, Viewport,
};
use super::super::bindings::warden::browser::types::Error;
use super::super::emulation::{self, Emulation as Emu};
use super::super::model::hold::{self as holding, Door};
use super::super::model::routes::{self, Action};
use super::super::tab::StorageArea as Area;
use super::ctx::BrowserCtx;
use super::handle::PageHandle;
use crate::capabilities::View;
use wasmtime::component::Resource;

fn area(a: StorageArea) -> Area {
    match a {
        StorageArea::Local => Area::Local,
        StorageArea::Session => Area::Session,
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl View<'_, BrowserCtx> {
    pub(super) async fn scrubbed_console_log(
        &mut self,
        page: Resource<PageHandle>,
        since_last: bool,
        clear: bool,
    ) -> Result<ConsoleLog, Error> {
        let tab = self.tab(&page).await?;
        let (entries, capacity, dropped) = tab.live.with_tab(&tab.target, |t| {
            let c = &mut t.log.console;
            (c.read(since_last, clear), c.capacity(), c.dropped())
        })?;
        Ok(ConsoleLog {
            entries: entries
                .into_iter()
                // What the page logged while it held a secret stays withheld (`model/hold.rs`).
                .map(|(seq, e)| ConsoleEntry {
                    seq,
                    level: e.level.to_string(),
                    source: e.source,
                    text: if e.held {
                        holding::WITHHELD.to_string()
                    } else {
                        tab.scrub(&e.text)
                    },
                    location: e.location.filter(|_| !e.held).map(|l| tab.scrub(&l)),
                })
                .collect(),
            capacity: count(capacity),
            dropped,
        })
    }

    pub(super) async fn scrubbed_network_log(
        &mut self,
        page: Resource<PageHandle>,
        query: NetworkQuery,
    ) -> Result<NetworkLog, Error> {
        let glob = query
            .url_glob
            .as_deref()
            .map(routes::url_glob)
            .transpose()?;
        let tab = self.tab(&page).await?;
        let (entries, capacity, dropped) = tab.live.with_tab(&tab.target, |t| {
            let n = &mut t.log.network;
            (
                n.read(query.since_last, query.clear),
                n.capacity(),
                n.dropped(),
            )
        })?;
        let kind = query.resource_type.map(|k| k.to_ascii_lowercase());
        // A request sent while the page held a secret shows its origin only, and the glob
        // sees no more than that (it would be an oracle on the rest).
        let entries = entries.into_iter().map(|(seq, mut e)| {
            e.url = if e.held {
                holding::origin_only(&e.url)
            } else {
                tab.scrub(&e.url)
            };
            (seq, e)
        });
        Ok(NetworkLog {
            entries: entries
                .filter(|(_, e)| glob.as_ref().is_none_or(|g| g.is_match(&e.url)))
                .filter(|(_, e)| {
                    kind.as_deref()
                        .is_none_or(|k| e.resource_type.eq_ignore_ascii_case(k))
                })
                .filter(|(_, e)| !query.failed_only || super::super::model::log::failed(e))
                .map(|(seq, e)| NetworkEntry {
                    seq,
                    method: e.method,
                    url: e.url,
                    resource_type: e.resource_type,
                    status: e.status,
                    mime_type: e.mime,
                    encoded_bytes: e.encoded_bytes,
                    duration_ms: e.duration_ms,
                    failure: e.failure,
                    intercepted: e.intercepted,
                    pending: !e.done,
                })
                .collect(),
            capacity: count(capacity),
            dropped,
        })
    }

    pub(super) async fn checked_add_route(
        &mut self,
        session: Option<String>,
        url_glob: String,
        action: RouteAction,
    ) -> Result<u32, Error> {
        if matches!(action, RouteAction::Mock(_)) {
            self.granted(self.grants.check_mock_route())?;
        }
        let (_, live, context) = self.session_context(session).await?;
        let action = match action {
            RouteAction::Block => Action::Block,
            RouteAction::Mock(m) => Action::Mock(routes::Mock {
                status: m.status,
                content_type: m.content_type,
                headers: m.headers,
                body: m.body,
            }),
        };
        Ok(live
            .change_routes(&context, |x| x.add_route(&url_glob, action))
            .await?)
    }

    pub(super) async fn remove_session_route(
        &mut self,
        session: Option<String>,
        id: u32,
    ) -> Result<(), Error> {
        let (_, live, context) = self.session_context(session).await?;
        Ok(live.change_routes(&context, |x| x.remove_route(id)).await?)
    }

    pub(super) async fn session_routes(
        &mut self,
        session: Option<String>,
    ) -> Result<Vec<Route>, Error> {
        let (_, live, context) = self.session_context(session).await?;
        Ok(live
            .routes_of(&context)
            .into_iter()
            .map(|r| Route {
                id: r.id,
                url_glob: r.glob,
                action: match r.action {
                    Action::Block => RouteAction::Block,
                    Action::Mock(m) => RouteAction::Mock(MockResponse {
                        status: m.status,
                        content_type: m.content_type,
                        headers: m.headers,
                        body: m.body,
                    }),
                },
            })
            .collect())
    }

    pub(super) async fn apply_emulation(
        &mut self,
        session: Option<String>,
        e: Emulation,
    ) -> Result<(), Error> {
        let (_, live, context) = self.session_context(session).await?;
        let emu = Emu {
            viewport: e.viewport.map(|v| emulation::Viewport {
                width: v.width,
                height: v.height,
                device_scale: v.device_scale,
                mobile: v.mobile,
            }),
            user_agent: e.user_agent,
            locale: e.locale,
            timezone: e.timezone,
            geolocation: e.geolocation.map(|g| emulation::Geolocation {
                latitude: g.latitude,
                longitude: g.longitude,
                accuracy: g.accuracy,
            }),
            color_scheme: e.color_scheme,
            offline: e.offline,
        };
        Ok(live.set_emulation(&context, emu).await?)
    }

    pub(super) async fn session_emulation(
        &mut self,
        session: Option<String>,
    ) -> Result<Emulation, Error> {
        let (_, live, context) = self.session_context(session).await?;
        let e = live.emulation_of(&context);
        Ok(Emulation {
            viewport: e.viewport.map(|v| Viewport {
                width: v.width,
                height: v.height,
                device_scale: v.device_scale,
                mobile: v.mobile,
            }),
            user_agent: e.user_agent,
            locale: e.locale,
            timezone: e.timezone,
            geolocation: e.geolocation.map(|g| Geolocation {
                latitude: g.latitude,
                longitude: g.longitude,
                accuracy: g.accuracy,
            }),
            color_scheme: e.color_scheme,
            offline: e.offline,
        })
    }

    pub(super) async fn scrubbed_storage_items(
        &mut self,
        page: Resource<PageHandle>,
        a: StorageArea,
    ) -> Result<Vec<(String, String)>, Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        // Storage outlives the document: an origin a secret was typed into keeps it for
        // the session's life (`model/hold.rs`).
        self.unheld(&tab, Door::Storage)?;
        if tab.shows_secret_origin()? {
            return Err(self.held(&tab, Door::Storage));
        }
        Ok(tab
            .storage_items(area(a))
            .await?
            .into_iter()
            .map(|(k, v)| (tab.scrub(&k), tab.scrub(&v)))
            .collect())
    }

    pub(super) async fn write_storage_item(
        &mut self,
        page: Resource<PageHandle>,
        a: StorageArea,
        key: String,
        value: Option<String>,
    ) -> Result<(), Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        Ok(tab
            .set_storage_item(area(a), &key, value.as_deref())
            .await?)
    }

    pub(super) async fn clear_storage_area(
        &mut self,
        page: Resource<PageHandle>,
        a: StorageArea,
    ) -> Result<(), Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        Ok(tab.clear_storage(area(a)).await?)
    }
}
