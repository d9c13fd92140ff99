//! `[server]` and `[server.http]` with its named clients.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "a replica name a handle cannot carry",
            format!("[server]\nreplica = \"Replica.1\"\n{PLUGIN}"),
            "warden.toml:2:11: server.replica: replica name \"Replica.1\" must be 1 to 32 characters of a-z, 0-9 and '-', e.g. \"r1\"",
        ),
        (
            "a quick_start that is no size",
            format!("[server]\nquick_start = \"fast\"\n{PLUGIN}"),
            "warden.toml:2:15: server.quick_start: \"fast\" is neither a size nor \"off\"; write it like \"4MiB\", or \"off\" to compile every component optimized before its first call",
        ),
        (
            "HTTP origin with a path",
            format!("[server.http]\nallowed_origins = [\"https://app.example.com/\"]\n\n{PLUGIN}"),
            "warden.toml:2:20: server.http.allowed_origins: \"https://app.example.com/\" must be an origin like \"https://app.example.com\" (scheme, host, optional port; no path)",
        ),
        (
            "HTTP client token too short",
            format!("[server.http.clients.bob]\ntoken = \"short\"\n\n{PLUGIN}"),
            "warden.toml:1:1: server.http.clients.bob.token is shorter than 16 characters; use a long random token",
        ),
    ];
    check_errors(cases);
}

#[test]
fn quick_start_is_a_size_off_or_one_mebibyte() {
    let parse = |server: &str| {
        Manifest::parse(
            &format!("[server]\n{server}\n{PLUGIN}"),
            "warden.toml",
            Path::new("/nonexistent-base"),
            BUILTINS,
        )
        .map(|m| m.quick_start)
        .map_err(|e| e.to_string())
    };
    assert_eq!(parse(""), Ok(Some(1 << 20)));
    assert_eq!(parse("quick_start = \"8MiB\""), Ok(Some(8 << 20)));
    assert_eq!(parse("quick_start = \"off\""), Ok(None));
}
