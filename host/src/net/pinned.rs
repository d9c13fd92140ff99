//! An HTTP client for a request the host makes itself to an origin a plugin's browser grant
//! names (web search, the no-JavaScript fast path): the name resolved and every address
//! checked under the private-network rule, the client pinned to those addresses (DNS cannot
//! swap them), no proxy, no redirect followed.

use super::{Key, NetError, resolve_admitted};
use std::time::Duration;
use url::Url;

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

/// A client for `url`, whose origin matched the `grants.browser.origins` patterns `matched`;
/// every request it sends ends within `timeout`.
pub async fn browser_client(
    url: &Url,
    matched: &[&str],
    user_agent: &str,
    timeout: Duration,
) -> Result<reqwest::Client, PinnedError> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let key = Key {
        name: "grants.browser.origins",
        scheme: Some(if url.scheme() == "https" {
            "https"
        } else {
            "http"
        }),
    };
    let addrs = tokio::time::timeout(timeout, resolve_admitted(host, port, matched, key))
        .await
        .map_err(|_| PinnedError::Timeout(host.to_string()))??;
    client_for(url, &addrs, user_agent, timeout)
}

/// A client for `url` pinned to `addrs`, addresses its caller checked (the browser's network
/// guard, for the no-JavaScript fast path); every request it sends ends within `timeout`.
pub fn client_for(
    url: &Url,
    addrs: &[std::net::SocketAddr],
    user_agent: &str,
    timeout: Duration,
) -> Result<reqwest::Client, PinnedError> {
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(user_agent)
        .timeout(timeout)
        .no_proxy();
    if let Some(url::Host::Domain(domain)) = url.host() {
        builder = builder.resolve_to_addrs(domain, addrs);
    }
    builder
        .build()
        .map_err(|e| PinnedError::Client(e.to_string()))
}
