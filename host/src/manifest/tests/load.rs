//! The manifest as a whole: parse errors, several problems at once, the built-in default, a full manifest.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "unknown top-level key",
            format!("[sever]\naudit_log = \"a.jsonl\"\n{PLUGIN}"),
            "warden.toml:1:2: unknown field `sever`, expected one of `server`, `audit`, `admin`, `telemetry`, `ssh`, `rdp`, `browser`, `capture`, `search`, `trust`, `registries`, `credentials`, `plugin`, `roles`",
        ),
        (
            "unknown plugin key",
            "[[plugin]]\nname = \"capture\"\nsorce = \"builtin:capture\"\n".to_string(),
            "warden.toml:3:1: unknown field `sorce`, expected one of `name`, `source`, `verify`, `allow_unpinned`, `tool_prefix`, `tools`, `require_approval`, `remember_approval`, `limits`, `grants`, `settings`",
        ),
        (
            "unknown grant key",
            format!("{PLUGIN}grants.network = {{ any = true }}\n"),
            "warden.toml:4:8: unknown field `network`, expected one of `capture`, `browser`, `http`, `terminal`, `sftp`, `rdp`, `files`, `env`",
        ),
        (
            "unknown key inside a grant",
            format!("{PLUGIN}grants.capture = {{ hosts = [\"127.0.0.1:*\"] }}\n"),
            "warden.toml:4:20: unknown field `hosts`, expected one of `http_hosts`, `max_body`, `origins`, `cookies`, `http_only_cookies`",
        ),
        (
            "wrong value type",
            format!("[browser]\nheadless = \"yes\"\n{PLUGIN}"),
            "warden.toml:2:12: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "TOML syntax error",
            format!("{PLUGIN}limits = {{ memory = \"1MiB\"\n"),
            "warden.toml:4:27: unclosed inline table, expected `}`",
        ),
        (
            "no plugins",
            "[server]\naudit_log = \"a.jsonl\"\n".to_string(),
            "warden.toml:1:1: no [[plugin]] is defined; add at least one, e.g. [[plugin]] name = \"capture\" source = \"builtin:capture\"",
        ),
    ];
    check_errors(cases);
}

#[test]
fn several_problems_are_reported_together() {
    let text = format!("{PLUGIN}limits = {{ memory = \"lots\", call_timeout = \"soon\" }}\n");
    let err = error_of(&text);
    assert_eq!(err.lines().count(), 2, "{err}");
}

#[test]
fn default_manifest_grants_the_public_https_web_and_nothing_local() {
    let m = Manifest::load(None, &crate::builtin::names())
        .expect("the built-in default manifest is valid");
    let names: Vec<&str> = m.plugins.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["browser", "terminal", "sftp", "capture"]);
    let url = |u: &str| url::Url::parse(u).expect("url");
    for p in &m.plugins {
        let grants = &p.grants;
        assert!(
            grants.check_terminal_local().is_err(),
            "{} may open a PTY",
            p.name
        );
        assert!(
            grants.check_sftp_host("web1", None).is_err(),
            "{} may use SFTP",
            p.name
        );
        assert!(grants.check_eval_js().is_err(), "{} may run script", p.name);
        assert!(
            grants.check_browser_cookies().is_err(),
            "{} may read cookies",
            p.name
        );
        assert!(
            grants.check_http(&url("http://example.com/")).is_err(),
            "{} may fetch plain http",
            p.name
        );
    }
    let capture = &m.plugins[3].grants;
    assert!(capture.check_http(&url("https://example.com/")).is_ok());
    assert!(
        capture
            .check_http(&url("https://example.com:8443/"))
            .is_err()
    );
    let browser = &m.plugins[0].grants;
    assert!(
        browser
            .check_browser_origin(&url("https://example.com/a"))
            .is_ok()
    );
    assert!(
        browser
            .check_browser_origin(&url("http://example.com/"))
            .is_err()
    );
    // Loopback and private addresses: no pattern names them, so the network rule
    // (`net::`) refuses them whatever the glob matches.
    for pattern in ["https://*", "*:443"] {
        assert!(crate::net::explicit_space(pattern).is_none(), "{pattern}");
    }
}

#[test]
fn a_full_manifest_loads_with_its_grants() {
    let text = r#"
[server]
audit_log = "audit.jsonl"

[ssh.hosts.web1]
address = "127.0.0.1:2222"
user = "deploy"
identity_file = "keys/id"
known_hosts = "keys/known_hosts"

[[plugin]]
name = "capture"
source = "builtin:capture"
tool_prefix = "web_"
tools = { allow = ["http_*"], deny = ["http_post"] }
limits = { memory = "64MiB", call_timeout = "2s", output = "256KiB" }
grants.capture = { http_hosts = ["127.0.0.1:*", "*.example.com"], max_body = "1MiB" }
grants.terminal = { ssh_hosts = ["web1"], read_only = true }
grants.sftp = { hosts = ["web1"], roots = ["/srv/app"], write = false }
"#;
    let m =
        Manifest::parse(text, "warden.toml", Path::new("/etc/warden"), BUILTINS).expect("valid");
    assert_eq!(m.audit_log, Path::new("/etc/warden/audit.jsonl"));
    let p = &m.plugins[0];
    assert_eq!(p.tool_prefix, "web_");
    assert!(
        p.tools.allows("http_get")
            && !p.tools.allows("http_post")
            && !p.tools.allows("capture_page")
    );
    assert_eq!(p.limits.memory, 64 * 1024 * 1024);
    assert_eq!(p.limits.call_timeout, Duration::from_secs(2));
    assert_eq!(p.limits.output, 256 * 1024);
    assert_eq!(p.grants.max_body(), 1024 * 1024);
    assert_eq!(p.grants.caps, grants::Caps::default());
    assert!(p.grants.check_terminal_ssh("web1", None).is_ok());
    assert!(p.grants.check_terminal_ssh("web2", None).is_err());
    assert_eq!(
        m.ssh_hosts["web1"].identity_file.as_deref(),
        Some(Path::new("/etc/warden/keys/id"))
    );
}
