//! HTTP performed by the host (`warden:capture/http`). Every URL, including every redirect
//! hop, must match the plugin's `capture.http_hosts` grant; otherwise the call fails with
//! [`CapabilityError::AccessDenied`](crate::CapabilityError::AccessDenied).

use std::borrow::Cow;
use std::time::Duration;

use crate::CapabilityError;
use crate::bindings::warden::capture::http as wit;

/// An HTTP GET request, built with [`HttpRequest::get`] and the builder methods.
///
/// ```
/// use std::time::Duration;
/// use warden_sdk::capture::HttpRequest;
///
/// let request = HttpRequest::get("https://example.com/")
///     .header("accept", "text/html")
///     .timeout(Duration::from_secs(10))
///     .max_bytes(1 << 20);
/// # let _ = request;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// Absolute `http://` or `https://` URL.
    pub url: String,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// Give up after this long (the host caps it at the call's time limit).
    pub timeout: Option<Duration>,
    /// Keep at most this many body bytes (the host caps it at the grant's `max_body`).
    pub max_bytes: Option<u64>,
}

impl HttpRequest {
    /// A GET request for `url`.
    pub fn get(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: Vec::new(),
            timeout: None,
            max_bytes: None,
        }
    }

    /// Adds a request header.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the timeout (millisecond precision).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the body byte cap.
    #[must_use]
    pub fn max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = Some(max_bytes);
        self
    }
}

/// The response to an [`HttpRequest`]. Any status counts as a response, 404 and 500 included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The HTTP status code.
    pub status: u16,
    /// Response headers, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body, at most the byte cap.
    pub body: Vec<u8>,
    /// The URL after redirects.
    pub final_url: String,
    /// How many redirects were followed.
    pub redirects: u32,
    /// The body was longer than the byte cap and was cut.
    pub truncated: bool,
}

impl HttpResponse {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `content-type` header.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }

    /// The body as text; invalid UTF-8 is replaced with U+FFFD.
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }
}

/// Fetches `request.url` with the host's HTTP client.
pub fn http_get(request: HttpRequest) -> Result<HttpResponse, CapabilityError> {
    let request = wit::Request {
        url: request.url,
        headers: request.headers,
        timeout_ms: request
            .timeout
            .map(|t| u32::try_from(t.as_millis()).unwrap_or(u32::MAX)),
        max_bytes: request.max_bytes,
    };
    let response = wit::get(&request)?;
    Ok(HttpResponse {
        status: response.status,
        headers: response.headers,
        body: response.body,
        final_url: response.final_url,
        redirects: response.redirects,
        truncated: response.truncated,
    })
}

/// Page capture in the host's capture profile (`warden:capture/page`): a real browser on a
/// persistent profile where the user may be logged in. Every URL must match the plugin's
/// `capture.origins` grant; cookies need `capture.cookies` (httpOnly ones also
/// `capture.http_only_cookies`). The host closes the tab when the call ends.
pub mod page {
    use crate::CapabilityError;
    use crate::bindings::warden::capture::page as wit;

    pub use wit::{
        Capture, CaptureRequest, Cookie, Cookies, CookiesRequest, EnsureLoginRequest, Format,
        LoginRequest, LoginState, WaitUntil,
    };

    /// Opens `request.url`, waits, and returns its content (and cookies when asked).
    pub fn capture_page(request: &CaptureRequest) -> Result<Capture, CapabilityError> {
        Ok(wit::capture_page(request)?)
    }

    /// The profile's cookies for a URL's host or a domain, after opening `open_url` if given.
    pub fn get_cookies(request: &CookiesRequest) -> Result<Cookies, CapabilityError> {
        Ok(wit::get_cookies(request)?)
    }

    /// Makes sure the profile is logged in (waiting for the user at the login page if not).
    pub fn ensure_login(request: &EnsureLoginRequest) -> Result<LoginState, CapabilityError> {
        Ok(wit::ensure_login(request)?)
    }

    /// Opens the login page, waits until the login condition holds, then captures.
    pub fn login_then_capture(request: &LoginRequest) -> Result<Capture, CapabilityError> {
        Ok(wit::login_then_capture(request)?)
    }
}
