//! `warden:capture/http.get`: the host fetches a URL for the plugin. The first URL and every
//! redirect hop must match `grants.capture.http_hosts`; the body is capped by
//! `grants.capture.max_body`; the plugin never gets a socket of its own. Each hop connects
//! to addresses resolved and checked by the private-network rule (`checked.rs`), never to
//! one where Warden itself listens.

use super::CaptureCtx;
use super::bindings::warden::capture::http::{Host, Request, Response};
use super::bindings::warden::capture::types::Error;
use super::checked::{self, CheckedError};
use crate::audit::Used;
use crate::capabilities::View;
use crate::manifest::grants::host_port;
use crate::net::chain::error_chain;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, LOCATION};
use std::time::{Duration, Instant};
use url::Url;

const CAPABILITY: &str = "capture.http";
const MAX_REDIRECTS: u32 = 10;
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Request headers a plugin may not set: `Host` would reach a virtual host behind a granted
/// address, and hop-by-hop headers (RFC 9110 7.6.1) steer the connection, not the request.
/// `Proxy-*` headers are refused too (checked by prefix).
const HOST_ONLY_HEADERS: &[&str] = &[
    "host",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
];

impl Host for View<'_, CaptureCtx> {
    async fn get(&mut self, request: Request) -> Result<Response, Error> {
        let url = Url::parse(&request.url).map_err(|e| {
            Error::InvalidArgument(format!("\"{}\" is not an absolute URL: {e}", request.url))
        })?;
        if let Some(name) = host_only_header(&request.headers) {
            let message = format!(
                "header \"{name}\" is set by the host only (Host, hop-by-hop and proxy headers reach a server the grant names, never one the plugin picks); remove it from the request"
            );
            self.scope
                .denied(CAPABILITY, &format!("header {name}"), &message);
            return Err(Error::AccessDenied(message));
        }
        let headers = headers(&request.headers)?;
        // Refused before anything is sent: the denial is the audit line.
        if let Err(denied) = self.grants.check_http(&url) {
            self.scope
                .denied(CAPABILITY, &denied.target, &denied.message);
            return Err(Error::AccessDenied(denied.message));
        }
        let started = Instant::now();
        // Origin and path only: the query may carry tokens.
        let target = format!("{}{}", url.origin().ascii_serialization(), url.path());
        let result = self.fetch(&request, url, headers).await;
        let error = result.as_ref().err().map(Error::kind);
        self.scope.used(&Used {
            capability: CAPABILITY,
            target: &target,
            error,
            duration: started.elapsed(),
            tabs_opened: None,
            tabs_open: None,
            ..Used::default()
        });
        result
    }
}

impl View<'_, CaptureCtx> {
    /// GET `url`, following redirects by hand so that every hop is checked.
    async fn fetch(
        &mut self,
        request: &Request,
        mut url: Url,
        headers: HeaderMap,
    ) -> Result<Response, Error> {
        let max = request
            .max_bytes
            .map_or(self.grants.max_body(), |m| m.min(self.grants.max_body()));
        let timeout = request
            .timeout_ms
            .map_or(DEFAULT_TIMEOUT, |ms| Duration::from_millis(ms.into()));
        let deadline = tokio::time::Instant::now() + timeout;

        let mut redirects = 0;
        loop {
            if let Err(denied) = self.grants.check_http(&url) {
                let message = if redirects > 0 {
                    format!("redirect #{redirects} to {url} refused: {}", denied.message)
                } else {
                    denied.message.clone()
                };
                self.scope.denied(CAPABILITY, &denied.target, &message);
                return Err(Error::AccessDenied(message));
            }
            // Resolved and checked here; the client connects to the addresses checked.
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            let client = match checked::client_for(&self.grants, &url, remaining).await {
                Ok(c) => c,
                Err(CheckedError::Net(e)) if e.is_refusal() => {
                    let target = host_port(&url).unwrap_or_default();
                    self.scope.denied(CAPABILITY, &target, &e.to_string());
                    return Err(Error::AccessDenied(e.to_string()));
                }
                Err(e) => return Err(Error::Io(format!("GET {url} failed: {e}"))),
            };
            let send = client.get(url.clone()).headers(headers.clone()).send();
            let response = tokio::time::timeout_at(deadline, send)
                .await
                .map_err(|_| {
                    Error::Timeout(format!(
                        "no response from {} within {timeout:?}",
                        host_port(&url).unwrap_or_default()
                    ))
                })?
                .map_err(|e| Error::Io(format!("GET {url} failed: {}", error_chain(&e))))?;

            if response.status().is_redirection()
                && let Some(location) = response.headers().get(LOCATION)
            {
                redirects += 1;
                if redirects > MAX_REDIRECTS {
                    return Err(Error::Io(format!(
                        "more than {MAX_REDIRECTS} redirects starting at {}",
                        request.url
                    )));
                }
                url = redirect_target(&url, location)?;
                continue;
            }
            return read_body(response, url, redirects, max, deadline, timeout).await;
        }
    }
}

/// The first header in `pairs` that only the host may set, lowercased.
pub(crate) fn host_only_header(pairs: &[(String, String)]) -> Option<String> {
    pairs
        .iter()
        .map(|(name, _)| name.to_ascii_lowercase())
        .find(|name| HOST_ONLY_HEADERS.contains(&name.as_str()) || name.starts_with("proxy-"))
}

/// Where a redirect from `url` with this `Location` leads.
pub(crate) fn redirect_target(url: &Url, location: &HeaderValue) -> Result<Url, Error> {
    let location = location
        .to_str()
        .map_err(|_| Error::Io(format!("{url} redirected to a non-ASCII Location")))?;
    url.join(location).map_err(|e| {
        Error::Io(format!(
            "{url} redirected to a bad Location \"{location}\": {e}"
        ))
    })
}

pub(crate) fn headers(pairs: &[(String, String)]) -> Result<HeaderMap, Error> {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        let name = HeaderName::try_from(name.as_str()).map_err(|_| {
            Error::InvalidArgument(format!("\"{name}\" is not a valid header name"))
        })?;
        let value = HeaderValue::try_from(value.as_str()).map_err(|_| {
            Error::InvalidArgument(format!("the value of header \"{name}\" is not valid"))
        })?;
        map.append(name, value);
    }
    Ok(map)
}

async fn read_body(
    mut response: reqwest::Response,
    url: Url,
    redirects: u32,
    max: u64,
    deadline: tokio::time::Instant,
    timeout: Duration,
) -> Result<Response, Error> {
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let cap = usize::try_from(max).unwrap_or(usize::MAX);
    let mut body = Vec::new();
    let mut truncated = false;
    loop {
        let chunk = tokio::time::timeout_at(deadline, response.chunk())
            .await
            .map_err(|_| Error::Timeout(format!("body of {url} not complete within {timeout:?}")))?
            .map_err(|e| {
                Error::Io(format!(
                    "reading the body of {url} failed: {}",
                    error_chain(&e)
                ))
            })?;
        let Some(chunk) = chunk else { break };
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Response {
        status,
        headers,
        body,
        final_url: url.to_string(),
        redirects,
        truncated,
    })
}
