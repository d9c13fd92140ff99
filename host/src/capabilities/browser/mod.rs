//! `warden:browser`: a real Chromium for plugins. Every call checks the plugin's browser
//! grant; navigations are guarded in the browser itself (see `provider.rs`); `eval_js`,
//! cookies and secrets have grants of their own. Secret values never reach the plugin.

mod adopt;
pub mod bindings;
mod caps;
mod cdp;
mod emulation;
mod events;
mod extract;
mod guard;
mod keys;
mod launch;
mod marks;
mod observe;
mod pdf;
mod pointer;
mod profiles;
pub(crate) mod provider;
mod routes;
mod secrets;
mod storage;
pub(crate) mod tab;
mod wit_extras;

pub use provider::BrowserProvider;

use super::view::{Base, Project};
use super::{HasView, View};
use crate::manifest::grants::Denied;
use bindings::warden::browser::browser::{
    self as browser_iface, ClickOptions, ConsoleLog, Cookie, DialogInfo, Element, ElementStates,
    Emulation, FrameInfo, Host, HostPage, Modifiers, MouseButton, NetworkLog, NetworkQuery,
    Overlay, PageMeta, Rect, Route, RouteAction, ScreenshotArea, Snapshot, StorageArea, TabInfo,
    WaitCondition, WaitUntil,
};
use bindings::warden::browser::browser::{
    ContentFormat, DragKind, DragOptions, DragTarget, PageContent, PdfOptions,
};
use bindings::warden::browser::types::{self, Error};
use provider::BrowserError;
use serde_json::{Value, json};
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;
use tab::{Area, Click, Tab};
use wasmtime::component::{Linker, Resource};

/// A plugin's browser context: its grants and audit scope, and the shared browser provider
/// (each plugin's sessions are browser contexts of their own).
pub struct BrowserCtx {
    pub base: Base,
    pub browser: Arc<BrowserProvider>,
}

impl Deref for BrowserCtx {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

/// Link `warden:browser` (types, browser) to the plugins' store.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, BrowserCtx>,
) -> wasmtime::Result<()> {
    types::add_to_linker::<T, HasView<BrowserCtx>>(linker, get)?;
    browser_iface::add_to_linker::<T, HasView<BrowserCtx>>(linker, get)
}

/// A tab handed to a plugin.
#[derive(Debug)]
pub struct PageHandle {
    /// Which browser process the tab lives in; a restarted browser makes old handles stale.
    generation: u64,
    target: String,
    session: String,
}

const DEFAULT_SESSION: &str = "default";

impl From<BrowserError> for Error {
    fn from(e: BrowserError) -> Self {
        match e {
            BrowserError::Denied(m) => Self::AccessDenied(m),
            BrowserError::NotFound(m) => Self::NotFound(m),
            BrowserError::Stale(m) => Self::StaleElement(m),
            BrowserError::Gone(m) => Self::Gone(m),
            BrowserError::Timeout(m) => Self::Timeout(m),
            BrowserError::Invalid(m) => Self::InvalidArgument(m),
            BrowserError::Io(m) => Self::Io(m),
        }
    }
}

fn wait_until(w: WaitUntil) -> tab::WaitUntil {
    match w {
        WaitUntil::Load => tab::WaitUntil::Load,
        WaitUntil::DomContentLoaded => tab::WaitUntil::DomContentLoaded,
        WaitUntil::NetworkIdle => tab::WaitUntil::NetworkIdle,
    }
}

fn timeout(ms: u32) -> Duration {
    Duration::from_millis(u64::from(if ms == 0 { 30_000 } else { ms }))
}

fn click(o: ClickOptions) -> Click {
    let mut modifiers = 0;
    for (flag, bit) in [
        (Modifiers::ALT, keys::ALT),
        (Modifiers::CTRL, keys::CTRL),
        (Modifiers::META, keys::META),
        (Modifiers::SHIFT, keys::SHIFT),
    ] {
        if o.modifiers.contains(flag) {
            modifiers |= bit;
        }
    }
    Click {
        button: match o.button {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
        },
        count: o.count.clamp(1, 3),
        modifiers,
    }
}

fn session_name(session: Option<String>) -> Result<String, Error> {
    let name = session.unwrap_or_else(|| DEFAULT_SESSION.to_string());
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(Error::InvalidArgument(format!(
            "session name \"{name}\" must be 1-64 letters, digits, '-' or '_'"
        )));
    }
    Ok(name)
}

