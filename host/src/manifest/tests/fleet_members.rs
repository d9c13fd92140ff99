//! `grants.terminal.members` / `grants.sftp.members`: a grant, or a role's narrowing of one,
//! reaching only some members of a fleet (a pattern host).

use super::support::*;

const FLEET: &str = "[ssh.hosts.web]\npattern = 'web-[0-9]+\\.(staging|prod)\\.internal'\nuser = \"deploy\"\nagent = true\n\n[ssh.hosts.db]\naddress = \"127.0.0.1:22\"\nuser = \"deploy\"\nagent = true\n\n";

const CLIENTS: &str =
    "[server.http.clients.alice]\ntoken = \"aaaaaaaaaaaaaaaaaaaa\"\nrole = \"ops\"\n\n";

fn ops(grants: &str) -> String {
    format!("{FLEET}[[plugin]]\nname = \"ops\"\nsource = \"builtin:capture\"\n{grants}\n\n")
}

fn load(text: &str) -> Manifest {
    Manifest::parse(text, "warden.toml", Path::new("/base"), BUILTINS)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_grant_reaches_only_the_members_it_names() {
    let m = load(&format!(
        "{CLIENTS}{}[roles.ops]\nplugins = [\"ops\"]\n",
        ops(
            "grants.terminal = { ssh_hosts = [\"web\", \"db\"], members = { web = [\"web-*.staging.internal\"] } }\ngrants.sftp = { hosts = [\"web\"], roots = [\"/srv\"] }",
        )
    ));
    let g = &m.plugins[0].grants;
    assert!(
        g.check_terminal_ssh("web", Some("web-1.staging.internal"))
            .is_ok()
    );
    let refused = g
        .check_terminal_ssh("web", Some("web-1.prod.internal"))
        .expect_err("a prod member is not granted");
    assert_eq!(refused.grant, "grants.terminal.members");
    assert_eq!(
        refused.message,
        "terminal.members does not allow member 'web-1.prod.internal' of ssh host 'web'; add \"web-1.prod.internal\" to grants.terminal.members.web of plugin 'ops' in the manifest"
    );
    // A fixed host is one machine; a fleet without an entry is reached whole.
    assert!(g.check_terminal_ssh("db", None).is_ok());
    assert!(
        g.check_sftp_host("web", Some("web-1.prod.internal"))
            .is_ok()
    );
    assert!(
        g.summary()
            .contains("terminal.members.web = [\"web-*.staging.internal\"]")
    );
}

#[test]
fn a_role_narrows_a_fleet_to_some_members_and_names_itself_when_it_refuses() {
    let m = load(&format!(
        "{CLIENTS}{}[roles.ops]\nplugins = [\"ops\"]\nnarrow.ops.terminal = {{ ssh_hosts = [\"web\"], members = {{ web = [\"web-2.staging.internal\"] }} }}\n",
        ops(
            "grants.terminal = { ssh_hosts = [\"web\"] }\ngrants.http = { origins = [\"https://api.example.com\"] }"
        )
    ));
    let Access::Role(role) = m.roles.access(Some("alice")) else {
        panic!("alice has role ops");
    };
    let narrowed = role.narrowed.get("ops").expect("narrowed");
    assert!(
        narrowed
            .check_terminal_ssh("web", Some("web-2.staging.internal"))
            .is_ok()
    );
    let refused = narrowed
        .check_terminal_ssh("web", Some("web-1.staging.internal"))
        .expect_err("the role reaches web-2 only");
    assert_eq!(
        refused.message,
        "terminal.members as role 'ops' narrows it does not allow member 'web-1.staging.internal' of ssh host 'web'; add \"web-1.staging.internal\" to roles.ops.narrow.ops.terminal.members.web in the manifest, if the plugin's own grants.terminal.members.web allows it too"
    );
    // A kind the role did not narrow refuses in the plugin's words.
    let url = url::Url::parse("https://other.example.com/").expect("url");
    let refused = narrowed
        .check_http_request("GET", &url)
        .expect_err("not granted");
    assert!(
        refused.message.ends_with("of plugin 'ops' in the manifest"),
        "{}",
        refused.message
    );
    // The plugin's own grant still reaches the whole fleet.
    assert!(
        m.plugins[0]
            .grants
            .check_terminal_ssh("web", Some("web-1.prod.internal"))
            .is_ok()
    );
}

#[test]
fn bad_members_name_file_line_and_fix() {
    let narrowing = |plugin: &str, role: &str| {
        format!(
            "{CLIENTS}{}[roles.ops]\nplugins = [\"ops\"]\nnarrow.ops.terminal = {role}\n",
            ops(plugin)
        )
    };
    check_errors(&[
        (
            "a member entry for a host the grant does not name",
            ops(
                "grants.terminal = { ssh_hosts = [\"db\"], members = { web = [\"web-1.staging.internal\"] } }",
            ),
            "warden.toml:14:59: grants.terminal.members.web: \"web\" is not in grants.terminal.ssh_hosts; members narrow a fleet the grant names, so add it there or remove this entry",
        ),
        (
            "members of a fixed host",
            ops("grants.terminal = { ssh_hosts = [\"db\"], members = { db = [\"db-1\"] } }"),
            "warden.toml:14:58: grants.terminal.members.db: [ssh.hosts.db] is one machine (address), and members narrow only a fleet (pattern); remove this entry",
        ),
        (
            "no member at all",
            ops("grants.sftp = { hosts = [\"web\"], roots = [\"/srv\"], members = { web = [] } }"),
            "warden.toml:14:70: grants.sftp.members.web is empty, which would reach no member; name the members (globs such as \"*.staging.internal\"), or take \"web\" out of grants.sftp.hosts",
        ),
        (
            "a URL for a member",
            ops(
                "grants.terminal = { ssh_hosts = [\"web\"], members = { web = [\"https://web-1\"] } }",
            ),
            "warden.toml:14:61: grants.terminal.members.web: \"https://web-1\" must be a host name glob (letters, digits, '-', '.' and glob characters such as '*'), like \"web-*.staging.internal\"",
        ),
        (
            "a role that drops the plugin's members",
            narrowing(
                "grants.terminal = { ssh_hosts = [\"web\"], members = { web = [\"*.staging.internal\"] } }",
                "{ ssh_hosts = [\"web\"] }",
            ),
            "warden.toml:22:23: roles.ops.narrow.ops.terminal.members.web is not set, and the plugin reaches only the members [\"*.staging.internal\"] of \"web\"; name members within those",
        ),
        (
            "a role whose members are wider",
            narrowing(
                "grants.terminal = { ssh_hosts = [\"web\"], members = { web = [\"*.staging.internal\"] } }",
                "{ ssh_hosts = [\"web\"], members = { web = [\"*.internal\"] } }",
            ),
            "warden.toml:22:23: roles.ops.narrow.ops.terminal.members.web: \"*.internal\" is not within the plugin's terminal.members.web [\"*.staging.internal\"]; a role may only narrow (name one of those, or a narrower literal)",
        ),
    ]);
}
