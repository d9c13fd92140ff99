//! The private-network rule applied: a host resolved ([`resolve`]), the addresses where
//! Warden itself listens taken out, and the rest admitted by the grant patterns that matched
//! ([`admit`], [`resolve_admitted`]).

use super::addr::classify;
use super::error::NetError;
use super::forbidden;
use super::space::{Key, Space, explicit_space};
use std::net::SocketAddr;

/// Resolve `host` (a name or an IP literal, IPv6 without brackets) to socket addresses.
/// `localhost` names are loopback without a DNS query, as in Chromium.
pub async fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>, NetError> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    super::resolve::addresses(bare, port)
        .await
        .map_err(|why| NetError::Resolve {
            host: bare.to_string(),
            why,
        })
}

/// The addresses of `host` that may be connected to, given the grant patterns that matched
/// its origin: public addresses, and private ones a matched pattern names explicitly. When
/// none is left the first refused address is reported. `key` names the grant for the message.
pub fn admit(
    host: &str,
    addrs: &[SocketAddr],
    matched: &[&str],
    key: Key,
) -> Result<Vec<SocketAddr>, NetError> {
    // An IPv6 literal as a URL writes it (`[::1]`) is the address without its brackets.
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let spaces: Vec<Space> = matched.iter().filter_map(|p| explicit_space(p)).collect();
    let admitted: Vec<SocketAddr> = addrs
        .iter()
        .copied()
        .filter(|a| classify(a.ip()).is_public() || spaces.iter().any(|s| s.admits(a.ip())))
        .collect();
    match (admitted.is_empty(), addrs.first()) {
        (false, _) => Ok(admitted),
        (true, None) => Err(NetError::NoAddress {
            host: host.to_string(),
        }),
        (true, Some(first)) => Err(NetError::Private {
            host: host.to_string(),
            addr: *first,
            class: classify(first.ip()),
            key,
        }),
    }
}

/// [`resolve`], the addresses where Warden itself listens taken out ([`forbidden`]; first,
/// so that no message suggests a grant for them), then [`admit`].
pub async fn resolve_admitted(
    host: &str,
    port: u16,
    matched: &[&str],
    key: Key,
) -> Result<Vec<SocketAddr>, NetError> {
    let addrs = resolve(host, port).await?;
    let open = forbidden::keep_open(host, addrs).await?;
    admit(host, &open, matched, key)
}
