//! Name lookup with a typed answer for failure: the system resolver (`getaddrinfo`, so
//! `/etc/hosts` and nsswitch apply as everywhere else), whose error codes say whether the
//! name does not exist, has no address, or could not be asked about now. std's and tokio's
//! lookups fold those into one message string.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Why a name did not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The DNS answered: no such name (`NXDOMAIN`).
    #[error("no such host")]
    NoSuchHost,
    /// The name exists but has no address.
    #[error("the name has no address")]
    NoAddress,
    /// The resolver got no answer now (no DNS server reachable, or it timed out).
    #[error("no answer from the DNS server, a temporary failure")]
    TryAgain,
    /// No answer within the caller's time.
    #[error("no answer within {0} ms")]
    Timeout(u128),
    /// Anything else the resolver said.
    #[error("{0}")]
    Failed(String),
}

/// The addresses of `host` (a name; literals never get here) on `port`, in the
/// resolver's order, without repeats.
pub async fn lookup(host: &str, port: u16) -> Result<Vec<SocketAddr>, LookupError> {
    let host = host.to_string();
    tokio::task::spawn_blocking(move || getaddrinfo(&host, port))
        .await
        .map_err(|e| LookupError::Failed(format!("the lookup task failed: {e}")))?
}

#[allow(unsafe_code)]
fn getaddrinfo(host: &str, port: u16) -> Result<Vec<SocketAddr>, LookupError> {
    let name = std::ffi::CString::new(host)
        .map_err(|_| LookupError::Failed("the name holds a NUL byte".into()))?;
    // SAFETY: `hints` is a zeroed addrinfo (every field may be zero) with the socket type
    // set; `getaddrinfo` writes a list to `list` only on success, which is read while alive
    // and freed once with `freeaddrinfo`. Each `ai_addr` points at a sockaddr of the
    // `ai_family` it names, at least `ai_addrlen` long.
    unsafe {
        let mut hints: libc::addrinfo = std::mem::zeroed();
        hints.ai_socktype = libc::SOCK_STREAM;
        let mut list: *mut libc::addrinfo = std::ptr::null_mut();
        let code = libc::getaddrinfo(name.as_ptr(), std::ptr::null(), &hints, &mut list);
        if code != 0 {
            return Err(match code {
                libc::EAI_NONAME => LookupError::NoSuchHost,
                libc::EAI_NODATA => LookupError::NoAddress,
                libc::EAI_AGAIN => LookupError::TryAgain,
                libc::EAI_SYSTEM => {
                    LookupError::Failed(std::io::Error::last_os_error().to_string())
                }
                other => LookupError::Failed(
                    std::ffi::CStr::from_ptr(libc::gai_strerror(other))
                        .to_string_lossy()
                        .into_owned(),
                ),
            });
        }
        let mut found: Vec<SocketAddr> = Vec::new();
        let mut at = list;
        while !at.is_null() {
            let info = &*at;
            let ip = match info.ai_family {
                libc::AF_INET
                    if usize::try_from(info.ai_addrlen)
                        .is_ok_and(|l| l >= std::mem::size_of::<libc::sockaddr_in>()) =>
                {
                    let a = &*(info.ai_addr as *const libc::sockaddr_in);
                    Some(IpAddr::V4(Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr))))
                }
                libc::AF_INET6
                    if usize::try_from(info.ai_addrlen)
                        .is_ok_and(|l| l >= std::mem::size_of::<libc::sockaddr_in6>()) =>
                {
                    let a = &*(info.ai_addr as *const libc::sockaddr_in6);
                    Some(IpAddr::V6(Ipv6Addr::from(a.sin6_addr.s6_addr)))
                }
                _ => None,
            };
            if let Some(ip) = ip {
                let addr = SocketAddr::new(ip, port);
                if !found.contains(&addr) {
                    found.push(addr);
                }
            }
            at = info.ai_next;
        }
        libc::freeaddrinfo(list);
        if found.is_empty() {
            return Err(LookupError::NoAddress);
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn names_resolve_and_reserved_ones_do_not() {
        // /etc/hosts names `localhost` on every machine this runs on.
        let found = lookup("localhost", 8080).await.expect("localhost");
        assert!(
            found
                .iter()
                .all(|a| a.port() == 8080 && a.ip().is_loopback()),
            "{found:?}"
        );
        // RFC 6761: `.invalid` never resolves. Without a reachable DNS server the answer
        // is a temporary failure instead.
        let err = lookup("no-such-shop.invalid", 80)
            .await
            .expect_err("invalid");
        assert!(
            matches!(err, LookupError::NoSuchHost | LookupError::TryAgain),
            "{err:?}"
        );
    }
}
