//! `warden:capture/page`: pages captured in the capture browser, the host's own Chromium on
//! the persistent `[capture] profile_dir`, where the user may already be logged in. The
//! plugin gets content and (granted) cookies, never the credentials or a credentialed socket.
//!
//! Every URL the capture tab loads, redirects and frames included, passes the browser
//! provider's origin guard on `grants.capture.origins`. Each call opens its own tab and closes
//! it when the call ends: on success, error and timeout explicitly, and through `Drop` when the
//! call is abandoned (the plugin's call_timeout).

use crate::capabilities::HostServices;
use crate::capabilities::browser::provider::{BrowserError, Live, Owner};
use crate::capabilities::browser::tab::{Tab, WaitUntil as TabWait};
use crate::manifest::grants::Grants;
use crate::runtime::bindings::warden::capture::page::{
    Capture, CaptureRequest, Cookie, Cookies, Format, Host, LoginRequest, WaitUntil,
};
use crate::runtime::bindings::warden::capture::types::Error;
use crate::runtime::sandbox::GuestScope;
use crate::runtime::state::PluginState;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use url::Url;

const CAPABILITY: &str = "capture.page";
const EXTRACT_JS: &str = include_str!("extract.js");
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(120);
/// How long closing a tab may take before the call returns anyway.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

fn error(e: BrowserError) -> Error {
    match e {
        BrowserError::Denied(m) => Error::AccessDenied(m),
        BrowserError::NotFound(m) => Error::NotFound(m),
        BrowserError::Timeout(m) => Error::Timeout(m),
        BrowserError::Invalid(m) => Error::InvalidArgument(m),
        BrowserError::Io(m) => Error::Io(m),
    }
}

fn millis(ms: u32, default: Duration) -> Duration {
    if ms == 0 {
        default
    } else {
        Duration::from_millis(ms.into())
    }
}

fn wait_until(w: WaitUntil) -> TabWait {
    match w {
        WaitUntil::Load => TabWait::Load,
        WaitUntil::DomContentLoaded => TabWait::DomContentLoaded,
        WaitUntil::NetworkIdle => TabWait::NetworkIdle,
    }
}

/// A tab opened for one call; closed when the call ends, whichever way it ends.
struct CallTab {
    tab: Tab,
    closed: bool,
}

impl CallTab {
    /// Close the tab and wait until the browser reports it gone; returns the tabs still open.
    async fn close(mut self) -> usize {
        self.closed = true;
        if let Err(e) = self.tab.close().await {
            tracing::debug!("closing a capture tab failed: {e}");
        }
        self.tab
            .live
            .wait_closed(&self.tab.target, CLOSE_WAIT)
            .await;
        self.tab.live.owned_tab_count()
    }
}

impl Drop for CallTab {
    fn drop(&mut self) {
        if !self.closed {
            let tab = self.tab.clone();
            tokio::spawn(async move {
                let _ = tab.close().await;
            });
        }
    }
}

/// Does a cookie's domain attribute apply to `host`?
fn cookie_matches(domain: &str, host: &str) -> bool {
    let d = domain.trim_start_matches('.');
    host.eq_ignore_ascii_case(d)
        || (domain.starts_with('.') && host.to_ascii_lowercase().ends_with(&format!(".{d}")))
}

fn cookie(c: &Value) -> Cookie {
    Cookie {
        name: c["name"].as_str().unwrap_or_default().to_string(),
        value: c["value"].as_str().unwrap_or_default().to_string(),
        domain: c["domain"].as_str().unwrap_or_default().to_string(),
        path: c["path"].as_str().unwrap_or("/").to_string(),
        http_only: c["httpOnly"].as_bool().unwrap_or(false),
        secure: c["secure"].as_bool().unwrap_or(false),
        expires: c["expires"].as_f64().filter(|e| *e > 0.0),
    }
}

