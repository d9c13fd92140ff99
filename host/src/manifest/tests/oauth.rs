//! `[server.http.oauth]`.

use super::support::*;

const OAUTH: &str = "[server.http.oauth]\nissuer = \"https://idp.example.com\"\njwks_url = \"https://idp.example.com/jwks\"\nresource = \"https://warden.example.com/mcp\"\n";

#[test]
fn oauth_settings_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "JWKS over plain http to another machine",
            format!(
                "[server.http.oauth]\nissuer = \"https://idp.example.com\"\njwks_url = \"http://idp.example.com/jwks\"\nresource = \"https://w.example.com/mcp\"\n\n{PLUGIN}"
            ),
            "warden.toml:3:12: server.http.oauth.jwks_url: \"http://idp.example.com/jwks\" must use https (http is accepted only for a loopback host such as 127.0.0.1)",
        ),
        (
            "no resource",
            format!(
                "[server.http.oauth]\nissuer = \"https://idp.example.com\"\njwks_url = \"https://idp.example.com/jwks\"\n\n{PLUGIN}"
            ),
            "warden.toml:1:1: server.http.oauth.resource is missing; write it like resource = \"https://warden.example.com/mcp\"",
        ),
        (
            "resource with a fragment",
            format!(
                "[server.http.oauth]\nissuer = \"https://idp.example.com\"\njwks_url = \"https://idp.example.com/jwks\"\nresource = \"https://w.example.com/mcp#x\"\n\n{PLUGIN}"
            ),
            "warden.toml:4:12: server.http.oauth.resource: \"https://w.example.com/mcp#x\" must have no query or fragment (RFC 8707 resource indicator)",
        ),
        (
            "a client rule that matches nothing",
            format!("{OAUTH}\n[server.http.oauth.clients.ci]\nmax_concurrent = 2\n\n{PLUGIN}"),
            "warden.toml:6:1: server.http.oauth.clients.ci: set subject, client_id or scope (what a token must carry to be this client), or name it in default_client",
        ),
        (
            "default client that is not defined",
            format!("{OAUTH}default_client = \"anyone\"\n\n{PLUGIN}"),
            "warden.toml:5:18: server.http.oauth.default_client: \"anyone\" is not a client; add [server.http.oauth.clients.anyone]",
        ),
        (
            "required scope not published",
            format!(
                "{OAUTH}scopes_supported = [\"mcp\"]\nrequired_scopes = [\"admin\"]\n\n{PLUGIN}"
            ),
            "warden.toml:6:20: server.http.oauth.required_scopes: \"admin\" is not in scopes_supported; a client could not learn to ask for it",
        ),
        (
            "a name that is a static client and an OAuth client",
            format!(
                "[server.http.clients.ci]\ntoken_env = \"CI_TOKEN\"\n\n{OAUTH}\n[server.http.oauth.clients.ci]\nclient_id = \"ci\"\n\n{PLUGIN}"
            ),
            "warden.toml:9:1: server.http.oauth.clients.ci: \"ci\" is also a static-token client ([server.http.clients.ci]); give the OAuth client another name",
        ),
        (
            "unknown key",
            format!("{OAUTH}audiences = [\"x\"]\n\n{PLUGIN}"),
            "warden.toml:5:1: unknown field `audiences`, expected one of `issuer`, `jwks_url`, `resource`, `audience`, `scopes_supported`, `required_scopes`, `default_client`, `jwks_min_refresh`, `clients`",
        ),
    ];
    check_errors(cases);
}

#[test]
fn oauth_settings_load_with_defaults_and_client_limits() {
    let text = format!(
        "{OAUTH}required_scopes = [\"mcp\"]\ndefault_client = \"anyone\"\n\n[server.http.oauth.clients.anyone]\n\n[server.http.oauth.clients.ci]\nclient_id = \"ci-runner\"\nrate = \"5/s\"\n\n{PLUGIN}"
    );
    let m = Manifest::parse(&text, "warden.toml", Path::new("/"), BUILTINS).expect("valid");
    let o = m.http.oauth.expect("oauth");
    assert_eq!(o.audience, "https://warden.example.com/mcp");
    assert_eq!(o.required_scopes, ["mcp"]);
    assert_eq!(o.jwks_min_refresh, DEFAULT_JWKS_MIN_REFRESH);
    assert_eq!(o.default_client.as_deref(), Some("anyone"));
    assert_eq!(
        o.clients
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["anyone", "ci"]
    );
    assert_eq!(
        m.http
            .limits
            .get("ci")
            .and_then(|l| l.rate)
            .map(|r| r.count),
        Some(5)
    );
}
