//! `grants.http` and `[credentials.NAME]`: bad ones name their line and the fix; good ones
//! load, and the grant allows exactly what it names.

use super::credentials::{CredentialKind, OAuthFlow, ValueSource};
use super::*;
use std::path::Path;
use url::Url;

fn parse(text: &str) -> Result<Manifest, String> {
    Manifest::parse(text, "warden.toml", Path::new("/base"), &["capture"])
        .map_err(|e| e.to_string())
}

fn plugin(grants: &str) -> String {
    format!(
        "[[plugin]]\nname = \"p\"\nsource = \"builtin:capture\"\ngrants.http = {{ {grants} }}\n"
    )
}

#[test]
fn bad_http_grants_and_credentials_name_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "a method no grant can name",
            plugin("origins = [\"https://a.test\"], methods = [\"CONNECT\"]"),
            "warden.toml:4:58: grants.http.methods: \"CONNECT\" is not a method a grant can name",
        ),
        (
            "an origin without a scheme",
            plugin("origins = [\"a.test\"]"),
            "warden.toml:4:28: grants.http.origins: \"a.test\" must be an origin glob with a scheme",
        ),
        (
            "a credential the manifest does not define",
            plugin("origins = [\"https://a.test\"], credentials = [\"gh\"]"),
            "grants.http.credentials: unknown credential \"gh\" (the manifest defines none); define it as [credentials.gh]",
        ),
        (
            "a credential written into the manifest",
            format!(
                "[credentials.gh]\nkind = \"bearer\"\nvalue = \"ghp_x\"\norigins = [\"https://api.github.com\"]\n{}",
                plugin("")
            ),
            "warden.toml:3:9: credentials.gh.value: a credential is never written into the manifest",
        ),
        (
            "a credential with nowhere to read it from",
            format!(
                "[credentials.gh]\nkind = \"bearer\"\norigins = [\"https://api.github.com\"]\n{}",
                plugin("")
            ),
            "credentials.gh: set exactly one of env = \"VAR\" or file = \"PATH\"",
        ),
        (
            "a credential bound to every host",
            format!(
                "[credentials.gh]\nkind = \"bearer\"\nenv = \"T\"\norigins = [\"https://*\"]\n{}",
                plugin("")
            ),
            "credentials.gh.origins: \"https://*\" must name a host",
        ),
        (
            "a credential bound to nothing",
            format!(
                "[credentials.gh]\nkind = \"bearer\"\nenv = \"T\"\n{}",
                plugin("")
            ),
            "credentials.gh.origins is missing or empty",
        ),
        (
            "a key of another kind",
            format!(
                "[credentials.gh]\nkind = \"bearer\"\nenv = \"T\"\nheader = \"X-Key\"\norigins = [\"https://a.test\"]\n{}",
                plugin("")
            ),
            "credentials.gh.header does not apply to kind = \"bearer\"",
        ),
        (
            "a header that steers the connection",
            format!(
                "[credentials.gh]\nkind = \"header\"\nheader = \"Host\"\nenv = \"T\"\norigins = [\"https://a.test\"]\n{}",
                plugin("")
            ),
            "credentials.gh.header: \"Host\" is not a header a credential can be sent in",
        ),
        (
            "oauth2 without a token endpoint",
            format!(
                "[credentials.crm]\nkind = \"oauth2\"\nflow = \"client_credentials\"\nclient_id = \"w\"\nenv = \"S\"\norigins = [\"https://a.test\"]\n{}",
                plugin("")
            ),
            "credentials.crm.token_url is missing",
        ),
        (
            "the refresh flow without a refresh token",
            format!(
                "[credentials.crm]\nkind = \"oauth2\"\nflow = \"refresh_token\"\ntoken_url = \"https://auth.a.test/token\"\nclient_id = \"w\"\nenv = \"S\"\norigins = [\"https://a.test\"]\n{}",
                plugin("")
            ),
            "credentials.crm.refresh_token is missing",
        ),
        (
            "a kind Warden does not know",
            format!(
                "[credentials.gh]\nkind = \"digest\"\nenv = \"T\"\norigins = [\"https://a.test\"]\n{}",
                plugin("")
            ),
            "warden.toml:2:8: credentials.gh.kind: \"digest\" is not a kind",
        ),
    ];
    for (case, text, expected) in cases {
        let err = parse(text)
            .err()
            .unwrap_or_else(|| panic!("{case}: loaded:\n{text}"));
        assert!(
            err.contains(expected),
            "{case}:\n  got: {err}\n  want: {expected}"
        );
    }
}

