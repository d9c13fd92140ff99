//! The network guard's decision for one request to the web on behalf of a browser context:
//! is the target's origin granted to a plugin that owns the context, and which addresses may it
//! be reached at: the private-network rule of [`crate::net`], after the addresses where Warden
//! itself listens (its MCP and admin listeners, every network guard, a remote browser's
//! DevTools endpoint: [`crate::net::forbidden`]) are taken out. The browser's connections
//! (`proxy.rs`) and the host's own requests for a context's pages (the fast path,
//! `super::HostRequests`) are both decided by [`decide`], so a rule added here holds on both
//! paths. Pure except for name resolution.

use super::super::model::owner::Guard;
use super::super::model::owner::Owner;
use super::failures::Failure;
use crate::audit::GuestScope;
use crate::net;
use std::net::SocketAddr;
use url::Url;

/// What the guard was asked to reach: `scheme://host:port` (`host` without IPv6 brackets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub scheme: &'static str,
    pub host: String,
    pub port: u16,
}

impl Target {
    /// The target of a request for `url` (an http(s) URL with a host).
    pub fn of(url: &Url) -> Option<Self> {
        let scheme = match url.scheme() {
            "http" => "http",
            "https" => "https",
            _ => return None,
        };
        let host = match url.host()? {
            url::Host::Domain(d) => d.to_string(),
            url::Host::Ipv4(ip) => ip.to_string(),
            url::Host::Ipv6(ip) => ip.to_string(),
        };
        Some(Self {
            scheme,
            host,
            port: url.port_or_known_default()?,
        })
    }

    /// The origin as audit lines and grants write it.
    pub fn origin(&self) -> String {
        self.url()
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_else(|| format!("{}://{}:{}", self.scheme, self.host, self.port))
    }

    fn url(&self) -> Option<Url> {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        Url::parse(&format!("{}://{host}:{}/", self.scheme, self.port)).ok()
    }
}

/// What a request is for, which decides the grant it needs: a document (the navigation of a
/// tab or a frame, or a response the browser fetches ahead of one, such as a speculation
/// rules prefetch, which a later navigation is answered with) needs its origin in the
/// navigation grant (`origins`); anything else the request grant (`origins` and
/// `resource_origins`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Document,
    Resource,
}

/// A refusal: the message for the page and the audit line.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub origin: String,
    pub reason: String,
    /// The plugins whose audit logs record it (none for a context no plugin owns).
    pub scopes: Vec<GuestScope>,
    /// Why, typed: a refusal by the grants, or a name that did not resolve.
    pub failure: Failure,
}

