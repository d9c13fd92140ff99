//! Where the registry client connects: the registry itself, a host a blob request is
//! redirected to (registries hand blobs to storage, often on another host), and a token realm
//! a `WWW-Authenticate` challenge names. Each is a destination checked by one rule, here: a
//! destination whose addresses are all public is reached; one with an address in private
//! network space is reached only when the admin named it (`[registries."HOST:PORT"]`, or the
//! registry's `token_realm`). An address where Warden itself listens is never reached, named
//! or not ([`crate::net::forbidden`]). The name is resolved once and the client pinned to the
//! addresses checked, so DNS cannot swap them; no proxy, no redirect followed by the client.

use super::error::FetchError;
use super::said::Said;
use crate::net::addr::classify;
use crate::net::forbidden;
use crate::scrub::Secrets;
use std::net::SocketAddr;
use std::time::Duration;
use url::Url;

/// The longest a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a registry may stay silent while Warden waits to read.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// A scheme, host and port: what a credential is bound to, and what a destination is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub scheme: String,
    /// Lowercase; an IPv6 address without brackets.
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// The origin of an `http`/`https` URL.
    pub fn of(url: &Url) -> Option<Self> {
        let scheme = url.scheme();
        if !matches!(scheme, "http" | "https") {
            return None;
        }
        let host = url
            .host_str()?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        Some(Self {
            scheme: scheme.to_string(),
            host,
            port: url.port_or_known_default()?,
        })
    }

    /// `HOST:PORT` as a `[registries]` key writes it (`[::1]:5000` for IPv6).
    pub fn key(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}://{}", self.scheme, self.key())
    }
}

/// Why a destination is being reached, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hop {
    Registry,
    Redirect,
    Realm,
}

impl Hop {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Registry => "the registry",
            Self::Redirect => "a redirect",
            Self::Realm => "the token realm",
        }
    }
}

/// The destinations the admin named: every `[registries]` entry, and the registry's
/// `token_realm`.
#[derive(Debug, Clone, Default)]
pub struct Named(Vec<(String, u16)>);

impl Named {
    /// `HOST[:PORT]` keys (a key without a port names the default port of its protocol).
    pub fn new<'a>(keys: impl IntoIterator<Item = (&'a str, bool)>, realm: Option<&Url>) -> Self {
        let mut named: Vec<(String, u16)> = keys
            .into_iter()
            .map(|(key, plain_http)| {
                let host = super::reference::host_of(key).to_ascii_lowercase();
                let port =
                    super::reference::port_of(key).unwrap_or(if plain_http { 80 } else { 443 });
                (host, port)
            })
            .collect();
        if let Some(origin) = realm.and_then(Origin::of) {
            named.push((origin.host, origin.port));
        }
        Self(named)
    }

    pub fn names(&self, origin: &Origin) -> bool {
        self.0
            .iter()
            .any(|(host, port)| *host == origin.host && *port == origin.port)
    }
}

/// A client for `origin`, checked by the rule above. `registry` names the registry whose
/// answer led here, and `scrubber` masks its credentials in what the messages quote.
pub async fn connect(
    registry: &str,
    origin: &Origin,
    hop: Hop,
    named: &Named,
    scrubber: &Secrets,
) -> Result<reqwest::Client, FetchError> {
    let addrs = crate::net::resolve(&origin.host, origin.port)
        .await
        .map_err(|e| FetchError::Registry {
            registry: registry.to_string(),
            message: Said::new(&format!("{} {origin}: {e}", hop.describe()), scrubber),
        })?;
    // Warden's own listeners first: naming them in [registries] does not open them.
    let addrs = forbidden::keep_open(&origin.host, addrs)
        .await
        .map_err(|refused| FetchError::OwnListener {
            registry: registry.to_string(),
            hop: hop.describe(),
            // The registry may have chosen this host: it is its words.
            destination: Said::new(&origin.to_string(), scrubber),
            refused: Said::new(&refused.to_string(), scrubber),
        })?;
    if !named.names(origin)
        && let Some(addr) = addrs.iter().find(|a| !classify(a.ip()).is_public())
    {
        return Err(refusal(registry, origin, hop, *addr, scrubber));
    }
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")));
    if origin.host.parse::<std::net::IpAddr>().is_err() {
        builder = builder.resolve_to_addrs(&origin.host, &addrs);
    }
    builder.build().map_err(|e| FetchError::Registry {
        registry: registry.to_string(),
        message: Said::new(&format!("no HTTP client: {e}"), scrubber),
    })
}

