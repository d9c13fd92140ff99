//! Talking to one repository of one registry: the distribution API's few requests (a
//! manifest, a blob, an upload), on `reqwest` with no redirect followed by the client and no
//! proxy. Each step leaves the registry only through a check:
//!
//! - every destination (the registry, each redirect hop, a token realm) passes
//!   [`super::destination`], which resolves it, applies the private-network rule and pins
//!   the addresses;
//! - credentials (a Basic password, a bearer token, a token the realm issued) are presented
//!   to the registry's own origin only: never to a redirect target, and to a token realm only
//!   when it is that origin or the realm the admin named (`token_realm`; [`super::auth`]);
//! - every body is read with a bound ([`crate::net::body`], [`super::body`]) and every word
//!   of the registry that reaches a message is [`Said`]: on one line, scrubbed of those
//!   credentials, cut short;
//! - every request ends by a deadline ([`Deadlines`]) that covers all of it: the answer's
//!   headers, each redirect, a token realm's answer, the body. The client's idle timeout
//!   alone would let a registry that sends a byte a minute stall a load for ever.
//!
//! Credentials are read from the environment when the connection opens, never from the
//! manifest.

use super::auth::{self, Challenge};
use super::body::{self, ReadError};
/// Opening a connection is `connection.rs`; its path here is kept for callers.
pub use super::connection::connect;
use super::connection::{Connection, Credentials};
use super::destination::{self, Hop, Origin};
use super::error::FetchError;
use super::image::Descriptor;
use super::said::Said;
use crate::net::body::BodyError;
use crate::scrub::Secrets;
use bytes::Bytes;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION};
use reqwest::{Method, Response, StatusCode};
use std::time::Duration;
use tokio::time::Instant;
use url::Url;

/// The largest manifest Warden reads (a plugin's or a signature's is a few KiB).
pub const MAX_MANIFEST: u64 = 4 * 1024 * 1024;
/// The most of an error body that is read (the rest is left unread; see [`Said`] for what
/// reaches a message).
const ERROR_READ: usize = 8 * 1024;
/// Redirects followed for one request.
const MAX_REDIRECTS: usize = 5;
/// The longest the start of an error body is waited for.
const ERROR_TIME: Duration = Duration::from_secs(10);

impl Connection {
    /// The registry's words, bounded and scrubbed of this connection's credentials.
    pub(super) fn said(&self, text: &str) -> Said {
        let scrubber = self.scrubber.lock().unwrap_or_else(|e| e.into_inner());
        Said::new(text, &scrubber)
    }

