//! `capture.http.get` before anything is sent: the URL, the plugin's headers (host-only
//! ones refused), the grant check, and a server's `Location` for a redirect.

use crate::Target;

pub const TARGET: Target = Target {
    name: "http",
    about: "http_get: URL parsing, header names/values, host-only headers, grant check, redirects",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"http://",
        b"https://",
        b"file://",
        b"data:",
        b"127.0.0.1",
        b"[::ffff:127.0.0.1]",
        b"api.example.com",
        b"example.com.",
        b"@",
        b":8080",
        b"%2F",
        b"Host",
        b"Proxy-Authorization",
        b"Transfer-Encoding",
        b"\r\n",
        b"\t",
        b"xn--",
        b"//evil.example.net",
    ],
    contained: &[],
    run,
};

fn run(input: &[u8]) -> u64 {
    let Some(v) = super::support::json(input) else {
        return 0;
    };
    let headers: Vec<(String, String)> = v["headers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| (super::support::text(&h[0]), super::support::text(&h[1])))
        .collect();
    let location = super::support::text(&v["location"]);
    warden::fuzzing::http_request(
        &super::support::text(&v["url"]),
        &headers,
        location.as_bytes(),
    )
}

const SEEDS: &[&str] = &[
    r#"{"url":"https://api.example.com/v1/items?q=1","headers":[["Accept","application/json"]],"location":"/next"}"#,
    r#"{"url":"http://127.0.0.1:8080/","headers":[["Host","internal"]],"location":"http://169.254.169.254/"}"#,
    r#"{"url":"https://a.example.com:443/x","headers":[["proxy-authorization","x"],["X-Ok","v"]],"location":"//other.example.com/p"}"#,
    r#"{"url":"ftp://example.com/","headers":[["bad name","v"],["X","bad\nvalue"]],"location":"https://user:pw@b.example.com:99999/"}"#,
];
