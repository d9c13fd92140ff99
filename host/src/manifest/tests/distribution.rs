//! `[trust]`, `[registries]` and `oci://` sources.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "an oci:// tag without a digest",
            "[[plugin]]\nname = \"echo\"\nsource = \"oci://ghcr.io/team/echo:1.0\"\nverify = false\n".into(),
            "warden.toml:3:10: oci://ghcr.io/team/echo:1.0 names no digest, so what runs could change under you: pin it as oci://ghcr.io/team/echo:1.0@sha256:<digest> (`warden plugin pull oci://ghcr.io/team/echo:1.0` prints it), or set allow_unpinned = true",
        ),
        (
            "verify on a source that is not oci://",
            format!("{PLUGIN}verify = true\n"),
            "warden.toml:4:10: verify applies to oci:// sources only; remove it from plugin 'capture'",
        ),
        (
            "a trusted key file that is not there",
            format!("[trust.keys]\nrelease = \"keys/release.pub\"\n{PLUGIN}"),
            "warden.toml:2:11: trust.keys.release: /nonexistent-base/keys/release.pub cannot be read: No such file or directory (os error 2)",
        ),
        (
            "registry credentials given two ways",
            format!("[registries.\"r.example\"]\ntoken_env = \"T\"\nusername = \"u\"\npassword_env = \"P\"\n{PLUGIN}"),
            "warden.toml:1:1: registries.\"r.example\": set token_env or username and password_env, not both",
        ),
        (
            "a token realm that is not a URL",
            format!("[registries.\"r.example\"]\ntoken_realm = \"auth.example\"\n{PLUGIN}"),
            "warden.toml:1:1: registries.\"r.example\": token_realm must be an http(s) URL, like \"https://auth.example.com/token\"",
        ),
    ];
    check_errors(cases);
}
