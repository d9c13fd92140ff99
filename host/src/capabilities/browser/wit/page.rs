//! The `page` resource: navigation, actions on element handles, waits, output, cookies and
//! dialogs. Each call checks its grant, then hands the work to the tab (`../tab/`).

use super::super::bindings::warden::browser::browser::{
    ClickOptions, ContentFormat, Cookie, DialogInfo, Download, DragKind, DragOptions, DragTarget,
    HostPage, MouseButton, PageContent, PdfOptions, Rect, ScreenshotArea, Snapshot, WaitCondition,
    WaitUntil,
};
use super::super::bindings::warden::browser::types::Error;
use super::super::error::BrowserError;
use super::super::guard::Guard;
use super::super::keys::{self, Clipboard};
use super::super::model::hold::{self as holding, Door};
use super::super::tab::{self, Area};
use super::ctx::BrowserCtx;
use super::handle::PageHandle;
use super::snapshot::to_wit_snapshot;
use super::{click, cookie_from_json, timeout, wait_until};
use crate::capabilities::View;
use serde_json::json;
use std::time::Duration;
use wasmtime::component::Resource;

impl HostPage for View<'_, BrowserCtx> {
    async fn id(&mut self, page: Resource<PageHandle>) -> String {
        self.table()
            .get(&page)
            .map(|h| h.target.clone())
            .unwrap_or_default()
    }

    async fn url(&mut self, page: Resource<PageHandle>) -> Result<String, Error> {
        let tab = self.shown_tab(&page).await?;
        Ok(tab.shown_url()?)
    }

    async fn navigate(
        &mut self,
        page: Resource<PageHandle>,
        url: String,
        wait: WaitUntil,
        timeout_ms: u32,
    ) -> Result<String, Error> {
        let to = self.navigation(Guard::Browser, &url)?;
        let tab = self.shown_tab(&page).await?;
        let started = std::time::Instant::now();
        let limit = timeout(timeout_ms);
        // The fast path first, when allowed: a page that needs the browser goes to it, which
        // is answered from the response the host already holds.
        let fast = if self.static_pages(&page).await {
            Some(tab.read_static(&to, limit).await)
        } else {
            None
        };
        let (result, detail) = match fast {
            Some(Ok(tab::StaticOutcome::Read)) => {
                (Ok(()), Some("read by the host, no script".to_string()))
            }
            // A page that did not answer in time, or a tab that is gone, fails as it would in
            // the browser; anything else the host could not do, the browser does.
            Some(Err(
                e @ (BrowserError::Timeout(_) | BrowserError::NotFound(_) | BrowserError::Gone(_)),
            )) => (Err(e), None),
            outcome => {
                // The fast path left the tab without a view of its own, and perhaps with a
                // response for the browser; without it, a view of an earlier page goes now.
                let ready = match &outcome {
                    Some(_) => Ok(()),
                    None => tab.drop_static(),
                };
                let why = match outcome {
                    Some(Ok(tab::StaticOutcome::Browser(why))) => {
                        Some(format!("loaded in the browser: {why}"))
                    }
                    Some(Err(e)) => Some(format!(
                        "loaded in the browser: the host could not read it: {e}"
                    )),
                    Some(Ok(tab::StaticOutcome::Read)) | None => None,
                };
                let loaded = match ready {
                    Ok(()) => tab.navigate(&to, wait_until(wait), limit).await.map(drop),
                    Err(e) => Err(e),
                };
                // A held response the browser did not ask for (it went elsewhere) is dropped.
                let _ = tab.state(|t| t.prefetched = None);
                (loaded, why)
            }
        };
        // Recorded before the audit line is written: the line's moment shows the new URL.
        self.record_action(
            &page,
            &tab,
            "navigate",
            json!({"url": tab.scrub(&url)}),
            result.as_ref().err(),
        );
        // Origin and path only: the query may carry tokens.
        let target = to.audit_target();
        let error = result.as_ref().err().map(BrowserError::kind);
        let recording = self.recording(&page).and_then(|r| r.link());
        self.scope.used(&crate::audit::Used {
            capability: "browser.navigate",
            target: &target,
            error,
            duration: started.elapsed(),
            detail: detail.as_deref(),
            recording,
            ..Default::default()
        });
        result?;
        Ok(tab.shown_url()?)
    }

    async fn history(
        &mut self,
        page: Resource<PageHandle>,
        delta: i32,
        wait: WaitUntil,
        timeout_ms: u32,
    ) -> Result<String, Error> {
        let tab = self.tab(&page).await?;
        let r = tab
            .history(delta, wait_until(wait), timeout(timeout_ms))
            .await;
        self.record_action(
            &page,
            &tab,
            "history",
            json!({"delta": delta}),
            r.as_ref().err(),
        );
        r?;
        Ok(tab.shown_url()?)
    }

    async fn reload(
        &mut self,
        page: Resource<PageHandle>,
        wait: WaitUntil,
        timeout_ms: u32,
    ) -> Result<String, Error> {
        let tab = self.tab(&page).await?;
        let r = tab.reload(wait_until(wait), timeout(timeout_ms)).await;
        self.record_action(&page, &tab, "reload", json!({}), r.as_ref().err());
        r?;
        Ok(tab.shown_url()?)
    }

    async fn snapshot(
        &mut self,
        page: Resource<PageHandle>,
        include_text: bool,
    ) -> Result<Snapshot, Error> {
        let tab = self.shown_tab(&page).await?;
        // A page that holds a secret gives its elements, not its text (`model/hold.rs`).
        let held = tab.holds_secret()?;
        let include_text = include_text && !held;
        let frames = tab.snapshot(include_text).await?;
        let mut snapshot = to_wit_snapshot(&tab, &frames, include_text);
        if held {
            super::snapshot::neutralise(&mut snapshot, tab.shown_url()?, tab.shown_title()?);
        }
        self.record_snapshot(&page, &tab, &snapshot);
        Ok(snapshot)
    }

    async fn click(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        options: ClickOptions,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        self.no_middle_paste(&tab, &options)?;
        let r = tab.click(handle, click(options)).await;
        self.record_action(
            &page,
            &tab,
            "click",
            json!({"ref": handle}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn click_at(
        &mut self,
        page: Resource<PageHandle>,
        x: f64,
        y: f64,
        options: ClickOptions,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        self.no_middle_paste(&tab, &options)?;
        let r = tab.click_at(x, y, click(options)).await;
        self.record_action(
            &page,
            &tab,
            "click_at",
            json!({"x": x, "y": y}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn hover(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.hover(handle).await;
        self.record_action(
            &page,
            &tab,
            "hover",
            json!({"ref": handle}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn focus(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.focus(handle).await;
        self.record_action(
            &page,
            &tab,
            "focus",
            json!({"ref": handle}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn fill(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        text: String,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.fill(handle, &text, false).await;
        self.record_action(
            &page,
            &tab,
            "fill",
            json!({"ref": handle, "text": text}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn check_fill(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        secret: Option<String>,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        if let Some(name) = &secret {
            self.granted(self.grants.check_secret(name).map(|_| ()))?;
            let (frames, mocked) = tab.secret_target(handle).await?;
            self.granted(self.grants.check_secret_frames(name, &frames, mocked))?;
            self.secret_source(name)?;
        }
        Ok(tab.check_fill(handle, secret.is_some()).await?)
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
        let source = self.secret_source(&name)?;
        let value = source
            .resolve()
            .map_err(|why| Error::Io(format!("secret {name} is not available: {why}")))?;
        let r = tab.type_secret(handle, &value, &origin).await;
        self.record_action(
            &page,
            &tab,
            "fill_secret",
            json!({"ref": handle, "secret": name}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn type_text(
        &mut self,
        page: Resource<PageHandle>,
        text: String,
        delay_ms: u32,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab
            .type_text(&text, Duration::from_millis(u64::from(delay_ms.min(1000))))
            .await;
        self.record_action(&page, &tab, "type", json!({"text": text}), r.as_ref().err());
        Ok(r?)
    }

    async fn press(&mut self, page: Resource<PageHandle>, combo: String) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        // Keys that move text through the clipboard (`model/hold.rs`): no copy out of a page
        // that holds a secret, no paste anywhere once a tab of the browser held one.
        let (modifiers, key) = keys::combo(&combo).map_err(Error::InvalidArgument)?;
        match keys::clipboard_use(modifiers, &key) {
            Some(Clipboard::Copy) => self.unheld(&tab, Door::Copy)?,
            Some(Clipboard::Paste) if tab.browser_held_secret() => {
                return Err(self.held(&tab, Door::Paste));
            }
            _ => {}
        }
        let r = tab.press(&combo).await;
        self.record_action(
            &page,
            &tab,
            "press",
            json!({"keys": combo}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn select(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        values: Vec<String>,
    ) -> Result<Vec<String>, Error> {
        let tab = self.tab(&page).await?;
        let r = tab.select(handle, &values).await;
        self.record_action(
            &page,
            &tab,
            "select",
            json!({"ref": handle, "values": values}),
            r.as_ref().err(),
        );
        Ok(r?.iter().map(|v| tab.scrub(v)).collect())
    }

    async fn set_checked(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
        checked: bool,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.set_checked(handle, checked).await;
        self.record_action(
            &page,
            &tab,
            "set_checked",
            json!({"ref": handle, "checked": checked}),
            r.as_ref().err(),
        );
        Ok(r?)
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
            files.push(self.granted(self.grants.check_upload(path))?);
        }
        let tab = self.tab(&page).await?;
        let files = tab.live.stage_uploads(&files)?;
        let r = tab.upload(handle, &files).await;
        self.record_action(
            &page,
            &tab,
            "upload",
            json!({"ref": handle, "files": paths}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn scroll_into_view(
        &mut self,
        page: Resource<PageHandle>,
        handle: u64,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.scroll_into_view(handle).await;
        self.record_action(
            &page,
            &tab,
            "scroll_into_view",
            json!({"ref": handle}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn scroll(
        &mut self,
        page: Resource<PageHandle>,
        handle: Option<u64>,
        dx: f64,
        dy: f64,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.scroll(handle, dx, dy).await;
        self.record_action(
            &page,
            &tab,
            "scroll",
            json!({"ref": handle, "dx": dx, "dy": dy}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn wait_for(
        &mut self,
        page: Resource<PageHandle>,
        condition: WaitCondition,
        timeout_ms: u32,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let t = timeout(timeout_ms);
        self.record_action(
            &page,
            &tab,
            "wait_for",
            json!({"condition": format!("{condition:?}")}),
            None,
        );
        match condition {
            // An answer that depends on the page's text is an oracle on a secret it shows.
            WaitCondition::Text(text) => {
                self.unheld(&tab, Door::WaitForText)?;
                tab.wait_text(&text, false, t).await?
            }
            WaitCondition::TextGone(text) => {
                self.unheld(&tab, Door::WaitForText)?;
                tab.wait_text(&text, true, t).await?
            }
            WaitCondition::Selector(sel) => {
                self.unheld(&tab, Door::WaitForText)?;
                tab.wait_selector(&sel, t).await?
            }
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
        self.unheld(&tab, Door::Screenshot)?;
        let area = screenshot_area(area);
        let image = tab.screenshot(area, jpeg).await?;
        self.record_screenshot(&page, &tab, jpeg, &image);
        Ok(image)
    }

    async fn screenshot_marked(
        &mut self,
        page: Resource<PageHandle>,
        area: ScreenshotArea,
        jpeg: bool,
        marks: Vec<(Rect, String)>,
    ) -> Result<Vec<u8>, Error> {
        let tab = self.tab(&page).await?;
        self.unheld(&tab, Door::Screenshot)?;
        let area = screenshot_area(area);
        let marks: Vec<super::super::marks::Mark> = marks
            .into_iter()
            .map(|(r, label)| super::super::marks::Mark {
                x: r.x,
                y: r.y,
                width: r.width,
                height: r.height,
                label,
            })
            .collect();
        let image = tab.screenshot_marked(area, jpeg, &marks).await?;
        self.record_screenshot(&page, &tab, jpeg, &image);
        Ok(image)
    }

    async fn evaluate(
        &mut self,
        page: Resource<PageHandle>,
        expression: String,
    ) -> Result<String, Error> {
        self.granted(self.grants.check_eval_js())?;
        let tab = self.tab(&page).await?;
        let r = tab.evaluate(&expression).await;
        self.record_action(
            &page,
            &tab,
            "evaluate",
            json!({"expression": expression}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn cookies(&mut self, page: Resource<PageHandle>) -> Result<Vec<Cookie>, Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        self.unheld(&tab, Door::Cookies)?;
        // A page of an origin a secret was typed into may have put it in a cookie of its
        // host or a parent domain: those values stay in the browser (`model/hold.rs`).
        let secret_origins = tab.secret_origins()?;
        Ok(tab
            .cookies()
            .await?
            .iter()
            .map(cookie_from_json)
            .map(|mut c| {
                c.value = if holding::cookie_of_secret_origin(&c.domain, &secret_origins) {
                    holding::WITHHELD_VALUE.to_string()
                } else {
                    tab.scrub(&c.value)
                };
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
        let named = (cookie.name.clone(), cookie.domain.clone());
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
        let r = tab.set_cookie(params).await;
        self.record_action(
            &page,
            &tab,
            "set_cookie",
            json!({"name": named.0, "domain": named.1}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn clear_cookies(&mut self, page: Resource<PageHandle>) -> Result<(), Error> {
        self.granted(self.grants.check_browser_cookies())?;
        let tab = self.tab(&page).await?;
        let r = tab.clear_cookies().await;
        self.record_action(&page, &tab, "clear_cookies", json!({}), r.as_ref().err());
        Ok(r?)
    }

    async fn dialog(&mut self, page: Resource<PageHandle>) -> Result<Option<DialogInfo>, Error> {
        let tab = self.shown_tab(&page).await?;
        let held = tab.holds_secret()?;
        let shown = |text: &str| {
            if held {
                holding::WITHHELD.to_string()
            } else {
                tab.scrub(text)
            }
        };
        Ok(tab.dialog()?.map(|d| DialogInfo {
            kind: d.kind,
            message: shown(&d.message),
            default_prompt: shown(&d.default_prompt),
        }))
    }

    async fn answer_dialog(
        &mut self,
        page: Resource<PageHandle>,
        accept: bool,
        prompt_text: Option<String>,
    ) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.answer_dialog(accept, prompt_text.as_deref()).await;
        self.record_action(
            &page,
            &tab,
            "answer_dialog",
            json!({"accept": accept, "text": prompt_text}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn close(&mut self, page: Resource<PageHandle>) -> Result<(), Error> {
        let tab = self.shown_tab(&page).await?;
        let r = tab.close().await;
        self.record_action(&page, &tab, "close", json!({}), r.as_ref().err());
        Ok(r?)
    }

    async fn downloads(&mut self, page: Resource<PageHandle>) -> Result<Vec<Download>, Error> {
        let tab = self.shown_tab(&page).await?;
        Ok(super::downloads::list(&tab)?)
    }

    async fn download_news(&mut self, page: Resource<PageHandle>) -> Result<Vec<Download>, Error> {
        let tab = self.shown_tab(&page).await?;
        Ok(super::downloads::news(&tab)?)
    }

    async fn wait_downloads(
        &mut self,
        page: Resource<PageHandle>,
        timeout_ms: u32,
    ) -> Result<bool, Error> {
        let tab = self.shown_tab(&page).await?;
        Ok(super::downloads::wait(&tab, timeout(timeout_ms)).await?)
    }

    async fn drag(
        &mut self,
        page: Resource<PageHandle>,
        from: u64,
        to: DragTarget,
        options: DragOptions,
    ) -> Result<DragKind, Error> {
        let tab = self.tab(&page).await?;
        self.unheld(&tab, Door::Drag)?;
        let to = match to {
            DragTarget::Element(h) => tab::DragTo::Element(h),
            DragTarget::Point(p) => tab::DragTo::Point(p.x, p.y),
            DragTarget::Offset(p) => tab::DragTo::Offset(p.x, p.y),
        };
        let target = format!("{to:?}");
        let r = tab.drag(from, to, options.steps, options.touch).await;
        self.record_action(
            &page,
            &tab,
            "drag",
            json!({"from": from, "to": target}),
            r.as_ref().err(),
        );
        Ok(match r? {
            tab::DragKind::Mouse => DragKind::Mouse,
            tab::DragKind::Html5 => DragKind::Html5,
            tab::DragKind::Touch => DragKind::Touch,
        })
    }

    async fn tap(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.tap(handle).await;
        self.record_action(&page, &tab, "tap", json!({"ref": handle}), r.as_ref().err());
        Ok(r?)
    }

    async fn force_click(&mut self, page: Resource<PageHandle>, handle: u64) -> Result<(), Error> {
        let tab = self.tab(&page).await?;
        let r = tab.force_click(handle).await;
        self.record_action(
            &page,
            &tab,
            "force_click",
            json!({"ref": handle}),
            r.as_ref().err(),
        );
        Ok(r?)
    }

    async fn pdf(
        &mut self,
        page: Resource<PageHandle>,
        options: PdfOptions,
    ) -> Result<Vec<u8>, Error> {
        let tab = self.tab(&page).await?;
        self.unheld(&tab, Door::Pdf)?;
        self.record_action(&page, &tab, "pdf", json!({}), None);
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
            .pdf(&tab::PdfOptions {
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
        let tab = self.shown_tab(&page).await?;
        self.unheld(&tab, Door::Extract)?;
        let format = match format {
            ContentFormat::Text => crate::content::Format::Text,
            ContentFormat::Markdown => crate::content::Format::Markdown,
            ContentFormat::Html => crate::content::Format::Html,
        };
        let read = tab.extract(format).await?;
        self.record_action(
            &page,
            &tab,
            "extract",
            json!({"format": format!("{format:?}")}),
            None,
        );
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

impl View<'_, BrowserCtx> {
    /// A middle click pastes the selection on Linux: refused once a tab of the browser held
    /// a secret (`model/hold.rs`).
    fn no_middle_paste(&self, tab: &tab::Tab, options: &ClickOptions) -> Result<(), Error> {
        if matches!(options.button, MouseButton::Middle) && tab.browser_held_secret() {
            return Err(self.held(tab, Door::MiddleClick));
        }
        Ok(())
    }
}

fn screenshot_area(area: ScreenshotArea) -> Area {
    match area {
        ScreenshotArea::Viewport => Area::Viewport,
        ScreenshotArea::FullPage => Area::FullPage,
        ScreenshotArea::Element(h) => Area::Element(h),
    }
}
