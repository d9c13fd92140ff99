//! The private-network rule for `http_get` (see [`crate::net`]): before each hop the host
//! name is resolved here, its addresses are admitted against the `grants.capture.http_hosts`
//! patterns that matched, and the request goes out on a client pinned to those addresses,
//! so the name cannot resolve to somewhere else (DNS rebinding) between check and connect.

use crate::manifest::grants::Grants;
use crate::net::{self, NetError};
use std::time::Duration;
use url::Url;

/// Why a hop could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum CheckedError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("cannot build the HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}

/// A client for one request to `url` that connects only to the addresses checked here.
/// It never goes through an environment proxy: that would connect somewhere unchecked.
pub async fn client_for(
    grants: &Grants,
    url: &Url,
    timeout: Duration,
) -> Result<reqwest::Client, CheckedError> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let matched = grants.http_matches(url);
    let resolved = tokio::time::timeout(timeout, net::resolve(host, port))
        .await
        .map_err(|_| NetError::Resolve {
            host: host.to_string(),
            why: net::lookup::LookupError::Timeout(timeout.as_millis()),
        })??;
    let key = net::Key {
        name: "grants.capture.http_hosts",
        scheme: None,
    };
    let addrs = net::admit(host, &resolved, &matched, key)?;
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
        .no_proxy();
    if let Some(url::Host::Domain(domain)) = url.host() {
        builder = builder.resolve_to_addrs(domain, &addrs);
    }
    Ok(builder.build()?)
}
