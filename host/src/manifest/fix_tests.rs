//! Every grant a refusal suggests can be written: put into the manifest it loads, and the
//! use it was suggested for is then allowed (following one suggestion may lead to the next,
//! as a cookie domain needs its origin, then `cookies`). A refusal no grant can lift
//! suggests nothing, and never `"null"`.

use super::grants::{Denied, Fix, Grants, SecretFrame};
use super::*;
use crate::capabilities::browser::{Guard, navigation};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use url::Url;

/// A manifest that defines everything grants can name, and one plugin, `p`, whose grants
/// are `grants` (TOML under `[plugin.grants]`).
fn manifest(grants: &str) -> String {
    format!(
        r#"
[ssh.hosts.web1]
address = "127.0.0.1:22"
user = "u"
agent = true

[ssh.hosts.fleet]
pattern = '[a-z0-9-]+\.fleet\.internal'
user = "u"
agent = true

[rdp.hosts.win1]
address = "127.0.0.1:3389"
user = "u"
password = {{ env = "P" }}

[browser.secrets]
PW = {{ env = "PW", origins = ["https://login.example.com"] }}

[browser.profiles]
berlin = {{ timezone = "Europe/Berlin" }}

[[plugin]]
name = "p"
source = "builtin:capture"

[plugin.grants]
{grants}
"#
    )
}

fn load(text: &str) -> Result<Arc<Grants>, String> {
    Manifest::parse(
        text,
        "warden.toml",
        Path::new("/nonexistent-base"),
        &["capture"],
    )
    .map(|m| m.plugins[0].grants.clone())
    .map_err(|e| format!("{e}\n--- manifest ---\n{text}"))
}

/// `text` with `value` written at `key` (a list gets it appended, a bool is set).
fn write(text: &str, key: &str, value: toml::Value) -> String {
    let mut doc: toml::Table = toml::from_str(text).expect("a manifest");
    let mut parts: Vec<&str> = key.split('.').collect();
    let leaf = parts.pop().expect("a key");
    let mut table: &mut toml::Table = &mut doc;
    let mut path = parts.into_iter();
    if key.starts_with("grants.") {
        let plugin = table
            .get_mut("plugin")
            .and_then(|p| p.as_array_mut())
            .and_then(|p| p.first_mut())
            .and_then(|p| p.as_table_mut())
            .expect("a [[plugin]]");
        table = plugin;
    }
    for part in path.by_ref() {
        table = table
            .entry(part)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .expect("a table on the way");
    }
    match value {
        toml::Value::String(_) => {
            let list = table
                .entry(leaf)
                .or_insert_with(|| toml::Value::Array(Vec::new()))
                .as_array_mut()
                .expect("a list");
            list.push(value);
        }
        other => {
            table.insert(leaf.to_string(), other);
        }
    }
    toml::to_string(&doc).expect("TOML")
}

type Check = dyn Fn(&Grants) -> Result<(), Denied>;

/// Follow the suggestions from `grants` until `check` passes: each one must load, and at
/// most a few steps are needed. Every alternative value of an `Add` is tried on its own.
fn follow(case: &str, grants: &str, check: &Check) {
    let mut text = manifest(grants);
    for _ in 0..4 {
        let g = load(&text).unwrap_or_else(|e| panic!("{case}: {e}"));
        let denied = match check(&g) {
            Ok(()) => return,
            Err(d) => d,
        };
        assert!(
            !denied.message.contains("\"null\""),
            "{case}: {}",
            denied.message
        );
        let fix = denied
            .fix
            .clone()
            .unwrap_or_else(|| panic!("{case}: no suggestion in: {}", denied.message));
        let next = match &fix {
            Fix::Add { key, values } => {
                for v in values {
                    assert!(
                        denied.message.contains(&format!("\"{v}\"")),
                        "{case}: {}",
                        denied.message
                    );
                    let tried = write(&text, key, toml::Value::String(v.clone()));
                    let g =
                        load(&tried).unwrap_or_else(|e| panic!("{case}: {fix} does not load: {e}"));
                    if let Err(again) = check(&g) {
                        assert_ne!(
                            again.grant, denied.grant,
                            "{case}: {fix} does not allow it: {}",
                            again.message
                        );
                    }
                }
                write(&text, key, toml::Value::String(values[0].clone()))
            }
            Fix::Set { key, value } => {
                assert!(
                    denied.message.contains(&fix.to_string()),
                    "{case}: {}",
                    denied.message
                );
                write(&text, key, toml::Value::Boolean(*value))
            }
        };
        text = next;
    }
    panic!("{case}: still refused after 4 suggestions:\n{text}");
}

