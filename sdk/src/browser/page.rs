//! A tab (`Page`) and the calls that open, find and close tabs and sessions.

use std::time::Duration;

use super::options::{Area, DragTo, WaitCondition, WaitUntil};
use crate::CapabilityError;
use crate::bindings::warden::browser::browser as wit;
use wit::{
    ClickOptions, ContentFormat, Cookie, DialogInfo, Download, DragKind, PageContent, PdfOptions,
    Rect, SearchResult, Snapshot, TabInfo,
};

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

/// One tab in a named, isolated browser session. Dropping it releases the handle but keeps
/// the tab; call [`Page::close`] to close it.
#[derive(Debug)]
pub struct Page(pub(super) wit::Page);

/// Opens a tab in `session` (created on first use; `"default"` when `None`).
pub fn open_page(session: Option<&str>) -> Result<Page, CapabilityError> {
    Ok(Page(wit::open_page(session)?))
}

/// The first tab of `session`, or a new one when it has none (the session is created on
/// first use). Calls of one agent that race to its first tab share one, where each
/// [`open_page`] would open its own.
pub fn first_page(session: Option<&str>) -> Result<Page, CapabilityError> {
    Ok(Page(wit::first_page(session)?))
}

/// Page `page` (from 1) of the web search results for `query`, from the manifest's
/// `[search]` backend: `NotFound` when none is configured, `AccessDenied` unless its origin
/// is in the plugin's `grants.browser.origins`.
pub fn search(query: &str, page: u32) -> Result<Vec<SearchResult>, CapabilityError> {
    Ok(wit::search(query, page)?)
}

/// The tabs of `session`, including tabs its pages opened.
pub fn list_tabs(session: Option<&str>) -> Result<Vec<TabInfo>, CapabilityError> {
    Ok(wit::list_tabs(session)?)
}

/// Takes hold of a tab of `session` by id (such as a popup found with [`list_tabs`]).
pub fn attach_tab(session: Option<&str>, id: &str) -> Result<Page, CapabilityError> {
    Ok(Page(wit::attach_tab(session, id)?))
}

/// Closes a session with all its tabs and cookies.
pub fn close_session(session: &str) -> Result<(), CapabilityError> {
    Ok(wit::close_session(session)?)
}

/// The sessions this plugin has open.
pub fn list_sessions() -> Result<Vec<String>, CapabilityError> {
    Ok(wit::list_sessions()?)
}

impl Page {
    /// The tab's id, stable for its life.
    pub fn id(&self) -> String {
        self.0.id()
    }

    /// The page's current URL.
    pub fn url(&self) -> Result<String, CapabilityError> {
        Ok(self.0.url()?)
    }

    /// Navigates to `url`, waiting until `wait_until` or `timeout`; returns the final URL.
    /// Fails with access-denied when the URL's (or a redirect's) origin is not granted.
    pub fn navigate(
        &self,
        url: &str,
        wait_until: WaitUntil,
        timeout: Duration,
    ) -> Result<String, CapabilityError> {
        Ok(self.0.navigate(url, wait_until.into(), millis(timeout))?)
    }

    /// Moves through the tab's history: -1 is back, 1 is forward.
    pub fn history(
        &self,
        delta: i32,
        wait_until: WaitUntil,
        timeout: Duration,
    ) -> Result<String, CapabilityError> {
        Ok(self.0.history(delta, wait_until.into(), millis(timeout))?)
    }

    pub fn reload(
        &self,
        wait_until: WaitUntil,
        timeout: Duration,
    ) -> Result<String, CapabilityError> {
        Ok(self.0.reload(wait_until.into(), millis(timeout))?)
    }

    /// The page's elements (and its text blocks when `include_text`).
    pub fn snapshot(&self, include_text: bool) -> Result<Snapshot, CapabilityError> {
        Ok(self.0.snapshot(include_text)?)
    }

    pub fn click(&self, handle: u64, options: ClickOptions) -> Result<(), CapabilityError> {
        Ok(self.0.click(handle, options)?)
    }

