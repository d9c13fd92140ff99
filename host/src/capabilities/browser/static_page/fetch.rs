//! The fast path's request for a document: the one the browser would send, from the host.
//! The caller has the tab's network guard decide it (`guard::HostRequests`: the grants, the
//! private-network rule, the addresses no page may reach, by the same function as the
//! browser's requests), and it goes on a client pinned to the addresses the guard admitted,
//! with no proxy and no redirect followed (`net::pinned`). It carries the session's cookies
//! for the URL and the browser's user agent, so the site answers as it would answer the tab.

use super::Prefetched;
use crate::net::NetError;
use crate::net::body::{self, BodyError};
use crate::net::pinned::{self, PinnedError};
use std::net::SocketAddr;
use std::time::Duration;
use url::Url;

/// A body larger than this is not held: the browser fetches the page itself.
pub const MAX_BODY: usize = 4 << 20;

/// A style sheet larger than this is not read: the browser reads the page.
pub const MAX_SHEET: usize = 1 << 20;

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

/// What a request is for, as the browser's request for it says.
#[derive(Debug, Clone, Copy)]
pub enum Dest<'a> {
    /// The document of a typed navigation.
    Document,
    /// A style sheet the document at this URL links to.
    Style(&'a Url),
}

/// The request of one document or style sheet.
pub struct Request<'a> {
    pub url: &'a Url,
    pub dest: Dest<'a>,
    /// The addresses the network guard admitted for it.
    pub addrs: &'a [SocketAddr],
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
    #[error("larger than the host reads")]
    TooLarge,
}