/// A refusal no grant lifts: nothing suggested, nothing unwritable named.
fn unfixable(case: &str, grants: &str, check: &Check) {
    let g = load(&manifest(grants)).unwrap_or_else(|e| panic!("{case}: {e}"));
    let denied = check(&g).expect_err(case);
    assert!(denied.fix.is_none(), "{case}: suggests {:?}", denied.fix);
    assert!(
        !denied.message.contains("\"null\""),
        "{case}: {}",
        denied.message
    );
}

fn url(s: &str) -> Url {
    Url::parse(s).expect("a URL")
}

fn frame(u: &str) -> SecretFrame {
    let origin = url(u).origin().ascii_serialization();
    SecretFrame {
        url: u.into(),
        security_origin: origin,
    }
}

fn nav(guard: Guard, text: &'static str) -> impl Fn(&Grants) -> Result<(), Denied> {
    move |g: &Grants| {
        navigation::check(guard, g, text)
            .map(|_| ())
            .map_err(|r| r.denied().cloned().expect("a refusal, not a bad URL"))
    }
}

#[test]
fn every_suggested_grant_loads_and_allows_what_was_refused() {
    let upload_dir = tempfile::tempdir().expect("temp dir");
    let file = upload_dir.path().join("report.pdf");
    std::fs::write(&file, b"%PDF").expect("a file");
    let file = file.display().to_string();

    let http = |u: &'static str| move |g: &Grants| g.check_http(&url(u));
    let origin = |u: &'static str| move |g: &Grants| g.check_browser_origin(&url(u));
    let request = |u: &'static str| move |g: &Grants| g.check_browser_request(&url(u)).map(|_| ());
    let capture = |u: &'static str| move |g: &Grants| g.check_capture_origin(&url(u));
    let capture_request =
        |u: &'static str| move |g: &Grants| g.check_capture_request(&url(u)).map(|_| ());
    let wasi_http = |m: &'static str, u: &'static str| {
        move |g: &Grants| g.check_http_request(m, &url(u)).map(|_| ())
    };
    let cases: Vec<(&str, &str, Box<Check>)> = vec![
        (
            "wasi:http, no grant",
            "",
            Box::new(wasi_http("GET", "https://api.example.com/v1")),
        ),
        (
            "wasi:http, an origin and a method not granted",
            "http = { origins = [\"https://a.example.com\"] }",
            Box::new(wasi_http("POST", "http://127.0.0.1:8080/v1")),
        ),
        (
            "http host",
            "",
            Box::new(http("http://internal.example.net/")),
        ),
        (
            "http host with port",
            "capture = { http_hosts = [] }",
            Box::new(http("http://a.b.example.net:8080/x")),
        ),
        (
            "http ipv6 literal",
            "",
            Box::new(http("http://[::1]:8000/")),
        ),
        ("http ipv4 literal", "", Box::new(http("http://10.1.2.3/"))),
        (
            "browser origin",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(origin("https://shop.example/cart")),
        ),
        (
            "browser ipv6 origin",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(origin("http://[::1]:8000/")),
        ),
        (
            "browser idn origin",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(origin("https://bücher.example/")),
        ),
        (
            "resource origin",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(request("http://cdn.example:8080/app.js")),
        ),
        (
            "capture origin",
            "",
            Box::new(capture("https://app.example.test/")),
        ),
        (
            "capture request",
            "capture = { origins = [\"https://a.example\"] }",
            Box::new(capture_request("http://[fd00::5]:8443/")),
        ),
        (
            "capture cookies of a domain",
            "",
            Box::new(|g: &Grants| g.check_capture_cookie_domain("app.example.com", true)),
        ),
        (
            "capture cookies of a page",
            "",
            Box::new(|g: &Grants| g.check_capture_cookies(&url("https://app.example.com/"), false)),
        ),
        (
            "eval_js",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(|g: &Grants| g.check_eval_js()),
        ),
        (
            "mock route",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(|g: &Grants| g.check_mock_route()),
        ),
        (
            "javascript: navigation",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(nav(Guard::Browser, " JaVaScRiPt:alert(1)")),
        ),
        (
            "data: navigation",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(nav(Guard::Browser, "data:text/html,x")),
        ),
        (
            "blob: navigation",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(nav(Guard::Browser, "blob:https://b.example/uuid")),
        ),
        (
            "browser cookies",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(|g: &Grants| g.check_browser_cookies()),
        ),
        (
            "profile",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(|g: &Grants| g.check_browser_profile("berlin")),
        ),
        (
            "secret",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(|g: &Grants| g.check_secret("PW").map(|_| ())),
        ),
        (
            "secret into another origin",
            "browser = { origins = [\"https://a.example\"], secrets = [\"PW\"] }",
            Box::new(|g: &Grants| {
                g.check_secret_frames("PW", &[frame("https://sso.example.com/login")], false)
                    .map(|_| ())
            }),
        ),
        (
            "upload",
            "browser = { origins = [\"https://a.example\"] }",
            Box::new(move |g: &Grants| g.check_upload(&file).map(|_| ())),
        ),
        (
            "local terminal",
            "",
            Box::new(|g: &Grants| g.check_terminal_local()),
        ),
        (
            "ssh host",
            "",
            Box::new(|g: &Grants| g.check_terminal_ssh("web1", None)),
        ),
        (
            "ssh fleet member",
            "terminal = { ssh_hosts = [\"fleet\"], members = { fleet = [\"web-1.fleet.internal\"] } }",
            Box::new(|g: &Grants| g.check_terminal_ssh("fleet", Some("web-2.fleet.internal"))),
        ),
        (
            "terminal input",
            "terminal = { local = true, read_only = true }",
            Box::new(|g: &Grants| g.check_terminal_write()),
        ),
        (
            "rdp host",
            "",
            Box::new(|g: &Grants| g.check_rdp_host("win1")),
        ),
        (
            "rdp input",
            "rdp = { hosts = [\"win1\"], read_only = true }",
            Box::new(|g: &Grants| g.check_rdp_input()),
        ),
        (
            "sftp host",
            "",
            Box::new(|g: &Grants| g.check_sftp_host("web1", None)),
        ),
        (
            "sftp fleet member",
            "sftp = { hosts = [\"fleet\"], roots = [\"/srv\"], members = { fleet = [\"web-*.fleet.internal\"] } }",
            Box::new(|g: &Grants| g.check_sftp_host("fleet", Some("db-1.fleet.internal"))),
        ),
        (
            "sftp write",
            "",
            Box::new(|g: &Grants| g.check_sftp_write()),
        ),
    ];
    for (case, grants, check) in &cases {
        follow(case, grants, check.as_ref());
    }
}

