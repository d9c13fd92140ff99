//! `grants.terminal.members` / `grants.sftp.members`: a grant, or a role's narrowing of one,
//! reaching only some members of a fleet (a pattern host).

use super::support::*;

const FLEET: &str = "[ssh.hosts.web]\npattern = 'web-[0-9]+\\.(staging|prod)\\.internal'\nuser = \"deploy\"\nagent = true\n\n[ssh.hosts.db]\naddress = \"127.0.0.1:22\"\nuser = \"deploy\"\nagent = true\n\n";

const CLIENTS: &str =
    "[server.http.clients.alice]\ntoken = \"aaaaaaaaaaaaaaaaaaaa\"\nrole = \"ops\"\n\n";

fn ops(grants: &str) -> String {
    format!(
        "{FLEET}{CLIENTS}[[plugin]]\nname = \"ops\"\nsource = \"builtin:capture\"\n{grants}\n\n"
    )
}

fn load(text: &str) -> Manifest {
    Manifest::parse(text, "warden.toml", Path::new("/base"), BUILTINS)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_grant_reaches_only_the_members_it_names() {
    let m = load(&ops(
        "grants.terminal = { ssh_hosts = [\"web\", \"db\"], members = { web = [\"web-*.staging.internal\"] } }\ngrants.sftp = { hosts = [\"web\"], roots = [\"/srv\"] }",
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
        "{}[roles.ops]\nplugins = [\"ops\"]\nnarrow.ops.terminal = {{ ssh_hosts = [\"web\"], members = {{ web = [\"web-2.staging.internal\"] }} }}\n",
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
            "{}[roles.ops]\nplugins = [\"ops\"]\nnarrow.ops.terminal = {role}\n",
            ops(plugin)
        )
    };
    check_errors(&[
        (
            "a member entry for a host the grant does not name",
            ops(
                "grants.terminal = { ssh_hosts = [\"db\"], members = { web = [\"web-1.staging.internal\"] } }",
            ),
            "",
        ),
        (
            "members of a fixed host",
            ops("grants.terminal = { ssh_hosts = [\"db\"], members = { db = [\"db-1\"] } }"),
            "",
        ),
        (
            "no member at all",
            ops("grants.sftp = { hosts = [\"web\"], roots = [\"/srv\"], members = { web = [] } }"),
            "",
        ),
        (
            "a URL for a member",
            ops(
                "grants.terminal = { ssh_hosts = [\"web\"], members = { web = [\"https://web-1\"] } }",
            ),
            "",
        ),
        (
            "a role that drops the plugin's members",
            narrowing(
                "grants.terminal = { ssh_hosts = [\"web\"], members = { web = [\"*.staging.internal\"] } }",
                "{ ssh_hosts = [\"web\"] }",
            ),
            "",
        ),
        (
            "a role whose members are wider",
            narrowing(
                "grants.terminal = { ssh_hosts = [\"web\"], members = { web = [\"*.staging.internal\"] } }",
                "{ ssh_hosts = [\"web\"], members = { web = [\"*.internal\"] } }",
            ),
            "",
        ),
    ]);
}
