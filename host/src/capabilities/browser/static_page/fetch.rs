//! The fast path's request for a document: the one the browser would send, from the host.
//! It is checked as the network guard checks the browser's (the plugin's grant was checked by
//! the caller; the private-network rule on a client pinned to the addresses checked, with no
//! proxy and no redirect followed: `net::pinned`), and carries the session's cookies for the URL and
//! the browser's user agent, so the site answers as it would answer the tab.

use super::Prefetched;
use crate::net::NetError;
use crate::net::pinned::{self, PinnedError};
use std::time::Duration;
use url::Url;

/// A body larger than this is not held: the browser fetches the page itself.
pub const MAX_BODY: usize = 4 << 20;

/// Headers that describe the bytes on the wire, which the held body no longer matches.
const FRAMING: [&str; 5] = [
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "connection",
    "keep-alive",
];

/// What the browser sends for a typed navigation, so the site answers the host as it would
/// answer the tab.
const ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8";

/// The request of one document.
pub struct Request<'a> {
    pub url: &'a Url,
    /// The grant patterns the URL matched (for the private-network rule).
    pub matched: &'a [&'a str],
    /// The `Cookie` header the browser would send, if any.
    pub cookies: Option<String>,
    pub user_agent: String,
    pub accept_language: Option<String>,
    pub timeout: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("{0} did not answer in time")]
    Timeout(String),
    #[error("{0}")]
    Io(String),
    /// Larger than [`MAX_BODY`]: the browser fetches it itself.
    #[error("larger than {} MiB", MAX_BODY >> 20)]
    TooLarge,
}

/// Send `req` and read the whole answer.
pub async fn fetch(req: &Request<'_>) -> Result<Prefetched, FetchError> {
    let url = req.url;
    let timed_out = || FetchError::Timeout(url.origin().ascii_serialization());
    let client = pinned::browser_client(url, req.matched, &req.user_agent, req.timeout)
        .await
        .map_err(|e| match e {
            PinnedError::Net(e) => FetchError::Net(e),
            PinnedError::Timeout(_) => timed_out(),
            PinnedError::Client(e) => FetchError::Io(e),
        })?;
    let mut request = client
        .get(url.clone())
        .header("Accept", ACCEPT)
        .header("Upgrade-Insecure-Requests", "1")
        .header("Sec-Fetch-Dest", "document")
        .header("Sec-Fetch-Mode", "navigate")
        .header("Sec-Fetch-Site", "none")
        .header("Sec-Fetch-User", "?1");
    if let Some(cookies) = &req.cookies {
        request = request.header("Cookie", cookies);
    }
    if let Some(lang) = &req.accept_language {
        request = request.header("Accept-Language", lang);
    }
    let mut response = request.send().await.map_err(|e| {
        if e.is_timeout() {
            timed_out()
        } else {
            FetchError::Io(e.to_string())
        }
    })?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .filter(|(name, _)| !FRAMING.contains(&name.as_str()))
        .filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_string())))
        .collect();
    if response
        .content_length()
        .is_some_and(|n| n > MAX_BODY as u64)
    {
        return Err(FetchError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        if e.is_timeout() {
            timed_out()
        } else {
            FetchError::Io(e.to_string())
        }
    })? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(FetchError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Prefetched {
        url: without_fragment(url),
        status,
        headers,
        body,
    })
}

/// The URL as the browser's request names it (a fragment is never sent).
pub fn without_fragment(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.to_string()
}

/// The header `name` of a response (the first, case-insensitive).
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Is this a UTF-8 HTML document (what the fast path reads)? Another charset goes to the
/// browser, which knows them all.
pub fn utf8_html(headers: &[(String, String)]) -> bool {
    let Some(kind) = header(headers, "content-type") else {
        return false;
    };
    let mut parts = kind.split(';').map(str::trim);
    if !parts
        .next()
        .is_some_and(|m| m.eq_ignore_ascii_case("text/html"))
    {
        return false;
    }
    parts.all(|p| {
        let Some((k, v)) = p.split_once('=') else {
            return true;
        };
        !k.trim().eq_ignore_ascii_case("charset")
            || matches!(
                v.trim().trim_matches('"').to_ascii_lowercase().as_str(),
                "utf-8" | "utf8" | "us-ascii"
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &str) -> Vec<(String, String)> {
        vec![("Content-Type".into(), v.into())]
    }

    #[test]
    fn reads_only_utf8_html() {
        assert!(utf8_html(&h("text/html")));
        assert!(utf8_html(&h("text/html; charset=UTF-8")));
        assert!(utf8_html(&h("TEXT/HTML;charset=\"utf-8\"")));
        assert!(!utf8_html(&h("text/html; charset=iso-8859-1")));
        assert!(!utf8_html(&h("application/json")));
        assert!(!utf8_html(&[]));
    }

    #[test]
    fn the_request_names_no_fragment() {
        let url = Url::parse("http://a.test/doc?x=1#part").expect("a URL");
        assert_eq!(without_fragment(&url), "http://a.test/doc?x=1");
    }
}
