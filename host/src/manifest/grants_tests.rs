//! The grants' checks: what each grant allows, and the fix each refusal names.

use super::*;

fn grants(hosts: &[&str]) -> Grants {
    let hosts: Vec<String> = hosts.iter().map(|s| s.to_string()).collect();
    Grants {
        plugin: "p".into(),
        capture: Some(CaptureGrant {
            http_hosts: GlobList::new(&hosts).expect("valid globs"),
            max_body: DEFAULT_MAX_BODY,
            origins: GlobList::empty(),
            cookies: false,
            http_only_cookies: false,
        }),
        ..Grants::default()
    }
}

fn url(s: &str) -> Url {
    Url::parse(s).expect("valid url")
}

#[test]
fn host_globs_match_host_and_port() {
    let g = grants(&["127.0.0.1:*", "*.example.com", "api.test:8443"]);
    assert!(g.check_http(&url("http://127.0.0.1:8000/x")).is_ok());
    assert!(g.check_http(&url("https://a.b.example.com/")).is_ok());
    assert!(g.check_http(&url("http://www.EXAMPLE.com/")).is_ok());
    assert!(g.check_http(&url("https://api.test:8443/")).is_ok());
    // No port in the pattern: only the default port matches.
    assert!(g.check_http(&url("https://a.example.com:8443/")).is_err());
    assert!(g.check_http(&url("https://example.com/")).is_err());
    assert!(g.check_http(&url("http://localhost:8000/")).is_err());
    assert!(g.check_http(&url("http://127.0.0.2:80/")).is_err());
    assert!(g.check_http(&url("ftp://127.0.0.1:21/")).is_err());
}

#[test]
fn denial_names_the_grant_to_add() {
    let err = grants(&[])
        .check_http(&url("http://10.1.2.3/"))
        .expect_err("denied");
    assert_eq!(err.grant, "grants.capture.http_hosts");
    assert_eq!(err.target, "10.1.2.3:80");
    assert!(
        err.message.contains("add \"10.1.2.3:80\""),
        "{}",
        err.message
    );
    assert!(err.message.contains("plugin 'p'"), "{}", err.message);
}

fn capture(origins: &[&str], cookies: bool, http_only_cookies: bool) -> Grants {
    let origins: Vec<String> = origins.iter().map(|s| s.to_string()).collect();
    Grants {
        plugin: "p".into(),
        capture: Some(CaptureGrant {
            http_hosts: GlobList::empty(),
            max_body: DEFAULT_MAX_BODY,
            origins: GlobList::new(&origins).expect("valid globs"),
            cookies,
            http_only_cookies,
        }),
        ..Grants::default()
    }
}

#[test]
fn capture_origins_match_scheme_host_and_port() {
    let g = capture(
        &[
            "https://app.example.test",
            "http://127.0.0.1:*",
            "https://*.corp.test",
            "http://intranet.test:8080",
        ],
        false,
        false,
    );
    let ok = |u: &str| g.check_capture_origin(&url(u)).is_ok();
    // Exact origin; a pattern without a port means the scheme's default port.
    assert!(ok("https://app.example.test/dashboard?x=1"));
    assert!(ok("https://APP.example.test:443/"));
    assert!(!ok("https://app.example.test:8443/"));
    // The scheme is part of the origin.
    assert!(!ok("http://app.example.test/"));
    // Port globs.
    assert!(ok("http://127.0.0.1:8000/"));
    assert!(ok("http://127.0.0.1/"));
    assert!(!ok("https://127.0.0.1:8000/"));
    assert!(!ok("http://127.0.0.2:8000/"));
    // Host globs cover subdomains, not the parent, and not look-alike suffixes.
    assert!(ok("https://a.b.corp.test/"));
    assert!(!ok("https://corp.test/"));
    assert!(!ok("https://evilcorp.test/"));
    assert!(!ok("https://a.corp.test.evil.test/"));
    // Explicit ports must match exactly.
    assert!(ok("http://intranet.test:8080/"));
    assert!(!ok("http://intranet.test/"));
    // Documents without an origin of their own stay allowed (the browser's blank pages).
    assert!(ok("about:blank"));
    let denied = g
        .check_capture_origin(&url("https://other.test/x"))
        .expect_err("denied");
    assert_eq!(denied.grant, "grants.capture.origins");
    assert!(
        denied.message.contains("add \"https://other.test\""),
        "{}",
        denied.message
    );
    // No capture grant at all: nothing.
    let none = Grants {
        plugin: "p".into(),
        ..Grants::default()
    };
    assert!(
        none.check_capture_origin(&url("https://app.example.test/"))
            .is_err()
    );
}

#[test]
fn capture_cookies_need_the_origin_and_the_flags() {
    let page = url("https://app.example.test/");
    let none = capture(&["https://app.example.test"], false, false);
    let err = none
        .check_capture_cookies(&page, false)
        .expect_err("no cookies");
    assert_eq!(err.grant, "grants.capture.cookies");

    let plain = capture(&["https://app.example.test"], true, false);
    assert!(plain.check_capture_cookies(&page, false).is_ok());
    let err = plain
        .check_capture_cookies(&page, true)
        .expect_err("httpOnly");
    assert_eq!(err.grant, "grants.capture.http_only_cookies");
    // The origin is checked first: cookies of an origin not granted are refused.
    let err = plain
        .check_capture_cookies(&url("https://other.test/"), false)
        .expect_err("origin");
    assert_eq!(err.grant, "grants.capture.origins");

    let full = capture(&["https://app.example.test"], true, true);
    assert!(full.check_capture_cookies(&page, true).is_ok());
}

#[test]
fn cookie_domains_are_covered_by_origin_hosts() {
    let g = capture(
        &[
            "https://app.example.test",
            "http://127.0.0.1:*",
            "https://*.corp.test:8443",
        ],
        true,
        false,
    );
    let ok = |d: &str| g.check_capture_cookie_domain(d, false).is_ok();
    assert!(ok("app.example.test"));
    assert!(ok(".APP.example.test"));
    assert!(ok("127.0.0.1"));
    assert!(ok("wiki.corp.test"));
    // A parent domain is not covered by an origin on one of its hosts.
    assert!(!ok("example.test"));
    assert!(!ok("corp.test"));
    assert!(!ok("other.test"));
    let err = g
        .check_capture_cookie_domain("other.test", false)
        .expect_err("denied");
    assert_eq!(err.grant, "grants.capture.origins");
    assert!(
        err.message.contains("https://other.test"),
        "{}",
        err.message
    );
    let err = g
        .check_capture_cookie_domain("app.example.test", true)
        .expect_err("httpOnly");
    assert_eq!(err.grant, "grants.capture.http_only_cookies");
    assert_eq!(pattern_host("https://[::1]:8080"), "::1");
    assert_eq!(pattern_host("*"), "*");
}

#[test]
fn no_capture_grant_denies_everything() {
    let g = Grants {
        plugin: "p".into(),
        ..Grants::default()
    };
    assert!(g.check_http(&url("http://127.0.0.1:1/")).is_err());
    assert!(g.check_terminal_local().is_err());
    assert!(g.check_terminal_ssh("web1", None).is_err());
    assert!(g.check_sftp_host("web1", None).is_err());
    assert!(g.check_sftp_write().is_err());
    assert!(g.check_terminal_write().is_err());
    assert!(g.sftp_roots().is_empty());
    assert!(g.check_browser().is_err());
}
