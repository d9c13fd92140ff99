//! A plugin's `grants` table: each grant kind and what it may name.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "secret granted but not defined",
            format!(
                "{PLUGIN}grants.browser = {{ origins = [\"https://a.example\"], secrets = [\"PW\"] }}\n"
            ),
            "warden.toml:4:64: grants.browser.secrets: unknown secret \"PW\"; define it under [browser.secrets] (e.g. PW = { env = \"PW\", origins = [\"https://login.example.com\"] })",
        ),
        (
            "secret and eval_js for one plugin",
            format!(
                "[browser.secrets]\nPW = {{ env = \"PW\", origins = [\"https://a.example\"] }}\n{PLUGIN}grants.browser = {{ origins = [\"https://a.example\"], eval_js = true, secrets = [\"PW\"] }}\n"
            ),
            "warden.toml:6:80: grants.browser: plugin \"capture\" is granted both eval_js and secrets; a plugin that can run JavaScript in a page (or mock its responses) can read a secret the host types into it, so the two are never granted together: remove eval_js, or give the secrets to a plugin without it",
        ),
        (
            "profile granted but not defined",
            format!(
                "{PLUGIN}grants.browser = {{ origins = [\"https://a.example\"], profiles = [\"de\"] }}\n"
            ),
            "warden.toml:4:65: grants.browser.profiles: unknown profile \"de\"; define it as [browser.profiles.de]",
        ),
        (
            "a granted directory that does not exist",
            format!("{PLUGIN}grants.files = [{{ host = \"data\", guest = \"/data\" }}]\n"),
            "warden.toml:4:26: grants.files: host directory \"data\" cannot be opened (/nonexistent-base/data: No such file or directory (os error 2)); create it first",
        ),
        (
            "a relative guest path",
            format!("{PLUGIN}grants.files = [{{ host = \"/tmp\", guest = \"data\" }}]\n"),
            "warden.toml:4:42: grants.files: guest = \"data\" must be an absolute path without . or .. (like \"/data\")",
        ),
        (
            "guest paths one inside the other",
            format!(
                "{PLUGIN}grants.files = [{{ host = \"/tmp\", guest = \"/d\" }}, {{ host = \"/usr\", guest = \"/d/e\" }}]\n"
            ),
            "warden.toml:4:75: grants.files: guest path \"/d/e\" overlaps \"/d\"; give each directory a guest path of its own, neither inside the other",
        ),
        (
            "a quota on a read-only directory",
            format!(
                "{PLUGIN}grants.files = [{{ host = \"/tmp\", guest = \"/d\", quota = \"1MiB\" }}]\n"
            ),
            "warden.toml:4:56: grants.files: a quota limits writes, and this directory is read-only: remove quota, or set mode = \"read-write\"",
        ),
        (
            "an unknown mode",
            format!(
                "{PLUGIN}grants.files = [{{ host = \"/tmp\", guest = \"/d\", mode = \"rw\" }}]\n"
            ),
            "warden.toml:4:55: grants.files: mode = \"rw\"; write \"read-only\" or \"read-write\"",
        ),
        (
            "a credential in the environment",
            format!("{PLUGIN}grants.env = {{ vars = {{ API_TOKEN = \"x\" }} }}\n"),
            "warden.toml:4:37: grants.env: \"API_TOKEN\" looks like a credential (TOKEN); a plugin can print or send what it reads from its environment: keep the secret in the host ([credentials] in the manifest, bound to the origins it is for), which adds it to the plugin's requests without the plugin seeing it",
        ),
        (
            "a variable name that is not one",
            format!("{PLUGIN}grants.env = {{ from_host = [\"A-B\"] }}\n"),
            "warden.toml:4:29: grants.env: \"A-B\" is not a variable name; use letters, digits and _ (like API_BASE)",
        ),
        (
            "bad glob",
            format!("{PLUGIN}grants.capture = {{ http_hosts = [\"127.0.0.[1:*\"] }}\n"),
            "warden.toml:4:34: grants.capture.http_hosts: bad glob \"127.0.0.[1:*\": unclosed character class; missing ']'",
        ),
        (
            "URL where a host is expected",
            format!("{PLUGIN}grants.capture = {{ http_hosts = [\"https://example.com\"] }}\n"),
            "warden.toml:4:34: grants.capture.http_hosts: \"https://example.com\" must be host[:port] (like \"127.0.0.1:*\" or \"*.example.com\"), not a URL",
        ),
        (
            "unknown SSH host alias",
            format!(
                "[ssh.hosts.web1]\naddress = \"127.0.0.1:22\"\nuser = \"u\"\nagent = true\n\n{PLUGIN}grants.terminal = {{ ssh_hosts = [\"web2\"] }}\n"
            ),
            "warden.toml:9:34: grants.terminal.ssh_hosts: unknown SSH host alias \"web2\" (defined hosts: web1); define it under [ssh.hosts.web2]",
        ),
        (
            "SFTP host alias with no hosts defined",
            format!("{PLUGIN}grants.sftp = {{ hosts = [\"db\"], roots = [\"/srv\"] }}\n"),
            "warden.toml:4:26: grants.sftp.hosts: unknown SSH host alias \"db\" (no [ssh.hosts.NAME] is defined); define it under [ssh.hosts.db]",
        ),
        (
            "unknown RDP host alias",
            format!("{PLUGIN}grants.rdp = {{ hosts = [\"win1\"] }}\n"),
            "warden.toml:4:25: grants.rdp.hosts: unknown RDP host alias \"win1\" (no [rdp.hosts.NAME] is defined); define it under [rdp.hosts.win1]",
        ),
        (
            "origin without a scheme",
            format!("{PLUGIN}grants.browser = {{ origins = [\"example.com\"] }}\n"),
            "warden.toml:4:31: grants.browser.origins: \"example.com\" must be an origin glob with a scheme, like \"https://*.example.com\"",
        ),
        (
            "resource origin without a scheme",
            format!(
                "{PLUGIN}grants.browser = {{ origins = [\"https://a.example\"], resource_origins = [\"cdn.example\"] }}\n"
            ),
            "warden.toml:4:73: grants.browser.resource_origins: \"cdn.example\" must be an origin glob with a scheme, like \"https://*.example.com\"",
        ),
        (
            "relative SFTP root",
            format!(
                "[ssh.hosts.web1]\naddress = \"127.0.0.1:22\"\nuser = \"u\"\nagent = true\n\n{PLUGIN}grants.sftp = {{ hosts = [\"web1\"], roots = [\"srv\"] }}\n"
            ),
            "warden.toml:9:44: grants.sftp.roots: \"srv\" must be an absolute remote path",
        ),
    ];
    check_errors(cases);
}