impl PluginState {
    /// Parse `url` and check it against `grants.capture.origins`, auditing a refusal.
    fn capture_url(&self, url: &str) -> Result<Url, Error> {
        let parsed = Url::parse(url).map_err(|e| {
            Error::InvalidArgument(format!("\"{url}\" is not an absolute URL: {e}"))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::InvalidArgument(format!(
                "only http and https pages can be captured, not {}:",
                parsed.scheme()
            )));
        }
        self.grants
            .check_capture_origin(&parsed)
            .map_err(|d| Error::AccessDenied(self.refuse(CAPABILITY, &d)))?;
        Ok(parsed)
    }

    fn check_cookies(&self, url: &Url) -> Result<(), Error> {
        self.grants
            .check_capture_cookies(url, false)
            .map_err(|d| Error::AccessDenied(self.refuse(CAPABILITY, &d)))
    }

    /// What the awaiting part of a call needs (the state itself is not `Sync`).
    fn ctx(&self) -> Ctx {
        Ctx {
            grants: self.grants.clone(),
            scope: self.scope.clone(),
            services: self.services.clone(),
        }
    }

    /// Log the request with its context (plugin, tool, client); never cookie values.
    fn log_request(
        &self,
        what: &str,
        url: &Url,
        outcome: &Result<impl Sized, Error>,
        open_tabs: usize,
    ) {
        tracing::info!(
            plugin = %self.plugin(),
            tool = %self.scope.current_tool(),
            client = self.call.client.as_deref().unwrap_or("-"),
            origin = %url.origin().ascii_serialization(),
            ok = outcome.is_ok(),
            open_tabs,
            "capture {what}"
        );
    }
}

/// The plugin's grants and the host services, owned, for the awaiting part of a call.
struct Ctx {
    grants: Arc<Grants>,
    scope: GuestScope,
    services: Arc<HostServices>,
}

impl Ctx {
    fn http_only_allowed(&self) -> bool {
        self.grants
            .capture
            .as_ref()
            .is_some_and(|c| c.http_only_cookies)
    }

    /// The capture browser (started on first use) and a fresh tab guarded by this plugin's
    /// grants.
    async fn call_tab(&self) -> Result<CallTab, Error> {
        let live: Arc<Live> = self.services.capture_browser.live().await.map_err(error)?;
        let owner = Owner {
            grants: self.grants.clone(),
            scope: self.scope.clone(),
        };
        let target = live.open_owned_tab(owner).await.map_err(error)?;
        Ok(CallTab {
            tab: Tab { live, target },
            closed: false,
        })
    }

    /// The cookies of the capture profile that apply to `url`'s host, httpOnly ones only when
    /// granted.
    async fn profile_cookies(&self, live: &Live, url: &Url) -> Result<Vec<Cookie>, Error> {
        let host = url.host_str().unwrap_or_default();
        let answer = live
            .cdp
            .call_raw(None, "Storage.getCookies", json!({}))
            .await
            .map_err(|e| error(e.into()))?;
        let http_only = self.http_only_allowed();
        Ok(answer["cookies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| cookie_matches(c["domain"].as_str().unwrap_or_default(), host))
            .filter(|c| http_only || !c["httpOnly"].as_bool().unwrap_or(false))
            .map(cookie)
            .collect())
    }
}

/// Read the tab's title, final URL and content in `format`.
async fn extract(tab: &Tab, format: Format) -> Result<(String, String, String), BrowserError> {
    let name = match format {
        Format::Html => "html",
        Format::Text => "text",
        Format::Markdown => "markdown",
    };
    let script = EXTRACT_JS.replace("FORMAT", &json!(name).to_string());
    let value: Value = serde_json::from_str(&tab.evaluate(&script).await?)
        .map_err(|e| BrowserError::Io(format!("the page's content could not be read: {e}")))?;
    Ok((
        value["title"].as_str().unwrap_or_default().to_string(),
        tab.url()?,
        value["content"].as_str().unwrap_or_default().to_string(),
    ))
}

/// Capture the page a tab shows, with its cookies when asked.
async fn capture(
    state: &Ctx,
    tab: &Tab,
    format: Format,
    with_cookies: bool,
) -> Result<Capture, Error> {
    let (title, final_url, content) = extract(tab, format).await.map_err(error)?;
    let cookies = if with_cookies {
        let url = Url::parse(&final_url)
            .map_err(|e| Error::Io(format!("the page's URL {final_url} is not valid: {e}")))?;
        Some(state.profile_cookies(&tab.live, &url).await?)
    } else {
        None
    };
    Ok(Capture {
        content,
        title,
        final_url,
        cookies,
    })
}

fn timed_out(what: &str, timeout: Duration) -> Error {
    Error::Timeout(format!(
        "{what} did not finish within {} ms; raise timeout_ms or check that the page loads",
        timeout.as_millis()
    ))
}

impl Host for PluginState {
    async fn capture_page(&mut self, request: CaptureRequest) -> Result<Capture, Error> {
        let url = self.capture_url(&request.url)?;
        if request.capture_cookies {
            self.check_cookies(&url)?;
        }
        let timeout = millis(request.timeout_ms, DEFAULT_TIMEOUT);
        let ctx = self.ctx();
        let call = ctx.call_tab().await?;
        let wait = wait_until(request.wait_until);
        let result = tokio::time::timeout(timeout, async {
            call.tab
                .navigate(url.as_str(), wait, timeout)
                .await
                .map_err(error)?;
            capture(&ctx, &call.tab, request.format, request.capture_cookies).await
        })
        .await
        .unwrap_or_else(|_| Err(timed_out(&format!("capturing {url}"), timeout)));
        let open = call.close().await;
        self.log_request("page", &url, &result, open);
        result
    }

