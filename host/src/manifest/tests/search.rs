//! `[search]`.

use super::support::*;

#[test]
fn bad_manifests_name_file_line_and_fix() {
    let cases: &[(&str, String, &str)] = &[
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
    ];
    check_errors(cases);
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
