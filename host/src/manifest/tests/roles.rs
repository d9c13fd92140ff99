//! `[roles.NAME]`: who gets which role, what a role reaches, and narrowings that could widen.

use super::support::*;

const CAPTURE: &str = "[[plugin]]\nname = \"capture\"\nsource = \"builtin:capture\"\ngrants.capture = { http_hosts = [\"*.example.com\", \"127.0.0.1:8080\"], origins = [\"https://*.example.com\"] }\n\n";

const CLIENTS: &str = "[server.http.clients.alice]\ntoken = \"aaaaaaaaaaaaaaaaaaaa\"\nrole = \"ops\"\n\n[server.http.clients.bob]\ntoken = \"bbbbbbbbbbbbbbbbbbbb\"\n\n";

fn load(text: &str) -> Manifest {
    Manifest::parse(text, "warden.toml", Path::new("/base"), BUILTINS)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn without_roles_every_client_gets_everything() {
    let manifest = load(&format!(
        "[server.http.clients.bob]\ntoken = \"bbbbbbbbbbbbbbbbbbbb\"\n\n{CAPTURE}"
    ));
    assert!(matches!(manifest.roles.access(Some("bob")), Access::All));
    assert!(matches!(manifest.roles.access(None), Access::All));
}

#[test]
fn once_a_role_is_defined_a_client_without_one_gets_nothing() {
    let manifest = load(&format!(
        "{CLIENTS}{CAPTURE}[roles.ops]\nplugins = [\"capture\"]\n"
    ));
    let Access::Role(role) = manifest.roles.access(Some("alice")) else {
        panic!("alice has role ops");
    };
    assert_eq!(role.name, "ops");
    assert!(matches!(
        manifest.roles.access(Some("bob")),
        Access::NoRole(_)
    ));
    // The local operator keeps everything unless local_role names a role.
    assert!(matches!(manifest.roles.access(None), Access::All));
    let refused = manifest
        .roles
        .access(Some("bob"))
        .tool(ToolRef {
            plugin: "capture",
            group: None,
            public: "http_get",
        })
        .expect_err("bob has no role");
    assert!(
        refused.to_string().contains("client 'bob' has no role"),
        "{refused}"
    );
}

#[test]
fn a_role_reaches_its_plugins_groups_and_tools_only() {
    let manifest = load(&format!(
        "{CLIENTS}{CAPTURE}[roles.ops]\ngroups = [\"capture/pages\"]\ntools = [\"http_*\"]\nrequire_approval = [\"http_get\"]\n\n[server]\nlocal_role = \"ops\"\n"
    ));
    let ops = manifest.roles.access(Some("alice"));
    let tool = |group, public| ToolRef {
        plugin: "capture",
        group,
        public,
    };
    assert!(ops.tool(tool(None, "http_get")).is_ok());
    assert!(ops.tool(tool(Some("pages"), "capture_page")).is_ok());
    let refused = ops
        .tool(tool(Some("default"), "get_cookies"))
        .expect_err("not in ops");
    assert_eq!(
        refused.rule(),
        "role ops: in none of roles.ops.plugins, groups, tools"
    );
    assert!(ops.resources_of("capture", "the resources").is_err());
    assert!(ops.needs_approval("http_get") && !ops.needs_approval("capture_page"));
    assert!(matches!(manifest.roles.access(None), Access::Role(_)));
}

#[test]
fn a_narrowed_grant_is_the_roles_and_the_plugins_grant_stays() {
    let manifest = load(&format!(
        "{CLIENTS}{CAPTURE}[roles.ops]\nplugins = [\"capture\"]\nnarrow.capture.capture = {{ http_hosts = [\"api.example.com\"] }}\n"
    ));
    let ops = manifest.roles.access(Some("alice"));
    let narrowed = ops.narrowed("capture").expect("narrowed");
    let capture = narrowed.capture.as_ref().expect("capture grant");
    assert_eq!(capture.http_hosts.patterns(), ["api.example.com"]);
    // Left out of the role's table: off (origins) or the plugin's (max_body).
    assert!(capture.origins.patterns().is_empty());
    let plugin = manifest.plugins[0]
        .grants
        .capture
        .as_ref()
        .expect("plugin grant");
    assert_eq!(capture.max_body, plugin.max_body);
    assert_eq!(plugin.http_hosts.patterns().len(), 2);
}

#[test]
fn bad_roles_name_file_line_and_fix() {
    let role = |body: &str| format!("{CLIENTS}{CAPTURE}[roles.ops]\n{body}\n");
    let cases: &[(&str, String, &str)] = &[
        (
            "a client's unknown role",
            format!(
                "[server.http.clients.alice]\ntoken = \"aaaaaaaaaaaaaaaaaaaa\"\nrole = \"opz\"\n\n{CAPTURE}[roles.ops]\nplugins = [\"capture\"]\n"
            ),
            "warden.toml:3:8: server.http.clients.alice.role: unknown role \"opz\" (defined roles: ops); define it as [roles.opz]",
        ),
        (
            "an unknown plugin",
            role("plugins = [\"browser\"]"),
            "warden.toml:14:12: roles.ops.plugins: no [[plugin]] is named \"browser\"; the plugins are: capture",
        ),
        (
            "a wider host pattern",
            role("plugins = [\"capture\"]\nnarrow.capture.capture = { http_hosts = [\"*.com\"] }"),
            "warden.toml:15:26: roles.ops.narrow.capture.capture.http_hosts: \"*.com\" is not within the plugin's capture.http_hosts [\"*.example.com\", \"127.0.0.1:8080\"]; a role may only narrow (name one of those, or a narrower literal)",
        ),
        (
            "private space the plugin does not name",
            role(
                "plugins = [\"capture\"]\nnarrow.capture.capture = { http_hosts = [\"10.0.0.1:8080\"] }",
            ),
            "warden.toml:15:26: roles.ops.narrow.capture.capture.http_hosts: \"10.0.0.1:8080\" is not within the plugin's capture.http_hosts [\"*.example.com\", \"127.0.0.1:8080\"]; a role may only narrow (name one of those, or a narrower literal)",
        ),
        (
            "a switch the plugin has off",
            role(
                "plugins = [\"capture\"]\nnarrow.capture.capture = { http_hosts = [\"api.example.com\"], cookies = true }",
            ),
            "warden.toml:15:26: roles.ops.narrow.capture.capture.cookies = true, and the plugin's is false: a role may only narrow; remove it",
        ),
        (
            "a larger limit",
            role(
                "plugins = [\"capture\"]\nnarrow.capture.capture = { http_hosts = [\"api.example.com\"], max_body = \"64MiB\" }",
            ),
            "warden.toml:15:26: roles.ops.narrow.capture.capture.max_body is more than the plugin's: a role may only narrow; set it no higher than the plugin's, or leave it out to keep the plugin's",
        ),
        (
            "a kind the plugin lacks",
            role("plugins = [\"capture\"]\nnarrow.capture.terminal = { local = true }"),
            "warden.toml:15:27: roles.ops.narrow.capture.terminal: plugin 'capture' has no grants.terminal, and a role only narrows what the plugin has",
        ),
        (
            "a plugin the role does not use",
            format!(
                "{CLIENTS}{CAPTURE}[roles.ops]\ngroups = []\nnarrow.capture.capture = {{ http_hosts = [] }}\n"
            ),
            "warden.toml:15:8: roles.ops.narrow.capture: the role uses no part of plugin 'capture' (add it to plugins, groups or tools), so there is nothing to narrow",
        ),
        (
            "a group that is not PLUGIN/GROUP",
            role("groups = [\"pages\"]"),
            "warden.toml:14:11: roles.ops.groups: \"pages\" must be PLUGIN/GROUP naming a [[plugin]] and one of its tool groups (warden check lists them), like \"browser/core\"",
        ),
    ];
    check_errors(cases);
}
