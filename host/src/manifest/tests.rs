//! Bad manifests, each with the exact message (and `file:line:col`) an admin will read.

use super::*;
use std::path::Path;
use std::time::Duration;

const BUILTINS: &[&str] = &["capture"];

fn error_of(text: &str) -> String {
    match Manifest::parse(
        text,
        "warden.toml",
        Path::new("/nonexistent-base"),
        BUILTINS,
    ) {
        Ok(_) => panic!("manifest unexpectedly valid:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const PLUGIN: &str = "[[plugin]]\nname = \"capture\"\nsource = \"builtin:capture\"\n";

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "unknown top-level key",
            format!("[sever]\naudit_log = \"a.jsonl\"\n{PLUGIN}"),
            "warden.toml:1:2: unknown field `sever`, expected one of `server`, `admin`, `telemetry`, `ssh`, `rdp`, `browser`, `capture`, `search`, `trust`, `registries`, `credentials`, `plugin`",
        ),
        (
            "a search provider Warden does not speak",
            format!("[search]\nprovider = \"bing\"\n{PLUGIN}"),
            "warden.toml:2:12: search.provider: \"bing\" is not a provider Warden speaks; use \"searxng\" or \"brave\"",
        ),
        (
            "the brave provider without a key",
            format!("[search]\nprovider = \"brave\"\n{PLUGIN}"),
            "warden.toml:2:12: search.provider = \"brave\" needs key_env: the environment variable that holds the API key, e.g. key_env = \"BRAVE_SEARCH_KEY\"",
        ),
        (
            "an oci:// tag without a digest",
            "[[plugin]]\nname = \"echo\"\nsource = \"oci://ghcr.io/team/echo:1.0\"\nverify = false\n".into(),
            "warden.toml:3:10: oci://ghcr.io/team/echo:1.0 names no digest, so what runs could change under you: pin it as oci://ghcr.io/team/echo:1.0@sha256:<digest> (`warden plugin pull oci://ghcr.io/team/echo:1.0` prints it), or set allow_unpinned = true",
        ),
        (
            "a verified oci:// plugin with nobody to trust",
            format!("[[plugin]]\nname = \"echo\"\nsource = \"oci://ghcr.io/team/echo@sha256:{}\"\n", "a".repeat(64)),
            "warden.toml:3:10: plugin 'echo' is verified (verify defaults to true for oci:// sources) but [trust] names no key or identity; add the signer's public key under [trust.keys] or its identity under [trust.identities], or set verify = false",
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
        (
            "a replica name a handle cannot carry",
            format!("[server]\nreplica = \"Replica.1\"\n{PLUGIN}"),
            "warden.toml:2:11: server.replica: replica name \"Replica.1\" must be 1 to 32 characters of a-z, 0-9 and '-', e.g. \"r1\"",
        ),
        (
            "a search endpoint with a query of its own",
            format!("[search]\nendpoint = \"https://searx.example/search?q=x\"\n{PLUGIN}"),
            "warden.toml:2:12: search.endpoint: \"https://searx.example/search?q=x\" is not an http(s) URL without a query; write it like \"https://searx.example.org/search\"",
        ),
        (
            "a result count out of range",
            format!(
                "[search]\nendpoint = \"https://searx.example/search\"\nmax_results = 500\n{PLUGIN}"
            ),
            "warden.toml:3:15: search.max_results: 500 is not between 1 and 50",
        ),
        (
            "a result count without a backend",
            format!("[search]\nmax_results = 5\n{PLUGIN}"),
            "warden.toml:2:15: search.max_results needs search.endpoint: the search backend to ask",
        ),
        (
            "unknown plugin key",
            "[[plugin]]\nname = \"capture\"\nsorce = \"builtin:capture\"\n".to_string(),
            "warden.toml:3:1: unknown field `sorce`, expected one of `name`, `source`, `verify`, `allow_unpinned`, `tool_prefix`, `tools`, `require_approval`, `remember_approval`, `limits`, `grants`, `settings`",
        ),
        (
            "secret granted but not defined",
            format!(
                "{PLUGIN}grants.browser = {{ origins = [\"https://a.example\"], secrets = [\"PW\"] }}\n"
            ),
            "warden.toml:4:64: grants.browser.secrets: unknown secret \"PW\"; define it under [browser.secrets] (e.g. PW = { env = \"PW\", origins = [\"https://login.example.com\"] })",
        ),
        (
            "secret with both sources",
            format!(
                "[browser.secrets]\nPW = {{ env = \"PW\", value = \"x\", origins = [\"https://a.example\"] }}\n{PLUGIN}"
            ),
            "warden.toml:2:6: browser.secrets.PW: set exactly one of env (preferred) or value",
        ),
        (
            "secret without origins",
            format!("[browser.secrets]\nPW = {{ env = \"PW\" }}\n{PLUGIN}"),
            "warden.toml:2:6: browser.secrets.PW.origins is missing: bind the secret to the origins whose login fields it may be typed into, e.g. origins = [\"https://login.example.com\"]",
        ),
        (
            "secret bound to a data: origin",
            format!(
                "[browser.secrets]\nPW = {{ env = \"PW\", origins = [\"data://x\"] }}\n{PLUGIN}"
            ),
            "warden.toml:2:31: browser.secrets.PW.origins: \"data://x\" must use http or https; a secret is never typed into data: documents",
        ),
        (
            "secret bound to every host",
            format!(
                "[browser.secrets]\nPW = {{ env = \"PW\", origins = [\"https://*\"] }}\n{PLUGIN}"
            ),
            "warden.toml:2:31: browser.secrets.PW.origins: \"https://*\" must name a host (a glob such as \"https://*.example.com\" is fine; \"*\" alone and paths are not)",
        ),
        (
            "secret and eval_js for one plugin",
            format!(
                "[browser.secrets]\nPW = {{ env = \"PW\", origins = [\"https://a.example\"] }}\n{PLUGIN}grants.browser = {{ origins = [\"https://a.example\"], eval_js = true, secrets = [\"PW\"] }}\n"
            ),
            "warden.toml:6:80: grants.browser: plugin \"capture\" is granted both eval_js and secrets; a plugin that can run JavaScript in a page (or mock its responses) can read a secret the host types into it, so the two are never granted together: remove eval_js, or give the secrets to a plugin without it",
        ),
        (
            "browser tab cap of zero",
            format!("{PLUGIN}limits = {{ browser_tabs = 0 }}\n"),
            "warden.toml:4:27: limits.browser_tabs: 0 is not a count; write a number from 1 to 10000",
        ),
        (
            "more calls at once than instances the pool can hold",
            format!("{PLUGIN}limits = {{ concurrency = 5000 }}\n"),
            "warden.toml:4:26: limits.concurrency: 5000 is more than 1024 calls at once; each holds an instance of the plugin: write a number from 1 to 1024",
        ),
        (
            "queue timeout that is no duration",
            format!("{PLUGIN}limits = {{ queue_timeout = \"soon\" }}\n"),
            "warden.toml:4:28: limits.queue_timeout: \"soon\" is not a duration; write it like \"60s\" or \"2m\"",
        ),
        (
            "profile granted but not defined",
            format!(
                "{PLUGIN}grants.browser = {{ origins = [\"https://a.example\"], profiles = [\"de\"] }}\n"
            ),
            "warden.toml:4:65: grants.browser.profiles: unknown profile \"de\"; define it as [browser.profiles.de]",
        ),
        (
            "profile proxy with an unsupported scheme",
            format!("[browser.profiles]\nde = {{ proxy = \"ftp://proxy:21\" }}\n{PLUGIN}"),
            "warden.toml:2:6: browser.profiles.de: proxy scheme \"ftp\" is not supported; use http, socks4 or socks5 (Warden's network guard chains to it)",
        ),
        (
            "profile proxy with credentials",
            format!("[browser.profiles]\nde = {{ proxy = \"http://u:p@proxy:3128\" }}\n{PLUGIN}"),
            "warden.toml:2:6: browser.profiles.de: proxy credentials in the URL are not supported (Chromium ignores them); use a proxy that authorizes by address",
        ),
        (
            "profile with a bad timezone",
            format!("[browser.profiles]\nde = {{ timezone = \"Berlin time\" }}\n{PLUGIN}"),
            "warden.toml:2:6: browser.profiles.de: timezone \"Berlin time\" is not an IANA zone such as Europe/Berlin or America/New_York",
        ),
        (
            "two profiles on one user_data_dir",
            format!(
                "[browser.profiles]\na = {{ user_data_dir = \"p/crm\" }}\nb = {{ user_data_dir = \"p/./crm\" }}\n{PLUGIN}"
            ),
            "warden.toml:3:5: browser.profiles.b.user_data_dir is also the user_data_dir of profile \"a\"; a user-data-dir serves one browser: give each profile a directory of its own",
        ),
        (
            "a profile on the capture browser's profile",
            format!(
                "[capture]\nprofile_dir = \"cap\"\n[browser.profiles]\na = {{ user_data_dir = \"cap\" }}\n{PLUGIN}"
            ),
            "warden.toml:4:5: browser.profiles.a.user_data_dir is the capture browser's profile ([capture] profile_dir); a user-data-dir serves one browser: give the profile a directory of its own",
        ),
        (
            "a user_data_dir with a remote browser",
            format!(
                "[browser]\nendpoint = \"ws://127.0.0.1:9222/devtools/browser/x\"\n[browser.profiles]\na = {{ user_data_dir = \"p\" }}\n{PLUGIN}"
            ),
            "warden.toml:4:5: browser.profiles.a.user_data_dir needs a browser Warden starts itself; a remote [browser] endpoint keeps its own profile: remove one of the two",
        ),
        (
            "a remote browser that is not a DevTools URL",
            format!("[browser]\nendpoints = [\"http://127.0.0.1:9222\", \"ftp://b:21\"]\n{PLUGIN}"),
            "warden.toml:2:39: browser.endpoints: \"ftp://b:21\" is not a DevTools endpoint; write \"http://HOST:PORT\" (the browser's --remote-debugging-port) or its \"ws://HOST:PORT/devtools/browser/ID\"",
        ),
        (
            "a guard address without a fleet",
            format!("[browser]\nguard_address = \"10.0.0.2\"\n{PLUGIN}"),
            "warden.toml:2:17: browser.guard_address is where remote browsers reach Warden's network guards; it needs [browser] endpoints (a browser Warden launches uses loopback)",
        ),
        (
            "a guard address no browser can connect to",
            format!(
                "[browser]\nendpoint = \"http://a:9222\"\nguard_address = \"0.0.0.0\"\n{PLUGIN}"
            ),
            "warden.toml:3:17: browser.guard_address: \"0.0.0.0\" is not an address the browsers can connect to; write an IP address of this machine, such as \"10.0.0.2\"",
        ),
        (
            "a remote browser named twice",
            format!("[browser]\nendpoints = [\"http://a:9222\", \"http://a:9222\"]\n{PLUGIN}"),
            "warden.toml:2:31: browser.endpoints names \"http://a:9222\" twice",
        ),
        (
            "endpoint and endpoints",
            format!(
                "[browser]\nendpoint = \"http://a:9222\"\nendpoints = [\"http://b:9222\"]\n{PLUGIN}"
            ),
            "warden.toml:3:13: browser: endpoint and endpoints both name remote browsers; keep endpoints (a list of one is fine)",
        ),
        (
            "an empty fleet",
            format!("[browser]\nendpoints = []\n{PLUGIN}"),
            "warden.toml:2:13: browser.endpoints is empty; name at least one remote browser, or remove the key to let Warden launch Chromium",
        ),
        (
            "profile bypass without a proxy",
            format!("[browser.profiles]\nde = {{ proxy_bypass = [\"*.internal\"] }}\n{PLUGIN}"),
            "warden.toml:2:6: browser.profiles.de: proxy_bypass needs proxy",
        ),
        (
            "unknown grant key",
            format!("{PLUGIN}grants.network = {{ any = true }}\n"),
            "warden.toml:4:8: unknown field `network`, expected one of `capture`, `browser`, `http`, `terminal`, `sftp`, `rdp`, `files`, `env`",
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
            format!("{PLUGIN}grants.files = [{{ host = \"/tmp\", guest = \"/d\" }}, {{ host = \"/usr\", guest = \"/d/e\" }}]\n"),
            "warden.toml:4:75: grants.files: guest path \"/d/e\" overlaps \"/d\"; give each directory a guest path of its own, neither inside the other",
        ),
        (
            "a quota on a read-only directory",
            format!("{PLUGIN}grants.files = [{{ host = \"/tmp\", guest = \"/d\", quota = \"1MiB\" }}]\n"),
            "warden.toml:4:56: grants.files: a quota limits writes, and this directory is read-only: remove quota, or set mode = \"read-write\"",
        ),
        (
            "an unknown mode",
            format!("{PLUGIN}grants.files = [{{ host = \"/tmp\", guest = \"/d\", mode = \"rw\" }}]\n"),
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
            "unknown key inside a grant",
            format!("{PLUGIN}grants.capture = {{ hosts = [\"127.0.0.1:*\"] }}\n"),
            "warden.toml:4:20: unknown field `hosts`, expected one of `http_hosts`, `max_body`, `origins`, `cookies`, `http_only_cookies`",
        ),
        (
            "unknown builtin source",
            "[[plugin]]\nname = \"x\"\nsource = \"builtin:nope\"\n".to_string(),
            "warden.toml:3:10: unknown plugin source \"builtin:nope\"; built-in plugins are: builtin:capture",
        ),
        (
            "missing component file",
            "[[plugin]]\nname = \"x\"\nsource = \"plugins/x.wasm\"\n".to_string(),
            "warden.toml:3:10: unknown plugin source \"plugins/x.wasm\": no file at /nonexistent-base/plugins/x.wasm; use builtin:NAME or a path to a .wasm component",
        ),
        (
            "duplicate plugin name",
            format!("{PLUGIN}\n{PLUGIN}"),
            "warden.toml:6:1: duplicate plugin name \"capture\" (first defined at line 2); give each [[plugin]] its own name",
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
            "bad memory size",
            format!("{PLUGIN}limits = {{ memory = \"lots\" }}\n"),
            "warden.toml:4:21: limits.memory: \"lots\" is not a size; write it like \"128MiB\" or \"512KiB\"",
        ),
        (
            "bad duration",
            format!("{PLUGIN}limits = {{ call_timeout = \"soon\" }}\n"),
            "warden.toml:4:27: limits.call_timeout: \"soon\" is not a duration; write it like \"60s\" or \"2m\"",
        ),
        (
            "bad plugin name",
            "[[plugin]]\nname = \"My Plugin\"\nsource = \"builtin:capture\"\n".to_string(),
            "warden.toml:2:8: plugin name \"My Plugin\" must match [a-z0-9_-]{1,32}",
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
        (
            "wrong value type",
            format!("[browser]\nheadless = \"yes\"\n{PLUGIN}"),
            "warden.toml:2:12: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "TOML syntax error",
            format!("{PLUGIN}limits = {{ memory = \"1MiB\"\n"),
            "warden.toml:4:27: unclosed inline table, expected `}`",
        ),
        (
            "no plugins",
            "[server]\naudit_log = \"a.jsonl\"\n".to_string(),
            "warden.toml:1:1: no [[plugin]] is defined; add at least one, e.g. [[plugin]] name = \"capture\" source = \"builtin:capture\"",
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
    ];
    let mut failures = Vec::new();
    for (what, text, expected) in cases {
        let got = error_of(text);
        if got != *expected {
            failures.push(format!(
                "{what}:\n  expected: {expected}\n  got:      {got}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn several_problems_are_reported_together() {
    let text = format!("{PLUGIN}limits = {{ memory = \"lots\", call_timeout = \"soon\" }}\n");
    let err = error_of(&text);
    assert_eq!(err.lines().count(), 2, "{err}");
}

#[test]
fn default_manifest_grants_the_public_https_web_and_nothing_local() {
    let m = Manifest::load(None, &crate::builtin::names())
        .expect("the built-in default manifest is valid");
    let names: Vec<&str> = m.plugins.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["browser", "terminal", "sftp", "capture"]);
    let url = |u: &str| url::Url::parse(u).expect("url");
    for p in &m.plugins {
        let grants = &p.grants;
        assert!(
            grants.check_terminal_local().is_err(),
            "{} may open a PTY",
            p.name
        );
        assert!(
            grants.check_sftp_host("web1").is_err(),
            "{} may use SFTP",
            p.name
        );
        assert!(grants.check_eval_js().is_err(), "{} may run script", p.name);
        assert!(
            grants.check_browser_cookies().is_err(),
            "{} may read cookies",
            p.name
        );
        assert!(
            grants.check_http(&url("http://example.com/")).is_err(),
            "{} may fetch plain http",
            p.name
        );
    }
    let capture = &m.plugins[3].grants;
    assert!(capture.check_http(&url("https://example.com/")).is_ok());
    assert!(
        capture
            .check_http(&url("https://example.com:8443/"))
            .is_err()
    );
    let browser = &m.plugins[0].grants;
    assert!(
        browser
            .check_browser_origin(&url("https://example.com/a"))
            .is_ok()
    );
    assert!(
        browser
            .check_browser_origin(&url("http://example.com/"))
            .is_err()
    );
    // Loopback and private addresses: no pattern names them, so the network rule
    // (`net::`) refuses them whatever the glob matches.
    for pattern in ["https://*", "*:443"] {
        assert!(crate::net::explicit_space(pattern).is_none(), "{pattern}");
    }
}

#[test]
fn a_full_manifest_loads_with_its_grants() {
    let text = r#"
[server]
audit_log = "audit.jsonl"

[ssh.hosts.web1]
address = "127.0.0.1:2222"
user = "deploy"
identity_file = "keys/id"
known_hosts = "keys/known_hosts"

[[plugin]]
name = "capture"
source = "builtin:capture"
tool_prefix = "web_"
tools = { allow = ["http_*"], deny = ["http_post"] }
limits = { memory = "64MiB", call_timeout = "2s", output = "256KiB" }
grants.capture = { http_hosts = ["127.0.0.1:*", "*.example.com"], max_body = "1MiB" }
grants.terminal = { ssh_hosts = ["web1"], read_only = true }
grants.sftp = { hosts = ["web1"], roots = ["/srv/app"], write = false }
"#;
    let m =
        Manifest::parse(text, "warden.toml", Path::new("/etc/warden"), BUILTINS).expect("valid");
    assert_eq!(m.audit_log, Path::new("/etc/warden/audit.jsonl"));
    let p = &m.plugins[0];
    assert_eq!(p.tool_prefix, "web_");
    assert!(
        p.tools.allows("http_get")
            && !p.tools.allows("http_post")
            && !p.tools.allows("capture_page")
    );
    assert_eq!(p.limits.memory, 64 * 1024 * 1024);
    assert_eq!(p.limits.call_timeout, Duration::from_secs(2));
    assert_eq!(p.limits.output, 256 * 1024);
    assert_eq!(p.grants.max_body(), 1024 * 1024);
    assert_eq!(p.grants.caps, grants::Caps::default());
    assert!(p.grants.check_terminal_ssh("web1").is_ok());
    assert!(p.grants.check_terminal_ssh("web2").is_err());
    assert_eq!(
        m.ssh_hosts["web1"].identity_file.as_deref(),
        Some(Path::new("/etc/warden/keys/id"))
    );
}

#[test]
fn a_tool_list_is_an_allowlist_and_names_its_unmatched_globs() {
    let text = r#"
[server]
audit_log = "audit.jsonl"

[[plugin]]
name = "capture"
source = "builtin:capture"
tools = ["capture_page", "http_*", "captur_page"]
"#;
    let m =
        Manifest::parse(text, "warden.toml", Path::new("/etc/warden"), BUILTINS).expect("valid");
    let tools = &m.plugins[0].tools;
    assert!(tools.allows("capture_page") && tools.allows("http_get"));
    assert!(!tools.allows("get_cookies"));
    let names = ["capture_page", "http_get", "get_cookies"];
    assert_eq!(tools.unmatched(&names), ["captur_page"]);

    let bad = text.replace(
        r#"tools = ["capture_page", "http_*", "captur_page"]"#,
        r#"tools = { allow = ["*"], block = ["x"] }"#,
    );
    let err = Manifest::parse(&bad, "warden.toml", Path::new("/etc/warden"), BUILTINS)
        .expect_err("unknown key");
    assert!(err.to_string().contains("block"), "{err}");
}

#[test]
fn secrets_are_bound_to_origins_and_caps_parse() {
    let text = r#"
[browser.secrets]
PW = { env = "PW", origins = ["http://127.0.0.1:8001", "https://*.example.com"] }

[[plugin]]
name = "capture"
source = "builtin:capture"
limits = { browser_sessions = 2, browser_tabs = 5, capture_tabs = 3 }
grants.browser = { origins = ["http://127.0.0.1:*"], secrets = ["PW"] }
"#;
    let m = Manifest::parse(text, "warden.toml", Path::new("/"), BUILTINS).expect("valid");
    let g = &m.plugins[0].grants;
    assert_eq!(
        g.caps,
        grants::Caps {
            browser_sessions: 2,
            browser_tabs: 5,
            capture_tabs: 3
        }
    );
    let frame = |url: &str, origin: &str| grants::SecretFrame {
        url: url.into(),
        security_origin: origin.into(),
    };
    let top = frame("http://127.0.0.1:8001/login", "http://127.0.0.1:8001");
    assert!(
        g.check_secret_frames("PW", std::slice::from_ref(&top), false)
            .is_ok()
    );
    assert!(
        g.check_secret_frames(
            "PW",
            &[
                frame("https://a.example.com/", "https://a.example.com"),
                top.clone()
            ],
            false
        )
        .is_ok()
    );
    // Another port of a granted browser origin is not an origin of the secret.
    let other = g
        .check_secret_frames(
            "PW",
            &[frame("http://127.0.0.1:8002/", "http://127.0.0.1:8002")],
            false,
        )
        .expect_err("other origin");
    assert!(
        other.message.contains("[browser.secrets.PW]"),
        "{}",
        other.message
    );
    // Documents the plugin could have written: never.
    for (url, origin) in [
        ("data:text/html,<input type=password>", "://"),
        ("blob:http://127.0.0.1:8001/5a1c", "http://127.0.0.1:8001"),
        ("about:srcdoc", "http://127.0.0.1:8001"),
        ("about:blank", "http://127.0.0.1:8001"),
        ("file:///tmp/x.html", "file://"),
        ("http://127.0.0.1:8001/sandboxed", "null"),
    ] {
        let err = g
            .check_secret_frames("PW", &[frame(url, origin)], false)
            .expect_err(url);
        assert_eq!(err.grant, "browser.secrets.origins", "{url}");
    }
    // A granted field inside a data: page (which could move the focus, or read the page) is refused.
    assert!(
        g.check_secret_frames(
            "PW",
            &[top.clone(), frame("data:text/html,x", "://")],
            false
        )
        .is_err()
    );
    // A session that ever mocked a response: never.
    let mocked = g
        .check_secret_frames("PW", std::slice::from_ref(&top), true)
        .expect_err("mocked session");
    assert!(
        mocked.message.contains("mocked route"),
        "{}",
        mocked.message
    );
    assert_eq!(
        g.check_secret_frames("PW", std::slice::from_ref(&top), false)
            .expect("bound origin"),
        "http://127.0.0.1:8001"
    );
    assert!(
        g.check_secret_frames("NOPE", std::slice::from_ref(&top), false)
            .is_err()
    );
    assert!(g.check_mock_route().is_err());
}

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
    let mut failures = Vec::new();
    for (what, text, expected) in cases {
        let got = error_of(text);
        if got != *expected {
            failures.push(format!(
                "{what}:\n  expected: {expected}\n  got:      {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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

#[test]
fn a_search_backend_loads_with_its_result_count() {
    let text =
        format!("[search]\nendpoint = \"https://searx.example/search\"\nmax_results = 5\n{PLUGIN}");
    let m = Manifest::parse(&text, "warden.toml", Path::new("/base"), BUILTINS).expect("valid");
    let search = m.browser.search.expect("a backend");
    assert_eq!(search.endpoint.as_str(), "https://searx.example/search");
    assert_eq!(search.max_results, 5);
    let m = Manifest::parse(PLUGIN, "warden.toml", Path::new("/base"), BUILTINS).expect("valid");
    assert_eq!(m.browser.search, None);
}

#[test]
fn plugin_settings_load_as_text_and_are_bounded() {
    let text = format!(
        "{PLUGIN}\n[plugin.settings]\nregion = \"eu-west\"\npage = {{ rows = 50 }}\nflag = true\n"
    );
    let m = Manifest::parse(&text, "warden.toml", Path::new("/base"), BUILTINS).expect("valid");
    let settings = &m.plugins[0].settings;
    assert_eq!(settings.get("region").map(String::as_str), Some("eu-west"));
    assert_eq!(
        settings.get("page").map(String::as_str),
        Some(r#"{"rows":50}"#)
    );
    assert_eq!(settings.get("flag").map(String::as_str), Some("true"));
    let m = Manifest::parse(PLUGIN, "warden.toml", Path::new("/base"), BUILTINS).expect("valid");
    assert!(m.plugins[0].settings.is_empty());

    let big = format!(
        "{PLUGIN}\n[plugin.settings]\nblob = \"{}\"\n",
        "x".repeat(300 * 1024)
    );
    let e = error_of(&big);
    assert!(
        e.contains("settings take") && e.contains("at most 262144"),
        "{e}"
    );
}
