//! The authorization server's signing keys, fetched from `jwks_url` and cached. A token
//! whose `kid` is not in the cache asks for a fresh copy (the IdP rotated its keys), but
//! never more than once per `jwks_min_refresh`: a flood of made-up kids costs the IdP one
//! fetch per interval, and concurrent requests wait for that one fetch instead of each
//! making their own. Keys older than `MAX_AGE` are fetched again, so a key the IdP
//! withdrew stops verifying without a restart; if that fetch fails the old keys stay.
//!
//! The IdP is a server like any other: its answer is read to at most 1 MiB within the fetch's
//! time ([`crate::net::body`]), no redirect is followed (it could lead from https to a
//! plain-http or internal URL: the admin named this URL, not where it points to), and what
//! reaches the log about a bad answer describes it without quoting it.

//! Each fetch resolves the name again and connects only to the addresses resolved, never to
//! one where Warden itself listens (`crate::net::forbidden`).

use super::jws::{self, Jwk};
use crate::net::body::{self, BodyError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, RwLock};
use url::Url;

/// How long fetched keys are used before they are fetched again.
const MAX_AGE: Duration = Duration::from_secs(15 * 60);
/// Largest JWKS document read.
const MAX_BODY: u64 = 1024 * 1024;
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the keys could not be fetched. Logged; a token waiting on it is refused.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("cannot fetch the JWKS at {url}: {source}")]
    Request { url: Url, source: reqwest::Error },
    #[error("cannot fetch the JWKS at {url}: {why}")]
    Resolve { url: Url, why: crate::net::NetError },
    #[error("the JWKS at {url} is refused: {refused}; fix [server.http.oauth] jwks_url")]
    Own {
        url: Url,
        refused: crate::net::forbidden::Refused,
    },
    #[error("the JWKS at {url} answered HTTP {status}")]
    Status { url: Url, status: u16 },
    #[error("the JWKS at {url} is larger than 1 MiB")]
    TooLarge { url: Url },
    #[error("the JWKS at {url} did not arrive within {} s", FETCH_TIMEOUT.as_secs())]
    Slow { url: Url },
    #[error("the JWKS at {url} is {source}")]
    Parse { url: Url, source: jws::JwksError },
}

#[derive(Default)]
struct Cached {
    keys: Vec<Arc<Jwk>>,
    fetched: Option<Instant>,
    /// The last fetch failed (the keys, if any, are older).
    failing: bool,
}

/// Which key verifies a token, if any.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    Found(Arc<Jwk>),
    /// No key with that `kid`, even after a refresh (or a refresh was not allowed yet).
    Unknown,
    /// The token names no `kid` and the set has several keys.
    Ambiguous,
    /// No key with that `kid`, and the last fetch of the set failed: the IdP, not the token,
    /// may be at fault.
    Unavailable,
}

fn builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        // A redirect could lead from https to a plain-http or internal URL.
        .redirect(reqwest::redirect::Policy::none())
        // An environment proxy (`HTTPS_PROXY`) is still used: the identity provider may be
        // reachable only through it, and the admin named both.
        .timeout(FETCH_TIMEOUT)
        .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
}

pub struct JwksCache {
    url: Url,
    min_refresh: Duration,
    cached: RwLock<Cached>,
    /// When the last fetch was started; held while fetching, so fetches never overlap.
    last_fetch: Mutex<Option<Instant>>,
}

impl JwksCache {
    pub fn new(url: Url, min_refresh: Duration) -> Result<Self, reqwest::Error> {
        // Built once here so that a client that cannot be built fails the start.
        builder().build()?;
        Ok(Self {
            url,
            min_refresh,
            cached: RwLock::new(Cached::default()),
            last_fetch: Mutex::new(None),
        })
    }

    fn find(cached: &Cached, kid: Option<&str>) -> Lookup {
        match kid {
            Some(kid) => cached
                .keys
                .iter()
                .find(|k| k.kid.as_deref() == Some(kid))
                .map_or(Lookup::Unknown, |k| Lookup::Found(k.clone())),
            None => match cached.keys.as_slice() {
                [only] => Lookup::Found(only.clone()),
                [] => Lookup::Unknown,
                _ => Lookup::Ambiguous,
            },
        }
    }

    /// The key for a token's `kid`, fetching the set when it is unknown or stale.
    pub async fn key(&self, kid: Option<&str>) -> Lookup {
        {
            let cached = self.cached.read().await;
            let fresh = cached.fetched.is_some_and(|t| t.elapsed() < MAX_AGE);
            let found = Self::find(&cached, kid);
            if fresh && found != Lookup::Unknown {
                return found;
            }
        }
        self.refresh().await;
        let cached = self.cached.read().await;
        match Self::find(&cached, kid) {
            Lookup::Unknown if cached.failing => Lookup::Unavailable,
            found => found,
        }
    }

    /// Fetch the set again unless a fetch started less than `min_refresh` ago.
    async fn refresh(&self) {
        let mut last = self.last_fetch.lock().await;
        if last.is_some_and(|t| t.elapsed() < self.min_refresh) {
            return;
        }
        *last = Some(Instant::now());
        match self.fetch().await {
            Ok(keys) => {
                tracing::info!(url = %self.url, "JWKS fetched: {} signing key(s)", keys.len());
                let mut cached = self.cached.write().await;
                cached.keys = keys.into_iter().map(Arc::new).collect();
                cached.fetched = Some(Instant::now());
                cached.failing = false;
            }
            Err(e) => {
                tracing::warn!("{e}");
                self.cached.write().await.failing = true;
            }
        }
    }

    /// A client pinned to the addresses `jwks_url`'s name resolves to now, none of them
    /// Warden's own.
    async fn client(&self) -> Result<reqwest::Client, FetchError> {
        let url = &self.url;
        let host = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(443);
        let addrs = crate::net::resolve(host, port)
            .await
            .map_err(|why| FetchError::Resolve {
                url: url.clone(),
                why,
            })?;
        let addrs = crate::net::forbidden::keep_open(host, addrs)
            .await
            .map_err(|refused| FetchError::Own {
                url: url.clone(),
                refused,
            })?;
        let mut builder = builder();
        if let Some(url::Host::Domain(domain)) = url.host() {
            builder = builder.resolve_to_addrs(domain, &addrs);
        }
        builder.build().map_err(|source| FetchError::Request {
            url: url.clone(),
            source,
        })
    }

    async fn fetch(&self) -> Result<Vec<Jwk>, FetchError> {
        let url = &self.url;
        let deadline = tokio::time::Instant::now() + FETCH_TIMEOUT;
        let request = |source| FetchError::Request {
            url: url.clone(),
            source,
        };
        let mut response = self
            .client()
            .await?
            .get(url.clone())
            .header("accept", "application/json")
            .send()
            .await
            .map_err(request)?;
        if !response.status().is_success() {
            return Err(FetchError::Status {
                url: url.clone(),
                status: response.status().as_u16(),
            });
        }
        let body = body::read(&mut response, MAX_BODY, deadline)
            .await
            .map_err(|e| match e {
                BodyError::Over { .. } => FetchError::TooLarge { url: url.clone() },
                BodyError::Deadline => FetchError::Slow { url: url.clone() },
                BodyError::Transfer(e) => request(e),
            })?;
        jws::parse_jwks(&body).map_err(|source| FetchError::Parse {
            url: url.clone(),
            source,
        })
    }
}
