//! Outgoing HTTP requests over standard `wasi:http/outgoing-handler`, allowed by the
//! manifest's `http` grant (origins, methods, body and time caps). Any method, any body.
//!
//! ```no_run
//! use warden_sdk::http;
//! use warden_sdk::prelude::*;
//!
//! #[derive(Deserialize)]
//! struct Created {
//!     id: u64,
//! }
//!
//! fn create(title: &str) -> Result<u64, ToolError> {
//!     let created: Created = http::post("https://api.example.com/v1/issues")
//!         .header("accept", "application/json")
//!         .json(&serde_json::json!({ "title": title }))?
//!         .send()?
//!         .error_for_status()?
//!         .json()?;
//!     Ok(created.id)
//! }
//! ```
//!
//! Credentials are the host's: when the manifest binds a `[credentials.NAME]` to the origin
//! (and the plugin's grant names it), the host adds it to the request after the plugin hands
//! the request over, and scrubs it from the response. Do not set `Authorization` yourself:
//! the host's credential replaces it.
//!
//! The host follows no redirect: a 3xx response comes back as it is, and a request to its
//! `Location` is a new request, checked against the grant like the first.

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use wasip2::http::outgoing_handler;
use wasip2::http::types::{
    ErrorCode, Fields, HeaderError, IncomingBody, Method as WitMethod, OutgoingBody,
    OutgoingRequest, RequestOptions, Scheme,
};
use wasip2::io::streams::StreamError;

use crate::ToolError;

/// Bytes written to the request body per host call (the host accepts at most 4096 at once).
const WRITE_CHUNK: usize = 4096;
/// Bytes read from the response body per host call.
const READ_CHUNK: u64 = 64 * 1024;

/// An HTTP request, built with [`get`], [`post`], [`put`], [`patch`], [`delete`] or
/// [`request`] and sent with [`Request::send`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a request does nothing until it is sent"]
pub struct Request {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    timeout: Option<Duration>,
}

/// A `GET` request for `url`.
pub fn get(url: impl Into<String>) -> Request {
    request("GET", url)
}

/// A `POST` request for `url`.
pub fn post(url: impl Into<String>) -> Request {
    request("POST", url)
}

/// A `PUT` request for `url`.
pub fn put(url: impl Into<String>) -> Request {
    request("PUT", url)
}

/// A `PATCH` request for `url`.
pub fn patch(url: impl Into<String>) -> Request {
    request("PATCH", url)
}

/// A `DELETE` request for `url`.
pub fn delete(url: impl Into<String>) -> Request {
    request("DELETE", url)
}

/// A request with any `method` (`"GET"`, `"HEAD"`, `"OPTIONS"`, ...) for `url`.
pub fn request(method: impl Into<String>, url: impl Into<String>) -> Request {
    Request {
        method: method.into().to_ascii_uppercase(),
        url: url.into(),
        headers: Vec::new(),
        body: Vec::new(),
        timeout: None,
    }
}

impl Request {
    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// Sets `value` as a JSON body, with `content-type: application/json`.
    pub fn json<T: Serialize + ?Sized>(self, value: &T) -> Result<Self, HttpError> {
        let body = serde_json::to_vec(value)
            .map_err(|e| HttpError::InvalidRequest(format!("the body is not JSON: {e}")))?;
        Ok(self.header("content-type", "application/json").body(body))
    }