    pub(super) fn scrubber(&self) -> Secrets {
        self.scrubber
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A credential the registry's realm issued: masked like the configured ones from now on.
    pub(super) fn learned(&self, token: &str) {
        self.scrubber
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(token);
    }

    /// Refuse a URL the registry made that carries a credential (in its host, path or
    /// query): following it would hand the credential to that host, and to every log of it.
    pub(super) fn no_credential_in(&self, url: &Url) -> Result<(), FetchError> {
        let found = self
            .scrubber
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .finds(url.as_str());
        if found {
            return Err(self.registry_error(&format!(
                "it sent Warden to {url}, a URL that carries the registry's credential: refused"
            )));
        }
        Ok(())
    }

    pub(super) fn present(&self, value: HeaderValue) {
        *self.presented.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    }

    fn presented(&self) -> Option<HeaderValue> {
        self.presented
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn url(&self, path: &str) -> Result<Url, FetchError> {
        self.base
            .join(&format!("v2/{}/{path}", self.repository))
            .map_err(|e| self.registry_error(&e.to_string()))
    }

    pub(super) fn registry_error(&self, text: &str) -> FetchError {
        FetchError::Registry {
            registry: self.registry.clone(),
            message: self.said(text),
        }
    }

    /// `work`, one whole request, ended at `budget` from now: [`FetchError::Slow`] then.
    async fn within<T>(
        &self,
        budget: Duration,
        what: &str,
        work: impl Future<Output = Result<T, FetchError>>,
    ) -> Result<T, FetchError> {
        tokio::time::timeout(budget, work)
            .await
            .unwrap_or_else(|_| Err(self.slow(what, budget)))
    }

    fn slow(&self, what: &str, budget: Duration) -> FetchError {
        FetchError::Slow {
            registry: self.registry.clone(),
            what: what.to_string(),
            secs: budget.as_secs(),
        }
    }

    /// The manifest `reference` (a tag or a digest) names, as sent: at most [`MAX_MANIFEST`].
    pub async fn manifest(&self, reference: &str, what: &str) -> Result<Bytes, FetchError> {
        let budget = self.deadlines.floor;
        let deadline = Instant::now() + budget;
        self.within(budget, what, async {
            let url = self.url(&format!("manifests/{reference}"))?;
            let accept = super::image::MANIFEST_TYPES.join(", ");
            let mut resp = self.get(url, &accept).await?;
            self.expect_ok(&mut resp, what).await?;
            match crate::net::body::read(&mut resp, MAX_MANIFEST, deadline).await {
                Ok(bytes) => Ok(bytes.into()),
                Err(BodyError::Over { .. }) => Err(FetchError::Oversized {
                    what: what.to_string(),
                    max: MAX_MANIFEST,
                }),
                Err(e) => Err(self.read_error(ReadError::Body(e), what, MAX_MANIFEST, budget)),
            }
        })
        .await
    }

    /// The blob `layer` names, exactly its declared size, in memory (a signature payload;
    /// the caller bounds `layer.size`). Its digest is checked.
    pub async fn blob(&self, layer: &Descriptor, what: &str) -> Result<Vec<u8>, FetchError> {
        let budget = self.deadlines.for_size(layer.size);
        let deadline = Instant::now() + budget;
        let (bytes, digest) = self
            .within(budget, what, async {
                let mut resp = self.blob_response(layer, what).await?;
                body::exact(&mut resp, layer.size, deadline)
                    .await
                    .map_err(|e| self.read_error(e, what, layer.size, budget))
            })
            .await?;
        matches(layer, what, digest)?;
        Ok(bytes)
    }

    /// The blob `layer` names streamed into `file`, exactly its declared size; its digest
    /// is checked.
    pub async fn blob_into(
        &self,
        layer: &Descriptor,
        what: &str,
        file: &mut tokio::fs::File,
    ) -> Result<(), FetchError> {
        let budget = self.deadlines.for_size(layer.size);
        let deadline = Instant::now() + budget;
        let digest = self
            .within(budget, what, async {
                let mut resp = self.blob_response(layer, what).await?;
                body::exact_into(&mut resp, layer.size, deadline, file)
                    .await
                    .map_err(|e| self.read_error(e, what, layer.size, budget))
            })
            .await?;
        matches(layer, what, digest)
    }

    async fn blob_response(&self, layer: &Descriptor, what: &str) -> Result<Response, FetchError> {
        if !super::reference::valid_digest(&layer.digest) {
            return Err(FetchError::BadManifest(
                self.said(&format!("{what} names no sha256 digest: {}", layer.digest)),
            ));
        }
        let url = self.url(&format!("blobs/{}", layer.digest))?;
        let mut resp = self.get(url, "*/*").await?;
        self.expect_ok(&mut resp, what).await?;
        Ok(resp)
    }

    /// Upload `bytes` as the blob `digest` (a monolithic upload: `POST`, then `PUT` to the
    /// location the registry names, which must be the registry itself).
    pub async fn push_blob(&self, bytes: Bytes, digest: &str) -> Result<(), FetchError> {
        let what = format!("upload of {digest}");
        let budget = self.deadlines.for_size(bytes.len() as u64);
        self.within(budget, &what, self.upload(bytes, digest, &what))
            .await
    }

    async fn upload(&self, bytes: Bytes, digest: &str, what: &str) -> Result<(), FetchError> {
        let start = self.url("blobs/uploads/")?;
        let mut resp = self
            .send(
                Method::POST,
                start.clone(),
                HeaderMap::new(),
                Some(Bytes::new()),
            )
            .await?;
        if resp.status() != StatusCode::ACCEPTED {
            return Err(self.refused(&mut resp, what).await);
        }
        let location = resp
            .headers()
            .get(LOCATION)
            .and_then(|l| l.to_str().ok())
            .and_then(|l| start.join(l).ok())
            .ok_or_else(|| {
                self.registry_error(&format!("{what}: the registry named no upload location"))
            })?;
        if Origin::of(&location).as_ref() != Some(&self.origin) {
            return Err(self.registry_error(&format!(
                "{what}: the registry named an upload location on another host ({location}); Warden uploads only to the registry itself"
            )));
        }
        let mut put = location;
        put.query_pairs_mut().append_pair("digest", digest);
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        );
        let mut resp = self.send(Method::PUT, put, headers, Some(bytes)).await?;
        if !resp.status().is_success() {
            return Err(self.refused(&mut resp, what).await);
        }
        Ok(())
    }

    /// Store `body` as the manifest under `tag`.
    pub async fn put_manifest(
        &self,
        tag: &str,
        body: Vec<u8>,
        content_type: &'static str,
    ) -> Result<(), FetchError> {
        let what = "manifest upload";
        self.within(self.deadlines.floor, what, async {
            let url = self.url(&format!("manifests/{tag}"))?;
            let mut headers = HeaderMap::new();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
            let mut resp = self
                .send(Method::PUT, url, headers, Some(body.into()))
                .await?;
            if !resp.status().is_success() {
                return Err(self.refused(&mut resp, what).await);
            }
            Ok(())
        })
        .await
    }

    /// `GET url` from the registry, following redirects: a hop to the registry's own origin
    /// carries its credentials, a hop anywhere else is a new destination and carries none.
    async fn get(&self, url: Url, accept: &str) -> Result<Response, FetchError> {
        let mut headers = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(accept) {
            headers.insert(ACCEPT, v);
        }
        let mut resp = self
            .send(Method::GET, url.clone(), headers.clone(), None)
            .await?;
        let mut at = url;
        let mut hops = 0;
        while resp.status().is_redirection() {
            hops += 1;
            if hops > MAX_REDIRECTS {
                return Err(
                    self.registry_error(&format!("more than {MAX_REDIRECTS} redirects for {at}"))
                );
            }
            let next = resp
                .headers()
                .get(LOCATION)
                .and_then(|l| l.to_str().ok())
                .and_then(|l| at.join(l).ok())
                .ok_or_else(|| {
                    self.registry_error(&format!("a redirect from {at} names no usable location"))
                })?;
            self.no_credential_in(&next)?;
            let Some(origin) = Origin::of(&next) else {
                return Err(self.registry_error(&format!(
                    "a redirect to {next}, which is not an http(s) URL"
                )));
            };
            if origin.scheme == "http" && self.origin.scheme == "https" {
                return Err(self.registry_error(&format!(
                    "a redirect from HTTPS to plain HTTP ({origin}); Warden does not follow it"
                )));
            }
            resp = if origin == self.origin {
                self.send(Method::GET, next.clone(), headers.clone(), None)
                    .await?
            } else {
                let client = destination::connect(
                    &self.registry,
                    &origin,
                    Hop::Redirect,
                    &self.named,
                    &self.scrubber(),
                )
                .await?;
                client
                    .get(next.clone())
                    .headers(headers.clone())
                    .send()
                    .await
                    .map_err(|e| self.transport_error(&e))?
            };
            at = next;
        }
        Ok(resp)
    }

    /// One request to the registry's own origin, with what is presented to it; a `401` is
    /// answered once (a challenge names Basic or a token realm) and the request sent again.
    async fn send(
        &self,
        method: Method,
        url: Url,
        headers: HeaderMap,
        body: Option<Bytes>,
    ) -> Result<Response, FetchError> {
        let mut answered = false;
        loop {
            let mut request = self
                .client
                .request(method.clone(), url.clone())
                .headers(headers.clone());
            if let Some(auth) = self.presented() {
                request = request.header(AUTHORIZATION, auth);
            }
            if let Some(body) = &body {
                request = request.body(body.clone());
            }
            let resp = request.send().await.map_err(|e| self.transport_error(&e))?;
            if resp.status() != StatusCode::UNAUTHORIZED || answered {
                return Ok(resp);
            }
            answered = true;
            let challenges: Vec<String> = resp
                .headers()
                .get_all(reqwest::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_string))
                .collect();
            let Some(challenge) = auth::parse(&challenges) else {
                return Ok(resp);
            };
            if !self.answer(challenge).await? {
                return Ok(resp);
            }
        }
    }