    async fn get_cookies(&mut self, url: String, open: bool) -> Result<Cookies, Error> {
        let url = self.capture_url(&url)?;
        self.check_cookies(&url)?;
        let ctx = self.ctx();
        let (result, open_tabs) = if open {
            let ctx = self.ctx();
            let call = ctx.call_tab().await?;
            let result = tokio::time::timeout(DEFAULT_TIMEOUT, async {
                call.tab
                    .navigate(url.as_str(), TabWait::Load, DEFAULT_TIMEOUT)
                    .await
                    .map_err(error)?;
                ctx.profile_cookies(&call.tab.live, &url).await
            })
            .await
            .unwrap_or_else(|_| Err(timed_out(&format!("opening {url}"), DEFAULT_TIMEOUT)));
            (result, call.close().await)
        } else {
            let live = ctx.services.capture_browser.live().await.map_err(error)?;
            let result = ctx.profile_cookies(&live, &url).await;
            (result, live.owned_tab_count())
        };
        self.log_request("cookies", &url, &result, open_tabs);
        let cookies = result?;
        let header = cookies
            .iter()
            .map(|c| format!("{}={}", c.name, c.value))
            .collect::<Vec<_>>()
            .join("; ");
        Ok(Cookies { header, cookies })
    }

    async fn login_then_capture(&mut self, request: LoginRequest) -> Result<Capture, Error> {
        let url = self.capture_url(&request.url)?;
        let login = match &request.login_url {
            Some(l) => self.capture_url(l)?,
            None => url.clone(),
        };
        if request.until_url.is_none() && request.until_selector.is_none() {
            return Err(Error::InvalidArgument(
                "say when the login is done: give until_url (a URL glob) or until_selector".into(),
            ));
        }
        let timeout = millis(request.timeout_ms, DEFAULT_LOGIN_TIMEOUT);
        let ctx = self.ctx();
        let call = ctx.call_tab().await?;
        let result = tokio::time::timeout(timeout, async {
            let tab = &call.tab;
            tab.navigate(login.as_str(), TabWait::Load, timeout)
                .await
                .map_err(error)?;
            if let Some(pattern) = &request.until_url {
                tab.wait_url(pattern, timeout).await.map_err(error)?;
            }
            if let Some(selector) = &request.until_selector {
                tab.wait_selector(selector, timeout).await.map_err(error)?;
            }
            if tab.url().map_err(error)? != url.as_str() {
                tab.navigate(url.as_str(), TabWait::Load, timeout)
                    .await
                    .map_err(error)?;
            }
            capture(&ctx, tab, request.format, false).await
        })
        .await
        .unwrap_or_else(|_| {
            Err(timed_out(
                &format!("waiting for the login at {login}"),
                timeout,
            ))
        });
        let open = call.close().await;
        self.log_request("login", &url, &result, open);
        result
    }
}