#[test]
fn refusals_no_grant_lifts_suggest_nothing() {
    let with_secret = "browser = { origins = [\"https://a.example\"], secrets = [\"PW\"] }";
    let with_script = "browser = { origins = [\"https://a.example\"], eval_js = true }";
    let plain = "browser = { origins = [\"https://a.example\"] }";
    let cases: Vec<(&str, &str, Box<Check>)> = vec![
        // Opaque origins serialize as "null", which no origin list takes.
        (
            "file: page",
            plain,
            Box::new(|g: &Grants| g.check_browser_origin(&url("file:///etc/passwd"))),
        ),
        (
            "file: capture",
            "",
            Box::new(|g: &Grants| g.check_capture_origin(&url("file:///etc/passwd"))),
        ),
        (
            "view-source: navigation",
            with_script,
            Box::new(nav(Guard::Browser, "view-source:https://a.example/")),
        ),
        (
            "capture javascript:",
            "capture = { origins = [\"https://a.example\"] }",
            Box::new(nav(Guard::Capture, "javascript:alert(1)")),
        ),
        // eval_js and secrets are never granted together.
        (
            "script for a plugin with secrets",
            with_secret,
            Box::new(|g: &Grants| g.check_eval_js()),
        ),
        (
            "javascript: for a plugin with secrets",
            with_secret,
            Box::new(nav(Guard::Browser, "javascript:alert(1)")),
        ),
        (
            "mock for a plugin with secrets",
            with_secret,
            Box::new(|g: &Grants| g.check_mock_route()),
        ),
        (
            "secret for a plugin with script",
            with_script,
            Box::new(|g: &Grants| g.check_secret("PW").map(|_| ())),
        ),
        // Undefined names would not load.
        (
            "undefined secret",
            plain,
            Box::new(|g: &Grants| g.check_secret("NOPE").map(|_| ())),
        ),
        (
            "undefined profile",
            plain,
            Box::new(|g: &Grants| g.check_browser_profile("paris")),
        ),
        (
            "undefined ssh host",
            "",
            Box::new(|g: &Grants| g.check_terminal_ssh("web9", None)),
        ),
        (
            "undefined rdp host",
            "",
            Box::new(|g: &Grants| g.check_rdp_host("win9")),
        ),
        (
            "secret into a data: frame",
            with_secret,
            Box::new(|g: &Grants| {
                g.check_secret_frames(
                    "PW",
                    &[SecretFrame {
                        url: "data:text/html,x".into(),
                        security_origin: "null".into(),
                    }],
                    false,
                )
                .map(|_| ())
            }),
        ),
    ];
    for (case, grants, check) in &cases {
        unfixable(case, grants, check.as_ref());
    }
}