    /// Gives up when no response starts within `timeout` (the host caps it at the grant's
    /// `timeout`).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sends the request and reads the whole response.
    pub fn send(self) -> Result<Response, HttpError> {
        let url = Url::parse(&self.url)?;
        let mut entries: Vec<(String, Vec<u8>)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone().into_bytes()))
            .collect();
        if let Some(length) = content_length(&self.method, &self.headers, self.body.len()) {
            entries.push(("content-length".into(), length.into_bytes()));
        }
        let fields = Fields::from_list(&entries).map_err(|e| match e {
            HeaderError::Forbidden => HttpError::InvalidRequest(
                "a header of the request is one only the host sets (Host, Connection, Transfer-Encoding, ...); remove it".into(),
            ),
            other => HttpError::InvalidRequest(format!("a header of the request is not valid: {other:?}")),
        })?;
        let request = OutgoingRequest::new(fields);
        let invalid =
            |what: &str| HttpError::InvalidRequest(format!("{what} of {} is not valid", self.url));
        request
            .set_method(&method(&self.method))
            .map_err(|()| invalid("the method"))?;
        request
            .set_scheme(Some(&url.scheme))
            .map_err(|()| invalid("the scheme"))?;
        request
            .set_authority(Some(&url.authority))
            .map_err(|()| invalid("the host"))?;
        request
            .set_path_with_query(Some(&url.path_with_query))
            .map_err(|()| invalid("the path"))?;
        let body = request
            .body()
            .map_err(|()| HttpError::Failed("the request body was already taken".into()))?;
        let options = self.timeout.map(|t| {
            let options = RequestOptions::new();
            let nanos = u64::try_from(t.as_nanos()).unwrap_or(u64::MAX);
            // A host may not support a timeout; it then keeps its own.
            let _ = options.set_connect_timeout(Some(nanos));
            let _ = options.set_first_byte_timeout(Some(nanos));
            options
        });
        let pending = outgoing_handler::handle(request, options)
            .map_err(|code| HttpError::from_code(code, &self.method, &url))?;
        write_body(body, &self.body);
        pending.subscribe().block();
        let response = match pending.get() {
            Some(Ok(Ok(response))) => response,
            Some(Ok(Err(code))) => return Err(HttpError::from_code(code, &self.method, &url)),
            Some(Err(())) | None => {
                return Err(HttpError::Failed("the host gave no response".into()));
            }
        };
        let status = response.status();
        let headers = response
            .headers()
            .entries()
            .into_iter()
            .map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned()))
            .collect();
        let incoming = response
            .consume()
            .map_err(|()| HttpError::Failed("the response body was already taken".into()))?;
        let body = read_body(incoming)?;
        drop(response);
        Ok(Response {
            status,
            headers,
            body,
        })
    }
}

/// Write `bytes` and finish the body. A write the host refuses (the body went over
/// `grants.http.max_request_body`, or the request was refused) ends it: the response then
/// says why.
/// The `content-length` to send, when the caller gave none: the body is whole in memory, so
/// its length is known, and a body without one goes out chunked, which servers that read
/// only `Content-Length` take for empty. A bodiless GET or DELETE sends none.
fn content_length(method: &str, headers: &[(String, String)], len: usize) -> Option<String> {
    let given = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-length"));
    let has_body = len > 0 || matches!(method, "POST" | "PUT" | "PATCH");
    (!given && has_body).then(|| len.to_string())
}

fn write_body(body: OutgoingBody, bytes: &[u8]) {
    if let Ok(stream) = body.write() {
        for chunk in bytes.chunks(WRITE_CHUNK) {
            if stream.blocking_write_and_flush(chunk).is_err() {
                break;
            }
        }
        drop(stream);
    }
    let _ = OutgoingBody::finish(body, None);
}

fn read_body(incoming: IncomingBody) -> Result<Vec<u8>, HttpError> {
    let stream = incoming
        .stream()
        .map_err(|()| HttpError::Failed("the response body stream was already taken".into()))?;
    let mut out = Vec::new();
    let result = loop {
        match stream.blocking_read(READ_CHUNK) {
            Ok(chunk) => out.extend_from_slice(&chunk),
            Err(StreamError::Closed) => break Ok(()),
            Err(StreamError::LastOperationFailed(e)) => {
                let code = wasip2::http::types::http_error_code(&e);
                break Err(match code {
                    Some(ErrorCode::HttpResponseBodySize(_)) => HttpError::TooLarge(
                        "the response body is over the host's cap (grants.http.max_response_body)".into(),
                    ),
                    Some(ErrorCode::HttpResponseTimeout) => HttpError::Timeout(
                        "the response body did not end in time (grants.http.timeout)".into(),
                    ),
                    Some(ErrorCode::HttpResponseContentCoding(_)) => HttpError::Failed(
                        "the response body is not valid in its content coding, so the host could not decode it".into(),
                    ),
                    _ => HttpError::Failed(
                        "the response body ended early: over the host's cap (grants.http.max_response_body), past its time (grants.http.timeout), or cut by the server".into(),
                    ),
                });
            }
        }
    };
    drop(stream);
    drop(incoming);
    result.map(|()| out)
}

