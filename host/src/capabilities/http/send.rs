//! One outgoing `wasi:http` request, from the moment the plugin hands it over. In order:
//!
//! 1. The URL is parsed as a browser would (`http://0x7f.1/` is `127.0.0.1`), and every later
//!    check and the connection use that one parsed URL.
//! 2. A slot under `grants.http.concurrency` is taken (refused when none is free).
//! 3. `grants.http` must allow the origin and the method; a declared body over
//!    `max_request_body` is refused before anything is sent.
//! 4. The credential bound to the origin (among those the grant names) is added: it replaces
//!    a header of the same name the plugin set.
//! 5. The name is resolved; an address where Warden itself listens is refused whatever the
//!    grant says ([`crate::net::forbidden`]), and the private-network rule applied; the client
//!    is pinned to the checked addresses, uses no proxy, follows no redirect, verifies TLS.
//! 6. For a plugin that holds credentials, the response is scrubbed of them: its content
//!    codings are decoded first ([`super::coding`]; one the host cannot decode is refused,
//!    `HTTP-response-content-coding`), and the plugin reads the decoded body; a header whose
//!    name carries a credential is dropped, values and body masked. The body is capped (also
//!    decoded) and timed ([`super::body`]). What the host logs or audits of a failure is
//!    scrubbed of the request's credentials, the client's error text named without the
//!    URL's query ([`crate::net::chain::request_error`]).
//!
//! A body the host does not send to its end is drained, not closed, while the plugin may still
//! be writing it ([`super::body::UnreadBody`]): the plugin reads why from the response.
//!
//! A refusal is a typed `error-code` for the plugin (`HTTP-request-denied`,
//! `destination-IP-prohibited`, `HTTP-request-body-size`, `connection-limit-reached`) and a
//! `capability_denied` audit line that names the grant to add.

use super::body::{RequestBody, ResponseBody, UnreadBody};
use super::coding::{self, Codings};
use super::credentials::{self, CredentialError};
use super::exchange::Exchange;
use super::services::{HttpServices, Slot};
use crate::audit::GuestScope;
use crate::manifest::grants::Grants;
use crate::manifest::http::{HttpGrant, origin_of};
use crate::net::{self, NetError, pinned};
use crate::scrub::Scrubber;
use http_body_util::BodyExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::time::Duration;
use url::Url;
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody};

/// What masks a credential in what the plugin reads back.
const MASK: &str = "[credential]";

/// Everything one request needs, moved into its task.
pub struct Outgoing {
    pub grants: Arc<Grants>,
    pub scope: GuestScope,
    pub services: Arc<HttpServices>,
    pub in_flight: Arc<AtomicUsize>,
    pub options: RequestOptions,
}