impl View<'_, BrowserCtx> {
    /// A grant check's refusal, audited, as the WIT `access-denied` error.
    fn granted<T>(&self, check: Result<T, Denied>) -> Result<T, Error> {
        check.map_err(|d| Error::AccessDenied(self.refuse("browser", &d)))
    }

    fn browser_allowed(&self) -> Result<(), Error> {
        self.granted(self.grants.check_browser())
    }

    /// The tab behind a handle, in the running browser; refreshes the session's grants.
    async fn tab(&mut self, page: &Resource<PageHandle>) -> Result<Tab, Error> {
        self.browser_allowed()?;
        let handle = self
            .table()
            .get(page)
            .map_err(|_| Error::NotFound("no such page".into()))?;
        let (generation, target, session) = (
            handle.generation,
            handle.target.clone(),
            handle.session.clone(),
        );
        let live = self
            .browser
            .current_for(self.plugin(), &session)
            .await
            .filter(|l| l.generation == generation && !l.cdp.closed().is_cancelled())
            .ok_or_else(|| {
                Error::Gone(
                    "this tab belonged to a browser that has exited (crashed or was killed); open a new page"
                        .into(),
                )
            })?;
        live.context(self.plugin(), &session, &self.grants, &self.scope)
            .await?;
        Ok(Tab { live, target })
    }

    async fn handle_for(
        &mut self,
        session: String,
        target: String,
        generation: u64,
    ) -> Result<Resource<PageHandle>, Error> {
        self.table()
            .push(PageHandle {
                generation,
                target,
                session,
            })
            .map_err(|e| Error::Io(format!("cannot hand out the tab: {e}")))
    }
}

