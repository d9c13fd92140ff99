//! `warden:capture/page`: pages captured in the capture browser, the host's own Chromium on
//! the persistent `[capture] profile_dir`, where the user may already be logged in. The
//! plugin gets content and (granted) cookies, never the credentials or a credentialed socket.
//!
//! Every URL the capture tab loads, redirects and frames included, passes the browser
//! provider's origin guard on `grants.capture.origins` of the calling plugin alone: the
//! persistent profile serves one plugin's captures at a time (`browser/occupancy.rs`), and
//! another plugin's call waits for it. Each call opens its own tab and closes
//! it when the call ends, with every popup it opened: on success, error and timeout explicitly,
//! and through `Drop` when the call is abandoned (the plugin's call_timeout). Each request is
//! an audit line (`capability_used`) with its caller, target, outcome and tabs.
//!
//! Content is read with `DOM.getOuterHTML` (no script of ours runs in the page) and extracted
//! host-side by [`crate::content`].

use super::CaptureCtx;
use super::bindings::warden::capture::page::{
    Capture, CaptureRequest, Cookie, Cookies, CookiesRequest, EnsureLoginRequest, Format, Host,
    LoginRequest, LoginState, WaitUntil,
};
use super::bindings::warden::capture::types::Error;
use super::handoff::Told;
use crate::audit::Used;
use crate::capabilities::View;
use crate::capabilities::browser::Guard;
use crate::capabilities::browser::error::BrowserError;
use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::navigation::{self, Navigation};
use crate::capabilities::browser::occupancy::Occupancy;
use crate::capabilities::browser::state::Owner;
use crate::capabilities::browser::tab::{Tab, WaitUntil as TabWait};
use crate::content;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

const CAPABILITY: &str = "capture.page";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(120);
/// How long closing a tab may take before the call returns anyway.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

