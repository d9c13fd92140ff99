//! `[ssh.hosts]` and `[rdp.hosts]`.

use super::support::*;

/// A host whose `via` line follows (line 5).
const JUMP: &str = "[ssh.hosts.web1]\naddress = \"127.0.0.1:22\"\nuser = \"u\"\nagent = true\n";
/// A jump host.
const B1: &str = "[ssh.hosts.b1]\naddress = \"127.0.0.1:23\"\nuser = \"u\"\nagent = true\n\n";

#[test]
fn a_chain_of_jump_hosts_is_kept_in_order() {
    let text = format!(
        "{JUMP}via = [\"b1\", \"b2\"]\n\n{B1}[ssh.hosts.b2]\naddress = \"127.0.0.1:24\"\nuser = \"u\"\nagent = true\n\n{PLUGIN}"
    );
    let manifest = Manifest::parse(&text, "warden.toml", Path::new("/base"), BUILTINS)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(manifest.ssh_hosts["web1"].via, ["b1", "b2"]);
    assert!(manifest.ssh_hosts["b1"].via.is_empty());
}

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "RDP password from two sources",
            format!(
                "[rdp.hosts.win1]\naddress = \"127.0.0.1:3389\"\nuser = \"u\"\npassword = {{ env = \"P\", value = \"x\" }}\n{PLUGIN}"
            ),
            "warden.toml:4:12: rdp.hosts.win1.password: set exactly one of env (preferred) or value",
        ),
        (
            "RDP fingerprint that is not one",
            format!(
                "[rdp.hosts.win1]\naddress = \"127.0.0.1:3389\"\nuser = \"u\"\npassword = {{ env = \"P\" }}\ncert_sha256 = \"abc\"\n{PLUGIN}"
            ),
            "warden.toml:5:15: rdp.hosts.win1.cert_sha256: \"abc\" is not a SHA-256 fingerprint (64 hex digits, colons allowed); connect once without it to see the server's",
        ),
        (
            "SSH address without a port",
            format!("[ssh.hosts.web1]\naddress = \"web1\"\nuser = \"u\"\nagent = true\n{PLUGIN}"),
            "warden.toml:2:11: ssh.hosts.web1.address: \"web1\" must be host:port",
        ),
        (
            "RDP address without a port",
            format!(
                "[rdp.hosts.win1]\naddress = \"win1\"\nuser = \"u\"\npassword = {{ env = \"P\" }}\n{PLUGIN}"
            ),
            "warden.toml:2:11: rdp.hosts.win1.address: \"win1\" must be host:port (RDP's port is usually 3389)",
        ),
        (
            "SSH host without a way to authenticate",
            format!("[ssh.hosts.web1]\naddress = \"127.0.0.1:22\"\nuser = \"u\"\n\n{PLUGIN}"),
            "warden.toml:1:1: ssh.hosts.web1: set identity_file or agent = true so the host can authenticate",
        ),
        (
            "SSH passphrase from two sources",
            format!(
                "[ssh.hosts.web1]\naddress = \"127.0.0.1:22\"\nuser = \"u\"\nidentity_file = \"k\"\nidentity_passphrase = {{ env = \"P\", value = \"p\" }}\n\n{PLUGIN}"
            ),
            "warden.toml:5:23: ssh.hosts.web1.identity_passphrase: set exactly one of env (preferred) or value",
        ),
        (
            "SSH passphrase without an identity file",
            format!(
                "[ssh.hosts.web1]\naddress = \"127.0.0.1:22\"\nuser = \"u\"\nagent = true\nidentity_passphrase = {{ env = \"P\" }}\n\n{PLUGIN}"
            ),
            "warden.toml:5:23: ssh.hosts.web1.identity_passphrase: it decrypts identity_file, which is not set",
        ),
        (
            "SSH jump host that is not defined",
            format!("{JUMP}via = [\"bastion\"]\n\n{PLUGIN}"),
            "warden.toml:5:8: ssh.hosts.web1.via: there is no [ssh.hosts.bastion]; define it, or remove \"bastion\"",
        ),
        (
            "SSH host going through itself",
            format!("{JUMP}via = [\"web1\"]\n\n{PLUGIN}"),
            "warden.toml:5:8: ssh.hosts.web1.via: a host cannot go through itself; remove \"web1\"",
        ),
        (
            "SSH jump host listed twice",
            format!("{JUMP}via = [\"b1\", \"b1\"]\n\n{B1}{PLUGIN}"),
            "warden.toml:5:14: ssh.hosts.web1.via: \"b1\" is listed twice; list each hop once",
        ),
        (
            "SSH jump host with a chain of its own",
            format!(
                "{JUMP}via = [\"b2\"]\n\n{B1}[ssh.hosts.b2]\naddress = \"127.0.0.1:24\"\nuser = \"u\"\nagent = true\nvia = [\"b1\"]\n\n{PLUGIN}"
            ),
            "warden.toml:5:8: ssh.hosts.web1.via: [ssh.hosts.b2] has a via of its own; list the whole chain here instead (via = [\"b1\", \"b2\"])",
        ),
        (
            "SSH host with both address and pattern",
            format!(
                "[ssh.hosts.web]\naddress = \"127.0.0.1:22\"\npattern = 'web-[0-9]+'\nuser = \"u\"\nagent = true\n\n{PLUGIN}"
            ),
            "warden.toml:3:11: ssh.hosts.web: set address (one host) or pattern (many), not both",
        ),
        (
            "SSH host with neither",
            format!("[ssh.hosts.web]\nuser = \"u\"\nagent = true\n\n{PLUGIN}"),
            "warden.toml:1:1: ssh.hosts.web: set address = \"host:port\" (one host) or pattern = '...' (a fleet)",
        ),
        (
            "SSH pattern that is no regular expression",
            format!("{FLEET}pattern = 'web-[0-9'\n\n{PLUGIN}"),
            "warden.toml:4:11: ssh.hosts.web.pattern: not a regular expression (unclosed character class); example: pattern = 'web-[0-9]+\\.prod\\.internal'",
        ),
        (
            "SSH allow entry that is no network",
            format!("{FLEET}pattern = 'web-[0-9]+'\nallow = [\"10.0.0.0/33\"]\n\n{PLUGIN}"),
            "warden.toml:5:10: ssh.hosts.web.allow: \"10.0.0.0/33\" is not an address or a network (write 10.20.0.0/16, 192.0.2.7 or fd00::/8)",
        ),
        (
            "SSH port out of range",
            format!("{FLEET}pattern = 'web-[0-9]+'\nport = 70000\n\n{PLUGIN}"),
            "warden.toml:5:8: ssh.hosts.web.port: 70000 is not a TCP port (1-65535)",
        ),
        (
            "SSH allow beside an address",
            format!("{FLEET}address = \"127.0.0.1:22\"\nallow = [\"10.0.0.0/8\"]\n\n{PLUGIN}"),
            "warden.toml:5:10: ssh.hosts.web.allow: it applies to a pattern; remove it, or use pattern instead of address",
        ),
        (
            "SSH jump host that is a pattern",
            format!("{JUMP}via = [\"web\"]\n\n{FLEET}pattern = 'web-[0-9]+'\n\n{PLUGIN}"),
            "warden.toml:5:8: ssh.hosts.web1.via: [ssh.hosts.web] is a pattern for many hosts; a hop must be one machine (address = \"host:port\")",
        ),
    ];
    check_errors(cases);
}