fn to_wit_snapshot(tab: &Tab, frames: Vec<tab::FrameSnapshot>, include_text: bool) -> Snapshot {
    let scrub = |s: &str| tab.scrub(s);
    let mut elements = Vec::new();
    let mut overlays = Vec::new();
    let mut frame_infos = Vec::new();
    let mut meta = PageMeta {
        url: String::new(),
        title: String::new(),
        page_type: None,
        has_login_form: false,
        has_captcha: false,
        form_count: 0,
        description: None,
    };
    for (index, f) in frames.iter().enumerate() {
        let Ok(frame_index) = u32::try_from(index) else {
            break;
        };
        frame_infos.push(FrameInfo {
            url: f.frame.url.clone(),
            name: f.frame.name.clone(),
            parent: f.frame.parent.and_then(|p| u32::try_from(p).ok()),
            opaque: f.data.is_none(),
        });
        let Some((doc, data)) = &f.data else { continue };
        let m = &data["meta"];
        if index == 0 {
            meta.url = scrub(m["url"].as_str().unwrap_or_default());
            meta.title = scrub(m["title"].as_str().unwrap_or_default());
            meta.page_type = m["pageType"].as_str().map(str::to_string);
            meta.description = m["description"].as_str().map(scrub);
        }
        meta.has_login_form |= m["hasLoginForm"].as_bool().unwrap_or(false);
        meta.has_captcha |= m["hasCaptcha"].as_bool().unwrap_or(false);
        meta.form_count += u32::try_from(m["formCount"].as_u64().unwrap_or(0)).unwrap_or(0);
        if meta.page_type.is_none() && meta.has_login_form {
            meta.page_type = Some("login".into());
        }
        let overlay_base = u32::try_from(overlays.len()).unwrap_or(0);
        for o in data["overlays"].as_array().into_iter().flatten() {
            overlays.push(Overlay {
                kind: o["kind"].as_str().unwrap_or("overlay").to_string(),
                label: scrub(o["label"].as_str().unwrap_or_default()),
            });
        }
        for e in data["elements"].as_array().into_iter().flatten() {
            let Some(node) = e["handle"].as_u64() else {
                continue;
            };
            let mut states = ElementStates::empty();
            for st in e["states"].as_array().into_iter().flatten() {
                states |= match st.as_str().unwrap_or_default() {
                    "disabled" => ElementStates::DISABLED,
                    "checked" => ElementStates::CHECKED,
                    "mixed" => ElementStates::MIXED,
                    "selected" => ElementStates::SELECTED,
                    "expanded" => ElementStates::EXPANDED,
                    "focused" => ElementStates::FOCUSED,
                    "required" => ElementStates::REQUIRED,
                    "readonly" => ElementStates::READONLY,
                    "offscreen" => ElementStates::OFFSCREEN,
                    _ => ElementStates::empty(),
                };
            }
            let b = &e["bounds"];
            let num = |i: usize| b[i].as_f64().unwrap_or(0.0);
            elements.push(Element {
                handle: (u64::from(*doc) << 32) | (node & 0xffff_ffff),
                frame: frame_index,
                role: e["role"].as_str().unwrap_or("generic").to_string(),
                name: scrub(e["name"].as_str().unwrap_or_default()),
                value: e["value"].as_str().map(scrub),
                attributes: e["attributes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|kv| Some((kv[0].as_str()?.to_string(), scrub(kv[1].as_str()?))))
                    .collect(),
                states,
                bounds: b.is_array().then(|| Rect {
                    x: num(0) + f.offset.0,
                    y: num(1) + f.offset.1,
                    width: num(2),
                    height: num(3),
                }),
                interactive: e["interactive"].as_bool().unwrap_or(false),
                level: u8::try_from(e["level"].as_u64().unwrap_or(0)).unwrap_or(0),
                overlay: e["overlay"]
                    .as_u64()
                    .and_then(|o| u32::try_from(o).ok())
                    .map(|o| o + overlay_base),
            });
        }
    }
    Snapshot {
        meta,
        elements,
        overlays,
        frames: frame_infos,
        text_included: include_text,
    }
}

fn cookie_from_json(c: &Value) -> Cookie {
    Cookie {
        name: c["name"].as_str().unwrap_or_default().to_string(),
        value: c["value"].as_str().unwrap_or_default().to_string(),
        domain: c["domain"].as_str().unwrap_or_default().to_string(),
        path: c["path"].as_str().unwrap_or("/").to_string(),
        expires: c["expires"].as_f64().filter(|e| *e > 0.0),
        http_only: c["httpOnly"].as_bool().unwrap_or(false),
        secure: c["secure"].as_bool().unwrap_or(false),
        same_site: c["sameSite"].as_str().map(str::to_string),
    }
}

impl types::Host for View<'_, BrowserCtx> {}

impl Host for View<'_, BrowserCtx> {
    async fn open_page(&mut self, session: Option<String>) -> Result<Resource<PageHandle>, Error> {
        self.browser_allowed()?;
        let session = session_name(session)?;
        let live = self.browser.live_for(self.plugin(), &session).await?;
        let context = live
            .context(self.plugin(), &session, &self.grants, &self.scope)
            .await?;
        let target = live.open_tab(&context).await?;
        self.handle_for(session, target, live.generation).await
    }

    async fn list_tabs(&mut self, session: Option<String>) -> Result<Vec<TabInfo>, Error> {
        self.browser_allowed()?;
        let session = session_name(session)?;
        let Some(live) = self.browser.current_for(self.plugin(), &session).await else {
            return Ok(Vec::new());
        };
        let context = live
            .context(self.plugin(), &session, &self.grants, &self.scope)
            .await?;
        Ok(live
            .tabs_of(&context)
            .into_iter()
            .map(|(id, url, title, opener)| TabInfo {
                id,
                url,
                title,
                opener,
            })
            .collect())
    }

    async fn attach_tab(
        &mut self,
        session: Option<String>,
        id: String,
    ) -> Result<Resource<PageHandle>, Error> {
        self.browser_allowed()?;
        let session = session_name(session)?;
        let live = self.browser.live_for(self.plugin(), &session).await?;
        let context = live
            .context(self.plugin(), &session, &self.grants, &self.scope)
            .await?;
        if live.tab_context(&id).as_deref() != Some(context.as_str()) {
            return Err(Error::NotFound(format!(
                "no tab \"{id}\" in session \"{session}\"; list the tabs first"
            )));
        }
        self.handle_for(session, id, live.generation).await
    }

    async fn close_session(&mut self, session: String) -> Result<(), Error> {
        self.browser_allowed()?;
        let session = session_name(Some(session))?;
        let browser = &self.browser;
        if browser
            .close_profile_session(self.plugin(), &session)
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
        Ok(self.browser.sessions_of(self.plugin()).await)
    }

    // Logs, routes, emulation and storage: see `wit_extras.rs`.

    async fn console_messages(
        &mut self,
        page: Resource<PageHandle>,
        since_last: bool,
        clear: bool,
    ) -> Result<ConsoleLog, Error> {
        self.console_messages_impl(page, since_last, clear).await
    }

    async fn network_requests(
        &mut self,
        page: Resource<PageHandle>,
        query: NetworkQuery,
    ) -> Result<NetworkLog, Error> {
        self.network_requests_impl(page, query).await
    }

    async fn add_route(
        &mut self,
        session: Option<String>,
        url_glob: String,
        action: RouteAction,
    ) -> Result<u32, Error> {
        self.add_route_impl(session, url_glob, action).await
    }

    async fn remove_route(&mut self, session: Option<String>, id: u32) -> Result<(), Error> {
        self.remove_route_impl(session, id).await
    }

    async fn list_routes(&mut self, session: Option<String>) -> Result<Vec<Route>, Error> {
        self.list_routes_impl(session).await
    }

    async fn set_emulation(
        &mut self,
        session: Option<String>,
        emulation: Emulation,
    ) -> Result<(), Error> {
        self.set_emulation_impl(session, emulation).await
    }

    async fn get_emulation(&mut self, session: Option<String>) -> Result<Emulation, Error> {
        self.get_emulation_impl(session).await
    }

    async fn storage_items(
        &mut self,
        page: Resource<PageHandle>,
        area: StorageArea,
    ) -> Result<Vec<(String, String)>, Error> {
        self.storage_items_impl(page, area).await
    }

    async fn set_storage_item(
        &mut self,
        page: Resource<PageHandle>,
        area: StorageArea,
        key: String,
        value: Option<String>,
    ) -> Result<(), Error> {
        self.set_storage_item_impl(page, area, key, value).await
    }

    async fn clear_storage(
        &mut self,
        page: Resource<PageHandle>,
        area: StorageArea,
    ) -> Result<(), Error> {
        self.clear_storage_impl(page, area).await
    }

    async fn create_session(
        &mut self,
        session: String,
        profile: Option<String>,
    ) -> Result<(), Error> {
        self.create_session_impl(session, profile).await
    }
}

