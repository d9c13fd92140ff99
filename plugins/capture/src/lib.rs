//! Warden's built-in `capture` plugin: pages, cookies and logins in the host's capture browser
//! (`capture_page`, `get_cookies`, `login_then_capture`, `ensure_login`) and HTTP fetches
//! performed by the host (`http_get`).
//!
//! The host does the work with its own browser and network stack; the manifest's
//! `grants.capture` decides which origins, cookies and HTTP hosts (every redirect hop
//! included) are allowed, and `grants.capture.max_body` caps an HTTP body.

use std::collections::BTreeMap;
use std::time::Duration;

use warden_sdk::capture::page::{self as cap, Capture, CaptureRequest, Format, LoginRequest};
use warden_sdk::capture::{self, HttpRequest, HttpResponse};
use warden_sdk::prelude::*;

/// Arguments of `http_get`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HttpGetArgs {
    /// http(s) URL; its host must be in grant capture.http_hosts.
    url: String,
    /// Extra request headers.
    headers: Option<BTreeMap<String, String>>,
    /// Cut the body after this many bytes.
    max_bytes: Option<u64>,
    timeout_ms: Option<u32>,
}

/// The response of `http_get`.
#[derive(Debug, Serialize, JsonSchema)]
struct HttpGetOutput {
    status: u16,
    /// After redirects.
    url: String,
    /// Repeated headers joined with ", ".
    headers: BTreeMap<String, String>,
    /// Text, or "<N bytes of TYPE>" for binary types.
    body: String,
    /// Cut at max_bytes.
    truncated: bool,
    redirects: u32,
}

fn http_get(args: HttpGetArgs) -> Result<Structured<HttpGetOutput>, ToolError> {
    let mut request = HttpRequest::get(args.url);
    for (name, value) in args.headers.unwrap_or_default() {
        request = request.header(name, value);
    }
    if let Some(max_bytes) = args.max_bytes {
        request = request.max_bytes(max_bytes);
    }
    if let Some(timeout_ms) = args.timeout_ms {
        request = request.timeout(Duration::from_millis(timeout_ms.into()));
    }
    let response = capture::http_get(request)?;
    Ok(render(response))
}

fn render(response: HttpResponse) -> Structured<HttpGetOutput> {
    let body = body_text(&response);
    let mut summary = format!(
        "HTTP {} ({}, {} bytes",
        response.status,
        response.final_url,
        response.body.len()
    );
    if response.truncated {
        summary.push_str(", truncated");
    }
    match response.redirects {
        0 => {}
        1 => summary.push_str(", 1 redirect"),
        n => summary.push_str(&format!(", {n} redirects")),
    }
    summary.push(')');
    let text = format!("{summary}\n{body}");

    let mut headers = BTreeMap::<String, String>::new();
    for (name, value) in response.headers {
        headers
            .entry(name.to_ascii_lowercase())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    Structured::new(HttpGetOutput {
        status: response.status,
        url: response.final_url,
        headers,
        body,
        truncated: response.truncated,
        redirects: response.redirects,
    })
    .text(text)
}

/// The body as text when the content type is textual, else a placeholder.
fn body_text(response: &HttpResponse) -> String {
    let content_type = response.content_type().map(str::trim);
    let textual = match content_type {
        Some(ct) => is_textual(ct),
        // No content type: text when it decodes as UTF-8 (a truncated body may end in the
        // middle of a character).
        None => match std::str::from_utf8(&response.body) {
            Ok(_) => true,
            Err(e) => e.error_len().is_none(),
        },
    };
    if textual {
        response.text().into_owned()
    } else {
        let ty = content_type.map_or("unknown type", |ct| {
            ct.split(';').next().unwrap_or(ct).trim()
        });
        format!("<{} bytes of {ty}>", response.body.len())
    }
}

fn is_textual(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let Some((top, sub)) = essence.split_once('/') else {
        return false;
    };
    top == "text"
        || sub.ends_with("+json")
        || sub.ends_with("+xml")
        || matches!(
            sub,
            "json"
                | "xml"
                | "javascript"
                | "ecmascript"
                | "x-javascript"
                | "yaml"
                | "x-yaml"
                | "toml"
                | "x-www-form-urlencoded"
                | "graphql"
                | "sql"
                | "csv"
                | "x-sh"
                | "xhtml+xml"
        )
}

/// How page content is returned.
#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ContentFormat {
    Html,
    Text,
    #[default]
    Markdown,
}

