//! Warden's built-in `capture` plugin: HTTP fetches performed by the host.
//!
//! The host makes the request with its own network stack; the manifest's
//! `grants.capture.http_hosts` decides which hosts (and every redirect hop) are allowed, and
//! `grants.capture.max_body` caps the body.

use std::collections::BTreeMap;
use std::time::Duration;

use warden_sdk::capture::{self, HttpRequest, HttpResponse};
use warden_sdk::prelude::*;

/// Arguments of `http_get`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HttpGetArgs {
    /// Absolute http:// or https:// URL to fetch. Its host (and port, unless it is the
    /// scheme's default) must be allowed by the plugin's capture.http_hosts grant.
    url: String,
    /// Extra request headers, such as {"accept": "application/json"}.
    headers: Option<BTreeMap<String, String>>,
    /// Keep at most this many bytes of the body (the rest is cut and `truncated` is true).
    /// The host also caps it at the grant's max_body.
    max_bytes: Option<u64>,
    /// Give up after this many milliseconds. The host also caps it at the call's time limit.
    timeout_ms: Option<u32>,
}

/// The response of `http_get`.
#[derive(Debug, Serialize, JsonSchema)]
struct HttpGetOutput {
    /// HTTP status code.
    status: u16,
    /// The URL after redirects.
    url: String,
    /// Response headers; repeated headers are joined with ", ".
    headers: BTreeMap<String, String>,
    /// The body as text (invalid UTF-8 replaced), or "<N bytes of TYPE>" for non-text
    /// content types.
    body: String,
    /// The body was longer than the byte cap and was cut.
    truncated: bool,
    /// How many redirects were followed.
    redirects: u32,
}

fn http_get(args: HttpGetArgs) -> Result<Structured<HttpGetOutput>, ToolError> {
    let mut request = HttpRequest::get(args.url);
    for (name, value) in args.headers.unwrap_or_default() {
        request = request.header(name, value);
    }
    if let Some(max_bytes) = args.max_bytes {
        request = request.max_bytes(max_bytes);
    }
    if let Some(timeout_ms) = args.timeout_ms {
        request = request.timeout(Duration::from_millis(timeout_ms.into()));
    }
    let response = capture::http_get(request)?;
    Ok(render(response))
}

fn render(response: HttpResponse) -> Structured<HttpGetOutput> {
    let body = body_text(&response);
    let mut summary = format!(
        "HTTP {} ({}, {} bytes",
        response.status,
        response.final_url,
        response.body.len()
    );
    if response.truncated {
        summary.push_str(", truncated");
    }
    match response.redirects {
        0 => {}
        1 => summary.push_str(", 1 redirect"),
        n => summary.push_str(&format!(", {n} redirects")),
    }
    summary.push(')');
    let text = format!("{summary}\n{body}");

    let mut headers = BTreeMap::<String, String>::new();
    for (name, value) in response.headers {
        headers
            .entry(name.to_ascii_lowercase())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    Structured::new(HttpGetOutput {
        status: response.status,
        url: response.final_url,
        headers,
        body,
        truncated: response.truncated,
        redirects: response.redirects,
    })
    .text(text)
}

/// The body as text when the content type is textual, else a placeholder.
fn body_text(response: &HttpResponse) -> String {
    let content_type = response.content_type().map(str::trim);
    let textual = match content_type {
        Some(ct) => is_textual(ct),
        // No content type: text when it decodes as UTF-8 (a truncated body may end in the
        // middle of a character).
        None => match std::str::from_utf8(&response.body) {
            Ok(_) => true,
            Err(e) => e.error_len().is_none(),
        },
    };
    if textual {
        response.text().into_owned()
    } else {
        let ty = content_type.map_or("unknown type", |ct| {
            ct.split(';').next().unwrap_or(ct).trim()
        });
        format!("<{} bytes of {ty}>", response.body.len())
    }
}

fn is_textual(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let Some((top, sub)) = essence.split_once('/') else {
        return false;
    };
    top == "text"
        || sub.ends_with("+json")
        || sub.ends_with("+xml")
        || matches!(
            sub,
            "json"
                | "xml"
                | "javascript"
                | "ecmascript"
                | "x-javascript"
                | "yaml"
                | "x-yaml"
                | "toml"
                | "x-www-form-urlencoded"
                | "graphql"
                | "sql"
                | "csv"
                | "x-sh"
                | "xhtml+xml"
        )
}

fn plugin() -> Plugin {
    Plugin::new().tool(
        Tool::new("http_get", http_get)
            .title("HTTP GET")
            .description(
                "Fetch a URL with an HTTP GET request made by the Warden host, and return the \
                 response. The first line of the text is `HTTP <status> (<final url>, <N> \
                 bytes)`, followed by the body: decoded as text for textual content types \
                 (HTML, JSON, XML, plain text, ...), or `<N bytes of TYPE>` for binary ones. \
                 Redirects are followed; non-2xx statuses are returned, not treated as \
                 errors. Only hosts allowed by the administrator's capture.http_hosts grant \
                 can be fetched: a refusal says which grant to change. Use max_bytes to \
                 limit large bodies.",
            )
            .read_only()
            .open_world(),
    )
}

warden_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;

    fn response(content_type: Option<&str>, body: &[u8]) -> HttpResponse {
        HttpResponse {
            status: 200,
            headers: content_type
                .map(|ct| vec![("Content-Type".to_owned(), ct.to_owned())])
                .unwrap_or_default(),
            body: body.to_vec(),
            final_url: "http://example.com/".into(),
            redirects: 0,
            truncated: false,
        }
    }

    #[test]
    fn text_and_binary_bodies() {
        assert_eq!(
            body_text(&response(Some("text/html; charset=utf-8"), b"<p>")),
            "<p>"
        );
        assert_eq!(
            body_text(&response(Some("application/ld+json"), b"{}")),
            "{}"
        );
        assert_eq!(
            body_text(&response(Some("image/png"), &[0x89, b'P', b'N', b'G'])),
            "<4 bytes of image/png>"
        );
        assert_eq!(body_text(&response(None, "héllo".as_bytes())), "héllo");
        assert_eq!(
            body_text(&response(None, &[0xff, 0x00])),
            "<2 bytes of unknown type>"
        );
    }

    #[test]
    fn rendering() {
        let mut r = response(Some("text/plain"), b"hi");
        r.redirects = 2;
        r.truncated = true;
        r.headers.push(("set-cookie".into(), "a=1".into()));
        r.headers.push(("Set-Cookie".into(), "b=2".into()));
        let out = render(r);
        assert_eq!(
            out.content,
            vec![Content::text(
                "HTTP 200 (http://example.com/, 2 bytes, truncated, 2 redirects)\nhi"
            )]
        );
        assert_eq!(out.value.headers["set-cookie"], "a=1, b=2");
        assert_eq!(out.value.headers["content-type"], "text/plain");
    }

    #[test]
    fn schema_and_arguments() {
        let p = plugin();
        let tool = p.tool_named("http_get").expect("tool");
        let schema = tool.input_schema().as_value();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], warden_sdk::serde_json::json!(["url"]));
        assert_eq!(
            tool.output_schema().expect("output").as_value()["type"],
            "object"
        );
        let err = p
            .call("http_get", r#"{"headers": {}}"#)
            .expect_err("no url");
        assert_eq!(err, ToolError::invalid_arguments("missing field `url`"));
    }
}