#[test]
fn a_grant_allows_what_it_names_and_nothing_else() {
    let text = format!(
        "[credentials.gh]\nkind = \"bearer\"\nfile = \"secrets/gh\"\norigins = [\"https://api.github.com\"]\n\n\
         [credentials.crm]\nkind = \"oauth2\"\nflow = \"refresh_token\"\ntoken_url = \"https://auth.crm.test/token\"\nclient_id = \"w\"\nenv = \"CRM_SECRET\"\nrefresh_token = {{ env = \"CRM_REFRESH\" }}\norigins = [\"https://api.crm.test\"]\n\n{}",
        plugin(
            "origins = [\"https://api.github.com\", \"http://127.0.0.1:*\"], methods = [\"get\", \"POST\"], max_request_body = \"2KiB\", timeout = \"5s\", connect_timeout = \"9s\", credentials = [\"gh\", \"crm\"]"
        )
    );
    let m = parse(&text).expect("loads");
    let g = &m.plugins[0].grants;
    let http = g.http.as_ref().expect("an http grant");
    assert_eq!(http.methods, ["GET", "POST"]);
    assert_eq!(http.max_request_body, 2048);
    assert_eq!(
        http.connect_timeout,
        std::time::Duration::from_secs(5),
        "capped at timeout"
    );
    let url = |u: &str| Url::parse(u).expect("url");
    assert!(
        g.check_http_request("POST", &url("https://api.github.com/repos"))
            .is_ok()
    );
    assert!(
        g.check_http_request("GET", &url("http://127.0.0.1:8080/x"))
            .is_ok()
    );
    let denied = g
        .check_http_request("DELETE", &url("https://api.github.com/x"))
        .expect_err("method");
    assert!(
        denied
            .message
            .contains("add \"DELETE\" to grants.http.methods of plugin 'p'"),
        "{}",
        denied.message
    );
    let denied = g
        .check_http_request("GET", &url("https://evil.test/"))
        .expect_err("origin");
    assert!(
        denied
            .message
            .contains("add \"https://evil.test\" to grants.http.origins"),
        "{}",
        denied.message
    );
    assert!(
        g.check_http_request("GET", &url("https://api.github.com:8443/"))
            .is_err(),
        "only the default port"
    );
    assert!(
        g.check_http_request("GET", &url("ftp://api.github.com/"))
            .is_err()
    );

    // Each origin gets its own credential, and no other origin gets one.
    let gh = http
        .credential_for(&url("https://api.github.com/x"))
        .expect("bound");
    assert_eq!(gh.kind, CredentialKind::Bearer);
    assert_eq!(gh.source, ValueSource::File("/base/secrets/gh".into()));
    let crm = http
        .credential_for(&url("https://api.crm.test/v1"))
        .expect("bound");
    assert!(matches!(&crm.kind, CredentialKind::OAuth2(o) if o.flow == OAuthFlow::RefreshToken));
    assert!(
        http.credential_for(&url("http://127.0.0.1:8080/"))
            .is_none()
    );
    assert!(
        http.credential_for(&url("https://api.github.com.evil.test/"))
            .is_none()
    );

    // Names, never values, in what `warden check` prints.
    assert!(
        g.summary().contains("http.credentials = [\"gh\", \"crm\"]"),
        "{}",
        g.summary()
    );
    assert!(!format!("{:?}", crm).contains("CRM_SECRET="));

    // No grant: every request is refused, naming the grant to add.
    let none = parse("[[plugin]]\nname = \"q\"\nsource = \"builtin:capture\"\n").expect("loads");
    let denied = none.plugins[0]
        .grants
        .check_http_request("GET", &url("https://a.test/"))
        .expect_err("no grant");
    assert!(
        denied
            .message
            .contains("add \"https://a.test\" to grants.http.origins of plugin 'q'"),
        "{}",
        denied.message
    );
}