#[test]
fn private_network_refusals_suggest_the_literal_in_the_form_the_list_takes() {
    let sa = |s: &str| s.parse::<SocketAddr>().expect("a socket address");
    // (grants, the URL, what its host resolves to, the list the refusal names)
    let cases: &[(&str, &str, &str)] = &[
        (
            "capture = { http_hosts = [\"*:*\"] }",
            "http://[2002:7f00:1::1]:8080/",
            "[2002:7f00:1::1]:8080",
        ),
        (
            "capture = { http_hosts = [\"*\"] }",
            "http://intranet.corp/",
            "10.0.0.5:80",
        ),
        (
            "browser = { origins = [\"http://*:*\"] }",
            "http://evil.localhost:8000/",
            "127.0.0.1:8000",
        ),
        (
            "browser = { origins = [\"http://*:*\"] }",
            "http://[64:ff9b:1::a00:1]:81/",
            "[64:ff9b:1::a00:1]:81",
        ),
        (
            "capture = { origins = [\"https://*\"] }",
            "https://rebind.example/",
            "192.168.1.1:443",
        ),
    ];
    for (grants, u, resolved) in cases {
        let matched = |g: &Grants, u: &Url| -> (Vec<String>, crate::net::Key) {
            let (patterns, name) = if grants.starts_with("capture = { http_hosts") {
                (g.http_matches(u), "grants.capture.http_hosts")
            } else if grants.starts_with("capture") {
                (
                    g.check_capture_request(u).unwrap_or_default(),
                    "grants.capture.origins",
                )
            } else {
                (
                    g.check_browser_request(u).unwrap_or_default(),
                    "grants.browser.origins",
                )
            };
            let scheme = match (name, u.scheme()) {
                ("grants.capture.http_hosts", _) => None,
                (_, "https") => Some("https"),
                _ => Some("http"),
            };
            (
                patterns.into_iter().map(str::to_string).collect(),
                crate::net::Key { name, scheme },
            )
        };
        let text = manifest(grants);
        let g = load(&text).expect("loads");
        let first = url(u);
        let host = first
            .host_str()
            .unwrap_or_default()
            .trim_matches(['[', ']'])
            .to_string();
        let (patterns, key) = matched(&g, &first);
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        let err = crate::net::admit(&host, &[sa(resolved)], &refs, key).expect_err(u);
        let (list, pattern) = err.suggestion().expect("a suggestion");
        assert!(err.to_string().contains(&format!("\"{pattern}\"")), "{err}");
        let g = load(&write(&text, list, toml::Value::String(pattern.clone())))
            .unwrap_or_else(|e| panic!("{u}: {pattern} does not load: {e}"));
        // The pattern names the host, or (for a name) the address to use instead.
        let allowed = if pattern.contains(&host) {
            first.clone()
        } else {
            let addr = sa(resolved);
            let ip = match addr.ip() {
                std::net::IpAddr::V6(v6) => format!("[{v6}]"),
                v4 => v4.to_string(),
            };
            url(&format!("{}://{ip}:{}/", first.scheme(), addr.port()))
        };
        let host = allowed
            .host_str()
            .unwrap_or_default()
            .trim_matches(['[', ']'])
            .to_string();
        let (patterns, key) = matched(&g, &allowed);
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        assert!(
            crate::net::admit(&host, &[sa(resolved)], &refs, key).is_ok(),
            "{u}: {pattern} does not open {allowed}"
        );
    }
}