impl From<ContentFormat> for Format {
    fn from(f: ContentFormat) -> Self {
        match f {
            ContentFormat::Html => Format::Html,
            ContentFormat::Text => Format::Text,
            ContentFormat::Markdown => Format::Markdown,
        }
    }
}

/// When the page counts as loaded.
#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Wait {
    #[default]
    Load,
    DomContentLoaded,
    NetworkIdle,
}

/// Arguments of `capture_page`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CapturePageArgs {
    /// Its origin must be in grant capture.origins.
    url: String,
    /// Default load.
    #[serde(default)]
    wait_until: Wait,
    /// Default 30000.
    timeout_ms: Option<u32>,
    /// Also return its cookies (grant capture.cookies).
    #[serde(default)]
    capture_cookies: bool,
    /// Default markdown.
    #[serde(default)]
    format: ContentFormat,
}

/// A cookie of the capture profile.
#[derive(Debug, Serialize, JsonSchema)]
struct CookieOut {
    name: String,
    value: String,
    domain: String,
    path: String,
    http_only: bool,
    secure: bool,
    /// Unix seconds; absent for session cookies.
    expires: Option<f64>,
}

fn cookie_out(c: cap::Cookie) -> CookieOut {
    CookieOut {
        name: c.name,
        value: c.value,
        domain: c.domain,
        path: c.path,
        http_only: c.http_only,
        secure: c.secure,
        expires: c.expires,
    }
}

/// The result of `capture_page` and `login_then_capture`.
#[derive(Debug, Serialize, JsonSchema)]
struct CaptureOutput {
    title: String,
    /// After redirects.
    url: String,
    content: String,
    cookies: Option<Vec<CookieOut>>,
}

fn render_capture(c: Capture) -> Structured<CaptureOutput> {
    let text = format!("{} ({})\n\n{}", c.title, c.final_url, c.content);
    Structured::new(CaptureOutput {
        title: c.title,
        url: c.final_url,
        content: c.content,
        cookies: c.cookies.map(|v| v.into_iter().map(cookie_out).collect()),
    })
    .text(text)
}

fn capture_page(args: CapturePageArgs) -> Result<Structured<CaptureOutput>, ToolError> {
    let request = CaptureRequest {
        url: args.url,
        wait_until: match args.wait_until {
            Wait::Load => cap::WaitUntil::Load,
            Wait::DomContentLoaded => cap::WaitUntil::DomContentLoaded,
            Wait::NetworkIdle => cap::WaitUntil::NetworkIdle,
        },
        timeout_ms: args.timeout_ms.unwrap_or(0),
        capture_cookies: args.capture_cookies,
        format: args.format.into(),
    };
    Ok(render_capture(cap::capture_page(&request)?))
}

/// Arguments of `get_cookies`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetCookiesArgs {
    /// Cookies the browser would send to this domain; or give url.
    domain: Option<String>,
    /// Its host selects the cookies.
    url: Option<String>,
    /// Open this first, so the site can refresh its cookies.
    open_url: Option<String>,
    /// Open url first.
    #[serde(default)]
    open: bool,
}

/// The result of `get_cookies`.
#[derive(Debug, Serialize, JsonSchema)]
struct CookiesOutput {
    /// For a Cookie request header.
    header: String,
    cookies: Vec<CookieOut>,
}