impl HostPage for View<'_, BrowserCtx> {
    async fn id(&mut self, page: Resource<PageHandle>) -> String {
        self.table()
            .get(&page)
            .map(|h| h.target.clone())
            .unwrap_or_default()
    }

    async fn url(&mut self, page: Resource<PageHandle>) -> Result<String, Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.scrub(&tab.url()?))
    }

    async fn navigate(
        &mut self,
        page: Resource<PageHandle>,
        url: String,
        wait: WaitUntil,
        timeout_ms: u32,
    ) -> Result<String, Error> {
        let parsed = url::Url::parse(&url).map_err(|e| {
            Error::InvalidArgument(format!(
                "\"{url}\" is not an absolute URL ({e}); include the scheme, like https://example.com/"
            ))
        })?;
        self.granted(self.grants.check_browser_origin(&parsed))?;
        let tab = self.tab(&page).await?;
        let started = std::time::Instant::now();
        let result = tab
            .navigate(parsed.as_str(), wait_until(wait), timeout(timeout_ms))
            .await;
        // Origin and path only: the query may carry tokens.
        let target = format!("{}{}", parsed.origin().ascii_serialization(), parsed.path());
        let error = result.as_ref().err().map(BrowserError::kind);
        self.scope.used(&crate::audit::Used {
            capability: "browser.navigate",
            target: &target,
            error,
            duration: started.elapsed(),
            ..Default::default()
        });
        Ok(result?)
    }

    async fn history(
        &mut self,
        page: Resource<PageHandle>,
        delta: i32,
        wait: WaitUntil,
        timeout_ms: u32,
    ) -> Result<String, Error> {
        let tab = self.tab(&page).await?;
        Ok(tab
            .history(delta, wait_until(wait), timeout(timeout_ms))
            .await?)
    }

    async fn reload(
        &mut self,
        page: Resource<PageHandle>,
        wait: WaitUntil,
        timeout_ms: u32,
    ) -> Result<String, Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.reload(wait_until(wait), timeout(timeout_ms)).await?)
    }

    async fn snapshot(
        &mut self,
        page: Resource<PageHandle>,
        include_text: bool,
    ) -> Result<Snapshot, Error> {
        let tab = self.tab(&page).await?;
        let frames = tab.snapshot(include_text).await?;
        Ok(to_wit_snapshot(&tab, frames, include_text))
    }

    async fn click(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        options: ClickOptions,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.click(handle, click(options)).await?)
    }

    async fn click_at(
        &mut self,
        page: Resource<PageHandle>,
        x: f64,
        y: f64,
        options: ClickOptions,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.click_at(x, y, click(options)).await?)
    }

    async fn hover(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.hover(handle).await?)
    }

    async fn focus(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.focus(handle).await?)
    }

    async fn fill(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        text: String,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.fill(handle, &text, false).await?)
    }

    async fn fill_secret(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        name: String,
    ) -> Result<(), Error> {
        self.granted(self.grants.check_secret(&name).map(|_| ()))?;
        let tab = self.tab(&page).await?;
        let (frames, mocked) = tab.secret_target(handle).await?;
        let origin = self.granted(self.grants.check_secret_frames(&name, &frames, mocked))?;
        let source = self.browser.config().secrets.get(&name).ok_or_else(|| {
            Error::NotFound(format!("the manifest defines no [browser.secrets] {name}"))
        })?;
        let value = source
            .resolve()
            .map_err(|why| Error::Io(format!("secret {name} is not available: {why}")))?;
        Ok(tab.type_secret(handle, &value, &origin).await?)
    }

    async fn type_text(
        &mut self,
        page: Resource<PageHandle>,
        text: String,
        delay_ms: u32,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab
            .type_text(&text, Duration::from_millis(u64::from(delay_ms.min(1000))))
            .await?)
    }

    async fn press(&mut self, page: Resource<PageHandle>, keys: String) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.press(&keys).await?)
    }

    async fn select(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        values: Vec<String>,
    ) -> Result<Vec<String>, Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.select(handle, &values).await?)
    }

    async fn set_checked(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        checked: bool,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.set_checked(handle, checked).await?)
    }

    async fn upload(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        paths: Vec<String>,
    ) -> Result<(), Error> {
        if paths.is_empty() {
            return Err(Error::InvalidArgument(
                "give at least one file to upload".into(),
            ));
        }
        let mut files = Vec::with_capacity(paths.len());
        for path in &paths {
            let resolved = self.granted(self.grants.check_upload(path))?;
            files.push(resolved.display().to_string());
        }
        let tab = self.tab(&page).await?;
        Ok(tab.upload(handle, &files).await?)
    }

    async fn scroll_into_view(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.scroll_into_view(handle).await?)
    }

    async fn scroll(
        &mut self,
        page: Resource<PageHandle>,
        handle: Option<u64>,
        dx: f64,
        dy: f64,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.scroll(handle, dx, dy).await?)
    }

    async fn wait_for(
        &mut self,
        page: Resource<PageHandle>,
        condition: WaitCondition,
        timeout_ms: u32,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let t = timeout(timeout_ms);
        match condition {
            WaitCondition::Text(text) => tab.wait_text(&text, false, t).await?,
            WaitCondition::TextGone(text) => tab.wait_text(&text, true, t).await?,
            WaitCondition::Selector(sel) => tab.wait_selector(&sel, t).await?,
            WaitCondition::Url(glob) => tab.wait_url(&glob, t).await?,
        }
        Ok(())
    }

    async fn screenshot(
        &mut self,
        page: Resource<PageHandle>,
        area: ScreenshotArea,
        jpeg: bool,
    ) -> Result<Vec<u8>, Error> {
        let tab = self.tab(&page).await?;
        let area = match area {
            ScreenshotArea::Viewport => Area::Viewport,
            ScreenshotArea::FullPage => Area::FullPage,
            ScreenshotArea::Element(h) => Area::Element(h),
        };
        Ok(tab.screenshot(area, jpeg).await?)
    }

    async fn screenshot_marked(
        &mut self,
        page: Resource<PageHandle>,
        area: ScreenshotArea,
        jpeg: bool,
        marks: Vec<(Rect, String)>,
    ) -> Result<Vec<u8>, Error> {
        let tab = self.tab(&page).await?;
        let area = match area {
            ScreenshotArea::Viewport => Area::Viewport,
            ScreenshotArea::FullPage => Area::FullPage,
            ScreenshotArea::Element(h) => Area::Element(h),
        };
        let marks: Vec<marks::Mark> = marks
            .into_iter()
            .map(|(r, label)| marks::Mark {
                x: r.x,
                y: r.y,
                width: r.width,
                height: r.height,
                label,
            })
            .collect();
        Ok(tab.screenshot_marked(area, jpeg, &marks).await?)
    }

    async fn evaluate(
        &mut self,
        page: Resource<PageHandle>,
        expression: String,
    ) -> Result<String, Error> {
        self.granted(self.grants.check_eval_js())?;
        let tab = self.tab(&page).await?;
        Ok(tab.evaluate(&expression).await?)
    }

    async fn cookies(&mut self, page: Resource<PageHandle>) -> Result<Vec<Cookie>, Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        Ok(tab
            .cookies()
            .await?
            .iter()
            .map(cookie_from_json)
            .map(|mut c| {
                c.value = tab.scrub(&c.value);
                c
            })
            .collect())
    }

    async fn set_cookie(
        &mut self,
        page: Resource<PageHandle>,
        cookie: Cookie,
    ) -> Result<(), Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        let mut params = json!({
            "name": cookie.name, "value": cookie.value, "path": cookie.path,
            "httpOnly": cookie.http_only, "secure": cookie.secure,
        });
        if cookie.domain.is_empty() {
            params["url"] = json!(tab.url()?);
        } else {
            params["domain"] = json!(cookie.domain);
        }
        if let Some(expires) = cookie.expires {
            params["expires"] = json!(expires);
        }
        if let Some(same_site) = cookie.same_site {
            params["sameSite"] = json!(same_site);
        }
        Ok(tab.set_cookie(params).await?)
    }

    async fn clear_cookies(&mut self, page: Resource<PageHandle>) -> Result<(), Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        Ok(tab.clear_cookies().await?)
    }

    async fn dialog(&mut self, page: Resource<PageHandle>) -> Result<Option<DialogInfo>, Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.dialog()?.map(|d| DialogInfo {
            kind: d.kind,
            message: tab.scrub(&d.message),
            default_prompt: d.default_prompt,
        }))
    }

    async fn answer_dialog(
        &mut self,
        page: Resource<PageHandle>,
        accept: bool,
        prompt_text: Option<String>,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.answer_dialog(accept, prompt_text.as_deref()).await?)
    }

    async fn close(&mut self, page: Resource<PageHandle>) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.close().await?)
    }

    async fn drag(
        &mut self,
        page: Resource<PageHandle>,
        from: u64,
        to: DragTarget,
        options: DragOptions,
    ) -> Result<DragKind, Error> {
        let tab = self.tab(&page).await?;
        let to = match to {
            DragTarget::Element(h) => pointer::DragTo::Element(h),
            DragTarget::Point(p) => pointer::DragTo::Point(p.x, p.y),
            DragTarget::Offset(p) => pointer::DragTo::Offset(p.x, p.y),
        };
        Ok(
            match tab.drag(from, to, options.steps, options.touch).await? {
                pointer::DragKind::Mouse => DragKind::Mouse,
                pointer::DragKind::Html5 => DragKind::Html5,
                pointer::DragKind::Touch => DragKind::Touch,
            },
        )
    }

    async fn tap(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.tap(handle).await?)
    }

    async fn force_click(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        Ok(tab.force_click(handle).await?)
    }

    async fn pdf(
        &mut self,
        page: Resource<PageHandle>,
        options: PdfOptions,
    ) -> Result<Vec<u8>, Error> {
        let tab = self.tab(&page).await?;
        let paper = match (options.paper_width, options.paper_height) {
            (None, None) => None,
            (Some(w), Some(h)) => Some((w, h)),
            _ => {
                return Err(Error::InvalidArgument(
                    "give both paper-width and paper-height, or neither".into(),
                ));
            }
        };
        Ok(tab
            .pdf(&pdf::PdfOptions {
                landscape: options.landscape,
                print_background: options.print_background,
                page_ranges: options.page_ranges,
                paper,
            })
            .await?)
    }

    async fn extract(
        &mut self,
        page: Resource<PageHandle>,
        format: ContentFormat,
    ) -> Result<PageContent, Error> {
        let tab = self.tab(&page).await?;
        let format = match format {
            ContentFormat::Text => crate::content::Format::Text,
            ContentFormat::Markdown => crate::content::Format::Markdown,
            ContentFormat::Html => crate::content::Format::Html,
        };
        let read = tab.extract(format).await?;
        Ok(PageContent {
            title: tab.scrub(&read.title),
            url: tab.scrub(&read.url),
            content: tab.scrub(&read.content),
            source: read.source.to_string(),
        })
    }

    async fn drop(&mut self, page: Resource<PageHandle>) -> wasmtime::Result<()> {
        // Dropping the handle keeps the tab: the plugin may attach to it again by id.
        let _ = self.table().delete(page);
        Ok(())
    }
}
