//! Whether the host can read a response as the browser would show it, or why the browser
//! must: the status, the type and encoding (`encoding.rs`), and the headers that make the
//! browser do something the page's markup does not say (store a cookie, download the
//! answer, refresh, apply a content security policy to the page's styles).

use super::Prefetched;
use super::encoding;
use super::fetch::{header, html_type};
use super::parse::policy_restricts_styles;

/// The text of a response the fast path can read whole, or why the browser reads it.
pub fn readable(response: &Prefetched) -> Result<&str, String> {
    let headers = &response.headers;
    if response.status != 200 {
        return Err(format!("it answered {}", response.status));
    }
    let Some(charset) = html_type(headers) else {
        return Err("it is not an HTML document".into());
    };
    // Its cookie jar must keep them.
    if header(headers, "set-cookie").is_some() {
        return Err("it sets cookies".into());
    }
    if header(headers, "content-disposition")
        .is_some_and(|d| !d.trim().to_ascii_lowercase().starts_with("inline"))
    {
        return Err("it is a download".into());
    }
    if header(headers, "refresh").is_some() {
        return Err("it refreshes itself".into());
    }
    if styles_restricted(headers) {
        return Err("its content security policy restricts styles".into());
    }
    encoding::decode(charset.as_deref(), &response.body).map_err(|e| e.to_string())
}

/// The text of a style sheet the browser would apply as the host reads it, or why the
/// browser must read the page: it did not load (Chromium would apply nothing, the host cannot
/// tell whether it matters), it is not `text/css`, it sets cookies, or its encoding is not
/// certain (not ASCII, and not declared UTF-8 by a byte order mark, its header or `@charset`).
pub fn stylesheet(response: &Prefetched) -> Result<String, String> {
    let headers = &response.headers;
    if response.status != 200 {
        return Err(format!("its style sheet answered {}", response.status));
    }
    let kind = header(headers, "content-type").unwrap_or("");
    let mut parts = kind.split(';').map(str::trim);
    if !parts
        .next()
        .is_some_and(|m| m.eq_ignore_ascii_case("text/css"))
    {
        return Err("its style sheet is not text/css".into());
    }
    if header(headers, "set-cookie").is_some() {
        return Err("its style sheet sets cookies".into());
    }
    let charset = parts
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, v)| v.trim().trim_matches('"').to_ascii_lowercase());
    let body = &response.body;
    let (body, declared) = match body.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (rest, true),
        None => (body.as_slice(), false),
    };
    let at_charset = body
        .strip_prefix(b"@charset \"")
        .and_then(|rest| rest.split(|&b| b == b'"').next())
        .map(|label| String::from_utf8_lossy(label).to_ascii_lowercase());
    let utf8 = |label: &str| {
        encoding_rs::Encoding::for_label(label.as_bytes()) == Some(encoding_rs::UTF_8)
    };
    let declared = declared
        || charset.as_deref().is_some_and(utf8)
        || (charset.is_none() && at_charset.as_deref().is_some_and(utf8));
    let text = std::str::from_utf8(body).map_err(|_| "its style sheet is not UTF-8".to_string())?;
    if !declared
        && (!text.is_ascii()
            || charset.is_some_and(|c| !utf8(&c))
            || at_charset.is_some_and(|c| !utf8(&c)))
    {
        return Err("its style sheet's encoding is not certain".into());
    }
    Ok(text.to_string())
}

/// Does an enforced content security policy (a header) hold a directive that can stop the
/// page's styles?
fn styles_restricted(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("content-security-policy"))
        .any(|(_, policy)| policy_restricts_styles(policy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(headers: &[(&str, &str)], body: &str) -> Prefetched {
        Prefetched {
            url: "http://a.test/".into(),
            status: 200,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    const HTML: (&str, &str) = ("Content-Type", "text/html; charset=utf-8");

    #[test]
    fn headers_that_change_what_the_browser_does_send_it_there() {
        assert!(readable(&answer(&[HTML], "<p>ok")).is_ok());
        let why = |h: (&str, &str)| readable(&answer(&[HTML, h], "<p>ok")).err();
        assert_eq!(
            why(("Set-Cookie", "a=1")).as_deref(),
            Some("it sets cookies")
        );
        assert_eq!(
            why(("Content-Disposition", "attachment; filename=a.html")).as_deref(),
            Some("it is a download")
        );
        assert!(why(("Content-Disposition", "inline")).is_none());
        assert_eq!(
            why(("Refresh", "0; url=/x")).as_deref(),
            Some("it refreshes itself")
        );
        assert!(why(("Content-Security-Policy", "default-src 'self'")).is_some());
        assert!(why(("Content-Security-Policy", "img-src *; Style-Src 'none'")).is_some());
        assert!(why(("Content-Security-Policy", "frame-ancestors 'none'")).is_none());
        assert!(why(("Content-Security-Policy-Report-Only", "default-src 'none'")).is_none());
        let xhtml = ("Content-Type", "application/xhtml+xml");
        assert_eq!(
            readable(&answer(&[xhtml], "<p>ok")).err().as_deref(),
            Some("it is not an HTML document")
        );
    }
}
