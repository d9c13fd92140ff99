//! Where the network guard sends an allowed connection: straight to the address it checked,
//! or through the admin's upstream proxy of a `[browser.profiles]` entry (`proxy = ...`),
//! still naming the checked address, never the host name, so the upstream cannot resolve
//! it to somewhere else.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long connecting (including an upstream proxy's handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// An admin-configured proxy the guard chains to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upstream {
    /// An HTTP proxy: plain requests are forwarded to it in absolute form, tunnels by CONNECT.
    Http(String),
    Socks5(String),
    Socks4(String),
}

impl Upstream {
    /// Read a proxy URL as the manifest accepts it (`http://proxy:3128`, `socks5://...`).
    pub fn parse(proxy: &str) -> Result<Self, String> {
        let url = url::Url::parse(proxy)
            .map_err(|e| format!("the upstream proxy \"{proxy}\" is not a URL: {e}"))?;
        let host = url
            .host_str()
            .ok_or_else(|| format!("the upstream proxy \"{proxy}\" has no host"))?;
        let default = match url.scheme() {
            "http" => 80,
            "socks4" | "socks5" => 1080,
            other => {
                return Err(format!(
                    "upstream proxy scheme \"{other}\" is not supported behind Warden's network guard; use an http, socks4 or socks5 proxy"
                ));
            }
        };
        let addr = format!("{host}:{}", url.port().unwrap_or(default));
        Ok(match url.scheme() {
            "http" => Self::Http(addr),
            "socks4" => Self::Socks4(addr),
            _ => Self::Socks5(addr),
        })
    }
}

/// A byte stream that reaches one of `targets` (tried in turn): directly, or through
/// `upstream` (a CONNECT tunnel for an HTTP proxy). Returns the address reached.
pub async fn connect(
    upstream: Option<&Upstream>,
    targets: &[SocketAddr],
) -> io::Result<(TcpStream, SocketAddr)> {
    connect_any(targets, |t| connect_one(upstream, t)).await
}

/// For a plain HTTP request: a stream to one of `targets`, or to the upstream HTTP proxy
/// itself (which is then sent the request in absolute form naming the checked address).
pub async fn connect_plain(
    upstream: Option<&Upstream>,
    targets: &[SocketAddr],
) -> io::Result<(TcpStream, SocketAddr)> {
    match upstream {
        Some(Upstream::Http(proxy)) => {
            let first = targets.first().copied().ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "no address to connect to")
            })?;
            let s = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(proxy.as_str()))
                .await
                .map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("connecting to the upstream proxy {proxy} timed out"),
                    )
                })??;
            Ok((s, first))
        }
        other => connect(other, targets).await,
    }
}

async fn connect_any<F, Fut>(
    targets: &[SocketAddr],
    mut one: F,
) -> io::Result<(TcpStream, SocketAddr)>
where
    F: FnMut(SocketAddr) -> Fut,
    Fut: std::future::Future<Output = io::Result<TcpStream>>,
{
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address to connect to");
    for &target in targets {
        match tokio::time::timeout(CONNECT_TIMEOUT, one(target)).await {
            Ok(Ok(stream)) => return Ok((stream, target)),
            Ok(Err(e)) => last = e,
            Err(_) => {
                last = io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("connecting to {target} timed out"),
                )
            }
        }
    }
    Err(last)
}

async fn connect_one(upstream: Option<&Upstream>, target: SocketAddr) -> io::Result<TcpStream> {
    match upstream {
        None => TcpStream::connect(target).await,
        Some(Upstream::Http(proxy)) => {
            let mut s = TcpStream::connect(proxy.as_str()).await?;
            let head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n");
            s.write_all(head.as_bytes()).await?;
            let answer = read_head(&mut s).await?;
            let status = answer.split_whitespace().nth(1).unwrap_or_default();
            if status != "200" {
                return Err(refused(format!(
                    "the upstream proxy {proxy} answered CONNECT {target} with {status}"
                )));
            }
            Ok(s)
        }
        Some(Upstream::Socks5(proxy)) => {
            let mut s = TcpStream::connect(proxy.as_str()).await?;
            // Greeting: version 5, one method, "no authentication".
            s.write_all(&[5, 1, 0]).await?;
            let mut choice = [0u8; 2];
            s.read_exact(&mut choice).await?;
            if choice != [5, 0] {
                return Err(refused(format!(
                    "the socks5 proxy {proxy} wants authentication, which Warden does not offer"
                )));
            }
            let mut req = vec![5, 1, 0];
            match target {
                SocketAddr::V4(a) => {
                    req.push(1);
                    req.extend_from_slice(&a.ip().octets());
                }
                SocketAddr::V6(a) => {
                    req.push(4);
                    req.extend_from_slice(&a.ip().octets());
                }
            }
            req.extend_from_slice(&target.port().to_be_bytes());
            s.write_all(&req).await?;
            let mut reply = [0u8; 4];
            s.read_exact(&mut reply).await?;
            if reply[1] != 0 {
                return Err(refused(format!(
                    "the socks5 proxy {proxy} refused {target} (code {})",
                    reply[1]
                )));
            }
            // The bound address that follows: its length depends on its type.
            let rest = match reply[3] {
                1 => 4 + 2,
                4 => 16 + 2,
                3 => usize::from(s.read_u8().await?) + 2,
                other => {
                    return Err(refused(format!(
                        "the socks5 proxy {proxy} sent address type {other}"
                    )));
                }
            };
            let mut skip = vec![0u8; rest];
            s.read_exact(&mut skip).await?;
            Ok(s)
        }
        Some(Upstream::Socks4(proxy)) => {
            let SocketAddr::V4(v4) = target else {
                return Err(refused(format!(
                    "the socks4 proxy {proxy} cannot reach the IPv6 address {target}"
                )));
            };
            let mut s = TcpStream::connect(proxy.as_str()).await?;
            let mut req = vec![4, 1];
            req.extend_from_slice(&v4.port().to_be_bytes());
            req.extend_from_slice(&v4.ip().octets());
            req.push(0);
            s.write_all(&req).await?;
            let mut reply = [0u8; 8];
            s.read_exact(&mut reply).await?;
            if reply[1] != 0x5a {
                return Err(refused(format!(
                    "the socks4 proxy {proxy} refused {target}"
                )));
            }
            Ok(s)
        }
    }
}

fn refused(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionRefused, message)
}

/// Read an HTTP response head (up to the blank line), byte by byte so nothing after it is
/// consumed; at most 16 KiB.
async fn read_head(s: &mut TcpStream) -> io::Result<String> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 16 * 1024 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the upstream proxy's answer is too long",
            ));
        }
        head.push(s.read_u8().await?);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_urls() {
        assert_eq!(
            Upstream::parse("http://proxy:3128"),
            Ok(Upstream::Http("proxy:3128".into()))
        );
        assert_eq!(
            Upstream::parse("http://127.0.0.1"),
            Ok(Upstream::Http("127.0.0.1:80".into()))
        );
        assert_eq!(
            Upstream::parse("socks5://127.0.0.1:1080"),
            Ok(Upstream::Socks5("127.0.0.1:1080".into()))
        );
        assert_eq!(
            Upstream::parse("socks4://h"),
            Ok(Upstream::Socks4("h:1080".into()))
        );
        assert!(Upstream::parse("https://proxy:443").is_err());
    }
}
