//! The private-network rule for `http_get` (see [`crate::net`]): before each hop the host
//! name is resolved, an address where Warden itself listens is refused
//! ([`crate::net::forbidden`]), the others are admitted against the `grants.capture.http_hosts`
//! patterns that matched, and the request goes out on a client pinned to those addresses,
//! so the name cannot resolve to somewhere else (DNS rebinding) between check and connect.

use crate::manifest::grants::Grants;
use crate::net::{self, NetError, pinned};
use std::time::Duration;
use url::Url;

/// Why a hop could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum CheckedError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// A client for one request to `url` that connects only to the addresses checked, built where
/// every client for a plugin's request is ([`crate::net::pinned`]).
pub async fn client_for(
    grants: &Grants,
    url: &Url,
    timeout: Duration,
) -> Result<reqwest::Client, CheckedError> {
    let matched = grants.http_matches(url);
    let pinning = pinned::Pinning {
        key: net::Key {
            name: "grants.capture.http_hosts",
            scheme: None,
        },
        matched: &matched,
        user_agent: concat!("warden/", env!("CARGO_PKG_VERSION")),
        resolve_within: timeout,
        connect_timeout: None,
        timeout: None,
    };
    pinned::client(url, pinning)
        .await
        .map_err(|e| match e.into_net(timeout) {
            Ok(net) => CheckedError::Net(net),
            Err(client) => CheckedError::Client(client),
        })
}