fn method(m: &str) -> WitMethod {
    match m {
        "GET" => WitMethod::Get,
        "HEAD" => WitMethod::Head,
        "POST" => WitMethod::Post,
        "PUT" => WitMethod::Put,
        "DELETE" => WitMethod::Delete,
        "CONNECT" => WitMethod::Connect,
        "OPTIONS" => WitMethod::Options,
        "TRACE" => WitMethod::Trace,
        "PATCH" => WitMethod::Patch,
        other => WitMethod::Other(other.to_string()),
    }
}

/// A response: status, headers and the whole body (bounded by the grant's
/// `max_response_body`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code, such as 200 or 302.
    pub status: u16,
    /// Header names (lowercase) and values, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON into `T`.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, HttpError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            HttpError::Failed(format!(
                "the response (HTTP {}) is not the JSON expected: {e}",
                self.status
            ))
        })
    }

    /// `self` for a 2xx status, else [`HttpError::Status`].
    pub fn error_for_status(self) -> Result<Self, HttpError> {
        if (200..300).contains(&self.status) {
            Ok(self)
        } else {
            Err(HttpError::Status {
                status: self.status,
                body: self.text().chars().take(500).collect(),
            })
        }
    }
}

/// Why a request failed. The messages say what to change; a refusal names the grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// The request cannot be made as written (a bad URL, a header only the host sets).
    InvalidRequest(String),
    /// The host refused it: the manifest's `grants.http` does not allow it.
    Denied(String),
    /// A body went over the grant's cap.
    TooLarge(String),
    /// No answer in time.
    Timeout(String),
    /// The server answered with a status that is not 2xx ([`Response::error_for_status`]).
    Status {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// Anything else: DNS, connection, TLS, protocol.
    Failed(String),
}

impl HttpError {
    fn from_code(code: ErrorCode, method: &str, url: &Url) -> Self {
        let origin = url.origin();
        match code {
            ErrorCode::HttpRequestDenied => Self::Denied(format!(
                "the host refused {method} {origin}: add \"{origin}\" to grants.http.origins (and \"{method}\" to grants.http.methods) of this plugin in the manifest; the audit log names the grant"
            )),
            ErrorCode::DestinationIpProhibited => Self::Denied(format!(
                "the host refused {origin}: its address is closed to plugins, either private network space, which grants.http.origins opens only for an address written literally (like \"http://127.0.0.1:8080\"), or a port where Warden itself listens, which no grant opens; the audit log says which"
            )),
            ErrorCode::ConnectionLimitReached => Self::Denied(
                "too many requests of this plugin are in flight; wait for one to end, or raise grants.http.concurrency".into(),
            ),
            ErrorCode::HttpRequestBodySize(_) => Self::TooLarge(
                "the request body is over the host's cap; send less, or raise grants.http.max_request_body".into(),
            ),
            ErrorCode::HttpResponseBodySize(_) => Self::TooLarge(
                "the response body is over the host's cap; raise grants.http.max_response_body".into(),
            ),
            ErrorCode::HttpResponseContentCoding(coding) => Self::Failed(format!(
                "{method} {origin}: the response is in a content coding the host cannot decode ({}); a plugin that holds credentials reads responses the host decoded (gzip, deflate, br, zstd) and scrubbed; ask the server for one of those",
                coding.as_deref().unwrap_or("not valid")
            )),
            ErrorCode::ConfigurationError => Self::Failed(format!(
                "the host could not add the credential for {origin} (the host log says why)"
            )),
            ErrorCode::ConnectionTimeout
            | ErrorCode::HttpResponseTimeout
            | ErrorCode::ConnectionReadTimeout
            | ErrorCode::DnsTimeout => {
                Self::Timeout(format!("{method} {origin}: no answer in time ({code})"))
            }
            ErrorCode::HttpRequestUriInvalid => {
                Self::InvalidRequest(format!("the URL of {method} {origin} is not valid"))
            }
            other => Self::Failed(format!("{method} {origin} failed: {other}")),
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidRequest(m)
            | Self::Denied(m)
            | Self::TooLarge(m)
            | Self::Timeout(m)
            | Self::Failed(m) => f.write_str(m),
            Self::Status { status, body } => write!(f, "the server answered HTTP {status}: {body}"),
        }
    }
}