/// Decide on `target`, for `purpose`, for the plugins in `owners`: the addresses to connect
/// to, or why not.
pub async fn decide(
    guard: Guard,
    owners: &[Owner],
    target: &Target,
    purpose: Purpose,
) -> Result<Vec<SocketAddr>, Refusal> {
    let origin = target.origin();
    let refuse = |reason: String| Refusal {
        origin: origin.clone(),
        failure: Failure::Refused(reason.clone()),
        reason,
        scopes: owners.iter().map(|o| o.scope.clone()).collect(),
    };
    let Some(url) = target.url() else {
        return Err(refuse(format!("{origin} is not a valid origin")));
    };
    if owners.is_empty() {
        return Err(refuse(
            "no plugin owns this browser context, so it may reach nothing".into(),
        ));
    }
    let mut matched: Vec<String> = Vec::new();
    let mut first_denial = None;
    for owner in owners {
        let request = || match guard {
            Guard::Browser => owner.grants.check_browser_request(&url),
            Guard::Capture => owner.grants.check_capture_request(&url),
        };
        let checked = match purpose {
            Purpose::Document => guard.check(&owner.grants, &url).and_then(|()| request()),
            Purpose::Resource => request(),
        };
        match checked {
            Ok(patterns) => matched.extend(patterns.into_iter().map(str::to_string)),
            Err(denied) => {
                first_denial.get_or_insert(denied.message);
            }
        }
    }
    if matched.is_empty() {
        return Err(refuse(first_denial.unwrap_or_default()));
    }
    let key = net::Key {
        name: match guard {
            Guard::Browser => "grants.browser.origins",
            Guard::Capture => "grants.capture.origins",
        },
        scheme: Some(target.scheme),
    };
    let patterns: Vec<&str> = matched.iter().map(String::as_str).collect();
    net::resolve_admitted(&target.host, target.port, &patterns, key)
        .await
        .map_err(|e| {
            let mut refusal = refuse(e.to_string());
            if !e.is_refusal() {
                refusal.failure = Failure::Lookup(e);
            }
            refusal
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::grants::{BrowserGrant, GlobList, Grants};
    use std::sync::Arc;

    fn owner(origins: &[&str], resources: &[&str]) -> Owner {
        let list = |l: &[&str]| {
            GlobList::new(&l.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .expect("valid globs")
        };
        let grants = Grants {
            plugin: "p".into(),
            browser: Some(BrowserGrant {
                origins: list(origins),
                resource_origins: list(resources),
                cookies: false,
                eval_js: false,
                upload_dirs: Vec::new(),
                download_dir: None,
                download_max: crate::manifest::DEFAULT_DOWNLOAD_MAX,
                secrets: Vec::new(),
                profiles: Vec::new(),
                owned: Default::default(),
            }),
            ..Grants::default()
        };
        Owner {
            grants: Arc::new(grants),
            scope: scope(),
            client: Default::default(),
        }
    }

    /// A scope whose audit lines go to a temporary file.
    fn scope() -> GuestScope {
        let dir = tempfile::tempdir().expect("temp dir");
        let audit =
            crate::audit::AuditLog::open(&dir.path().join("audit.jsonl")).expect("audit log");
        GuestScope::new("p", Arc::new(audit))
    }

    fn target(scheme: &'static str, host: &str, port: u16) -> Target {
        Target {
            scheme,
            host: host.into(),
            port,
        }
    }

    async fn check(owners: &[Owner], t: &Target) -> Result<Vec<SocketAddr>, Refusal> {
        decide(Guard::Browser, owners, t, Purpose::Resource).await
    }

    #[tokio::test]
    async fn navigation_and_resource_origins_are_both_reachable() {
        let o = [owner(
            &["http://127.0.0.1:8000"],
            &["http://127.0.0.1:9000"],
        )];
        assert!(check(&o, &target("http", "127.0.0.1", 8000)).await.is_ok());
        assert!(check(&o, &target("http", "127.0.0.1", 9000)).await.is_ok());
        let refused = check(&o, &target("http", "127.0.0.1", 9001))
            .await
            .expect_err("not granted");
        assert_eq!(refused.origin, "http://127.0.0.1:9001");
        assert!(
            refused.reason.contains("grants.browser.resource_origins"),
            "{}",
            refused.reason
        );
        assert_eq!(refused.scopes.len(), 1);
        // The scheme is part of the origin.
        assert!(
            check(&o, &target("https", "127.0.0.1", 8000))
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn a_document_needs_the_navigation_grant() {
        let o = [owner(
            &["http://127.0.0.1:8000"],
            &["http://127.0.0.1:9000"],
        )];
        let page = target("http", "127.0.0.1", 8000);
        let resource = target("http", "127.0.0.1", 9000);
        assert!(
            decide(Guard::Browser, &o, &page, Purpose::Document)
                .await
                .is_ok()
        );
        // A resource origin serves a page's requests, never a document (a prefetch of one).
        let refused = decide(Guard::Browser, &o, &resource, Purpose::Document)
            .await
            .expect_err("a resource origin's document");
        assert!(
            refused.reason.contains("grants.browser.origins"),
            "{}",
            refused.reason
        );
        assert!(matches!(refused.failure, Failure::Refused(_)));
        assert!(
            decide(Guard::Browser, &o, &resource, Purpose::Resource)
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn public_globs_do_not_open_private_space() {
        let o = [owner(
            &["http://127.0.0.1:8000"],
            &["http://*:*", "https://*"],
        )];
        let refused = check(&o, &target("http", "evil.localhost", 8000))
            .await
            .expect_err("loopback by name");
        assert!(refused.reason.contains("loopback"), "{}", refused.reason);
        assert!(check(&o, &target("http", "127.0.0.1", 9000)).await.is_err());
        assert!(check(&o, &target("http", "::1", 9000)).await.is_err());
        assert!(
            check(&o, &target("http", "169.254.169.254", 80))
                .await
                .is_err()
        );
        assert!(check(&o, &target("http", "10.0.0.1", 80)).await.is_err());
        // Named literally, loopback is reachable.
        let named = [owner(&["http://localhost:*"], &[])];
        assert!(
            check(&named, &target("http", "localhost", 8000))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn no_listener_of_warden_is_reachable_whatever_the_grants() {
        use crate::net::forbidden::{Registration, Service};
        let o = [owner(&["http://127.0.0.1:*", "http://localhost:*"], &[])];
        let control = Registration::named("127.0.0.1", 45309, Service::BrowserControl);
        let guard = Registration::listening(
            "127.0.0.1:45311".parse().expect("addr"),
            Service::NetworkGuard,
        );
        let mcp = Registration::listening("0.0.0.0:45312".parse().expect("addr"), Service::Mcp);
        for (port, said) in [
            (45309, "the browser's own control endpoint"),
            (45311, "Warden's own network guard"),
            (45312, "Warden's own MCP endpoint"),
        ] {
            for host in ["127.0.0.1", "localhost"] {
                let refused = check(&o, &target("http", host, port))
                    .await
                    .expect_err("Warden's own");
                assert!(refused.reason.contains(said), "{}", refused.reason);
                assert!(
                    refused.reason.contains("no grant can open it"),
                    "{}",
                    refused.reason
                );
                assert!(matches!(refused.failure, Failure::Refused(_)));
            }
        }
        drop((control, guard, mcp));
        assert!(check(&o, &target("http", "127.0.0.1", 45311)).await.is_ok());
        assert!(check(&o, &target("http", "127.0.0.1", 45312)).await.is_ok());
    }

    #[test]
    fn a_target_is_the_origin_of_its_url() {
        let of = |u: &str| Target::of(&Url::parse(u).expect("a URL"));
        assert_eq!(
            of("https://a.test/x?y"),
            Some(target("https", "a.test", 443))
        );
        assert_eq!(of("http://[::1]:8080/"), Some(target("http", "::1", 8080)));
        assert_eq!(of("ftp://a.test/"), None);
    }

    #[tokio::test]
    async fn a_context_nobody_owns_reaches_nothing() {
        let refused = check(&[], &target("https", "example.com", 443))
            .await
            .expect_err("no owner");
        assert!(refused.scopes.is_empty());
    }
}
