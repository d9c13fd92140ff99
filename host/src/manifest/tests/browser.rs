//! `[browser]`, its secrets and profiles, and `[capture]`.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "browser run as root",
            format!("[browser]\nrun_as = \"0:0\"\n{PLUGIN}"),
            "warden.toml:2:10: browser.run_as: \"0:0\" is root (uid or gid 0); name an unprivileged user, such as \"warden-browser\" (useradd --system --no-create-home warden-browser) or \"61000:61000\"",
        ),
        (
            "browser run as a user that does not exist",
            format!("[browser]\nrun_as = \"no-such-user-here\"\n{PLUGIN}"),
            "warden.toml:2:10: browser.run_as: no user \"no-such-user-here\" in /etc/passwd; create it (useradd --system --no-create-home no-such-user-here) or write \"UID:GID\"",
        ),
        (
            "sandbox opt-out for remote browsers",
            format!("[browser]\nendpoints = [\"http://10.0.0.5:9222\"]\nsandbox = false\n{PLUGIN}"),
            "warden.toml:3:11: browser.sandbox is about a browser Warden launches; remote [browser] endpoints run their own (see deploy.md for what they need): remove one of the two",
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
    ];
    check_errors(cases);
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

#[test]
fn run_as_and_the_sandbox_opt_out_parse() {
    let text = format!("[browser]\nrun_as = \"61000:61001\"\nsandbox = false\n{PLUGIN}");
    let m = Manifest::parse(&text, "warden.toml", Path::new("/"), BUILTINS).expect("valid");
    let run_as = m.browser.run_as.as_ref().expect("run_as");
    assert_eq!((run_as.uid, run_as.gid), (61000, 61001));
    assert!(m.browser.unsandboxed);
    let m = Manifest::parse(PLUGIN, "warden.toml", Path::new("/"), BUILTINS).expect("valid");
    assert!(m.browser.run_as.is_none() && !m.browser.unsandboxed);
}
