//! `[[plugin]]`: sources, names, tool filters, approvals, limits and settings.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
        (
            "a verified oci:// plugin with nobody to trust",
            format!(
                "[[plugin]]\nname = \"echo\"\nsource = \"oci://ghcr.io/team/echo@sha256:{}\"\n",
                "a".repeat(64)
            ),
            "warden.toml:3:10: plugin 'echo' is verified (verify defaults to true for oci:// sources) but [trust] names no key or identity; add the signer's public key under [trust.keys] or its identity under [trust.identities], or set verify = false",
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
            "offered groups without listed ones",
            format!("{PLUGIN}tools = {{ offer = [\"http\"] }}\n"),
            "warden.toml:4:20: tools.offer needs tools.groups: without it every group is listed already; name the groups to list, as tools = { groups = [\"core\"], offer = [\"flows\"] }",
        ),
        (
            "a group both listed and offered",
            format!("{PLUGIN}tools = {{ groups = [\"http\"], offer = [\"http\"] }}\n"),
            "warden.toml:4:39: tools.offer: group \"http\" is named twice in tools.groups and tools.offer; a group is listed or offered, not both",
        ),
        (
            "a group name that cannot be one",
            format!("{PLUGIN}tools = {{ groups = [\"Core\"] }}\n"),
            "warden.toml:4:21: tools.groups: \"Core\" is not a group name ([a-z0-9_-]{1,32})",
        ),
    ];
    check_errors(cases);
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