impl Outgoing {
    pub async fn run(
        self,
        request: http::Request<WasiBody>,
    ) -> Result<http::Response<WasiBody>, Error> {
        let (mut parts, body) = request.into_parts();
        // From here on, whatever refuses or fails leaves the plugin's body to be drained.
        let body = UnreadBody::new(body);
        let method = parts.method.as_str().to_string();
        let Ok(mut url) = Url::parse(&parts.uri.to_string()) else {
            tracing::warn!(plugin = %self.scope.plugin, "wasi:http request with an invalid URI refused");
            return Err(Error::HttpRequestUriInvalid);
        };
        // Origin and path only: the query may carry a token.
        let target = format!("{}{}", origin_of(&url), url.path());
        let exchange = Exchange::new(&self.scope, &method, target);

        let (grant, matched) = match self.grants.check_http_request(&method, &url) {
            Ok(g) => g,
            Err(denied) => {
                exchange.deny(&denied.message);
                return Err(Error::HttpRequestDenied);
            }
        };
        let Some(slot) = Slot::take(&self.in_flight, grant.concurrency) else {
            exchange.deny(&format!(
                "plugin '{}' already has {} HTTP requests in flight (grants.http.concurrency); wait for one to end, or raise grants.http.concurrency",
                self.grants.plugin, grant.concurrency
            ));
            return Err(Error::ConnectionLimitReached);
        };
        if let Some(declared) = content_length(&parts.headers)
            && declared > grant.max_request_body
        {
            exchange.deny(&format!(
                "the request body is {declared} bytes, over grants.http.max_request_body ({} bytes); send less, or raise grants.http.max_request_body of plugin '{}'",
                grant.max_request_body, self.grants.plugin
            ));
            return Err(Error::HttpRequestBodySize(Some(grant.max_request_body)));
        }

        // The plugin never names the server to the connection: `Host` comes from the URL.
        parts.headers.remove(http::header::HOST);
        let mut secrets = Vec::new();
        if let Some(credential) = grant.credential_for(&url) {
            match credentials::apply(
                credential,
                &self.services.tokens,
                &mut parts.headers,
                &mut url,
            )
            .await
            {
                Ok(applied) => secrets.extend(applied.secrets),
                Err(e) => {
                    let kind = match e {
                        CredentialError::Unavailable { .. } => "credential_unavailable",
                        CredentialError::Token { .. } => "credential_token",
                    };
                    let mut exchange = exchange;
                    exchange.fail(kind, &e.to_string());
                    return Err(Error::ConfigurationError);
                }
            }
        }
        let (scrubber, secrets) = self.scrubber(grant, secrets);
        let mut exchange = exchange;
        exchange.hide(&secrets);
        if scrubber.is_some() {
            accept_decodable(&mut parts.headers);
        }

        let started = tokio::time::Instant::now();
        let deadline = started + grant.timeout;
        let connect = shortest(grant.connect_timeout, self.options.connect_timeout);
        let first_byte = shortest(grant.timeout, self.options.first_byte_timeout);
        let scheme = if url.scheme() == "https" {
            "https"
        } else {
            "http"
        };
        let pinning = pinned::Pinning {
            key: net::Key {
                name: "grants.http.origins",
                scheme: Some(scheme),
            },
            matched: &matched,
            user_agent: concat!("warden/", env!("CARGO_PKG_VERSION")),
            resolve_within: connect,
            connect_timeout: Some(connect),
            timeout: None,
        };
        let client = match pinned::client(&url, pinning).await {
            Ok(c) => c,
            Err(e) => return Err(self.refused(exchange, e.into_net(connect))),
        };

        let over = Arc::new(AtomicBool::new(false));
        let stream = RequestBody::new(
            body,
            grant.max_request_body,
            exchange.sent.clone(),
            over.clone(),
        );
        let send = client
            .request(parts.method.clone(), url.clone())
            .headers(parts.headers)
            .body(reqwest::Body::wrap_stream(stream))
            .send();
        let response = match tokio::time::timeout(first_byte, send).await {
            Err(_) => {
                exchange.fail(
                    "timeout",
                    &format!("no response within {first_byte:?} (grants.http.timeout)"),
                );
                return Err(Error::HttpResponseTimeout);
            }
            Ok(Err(e)) => {
                if over.load(std::sync::atomic::Ordering::Relaxed) {
                    exchange.fail("body_too_large", &format!("the request body went over grants.http.max_request_body ({} bytes); nothing over it was sent", grant.max_request_body));
                    return Err(Error::HttpRequestBodySize(Some(grant.max_request_body)));
                }
                let (code, kind) = classify(&e);
                exchange.fail(kind, &crate::net::chain::request_error(&e));
                return Err(code);
            }
            Ok(Ok(r)) => r,
        };
        exchange.status = Some(response.status().as_u16());
        if let Some(len) = response.content_length()
            && len > grant.max_response_body
        {
            exchange.fail("body_too_large", &format!("the response declares {len} bytes, over grants.http.max_response_body ({} bytes); it was not read", grant.max_response_body));
            return Err(Error::HttpResponseBodySize(Some(len)));
        }
        let response: http::Response<reqwest::Body> = response.into();
        let (mut parts, body) = response.into_parts();
        let mut decoder = None;
        if let Some(s) = &scrubber {
            // What the plugin reads must be what is scrubbed: the decoded body.
            let codings = match Codings::parse(&parts.headers) {
                Ok(c) => c,
                Err(e) => {
                    exchange.deny(&format!(
                        "{e}; plugin '{}' holds credentials, so every response it reads is scrubbed of them",
                        self.grants.plugin
                    ));
                    let coding = match e {
                        coding::CodingError::Unknown(c) => Some(c),
                        _ => None,
                    };
                    return Err(Error::HttpResponseContentCoding(coding));
                }
            };
            if !codings.is_empty() {
                match codings.decoder(grant.max_response_body) {
                    Ok(d) => decoder = Some(d),
                    Err(e) => {
                        exchange.fail("content_coding", &e.to_string());
                        return Err(Error::HttpResponseContentCoding(None));
                    }
                }
            }
            parts.headers.remove(http::header::CONTENT_ENCODING);
            scrub_headers(&mut parts.headers, s);
            // The reason phrase is not something wasi:http hands over; nor is it kept.
            parts.extensions.remove::<hyper::ext::ReasonPhrase>();
        }
        let body = ResponseBody::new(
            body,
            grant.max_response_body,
            deadline,
            decoder,
            scrubber,
            exchange,
            slot,
        );
        Ok(http::Response::from_parts(parts, body.boxed_unsync()))
    }