fn refusal(
    registry: &str,
    origin: &Origin,
    hop: Hop,
    addr: SocketAddr,
    scrubber: &Secrets,
) -> FetchError {
    let class = classify(addr.ip());
    match hop {
        Hop::Registry => FetchError::PrivateRegistry {
            registry: registry.to_string(),
            addr: addr.ip().to_string(),
            class: class.to_string(),
        },
        Hop::Redirect | Hop::Realm => FetchError::PrivateDestination {
            registry: registry.to_string(),
            hop: hop.describe(),
            // The registry chose this host: it is its words.
            destination: Said::new(&origin.to_string(), scrubber),
            key: Said::new(&origin.key(), scrubber),
            addr: addr.ip(),
            class,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(url: &str) -> Origin {
        Origin::of(&Url::parse(url).expect("url")).expect("origin")
    }

    #[test]
    fn a_key_names_its_host_and_port_and_the_realm_is_named_too() {
        let realm = Url::parse("https://auth.internal/token").expect("url");
        let named = Named::new(
            [("127.0.0.1:5000", true), ("ghcr.io", false), ("lab", true)],
            Some(&realm),
        );
        assert!(named.names(&origin("http://127.0.0.1:5000/v2/")));
        assert!(!named.names(&origin("http://127.0.0.2:5000/v2/")));
        assert!(!named.names(&origin("http://127.0.0.1:5001/v2/")));
        assert!(named.names(&origin("https://GHCR.io/v2/")));
        assert!(!named.names(&origin("http://ghcr.io/v2/")));
        assert!(named.names(&origin("http://lab/v2/")));
        assert!(named.names(&origin("https://auth.internal:443/x")));
        assert_eq!(origin("http://[::1]:5000/").key(), "[::1]:5000");
        assert!(Origin::of(&Url::parse("file:///etc/passwd").expect("url")).is_none());
    }

    #[tokio::test]
    async fn an_unnamed_private_destination_is_refused_before_any_connection() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let named = Named::new([("127.0.0.1:5000", true)], None);
        let err = connect(
            "127.0.0.1:5000",
            &origin("http://127.0.0.2:9/blob"),
            Hop::Redirect,
            &named,
            &Secrets::default(),
        )
        .await
        .expect_err("private");
        assert_eq!(err.kind(), "private_destination");
        assert!(err.to_string().contains("127.0.0.2:9"), "{err}");
        assert!(
            connect(
                "127.0.0.1:5000",
                &origin("http://127.0.0.1:5000/"),
                Hop::Registry,
                &named,
                &Secrets::default()
            )
            .await
            .is_ok()
        );
    }

    #[tokio::test]
    async fn wardens_own_listener_is_refused_even_when_named() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let _mcp = forbidden::Registration::listening(
            "127.0.0.1:45401".parse().expect("addr"),
            forbidden::Service::Mcp,
        );
        let named = Named::new(
            [("127.0.0.1:5000", true)],
            Some(&Url::parse("http://localhost:45401/token").expect("url")),
        );
        let err = connect(
            "127.0.0.1:5000",
            &origin("http://localhost:45401/token"),
            Hop::Realm,
            &named,
            &Secrets::default(),
        )
        .await
        .expect_err("Warden's own");
        assert_eq!(err.kind(), "own_listener");
        let text = err.to_string();
        assert!(
            text.contains("Warden's own MCP endpoint") && text.contains("no grant can open it"),
            "{text}"
        );
    }
}