    /// Present what `challenge` asks for, if this connection holds it; false when it has
    /// nothing to present (or its static token was the one refused): the `401` stands.
    async fn answer(&self, challenge: Challenge) -> Result<bool, FetchError> {
        match (challenge, &self.credentials) {
            (Challenge::Basic, Credentials::Basic { user, password }) => {
                self.present(auth::basic(user, password)?);
                Ok(true)
            }
            (Challenge::Bearer(bearer), Credentials::Anonymous | Credentials::Basic { .. }) => {
                let token = auth::token(self, &bearer).await?;
                self.present(token);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The `401` that stands, as an error.
    async fn expect_ok(&self, resp: &mut Response, what: &str) -> Result<(), FetchError> {
        if resp.status().is_success() {
            return Ok(());
        }
        Err(self.refused(resp, what).await)
    }

    /// An answer that is not success, as the error that says what to do.
    pub(super) async fn refused(&self, resp: &mut Response, what: &str) -> FetchError {
        let status = resp.status();
        if status == StatusCode::NOT_FOUND {
            return FetchError::NotFound {
                what: what.to_string(),
            };
        }
        let text = self.error_text(resp).await;
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return FetchError::Unauthorized {
                registry: self.registry.clone(),
                message: self.said(&format!("{what}: {text}")),
            };
        }
        self.registry_error(&format!("{what}: {text}"))
    }

    /// The status and the start of the body: the distribution API's error envelope
    /// (`CODE: message`) when it is one, else the text.
    pub(super) async fn error_text(&self, resp: &mut Response) -> String {
        let status = resp.status();
        let head = crate::net::body::head(resp, ERROR_READ, Instant::now() + ERROR_TIME).await;
        let text = envelope(&head).unwrap_or_else(|| String::from_utf8_lossy(&head).into_owned());
        if text.trim().is_empty() {
            format!("HTTP {status}")
        } else {
            format!("HTTP {status}: {}", text.trim())
        }
    }

    pub(super) fn transport_error(&self, e: &reqwest::Error) -> FetchError {
        self.registry_error(&crate::net::chain::error_chain(e))
    }

    /// A blob's read error; `declared` is the size its manifest gave, `budget` the time the
    /// request had.
    fn read_error(&self, e: ReadError, what: &str, declared: u64, budget: Duration) -> FetchError {
        match e {
            ReadError::Body(BodyError::Over { .. }) => FetchError::SizeMismatch {
                what: what.to_string(),
                declared,
                detail: "more".into(),
            },
            ReadError::Body(BodyError::Deadline) => self.slow(what, budget),
            ReadError::Body(BodyError::Transfer(e)) => self.transport_error(&e),
            ReadError::Short { got } => FetchError::SizeMismatch {
                what: what.to_string(),
                declared,
                detail: format!("only {got}"),
            },
            ReadError::Io(e) => FetchError::Store(e),
        }
    }
}

/// Whether the blob received for `layer` is the one it names (`digest`: what was received).
fn matches(layer: &Descriptor, what: &str, digest: String) -> Result<(), FetchError> {
    if digest == layer.digest {
        return Ok(());
    }
    Err(FetchError::LayerMismatch {
        what: what.to_string(),
        expected: layer.digest.clone(),
        got: digest,
    })
}

/// `CODE: message; …` of a distribution API error body.
fn envelope(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        errors: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        code: String,
        #[serde(default)]
        message: String,
    }
    let parsed: Envelope = serde_json::from_slice(body).ok()?;
    Some(
        parsed
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.code, e.message))
            .collect::<Vec<_>>()
            .join("; "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::config::{Deadlines, Distribution, RegistrySettings};
    use crate::distribution::connection::Access;
    use crate::distribution::reference::OciRef;
    use crate::net::body::tests::{Answer, serve};
    use std::sync::atomic::Ordering;

    /// A connection to the test server at `url`, named as a plain-HTTP registry, whose
    /// requests have `floor` and 1 MiB/s.
    async fn connection(url: &str, floor: Duration) -> Connection {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let host = url.trim_start_matches("http://").trim_end_matches('/');
        let dist = Distribution {
            registries: [(
                host.to_string(),
                RegistrySettings {
                    plain_http: true,
                    ..RegistrySettings::default()
                },
            )]
            .into(),
            deadlines: Deadlines {
                floor,
                min_rate: 1 << 20,
            },
            ..Distribution::default()
        };
        let reference = OciRef::parse(&format!("oci://{host}/trickle/echo:1")).expect("reference");
        connect(&reference, &dist, Access::Pull)
            .await
            .expect("connected")
    }

    /// The server stopped sending: its count no longer moves.
    async fn hung_up(sent: &std::sync::atomic::AtomicU64) -> bool {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before = sent.load(Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(300)).await;
        sent.load(Ordering::Relaxed) == before
    }

    #[tokio::test]
    async fn a_registry_that_trickles_is_cut_off_at_the_request_deadline() {
        let every = Duration::from_millis(50);
        // A manifest a byte at a time (never idle long enough for the idle timeout), and an
        // answer whose headers never end: each ends at the floor.
        for answer in [
            Answer::Trickle { every, n: 100_000 },
            Answer::TrickleHead { every },
        ] {
            let server = serve(answer, "200 OK");
            let conn = connection(&server.url, Duration::from_secs(1)).await;
            let started = std::time::Instant::now();
            let err = conn.manifest("1", "manifest").await.expect_err("slow");
            let took = started.elapsed();
            assert_eq!(err.kind(), "timeout", "{err}");
            assert!(err.to_string().contains("within 1 s"), "{err}");
            assert!(took < Duration::from_secs(4), "{took:?}");
            drop(conn);
            assert!(hung_up(&server.sent).await, "the server is still sending");
        }
    }

    #[tokio::test]
    async fn a_blob_gets_time_in_proportion_to_its_declared_size() {
        // 3 MiB declared at 1 MiB/s: the floor and 3 s, not the floor alone.
        let server = serve(
            Answer::Trickle {
                every: Duration::from_millis(50),
                n: 100_000,
            },
            "200 OK",
        );
        let conn = connection(&server.url, Duration::from_secs(1)).await;
        let layer = Descriptor {
            media_type: "application/wasm".into(),
            digest: format!("sha256:{}", "0".repeat(64)),
            size: 3 << 20,
            annotations: None,
        };
        let started = std::time::Instant::now();
        let err = conn.blob(&layer, "layer").await.expect_err("slow");
        let took = started.elapsed();
        assert_eq!(err.kind(), "timeout", "{err}");
        assert!(err.to_string().contains("within 4 s"), "{err}");
        assert!(
            took >= Duration::from_secs(4) && took < Duration::from_secs(8),
            "{took:?}"
        );
        drop(conn);
        assert!(hung_up(&server.sent).await, "the server is still sending");
    }
}
