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
    ];
    check_errors(cases);
}
