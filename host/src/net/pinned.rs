//! The one way the host builds an HTTP client for a request it makes for a plugin (standard
//! `wasi:http`, `capture`'s `http_get`, web search, the no-JavaScript fast path, the OAuth
//! token fetch of `[credentials]`): the name resolved, the addresses where Warden itself
//! listens taken out ([`super::forbidden`]), every other address checked under the
//! private-network rule against the grant patterns that matched, the client pinned to those addresses (DNS cannot swap them between
//! check and connect), no proxy (an environment proxy would connect somewhere unchecked), no
//! redirect followed (the caller checks every hop as a new request), TLS verified by rustls
//! against the system's roots, loaded once. The fast path's client is pinned to addresses the
//! browser's network guard admitted ([`client_for`]), so its requests obey the guard's rules.

use super::admit::resolve_admitted;
use super::error::NetError;
use super::lookup::LookupError;
use super::space::Key;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use url::Url;

/// The TLS settings of every pinned client: rustls on ring, the system's roots (what reqwest
/// would load for each client; loading them is the slow part of building one, so it is done
/// once), HTTP/1.1.
fn tls() -> Result<rustls::ClientConfig, String> {
    static TLS: OnceLock<Result<rustls::ClientConfig, String>> = OnceLock::new();
    TLS.get_or_init(|| {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
            .map_err(|e| format!("cannot load the system's TLS roots: {e}"))?;
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(config)
    })
    .clone()
}

#[derive(Debug, thiserror::Error)]
pub enum PinnedError {
    #[error(transparent)]
    Net(#[from] NetError),
    /// The name did not resolve within the request's time.
    #[error("{0} did not resolve in time")]
    Timeout(String),
    #[error("no HTTP client: {0}")]
    Client(String),
}

impl PinnedError {
    /// A resolution that took too long, as the private-network rule reports a failed one.
    pub fn into_net(self, within: Duration) -> Result<NetError, String> {
        match self {
            Self::Net(e) => Ok(e),
            Self::Timeout(host) => Ok(NetError::Resolve {
                host,
                why: LookupError::Timeout(within.as_millis()),
            }),
            Self::Client(e) => Err(e),
        }
    }
}

/// What a pinned client is for.
#[derive(Debug, Clone, Copy)]
pub struct Pinning<'a> {
    /// The grant list the URL's origin matched, for messages.
    pub key: Key,
    /// Its patterns that matched: only a literal among them opens private address space.
    pub matched: &'a [&'a str],
    pub user_agent: &'a str,
    /// Time for the name to resolve.
    pub resolve_within: Duration,
    /// Time to connect (TLS included), when capped apart from the whole request.
    pub connect_timeout: Option<Duration>,
    /// Time for each whole request, when the client itself enforces it.
    pub timeout: Option<Duration>,
}

/// A client for requests to `url`'s host and port only, pinned to its checked addresses.
pub async fn client(url: &Url, pinning: Pinning<'_>) -> Result<reqwest::Client, PinnedError> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let addrs = tokio::time::timeout(
        pinning.resolve_within,
        resolve_admitted(host, port, pinning.matched, pinning.key),
    )
    .await
    .map_err(|_| PinnedError::Timeout(host.to_string()))??;
    build(
        url,
        &addrs,
        pinning.user_agent,
        pinning.connect_timeout,
        pinning.timeout,
    )
}

/// A client pinned to `addrs` for `url`'s host: the shared TLS settings, no redirect, no proxy.
fn build(
    url: &Url,
    addrs: &[SocketAddr],
    user_agent: &str,
    connect_timeout: Option<Duration>,
    timeout: Option<Duration>,
) -> Result<reqwest::Client, PinnedError> {
    let mut builder = reqwest::Client::builder()
        .tls_backend_preconfigured(tls().map_err(PinnedError::Client)?)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(user_agent)
        .no_proxy();
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    if let Some(connect) = connect_timeout {
        builder = builder.connect_timeout(connect);
    }
    if let Some(url::Host::Domain(domain)) = url.host() {
        builder = builder.resolve_to_addrs(domain, addrs);
    }
    builder
        .build()
        .map_err(|e| PinnedError::Client(e.to_string()))
}

/// A client for `url`, whose origin matched the `grants.browser.origins` patterns `matched`;
/// every request it sends ends within `timeout`.
pub async fn browser_client(
    url: &Url,
    matched: &[&str],
    user_agent: &str,
    timeout: Duration,
) -> Result<reqwest::Client, PinnedError> {
    let key = Key {
        name: "grants.browser.origins",
        scheme: Some(if url.scheme() == "https" {
            "https"
        } else {
            "http"
        }),
    };
    client(
        url,
        Pinning {
            key,
            matched,
            user_agent,
            resolve_within: timeout,
            connect_timeout: None,
            timeout: Some(timeout),
        },
    )
    .await
}

/// A client for `url` pinned to `addrs`, addresses its caller checked (the browser's network
/// guard, for the no-JavaScript fast path); every request it sends ends within `timeout`.
pub fn client_for(
    url: &Url,
    addrs: &[SocketAddr],
    user_agent: &str,
    timeout: Duration,
) -> Result<reqwest::Client, PinnedError> {
    build(url, addrs, user_agent, None, Some(timeout))
}