fn cookies_request(args: GetCookiesArgs) -> Result<cap::CookiesRequest, ToolError> {
    if args.url.is_some() == args.domain.is_some() {
        return Err(ToolError::invalid_arguments(
            "give either domain (such as \"app.example.com\") or url (a page of the site)",
        ));
    }
    let open_url = match (args.open_url, args.open, &args.url) {
        (Some(u), _, _) => Some(u),
        (None, true, Some(url)) => Some(url.clone()),
        (None, true, None) => {
            return Err(ToolError::invalid_arguments(
                "open needs url; with domain, give open_url (the page to open first)",
            ));
        }
        (None, false, _) => None,
    };
    Ok(cap::CookiesRequest {
        url: args.url,
        domain: args.domain,
        open_url,
    })
}

fn get_cookies(args: GetCookiesArgs) -> Result<Structured<CookiesOutput>, ToolError> {
    let got = cap::get_cookies(&cookies_request(args)?)?;
    let names: Vec<&str> = got.cookies.iter().map(|c| c.name.as_str()).collect();
    let text = format!("{} cookie(s): {}", names.len(), names.join(", "));
    Ok(Structured::new(CookiesOutput {
        header: got.header,
        cookies: got.cookies.into_iter().map(cookie_out).collect(),
    })
    .text(text))
}

/// Arguments of `ensure_login`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EnsureLoginArgs {
    /// A page that shows whether the profile is logged in.
    url: String,
    /// Default: url.
    login_url: Option<String>,
    /// Logged in once the URL matches this glob.
    until_url: Option<String>,
    /// Logged in once this CSS selector matches.
    until_selector: Option<String>,
    /// Wait for the login (default 120000).
    timeout_ms: Option<u32>,
}

/// The result of `ensure_login`.
#[derive(Debug, Serialize, JsonSchema)]
struct LoginStateOutput {
    /// Nobody had to log in.
    already_logged_in: bool,
    url: String,
    title: String,
}

fn ensure_login(args: EnsureLoginArgs) -> Result<Structured<LoginStateOutput>, ToolError> {
    let state = cap::ensure_login(&cap::EnsureLoginRequest {
        url: args.url,
        login_url: args.login_url,
        until_url: args.until_url,
        until_selector: args.until_selector,
        timeout_ms: args.timeout_ms.unwrap_or(0),
    })?;
    let text = if state.already_logged_in {
        format!("already logged in ({})", state.final_url)
    } else {
        format!("logged in ({})", state.final_url)
    };
    Ok(Structured::new(LoginStateOutput {
        already_logged_in: state.already_logged_in,
        url: state.final_url,
        title: state.title,
    })
    .text(text))
}

/// Arguments of `login_then_capture`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LoginThenCaptureArgs {
    /// The page to capture once logged in.
    url: String,
    /// Default: url.
    login_url: Option<String>,
    /// Logged in once the URL matches this glob.
    until_url: Option<String>,
    /// Logged in once this CSS selector matches.
    until_selector: Option<String>,
    /// Wait for the login (default 120000).
    timeout_ms: Option<u32>,
    /// Default markdown.
    #[serde(default)]
    format: ContentFormat,
}

fn login_then_capture(args: LoginThenCaptureArgs) -> Result<Structured<CaptureOutput>, ToolError> {
    let request = LoginRequest {
        url: args.url,
        login_url: args.login_url,
        until_url: args.until_url,
        until_selector: args.until_selector,
        timeout_ms: args.timeout_ms.unwrap_or(0),
        format: args.format.into(),
    };
    Ok(render_capture(cap::login_then_capture(&request)?))
}