impl std::error::Error for HttpError {}

impl From<HttpError> for ToolError {
    fn from(e: HttpError) -> Self {
        let message = e.to_string();
        match e {
            HttpError::Denied(_) => Self::AccessDenied(message),
            HttpError::Timeout(_) => Self::Timeout(message),
            HttpError::InvalidRequest(_) => Self::InvalidArguments(message),
            HttpError::TooLarge(_) | HttpError::Status { .. } | HttpError::Failed(_) => {
                Self::Failed(message)
            }
        }
    }
}

/// The parts of an absolute URL a request is made of.
struct Url {
    scheme: Scheme,
    scheme_text: &'static str,
    authority: String,
    path_with_query: String,
}

impl Url {
    fn parse(url: &str) -> Result<Self, HttpError> {
        let bad = || {
            HttpError::InvalidRequest(format!(
                "\"{url}\" is not an absolute http:// or https:// URL"
            ))
        };
        let (scheme_text, rest) = url.split_once("://").ok_or_else(bad)?;
        let (scheme, scheme_text) = match scheme_text.to_ascii_lowercase().as_str() {
            "http" => (Scheme::Http, "http"),
            "https" => (Scheme::Https, "https"),
            _ => return Err(bad()),
        };
        let rest = rest.split('#').next().unwrap_or_default();
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        if authority.is_empty() || authority.contains('@') {
            return Err(bad());
        }
        let path_with_query = if path.starts_with('?') {
            format!("/{path}")
        } else if path.is_empty() {
            "/".to_string()
        } else {
            path.to_string()
        };
        Ok(Self {
            scheme,
            scheme_text,
            authority: authority.to_string(),
            path_with_query,
        })
    }

    fn origin(&self) -> String {
        format!("{}://{}", self.scheme_text, self.authority)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_request_parts() {
        let u = Url::parse("https://api.example.com:8443/v1/items?q=1#frag").expect("url");
        assert_eq!(u.authority, "api.example.com:8443");
        assert_eq!(u.path_with_query, "/v1/items?q=1");
        assert_eq!(u.origin(), "https://api.example.com:8443");
        assert_eq!(
            Url::parse("http://h?x").expect("url").path_with_query,
            "/?x"
        );
        assert_eq!(Url::parse("http://h").expect("url").path_with_query, "/");
        assert!(Url::parse("ftp://h/").is_err());
        assert!(Url::parse("http://user:pw@h/").is_err());
        assert!(Url::parse("/relative").is_err());
    }

    #[test]
    fn a_known_body_length_is_sent() {
        let none: Vec<(String, String)> = Vec::new();
        assert_eq!(content_length("POST", &none, 12), Some("12".into()));
        assert_eq!(content_length("POST", &none, 0), Some("0".into()));
        assert_eq!(content_length("GET", &none, 0), None);
        assert_eq!(content_length("DELETE", &none, 3), Some("3".into()));
        let given = vec![("Content-Length".to_string(), "12".to_string())];
        assert_eq!(content_length("POST", &given, 12), None);
    }

    #[test]
    fn a_refusal_names_the_grant() {
        let url = Url::parse("http://127.0.0.1:9/x").expect("url");
        let e = HttpError::from_code(ErrorCode::HttpRequestDenied, "POST", &url);
        assert!(e.to_string().contains("grants.http.origins"), "{e}");
        assert!(matches!(ToolError::from(e), ToolError::AccessDenied(_)));
    }
}
