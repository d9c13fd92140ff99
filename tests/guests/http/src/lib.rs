//! Test guest `http`: any request a plugin can make with `wasi:http` (any method, URL, header
//! and body size), answered with what came back, so the tests can check what the host let
//! through, what the server received and what the plugin could read. It keeps the last
//! answer in its state, so a test can search that too.

use std::time::Duration;

use warden_sdk::http;
use warden_sdk::prelude::*;
use warden_sdk::state;

#[derive(Deserialize, JsonSchema)]
struct RequestArgs {
    /// `GET`, `POST`, ...
    method: String,
    /// Absolute URL.
    url: String,
    /// Headers to set.
    #[serde(default)]
    headers: Vec<(String, String)>,
    /// The body as text.
    #[serde(default)]
    body: Option<String>,
    /// Or a body of this many `x` bytes.
    #[serde(default)]
    body_bytes: Option<usize>,
    /// Follow a 3xx `Location` as a new request (up to 5 times).
    #[serde(default)]
    follow: bool,
    /// Time limit asked of the host, in milliseconds.
    #[serde(default)]
    timeout_ms: Option<u64>,
    /// Return the body as hex of its bytes, exactly as the plugin got them.
    #[serde(default)]
    hex: bool,
}

#[derive(Serialize, JsonSchema)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    /// The URLs requested, the first one first.
    hops: Vec<String>,
}

fn request(args: RequestArgs) -> Result<Structured<Answer>, ToolError> {
    let mut url = args.url.clone();
    let mut hops = Vec::new();
    loop {
        hops.push(url.clone());
        let mut req = http::request(&args.method, &url);
        for (k, v) in &args.headers {
            req = req.header(k, v);
        }
        if let Some(b) = &args.body {
            req = req.body(b.clone().into_bytes());
        } else if let Some(n) = args.body_bytes {
            req = req.body(vec![b'x'; n]);
        }
        if let Some(ms) = args.timeout_ms {
            req = req.timeout(Duration::from_millis(ms));
        }
        let response = req.send()?;
        let location = response.header("location").map(str::to_string);
        if args.follow
            && (300..400).contains(&response.status)
            && hops.len() < 6
            && let Some(next) = location
        {
            url = next;
            continue;
        }
        let answer = Answer {
            status: response.status,
            headers: response.headers.clone(),
            body: if args.hex {
                response.body.iter().map(|b| format!("{b:02x}")).collect()
            } else {
                response.text()
            },
            hops,
        };
        state::set_json("last", &answer).map_err(ToolError::failed)?;
        return Ok(Structured::new(answer));
    }
}

/// The last answer, as the plugin's state holds it.
fn last(_: NoArgs) -> Result<String, ToolError> {
    let raw = state::get("last").unwrap_or_default();
    Ok(String::from_utf8_lossy(&raw).into_owned())
}

warden_sdk::export_plugin!(|| Plugin::new()
    .tool(
        Tool::new("request", request)
            .description("Make one HTTP request with wasi:http and return what came back.")
    )
    .tool(Tool::new("last", last).description("The last answer kept in the plugin's state.")));