fn plugin() -> Plugin {
    Plugin::new()
        .group(
            Group::new("http", "fetch a URL from the host")
                .tools(["http_get"])
                .needs([Capability::CaptureHttp]),
        )
        .group(
            Group::new("pages", "logged-in page capture and cookies")
                .tools([
                    "capture_page",
                    "get_cookies",
                    "login_then_capture",
                    "ensure_login",
                ])
                .needs([Capability::CapturePage]),
        )
        .tool(
            Tool::new("capture_page", capture_page)
                .description(
                    "Load a page in the host's logged-in capture browser and return its title, \
                     URL and content as markdown.",
                )
                .read_only()
                .open_world(),
        )
        .tool(
            Tool::new("get_cookies", get_cookies)
                .description(
                    "The capture profile's cookies for a site, as a Cookie header. Needs grant \
                     capture.cookies.",
                )
                .read_only()
                .open_world(),
        )
        .tool(
            Tool::new("login_then_capture", login_then_capture)
                .description(
                    "Open a login page in the capture browser, wait for the user to log in, \
                     then capture url.",
                )
                .open_world()
                // Long logins, commands and transfers: a task the client can poll or cancel.
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("ensure_login", ensure_login)
                .description(
                    "Make sure the capture profile is logged in, waiting for the user to log in \
                     if not.",
                )
                .open_world()
                // Long logins, commands and transfers: a task the client can poll or cancel.
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("http_get", http_get)
                .description(
                    "HTTP GET a URL from the host (APIs, raw files); returns status, headers \
                     and the body as text.",
                )
                .read_only()
                .open_world(),
        )
}

warden_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;

    fn response(content_type: Option<&str>, body: &[u8]) -> HttpResponse {
        HttpResponse {
            status: 200,
            headers: content_type
                .map(|ct| vec![("Content-Type".to_owned(), ct.to_owned())])
                .unwrap_or_default(),
            body: body.to_vec(),
            final_url: "http://example.com/".into(),
            redirects: 0,
            truncated: false,
        }
    }

    #[test]
    fn text_and_binary_bodies() {
        assert_eq!(
            body_text(&response(Some("text/html; charset=utf-8"), b"<p>")),
            "<p>"
        );
        assert_eq!(
            body_text(&response(Some("application/ld+json"), b"{}")),
            "{}"
        );
        assert_eq!(
            body_text(&response(Some("image/png"), &[0x89, b'P', b'N', b'G'])),
            "<4 bytes of image/png>"
        );
        assert_eq!(body_text(&response(None, "héllo".as_bytes())), "héllo");
        assert_eq!(
            body_text(&response(None, &[0xff, 0x00])),
            "<2 bytes of unknown type>"
        );
    }

    #[test]
    fn rendering() {
        let mut r = response(Some("text/plain"), b"hi");
        r.redirects = 2;
        r.truncated = true;
        r.headers.push(("set-cookie".into(), "a=1".into()));
        r.headers.push(("Set-Cookie".into(), "b=2".into()));
        let out = render(r);
        assert_eq!(
            out.content,
            vec![Content::text(
                "HTTP 200 (http://example.com/, 2 bytes, truncated, 2 redirects)\nhi"
            )]
        );
        assert_eq!(out.value.headers["set-cookie"], "a=1, b=2");
        assert_eq!(out.value.headers["content-type"], "text/plain");
    }

    #[test]
    fn cookie_requests() {
        let args = |json: &str| {
            cookies_request(warden_sdk::serde_json::from_str(json).expect("valid args"))
        };
        let r = args(r#"{"domain": "app.example.test"}"#).expect("domain");
        assert_eq!(
            (r.domain.as_deref(), r.url, r.open_url),
            (Some("app.example.test"), None, None)
        );
        let r = args(r#"{"url": "http://a.test/x", "open": true}"#).expect("url");
        assert_eq!(r.open_url.as_deref(), Some("http://a.test/x"));
        let r = args(r#"{"domain": "a.test", "open_url": "http://a.test/login"}"#).expect("open");
        assert_eq!(r.open_url.as_deref(), Some("http://a.test/login"));
        assert!(args("{}").is_err());
        assert!(args(r#"{"domain": "a.test", "url": "http://a.test/"}"#).is_err());
        assert!(args(r#"{"domain": "a.test", "open": true}"#).is_err());
    }

    #[test]
    fn schema_and_arguments() {
        let p = plugin();
        let tool = p.tool_named("http_get").expect("tool");
        let schema = tool.input_schema().as_value();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], warden_sdk::serde_json::json!(["url"]));
        assert_eq!(
            tool.output_schema().expect("output").as_value()["type"],
            "object"
        );
        let err = p
            .call("http_get", r#"{"headers": {}}"#)
            .expect_err("no url");
        assert_eq!(err, ToolError::invalid_arguments("missing field `url`"));
    }
}