/// Send `req` and read the whole answer.
pub async fn fetch(req: &Request<'_>) -> Result<Prefetched, FetchError> {
    let url = req.url;
    let deadline = tokio::time::Instant::now() + req.timeout;
    let timed_out = || FetchError::Timeout(url.origin().ascii_serialization());
    let client =
        pinned::client_for(url, req.addrs, &req.user_agent, req.timeout).map_err(|e| match e {
            PinnedError::Net(e) => FetchError::Net(e),
            PinnedError::Timeout(_) => timed_out(),
            PinnedError::Client(e) => FetchError::Io(e),
        })?;
    let (mut request, max) = match req.dest {
        Dest::Document => (
            client
                .get(url.clone())
                .header("Accept", ACCEPT)
                .header("Upgrade-Insecure-Requests", "1")
                .header("Sec-Fetch-Dest", "document")
                .header("Sec-Fetch-Mode", "navigate")
                .header("Sec-Fetch-Site", "none")
                .header("Sec-Fetch-User", "?1"),
            MAX_BODY,
        ),
        Dest::Style(page) => {
            let same = page.origin() == url.origin();
            // The default referrer policy: the origin only, to another origin.
            let referrer = if same {
                without_fragment(page)
            } else {
                page.origin().ascii_serialization() + "/"
            };
            (
                client
                    .get(url.clone())
                    .header("Accept", "text/css,*/*;q=0.1")
                    .header("Referer", referrer)
                    .header("Sec-Fetch-Dest", "style")
                    .header("Sec-Fetch-Mode", "no-cors")
                    .header(
                        "Sec-Fetch-Site",
                        if same { "same-origin" } else { "cross-site" },
                    ),
                MAX_SHEET,
            )
        }
    };
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
    // Read as every answer from outside is: bounded in size (a length over the bound refused
    // before a byte is read) and in time for the whole body.
    let body = body::read(&mut response, max as u64, deadline)
        .await
        .map_err(|e| match e {
            BodyError::Over { .. } => FetchError::TooLarge,
            BodyError::Deadline => timed_out(),
            BodyError::Transfer(e) => FetchError::Io(e.to_string()),
        })?;
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

/// Is this an HTML document (`text/html`), and with which `charset` parameter? `None` for
/// anything else, and for answers whose type Chromium might read otherwise (two
/// `Content-Type` headers, two charsets).
pub fn html_type(headers: &[(String, String)]) -> Option<Option<String>> {
    let mut types = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("content-type"));
    let (_, kind) = types.next()?;
    if types.next().is_some() {
        return None;
    }
    let mut parts = kind.split(';').map(str::trim);
    if !parts
        .next()
        .is_some_and(|m| m.eq_ignore_ascii_case("text/html"))
    {
        return None;
    }
    let mut charsets = parts.filter_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_string())
    });
    let charset = charsets.next();
    if charsets.next().is_some() {
        return None;
    }
    Some(charset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &str) -> Vec<(String, String)> {
        vec![("Content-Type".into(), v.into())]
    }

    #[test]
    fn reads_html_and_its_charset() {
        assert_eq!(html_type(&h("text/html")), Some(None));
        assert_eq!(
            html_type(&h("TEXT/HTML;charset=\"utf-8\"")),
            Some(Some("utf-8".into()))
        );
        assert_eq!(
            html_type(&h("text/html; charset=iso-8859-1")),
            Some(Some("iso-8859-1".into()))
        );
        assert_eq!(
            html_type(&h("text/html; charset=utf-8; charset=koi8-r")),
            None
        );
        assert_eq!(html_type(&h("application/xhtml+xml")), None);
        assert_eq!(html_type(&h("application/json")), None);
        assert_eq!(html_type(&[]), None);
        let mut two = h("text/html");
        two.extend(h("text/plain"));
        assert_eq!(html_type(&two), None);
    }

    /// A document request to `server`, allowed `timeout`.
    async fn fetch_from(server: &str, timeout: Duration) -> Result<Prefetched, FetchError> {
        let url = Url::parse(server).expect("a URL");
        let addr: SocketAddr = format!(
            "{}:{}",
            url.host_str().expect("a host"),
            url.port().expect("a port")
        )
        .parse()
        .expect("an address");
        fetch(&Request {
            url: &url,
            dest: Dest::Document,
            addrs: &[addr],
            cookies: None,
            user_agent: "test".into(),
            accept_language: None,
            timeout,
        })
        .await
    }

    #[tokio::test]
    async fn a_page_is_read_as_every_outside_answer_is_bounded_in_size_and_time() {
        use crate::net::body::tests::{Answer, serve};
        use std::sync::atomic::Ordering;
        let honest = serve(Answer::Exact(3000), "200 OK");
        let page = fetch_from(&honest.url, Duration::from_secs(5))
            .await
            .expect("read");
        assert_eq!(page.body.len(), 3000);
        // Said to be over the bound: refused before a byte of it is read.
        let liar = serve(
            Answer::Lying {
                said: 400 << 20,
                sent: 0,
            },
            "200 OK",
        );
        let err = fetch_from(&liar.url, Duration::from_secs(5)).await;
        assert!(matches!(err, Err(FetchError::TooLarge)), "{err:?}");
        // Sent without a length and without end: cut at the first byte over.
        let endless = serve(Answer::Endless { cap: 400 << 20 }, "200 OK");
        let err = fetch_from(&endless.url, Duration::from_secs(20)).await;
        assert!(matches!(err, Err(FetchError::TooLarge)), "{err:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        let sent = endless.sent.load(Ordering::Relaxed);
        assert!(sent < 32 << 20, "the server sent {} MiB", sent >> 20);
        // A trickle ends at the request's time, as a silence would.
        let trickle = serve(
            Answer::Trickle {
                every: Duration::from_millis(50),
                n: 10_000,
            },
            "200 OK",
        );
        let started = std::time::Instant::now();
        let err = fetch_from(&trickle.url, Duration::from_millis(500)).await;
        assert!(matches!(err, Err(FetchError::Timeout(_))), "{err:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn the_request_names_no_fragment() {
        let url = Url::parse("http://a.test/doc?x=1#part").expect("a URL");
        assert_eq!(without_fragment(&url), "http://a.test/doc?x=1");
    }
}
