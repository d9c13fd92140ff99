//! A name or an IP literal to socket addresses, before any rule is applied: `localhost`
//! names are loopback without a DNS query, as in Chromium.

use super::lookup::{self, LookupError};
use super::space::is_localhost_name;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The addresses of `host` (a name or an IP literal, IPv6 with or without brackets).
pub async fn addresses(host: &str, port: u16) -> Result<Vec<SocketAddr>, LookupError> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    if is_localhost_name(bare) {
        return Ok(vec![
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
        ]);
    }
    lookup::lookup(bare, port).await
}