    pub fn click_at(&self, x: f64, y: f64, options: ClickOptions) -> Result<(), CapabilityError> {
        Ok(self.0.click_at(x, y, options)?)
    }

    pub fn hover(&self, handle: u64) -> Result<(), CapabilityError> {
        Ok(self.0.hover(handle)?)
    }

    pub fn focus(&self, handle: u64) -> Result<(), CapabilityError> {
        Ok(self.0.focus(handle)?)
    }

    /// Replaces a text field's value.
    pub fn fill(&self, handle: u64, text: &str) -> Result<(), CapabilityError> {
        Ok(self.0.fill(handle, text)?)
    }

    /// Fills a field with the manifest's secret `name`; the value never reaches the plugin.
    pub fn fill_secret(&self, handle: u64, name: &str) -> Result<(), CapabilityError> {
        Ok(self.0.fill_secret(handle, name)?)
    }

    /// Checks that [`Page::fill`] (or [`Page::fill_secret`] with `secret`) would take the
    /// element, changing nothing; check every field of a batch before filling the first.
    pub fn check_fill(&self, handle: u64, secret: Option<&str>) -> Result<(), CapabilityError> {
        Ok(self.0.check_fill(handle, secret)?)
    }

    /// Types into the focused element key by key.
    pub fn type_text(&self, text: &str, delay: Duration) -> Result<(), CapabilityError> {
        Ok(self.0.type_text(text, millis(delay))?)
    }

    /// Presses a key or combination such as `Enter` or `Control+A`.
    pub fn press(&self, keys: &str) -> Result<(), CapabilityError> {
        Ok(self.0.press(keys)?)
    }

    /// Selects options of a `<select>` by value or label; returns the selected values.
    pub fn select(&self, handle: u64, values: &[String]) -> Result<Vec<String>, CapabilityError> {
        Ok(self.0.select(handle, values)?)
    }

    pub fn set_checked(&self, handle: u64, checked: bool) -> Result<(), CapabilityError> {
        Ok(self.0.set_checked(handle, checked)?)
    }

    /// Puts host files (under the grant's `upload_dirs`) into a file input.
    pub fn upload(&self, handle: u64, paths: &[String]) -> Result<(), CapabilityError> {
        Ok(self.0.upload(handle, paths)?)
    }

    pub fn scroll_into_view(&self, handle: u64) -> Result<(), CapabilityError> {
        Ok(self.0.scroll_into_view(handle)?)
    }

    /// Scrolls the page (or the element under `handle`) by a delta in CSS pixels.
    pub fn scroll(&self, handle: Option<u64>, dx: f64, dy: f64) -> Result<(), CapabilityError> {
        Ok(self.0.scroll(handle, dx, dy)?)
    }

    pub fn wait_for(
        &self,
        condition: WaitCondition,
        timeout: Duration,
    ) -> Result<(), CapabilityError> {
        let condition = match condition {
            WaitCondition::Text(t) => wit::WaitCondition::Text(t),
            WaitCondition::TextGone(t) => wit::WaitCondition::TextGone(t),
            WaitCondition::Selector(s) => wit::WaitCondition::Selector(s),
            WaitCondition::Url(u) => wit::WaitCondition::Url(u),
        };
        Ok(self.0.wait_for(&condition, millis(timeout))?)
    }

    /// PNG (or JPEG) bytes.
    pub fn screenshot(&self, area: Area, jpeg: bool) -> Result<Vec<u8>, CapabilityError> {
        let area = match area {
            Area::Viewport => wit::ScreenshotArea::Viewport,
            Area::FullPage => wit::ScreenshotArea::FullPage,
            Area::Element(h) => wit::ScreenshotArea::Element(h),
        };
        Ok(self.0.screenshot(area, jpeg)?)
    }

