//! The private-network rule, end to end over literal and resolved addresses.

use super::addr::{Class, classify};
use super::*;
use std::net::SocketAddr;

const K: Key = Key {
    name: "k",
    scheme: Some("http"),
};
const BROWSER: Key = Key {
    name: "grants.browser.origins",
    scheme: Some("http"),
};

fn sa(s: &str) -> SocketAddr {
    s.parse().expect("a socket address")
}

#[test]
fn only_literals_name_private_space() {
    let ip = |s: &str| Some(Space::Ip(s.parse().expect("ip")));
    assert_eq!(explicit_space("http://127.0.0.1:*"), ip("127.0.0.1"));
    assert_eq!(explicit_space("http://127.0.0.1"), ip("127.0.0.1"));
    assert_eq!(explicit_space("10.0.0.5:8080"), ip("10.0.0.5"));
    assert_eq!(explicit_space("http://[::1]:8080"), ip("::1"));
    assert_eq!(explicit_space("http://localhost:*"), Some(Space::Loopback));
    assert_eq!(explicit_space("localhost"), Some(Space::Loopback));
    assert_eq!(
        explicit_space("http://*.localhost:*"),
        Some(Space::Loopback)
    );
    assert_eq!(
        explicit_space("http://app.localhost:3000"),
        Some(Space::Loopback)
    );
    // Globs never do, even over digits.
    assert_eq!(explicit_space("https://*"), None);
    assert_eq!(explicit_space("http://*:*"), None);
    assert_eq!(explicit_space("http://10.*"), None);
    assert_eq!(explicit_space("http://127.0.0.?:80"), None);
    assert_eq!(explicit_space("https://*.example.com"), None);
    assert_eq!(explicit_space("*.localhost.evil.test"), None);
    assert_eq!(explicit_space("https://intranet.corp"), None);
}

#[test]
fn public_addresses_pass_private_ones_need_a_literal() {
    let public = [sa("93.184.216.34:443")];
    assert_eq!(
        admit("example.com", &public, &["https://*"], K).expect("public"),
        public
    );
    // A public glob resolving to loopback (rebinding, *.localhost): refused.
    let loop4 = [sa("127.0.0.1:8000")];
    let err = admit("x.localtest.me", &loop4, &["http://*:*"], BROWSER).expect_err("private");
    assert!(
        matches!(
            err,
            NetError::Private {
                class: Class::Loopback,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("grants.browser.origins"), "{err}");
    // A name never opens private space: the advice is the address, in the list's form.
    assert_eq!(
        err.suggestion(),
        Some((
            "grants.browser.origins",
            "http://127.0.0.1:8000".to_string()
        ))
    );
    // The literal that was granted opens exactly that address.
    assert!(admit("127.0.0.1", &loop4, &["http://127.0.0.1:*"], K).is_ok());
    assert!(
        admit(
            "127.0.0.2",
            &[sa("127.0.0.2:80")],
            &["http://127.0.0.1:*"],
            K
        )
        .is_err()
    );
    // v4-mapped is the same address.
    assert!(
        admit(
            "h",
            &[sa("[::ffff:127.0.0.1]:80")],
            &["http://127.0.0.1:*"],
            K
        )
        .is_ok()
    );
    assert!(admit("h", &[sa("[::ffff:127.0.0.1]:80")], &["http://*:*"], K).is_err());
    // localhost names: loopback only.
    assert!(admit("a.localhost", &loop4, &["http://*.localhost:*"], K).is_ok());
    assert!(
        admit(
            "a.localhost",
            &[sa("10.0.0.1:80")],
            &["http://*.localhost:*"],
            K
        )
        .is_err()
    );
    // Mixed answers keep only what is admitted.
    let mixed = [sa("10.0.0.1:443"), sa("93.184.216.34:443")];
    assert_eq!(
        admit("m.test", &mixed, &["https://*"], K).expect("public part"),
        vec![sa("93.184.216.34:443")]
    );
    // Link-local (cloud metadata) and unique-local are closed too.
    assert!(admit("m", &[sa("169.254.169.254:80")], &["http://*"], K).is_err());
    assert!(admit("m", &[sa("[fd00::1]:80")], &["http://*"], K).is_err());
    assert!(matches!(
        admit("none", &[], &["http://*"], K),
        Err(NetError::NoAddress { .. })
    ));
}

#[tokio::test]
async fn localhost_names_resolve_to_loopback_without_dns() {
    let addrs = resolve("evil.localhost", 8080).await.expect("resolved");
    assert!(addrs.iter().all(|a| classify(a.ip()) == Class::Loopback));
    let literal = resolve("[::1]", 80).await.expect("literal");
    assert_eq!(literal, vec![sa("[::1]:80")]);
}

#[test]
fn a_refusal_suggests_the_literal_in_the_form_its_list_takes() {
    let hosts = Key {
        name: "grants.capture.http_hosts",
        scheme: None,
    };
    let v6 = [sa("[2002:7f00:1::1]:8080")];
    // As a URL's host (`url.host_str()`) writes it: in brackets.
    let err = admit("[2002:7f00:1::1]", &v6, &["*:*"], hosts).expect_err("6to4 loopback");
    assert!(
        err.to_string().starts_with("2002:7f00:1::1 resolves to"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("(6to4, carrying 127.0.0.1) (loopback address space)"),
        "{err}"
    );
    assert_eq!(
        err.suggestion(),
        Some((
            "grants.capture.http_hosts",
            "[2002:7f00:1::1]:8080".to_string()
        ))
    );
    let err = admit(
        "app.localhost",
        &[sa("127.0.0.1:3000")],
        &["http://*"],
        BROWSER,
    )
    .expect_err("loopback by a glob");
    assert_eq!(
        err.suggestion(),
        Some((
            "grants.browser.origins",
            "http://app.localhost:3000".to_string()
        ))
    );
}
