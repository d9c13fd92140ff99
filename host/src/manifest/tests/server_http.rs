//! `[server.http]` and its named clients.

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