fn error(e: BrowserError) -> Error {
    e.into()
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

/// What an audit line names of a URL: origin and path; the query may carry tokens.
fn audit_target(url: &Url) -> String {
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}

/// A tab opened for one call; closed with its popups when the call ends, whichever way.
/// The call holds the persistent profile's context meanwhile (`occupancy.rs`): released
/// once its tabs are closed.
struct CallTab {
    tab: Tab,
    context: String,
    closed: bool,
    occupancy: Option<Occupancy>,
}

/// `root` and the tabs opened from it (popups, and their popups), from a tab listing.
fn family_of(root: &str, tabs: &[(String, String, String, Option<String>)]) -> Vec<String> {
    let mut family = vec![root.to_string()];
    let mut i = 0;
    while i < family.len() {
        for (id, _, _, opener) in tabs {
            if opener.as_deref() == Some(family[i].as_str()) && !family.contains(id) {
                family.push(id.clone());
            }
        }
        i += 1;
    }
    family
}

/// Close `target` and every tab opened from it. A popup attaches a moment after the page
/// asks for it, so first wait (briefly) until every window the family opened is listed.
async fn close_family(live: &Live, context: &str, target: &str) -> usize {
    let deadline = tokio::time::Instant::now() + CLOSE_WAIT;
    let family = loop {
        let family = family_of(target, &live.tabs_of(context));
        let asked: u64 = family
            .iter()
            .map(|id| live.with_tab(id, |t| t.window_opens).unwrap_or(0))
            .sum();
        let listed = u64::try_from(family.len() - 1).unwrap_or(u64::MAX);
        if listed >= asked || tokio::time::Instant::now() >= deadline {
            break family;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    for id in &family {
        if let Err(e) = live
            .cdp
            .call_raw(None, "Target.closeTarget", json!({ "targetId": id }))
            .await
        {
            tracing::debug!("closing a capture tab failed: {e}");
        }
    }
    for id in &family {
        live.wait_closed(id, CLOSE_WAIT).await;
    }
    family.len()
}

impl CallTab {
    /// Close the tab and its popups; returns (tabs the call had open, capture tabs still open).
    async fn close(mut self) -> (usize, usize) {
        self.closed = true;
        let live = &self.tab.live;
        let opened = close_family(live, &self.context, &self.tab.target).await;
        (opened, live.owned_tab_count())
    }
}

impl Drop for CallTab {
    fn drop(&mut self) {
        if !self.closed {
            let live = self.tab.live.clone();
            let context = self.context.clone();
            let target = self.tab.target.clone();
            let occupancy = self.occupancy.take();
            tokio::spawn(async move {
                close_family(&live, &context, &target).await;
                drop(occupancy);
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

/// A bare domain name (or IP address) for `get_cookies`: lowercase, no leading dot.
fn cookie_domain(domain: &str) -> Result<String, Error> {
    let d = domain.trim().trim_start_matches('.').to_ascii_lowercase();
    let bad = || {
        Error::InvalidArgument(format!(
            "\"{domain}\" is not a domain; give a host name such as \"app.example.com\" (no scheme, port, path or wildcard), or a url"
        ))
    };
    if d.is_empty() || d.contains(['/', ':', '*', '?', '#', '@']) || d.contains(char::is_whitespace)
    {
        return Err(bad());
    }
    let parsed = Url::parse(&format!("http://{d}/")).map_err(|_| bad())?;
    if parsed.host_str() != Some(d.as_str()) {
        return Err(bad());
    }
    Ok(d)
}

/// When a login counts as done: the URL matches a glob, a selector matches, or both.
struct LoginCondition {
    until_url: Option<String>,
    until_selector: Option<String>,
}

impl LoginCondition {
    fn new(until_url: Option<String>, until_selector: Option<String>) -> Result<Self, Error> {
        if until_url.is_none() && until_selector.is_none() {
            return Err(Error::InvalidArgument(
                "say when the login is done: give until_url (a URL glob) or until_selector".into(),
            ));
        }
        Ok(Self {
            until_url,
            until_selector,
        })
    }

    /// Wait up to `timeout` for the condition (a zero timeout checks once).
    async fn wait(&self, tab: &Tab, timeout: Duration) -> Result<(), BrowserError> {
        if let Some(pattern) = &self.until_url {
            tab.wait_url(pattern, timeout).await?;
        }
        if let Some(selector) = &self.until_selector {
            tab.wait_selector(selector, timeout).await?;
        }
        Ok(())
    }

    /// Does the condition hold now?
    async fn holds(&self, tab: &Tab) -> Result<bool, Error> {
        match self.wait(tab, Duration::ZERO).await {
            Ok(()) => Ok(true),
            Err(BrowserError::Timeout(_)) => Ok(false),
            Err(e) => Err(error(e)),
        }
    }

    fn describe(&self) -> String {
        match (&self.until_url, &self.until_selector) {
            (Some(u), Some(s)) => format!("the URL to match \"{u}\" and \"{s}\" to appear"),
            (Some(u), None) => format!("the URL to match \"{u}\""),
            (None, Some(s)) => format!("\"{s}\" to appear"),
            (None, None) => String::new(),
        }
    }
}

impl View<'_, CaptureCtx> {
    /// The plugin's `url` as a capture navigation: through the one door every plugin-chosen
    /// URL passes ([`navigation::check`]: http(s) of `grants.capture.origins` only), auditing
    /// a refusal.
    fn capture_url(&self, url: &str) -> Result<Navigation, Error> {
        navigation::check(Guard::Capture, &self.grants, url).map_err(|refused| {
            match refused.denied() {
                Some(denied) => Error::AccessDenied(self.refuse(CAPABILITY, denied)),
                None => Error::InvalidArgument(refused.to_string()),
            }
        })
    }

    fn check_cookies(&self, url: &Url) -> Result<(), Error> {
        self.grants
            .check_capture_cookies(url, false)
            .map_err(|d| Error::AccessDenied(self.refuse(CAPABILITY, &d)))
    }

    /// What the awaiting part of a call needs, owned (the view borrows the store).
    fn ctx(&self) -> CaptureCtx {
        CaptureCtx::clone(self.ctx)
    }

    /// Log and audit a request with its context (plugin, tool, client, session, target,
    /// outcome, tabs); never a cookie value or a URL query.
    fn finish<T>(
        &self,
        what: &str,
        target: &str,
        started: Instant,
        outcome: &Result<T, Error>,
        tabs: Option<(usize, usize)>,
    ) {
        let error = outcome.as_ref().err().map(Error::kind);
        tracing::info!(
            plugin = %self.plugin(),
            tool = %self.scope.current_tool(),
            client = self.scope.caller().client.as_deref().unwrap_or("-"),
            target,
            ok = outcome.is_ok(),
            open_tabs = tabs.map_or(0, |t| t.1),
            "capture {what}"
        );
        self.scope.used(&Used {
            capability: CAPABILITY,
            target,
            error,
            duration: started.elapsed(),
            tabs_opened: tabs.map(|t| t.0),
            tabs_open: tabs.map(|t| t.1),
            ..Used::default()
        });
    }
}

impl CaptureCtx {
    /// Wait until the user has logged in at `at`, telling them where (see [`HandOff`]). The
    /// wait ends when the condition holds, when the time is up, or when the user refuses; a
    /// user who says they are done is checked at once, and waited for the rest of the time.
    async fn await_login(
        &self,
        tab: &Tab,
        condition: &LoginCondition,
        at: &Url,
        timeout: Duration,
    ) -> Result<(), Error> {
        let deadline = Instant::now() + timeout;
        let ended = |r: Result<(), BrowserError>| match r {
            Err(BrowserError::Timeout(_)) => Err(login_timed_out(at, condition, timeout)),
            other => other.map_err(error),
        };
        let Some(handoff) = &self.handoff else {
            return ended(condition.wait(tab, timeout).await);
        };
        let told = handoff.tell(format!(
            "Log in at {} in the Warden capture browser window. The call waits up to {} s for {}. Accept when you are done; decline to stop waiting.",
            audit_target(at),
            timeout.as_secs(),
            condition.describe()
        ));
        tokio::select! {
            waited = condition.wait(tab, timeout) => ended(waited),
            told = told => match told {
                Told::Refused => Err(Error::AccessDenied(format!(
                    "the user declined to log in at {}; nothing was captured",
                    audit_target(at)
                ))),
                Told::Done => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    ended(condition.wait(tab, left).await)
                }
            },
        }
    }

    fn http_only_allowed(&self) -> bool {
        self.grants
            .capture
            .as_ref()
            .is_some_and(|c| c.http_only_cookies)
    }

    /// The capture browser (started on first use) and a fresh tab guarded by this plugin's
    /// grants alone: waits (up to `timeout`) while another plugin's captures hold the
    /// persistent profile (`occupancy.rs`).
    async fn call_tab(&self, timeout: Duration) -> Result<CallTab, Error> {
        let live: Arc<Live> = self
            .capture_browser
            .live(&self.scope.plugin)
            .await
            .map_err(error)?;
        let owner = Owner {
            grants: self.grants.clone(),
            scope: self.scope.clone(),
            // Capture tabs are capped per request (`limits.capture_tabs`), and a plugin's
            // capture requests take the profile one at a time: no client count applies.
            client: Default::default(),
        };
        let occupancy = live.occupy(owner.clone(), timeout).await.map_err(error)?;
        let target = live.open_owned_tab(owner).await.map_err(error)?;
        let context = live.tab_context(&target).unwrap_or_default();
        Ok(CallTab {
            tab: Tab { live, target },
            context,
            closed: false,
            occupancy: Some(occupancy),
        })
    }

    /// The cookies of the capture profile the browser would send to `host`, httpOnly ones
    /// only when granted.
    async fn profile_cookies(&self, live: &Live, host: &str) -> Result<Vec<Cookie>, Error> {
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
async fn extract(tab: &Tab, format: Format) -> Result<(String, String, String), Error> {
    let format = match format {
        Format::Html => content::Format::Html,
        Format::Text => content::Format::Text,
        Format::Markdown => content::Format::Markdown,
    };
    let page = tab.extract(format).await.map_err(error)?;
    Ok((page.title, page.url, page.content))
}

/// Capture the page a tab shows, with its cookies when asked.
async fn capture(
    state: &CaptureCtx,
    tab: &Tab,
    format: Format,
    with_cookies: bool,
) -> Result<Capture, Error> {
    let (title, final_url, content) = extract(tab, format).await?;
    let cookies = if with_cookies {
        let url = Url::parse(&final_url)
            .map_err(|e| Error::Io(format!("the page's URL {final_url} is not valid: {e}")))?;
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        Some(state.profile_cookies(&tab.live, &host).await?)
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

/// The error of a login that did not complete in time.
fn login_timed_out(login: &Url, condition: &LoginCondition, timeout: Duration) -> Error {
    Error::Timeout(format!(
        "not logged in: waited {} ms at {login} for {}; log in in the capture browser within timeout_ms (or raise it)",
        timeout.as_millis(),
        condition.describe()
    ))
}

impl Host for View<'_, CaptureCtx> {
    async fn capture_page(&mut self, request: CaptureRequest) -> Result<Capture, Error> {
        let started = Instant::now();
        let url = self.capture_url(&request.url)?;
        if request.capture_cookies {
            self.check_cookies(url.url())?;
        }
        let timeout = millis(request.timeout_ms, DEFAULT_TIMEOUT);
        let ctx = self.ctx();
        let call = ctx.call_tab(timeout).await?;
        let wait = wait_until(request.wait_until);
        let result = tokio::time::timeout(timeout, async {
            call.tab
                .navigate(&url, wait, timeout)
                .await
                .map_err(error)?;
            capture(&ctx, &call.tab, request.format, request.capture_cookies).await
        })
        .await
        .unwrap_or_else(|_| Err(timed_out(&format!("capturing {url}"), timeout)));
        let tabs = call.close().await;
        self.finish(
            "page",
            &audit_target(url.url()),
            started,
            &result,
            Some(tabs),
        );
        result
    }

    async fn get_cookies(&mut self, request: CookiesRequest) -> Result<Cookies, Error> {
        let started = Instant::now();
        let (host, target) = match (&request.url, &request.domain) {
            (Some(url), None) => {
                let url = self.capture_url(url)?;
                self.check_cookies(url.url())?;
                let host = url
                    .url()
                    .host_str()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                (host, format!("cookies of {}", audit_target(url.url())))
            }
            (None, Some(domain)) => {
                let domain = cookie_domain(domain)?;
                self.grants
                    .check_capture_cookie_domain(&domain, false)
                    .map_err(|d| Error::AccessDenied(self.refuse(CAPABILITY, &d)))?;
                let target = format!("cookies of {domain}");
                (domain, target)
            }
            _ => {
                return Err(Error::InvalidArgument(
                    "give either url (a page of the site) or domain (such as \"app.example.com\"), not both".into(),
                ));
            }
        };
        let open = request
            .open_url
            .as_deref()
            .map(|u| self.capture_url(u))
            .transpose()?;
        let ctx = self.ctx();
        let (result, tabs) = if let Some(open) = open {
            let call = ctx.call_tab(DEFAULT_TIMEOUT).await?;
            let result = tokio::time::timeout(DEFAULT_TIMEOUT, async {
                call.tab
                    .navigate(&open, TabWait::Load, DEFAULT_TIMEOUT)
                    .await
                    .map_err(error)
            })
            .await
            .unwrap_or_else(|_| Err(timed_out(&format!("opening {open}"), DEFAULT_TIMEOUT)));
            let live = call.tab.live.clone();
            let tabs = call.close().await;
            let result = match result {
                Ok(_) => ctx.profile_cookies(&live, &host).await,
                Err(e) => Err(e),
            };
            (result, Some(tabs))
        } else {
            let live = ctx
                .capture_browser
                .live(&ctx.scope.plugin)
                .await
                .map_err(error)?;
            let result = ctx.profile_cookies(&live, &host).await;
            (result, Some((0, live.owned_tab_count())))
        };
        self.finish("cookies", &target, started, &result, tabs);
        let cookies = result?;
        let header = cookies
            .iter()
            .map(|c| format!("{}={}", c.name, c.value))
            .collect::<Vec<_>>()
            .join("; ");
        Ok(Cookies { header, cookies })
    }

    async fn login_then_capture(&mut self, request: LoginRequest) -> Result<Capture, Error> {
        let started = Instant::now();
        let url = self.capture_url(&request.url)?;
        let login = match &request.login_url {
            Some(l) => self.capture_url(l)?,
            None => url.clone(),
        };
        let condition = LoginCondition::new(request.until_url, request.until_selector)?;
        let timeout = millis(request.timeout_ms, DEFAULT_LOGIN_TIMEOUT);
        let ctx = self.ctx();
        let call = ctx.call_tab(timeout).await?;
        let result = tokio::time::timeout(timeout, async {
            let tab = &call.tab;
            tab.navigate(&login, TabWait::Load, timeout)
                .await
                .map_err(error)?;
            ctx.await_login(tab, &condition, login.url(), timeout)
                .await?;
            if tab.url().map_err(error)? == url.as_str() {
                tab.wait_current(TabWait::Load, timeout)
                    .await
                    .map_err(error)?;
            } else {
                tab.navigate(&url, TabWait::Load, timeout)
                    .await
                    .map_err(error)?;
            }
            capture(&ctx, tab, request.format, false).await
        })
        .await
        .unwrap_or_else(|_| Err(login_timed_out(login.url(), &condition, timeout)));
        let tabs = call.close().await;
        self.finish(
            "login",
            &audit_target(url.url()),
            started,
            &result,
            Some(tabs),
        );
        result
    }

    async fn ensure_login(&mut self, request: EnsureLoginRequest) -> Result<LoginState, Error> {
        let started = Instant::now();
        let url = self.capture_url(&request.url)?;
        let login = request
            .login_url
            .as_deref()
            .map(|l| self.capture_url(l))
            .transpose()?;
        let condition = LoginCondition::new(request.until_url, request.until_selector)?;
        let timeout = millis(request.timeout_ms, DEFAULT_LOGIN_TIMEOUT);
        let waited_at = login.clone().unwrap_or_else(|| url.clone());
        let ctx = self.ctx();
        let call = ctx.call_tab(timeout).await?;
        let result = tokio::time::timeout(timeout, async {
            let tab = &call.tab;
            tab.navigate(&url, TabWait::Load, timeout)
                .await
                .map_err(error)?;
            let already = condition.holds(tab).await?;
            if !already {
                if let Some(login) = &login {
                    tab.navigate(login, TabWait::Load, timeout)
                        .await
                        .map_err(error)?;
                }
                ctx.await_login(tab, &condition, waited_at.url(), timeout)
                    .await?;
            }
            Ok(LoginState {
                already_logged_in: already,
                final_url: tab.url().map_err(error)?,
                title: tab
                    .live
                    .with_tab(&tab.target, |t| t.title.clone())
                    .unwrap_or_default(),
            })
        })
        .await
        .unwrap_or_else(|_| Err(login_timed_out(waited_at.url(), &condition, timeout)));
        let tabs = call.close().await;
        self.finish(
            "ensure-login",
            &audit_target(url.url()),
            started,
            &result,
            Some(tabs),
        );
        result
    }
}