/// A host table whose `address` or `pattern` line follows (line 4).
const FLEET: &str = "[ssh.hosts.web]\nuser = \"u\"\nagent = true\n";

fn fleet_hosts(extra: &str) -> std::collections::BTreeMap<String, crate::manifest::SshHostConfig> {
    let text = format!(
        "{FLEET}pattern = 'web-[0-9]+\\.prod\\.internal'\nallow = [\"10.20.0.0/16\", \"192.0.2.7\"]\n\n{B1}{extra}{PLUGIN}"
    );
    Manifest::parse(&text, "warden.toml", Path::new("/base"), BUILTINS)
        .unwrap_or_else(|e| panic!("{e}"))
        .ssh_hosts
}

#[test]
fn a_name_stands_for_an_alias_or_the_one_pattern_it_matches() {
    use crate::manifest::{SshAddress, SshNameError, ssh_name};
    let hosts = fleet_hosts("");
    let SshAddress::Pattern(p) = &hosts["web"].address else {
        panic!("a pattern host");
    };
    assert_eq!((p.port, p.allow.len()), (22, 2));
    assert!(p.allow_names("10.20.3.4".parse().expect("ip")));
    assert!(!p.allow_names("10.21.0.1".parse().expect("ip")));
    let member = ssh_name(&hosts, "WEB-12.prod.internal.").expect("a member");
    assert_eq!(
        (member.alias.as_str(), member.key()),
        ("web", "web-12.prod.internal")
    );
    assert_eq!(ssh_name(&hosts, "b1").expect("an alias").key(), "b1");
    // Anchored, and only DNS names: no prefix, suffix, port or URL slips through.
    for name in [
        "web-12.prod.internal.evil.test",
        "xweb-12.prod.internal",
        "web-12.prod.internal:22",
        "ssh://web-12.prod.internal",
    ] {
        let named = ssh_name(&hosts, name);
        assert!(
            matches!(&named, Err(SshNameError::NoMatch { .. }))
                || named.as_ref().is_ok_and(|n| n.member.is_none()),
            "{name}: {named:?}"
        );
    }
    assert!(matches!(
        ssh_name(&hosts, "web"),
        Err(SshNameError::PatternAlias { .. })
    ));
    let overlapping =
        fleet_hosts("[ssh.hosts.all]\npattern = '.*\\.internal'\nuser = \"u\"\nagent = true\n\n");
    assert!(matches!(
        ssh_name(&overlapping, "web-1.prod.internal"),
        Err(SshNameError::Ambiguous { .. })
    ));
}