    /// The scrubber of every credential the plugin's grant names whose value this request
    /// learnt, so a server cannot hand one back (plain, encoded or escaped) in a header or
    /// the body, and those secrets. `None` when the plugin holds no credential.
    fn scrubber(
        &self,
        grant: &HttpGrant,
        mut secrets: Vec<String>,
    ) -> (Option<Scrubber>, Vec<String>) {
        if grant.credentials.is_empty() {
            return (None, secrets);
        }
        // The plugin's other credentials too: one server may echo what another one got.
        for c in &grant.credentials {
            let values = match c.kind {
                // The tokens it has had, without fetching one.
                crate::manifest::credentials::CredentialKind::OAuth2(_) => {
                    self.services.tokens.known(&c.name)
                }
                _ => c.source.read().ok().into_iter().collect(),
            };
            for v in values {
                if !secrets.contains(&v) {
                    secrets.push(v);
                }
            }
        }
        (Some(self.services.scrubber(secrets.clone(), MASK)), secrets)
    }

    /// A destination the private-network rule (or the resolver) refused.
    fn refused(&self, exchange: Exchange, error: Result<NetError, String>) -> Error {
        match error {
            Ok(e @ (NetError::Private { .. } | NetError::Own(_))) => {
                exchange.deny(&e.to_string());
                Error::DestinationIpProhibited
            }
            Ok(NetError::Resolve { host, why }) => {
                let mut exchange = exchange;
                let timeout = matches!(why, net::lookup::LookupError::Timeout(_));
                exchange.fail("dns", &NetError::Resolve { host, why }.to_string());
                if timeout {
                    Error::DnsTimeout
                } else {
                    Error::DnsError {
                        rcode: Some("no address".into()),
                        info_code: None,
                    }
                }
            }
            Ok(e @ NetError::NoAddress { .. }) => {
                let mut exchange = exchange;
                exchange.fail("dns", &e.to_string());
                Error::DestinationNotFound
            }
            Err(client) => {
                let mut exchange = exchange;
                exchange.fail("io", &client);
                Error::InternalError(Some("the host could not make an HTTP client".into()))
            }
        }
    }
}

/// The smaller of the grant's time and the one the plugin asked for.
fn shortest(grant: Duration, asked: Option<Duration>) -> Duration {
    asked.map_or(grant, |a| a.min(grant))
}

fn content_length(headers: &http::HeaderMap) -> Option<u64> {
    headers
        .get(http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The plugin's `Accept-Encoding` cut to the codings the host decodes (a response in any
/// other is refused), dropped when none is left.
fn accept_decodable(headers: &mut http::HeaderMap) {
    let asked: Vec<String> = headers
        .get_all(http::header::ACCEPT_ENCODING)
        .iter()
        .flat_map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .split(',')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|c| {
            let name = c.split(';').next().unwrap_or_default().trim();
            name.eq_ignore_ascii_case("identity")
                || coding::DECODED.iter().any(|d| name.eq_ignore_ascii_case(d))
        })
        .collect();
    if headers.remove(http::header::ACCEPT_ENCODING).is_none() {
        return;
    }
    if let Ok(v) = http::HeaderValue::from_str(&asked.join(", "))
        && !asked.is_empty()
    {
        headers.insert(http::header::ACCEPT_ENCODING, v);
    }
}

/// Every header value with a credential in it, masked, and every header whose name holds
/// one (in any case, HTTP lowercases names) dropped; `Content-Length` dropped, since the
/// scrubbed body may differ in length.
fn scrub_headers(headers: &mut http::HeaderMap, scrubber: &Scrubber) {
    headers.remove(http::header::CONTENT_LENGTH);
    let carriers: Vec<http::HeaderName> = headers
        .keys()
        .filter(|name| scrubber.in_name(name.as_str().as_bytes()))
        .cloned()
        .collect();
    for name in carriers {
        headers.remove(name);
    }
    for value in headers.values_mut() {
        let scrubbed = scrubber.scrub_all(value.as_bytes());
        if scrubbed != value.as_bytes()
            && let Ok(v) = http::HeaderValue::from_bytes(&scrubbed)
        {
            *value = v;
        }
    }
}

/// The `error-code` of a failed send, and its kind for the audit line.
fn classify(e: &reqwest::Error) -> (Error, &'static str) {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(tls) = err.downcast_ref::<rustls::Error>() {
            return match tls {
                rustls::Error::InvalidCertificate(_) => (Error::TlsCertificateError, "tls"),
                rustls::Error::AlertReceived(_) => (
                    Error::TlsAlertReceived {
                        alert_id: None,
                        alert_message: None,
                    },
                    "tls",
                ),
                _ => (Error::TlsProtocolError, "tls"),
            };
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return (Error::ConnectionRefused, "io"),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::UnexpectedEof => {
                    return (Error::ConnectionTerminated, "io");
                }
                std::io::ErrorKind::TimedOut => return (Error::ConnectionTimeout, "timeout"),
                _ => {}
            }
        }
        source = err.source();
    }
    if e.is_timeout() {
        (Error::ConnectionTimeout, "timeout")
    } else if e.is_connect() {
        (Error::ConnectionRefused, "io")
    } else {
        (Error::HttpProtocolError, "io")
    }
}