    /// A screenshot with each rect (main-frame viewport, CSS pixels) framed and tagged with
    /// its label: set-of-mark for vision models.
    pub fn screenshot_marked(
        &self,
        area: Area,
        jpeg: bool,
        marks: &[(Rect, String)],
    ) -> Result<Vec<u8>, CapabilityError> {
        let area = match area {
            Area::Viewport => wit::ScreenshotArea::Viewport,
            Area::FullPage => wit::ScreenshotArea::FullPage,
            Area::Element(h) => wit::ScreenshotArea::Element(h),
        };
        Ok(self.0.screenshot_marked(area, jpeg, marks)?)
    }

    /// Evaluates JavaScript in the page (grant `browser.eval_js`); the result as JSON text.
    pub fn evaluate(&self, expression: &str) -> Result<String, CapabilityError> {
        Ok(self.0.evaluate(expression)?)
    }

    /// Cookies for the page's URL (grant `browser.cookies`).
    pub fn cookies(&self) -> Result<Vec<Cookie>, CapabilityError> {
        Ok(self.0.cookies()?)
    }

    pub fn set_cookie(&self, cookie: &Cookie) -> Result<(), CapabilityError> {
        Ok(self.0.set_cookie(cookie)?)
    }

    pub fn clear_cookies(&self) -> Result<(), CapabilityError> {
        Ok(self.0.clear_cookies()?)
    }

    /// The JavaScript dialog waiting for an answer, if any.
    pub fn dialog(&self) -> Result<Option<DialogInfo>, CapabilityError> {
        Ok(self.0.dialog()?)
    }

    pub fn answer_dialog(
        &self,
        accept: bool,
        prompt_text: Option<&str>,
    ) -> Result<(), CapabilityError> {
        Ok(self.0.answer_dialog(accept, prompt_text)?)
    }

    /// Presses on `from`, moves in `steps` moves (0: the host's default) to `to` and
    /// releases; with `touch`, a swipe with a finger. A native HTML5 drag the page starts is
    /// dropped on the target.
    pub fn drag(
        &self,
        from: u64,
        to: DragTo,
        steps: u32,
        touch: bool,
    ) -> Result<DragKind, CapabilityError> {
        let to = match to {
            DragTo::Element(h) => wit::DragTarget::Element(h),
            DragTo::Point(x, y) => wit::DragTarget::Point(wit::Point { x, y }),
            DragTo::Offset(x, y) => wit::DragTarget::Offset(wit::Point { x, y }),
        };
        Ok(self.0.drag(from, to, wit::DragOptions { steps, touch })?)
    }

    /// Taps an element with a finger (the tab becomes a touch device).
    pub fn tap(&self, handle: u64) -> Result<(), CapabilityError> {
        Ok(self.0.tap(handle)?)
    }

    /// Clicks the element itself with a DOM click, without the enabled and not-covered
    /// checks of [`Page::click`].
    pub fn force_click(&self, handle: u64) -> Result<(), CapabilityError> {
        Ok(self.0.force_click(handle)?)
    }

    /// Prints the page to PDF; the PDF bytes.
    pub fn pdf(&self, options: &PdfOptions) -> Result<Vec<u8>, CapabilityError> {
        Ok(self.0.pdf(options)?)
    }

    /// The page's main content as text or Markdown, or its HTML, extracted by the host.
    pub fn extract(&self, format: ContentFormat) -> Result<PageContent, CapabilityError> {
        Ok(self.0.extract(format)?)
    }

    /// Closes the tab.
    pub fn close(self) -> Result<(), CapabilityError> {
        Ok(self.0.close()?)
    }

    /// The downloads of this tab's session (the newest 64), oldest first.
    pub fn downloads(&self) -> Result<Vec<Download>, CapabilityError> {
        Ok(self.0.downloads()?)
    }

    /// The session's downloads that started or changed status since the last call.
    pub fn download_news(&self) -> Result<Vec<Download>, CapabilityError> {
        Ok(self.0.download_news()?)
    }

    /// Waits until the session has a download and none is in progress; false on timeout.
    pub fn wait_downloads(&self, timeout: Duration) -> Result<bool, CapabilityError> {
        Ok(self.0.wait_downloads(millis(timeout))?)
    }
}
