//! Web search for `browse_search`: the manifest's `[search]` backend, a SearXNG-compatible
//! JSON API (`GET {endpoint}?q=QUERY&format=json&pageno=N` answering `{"results": [{"url",
//! "title", "content"}, ...]}`), asked by the host on a plugin's behalf. The request is one
//! the plugin's own pages could make: the caller checks the backend's origin against
//! `grants.browser.origins`, and the request goes out under the private-network rule
//! ([`crate::net`]) on a client pinned to the addresses checked, with no proxy and no
//! redirect. The plugin sees results, never the backend's answer as such.

use crate::manifest::SearchConfig;
use crate::net::{self, NetError};
use std::time::Duration;
use url::Url;

/// How long the backend has to answer.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// A query longer than this is refused (a search box takes a few words, not a document).
pub const MAX_QUERY: usize = 500;
/// An answer larger than this is refused.
const MAX_BODY: usize = 2 << 20;
const MAX_TITLE: usize = 200;
const MAX_SNIPPET: usize = 400;

/// One result, as the plugin gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("the search backend did not answer within {} s; try again", TIMEOUT.as_secs())]
    Timeout,
    #[error("the search backend could not be reached: {0}")]
    Unreachable(String),
    #[error("the search backend answered {0}; ask the admin to check [search] endpoint")]
    Status(u16),
    #[error(
        "the search backend's answer is not a SearXNG JSON result list ({0}); ask the admin to check [search] endpoint"
    )]
    Answer(String),
}

/// The URL asked for `query`'s page `page` (from 1).
pub fn request_url(config: &SearchConfig, query: &str, page: u32) -> Url {
    let mut url = config.endpoint.clone();
    url.query_pairs_mut()
        .append_pair("q", query)
        .append_pair("format", "json")
        .append_pair("pageno", &page.max(1).to_string());
    url
}

/// Ask the backend at `url`, whose origin matched the grant patterns `matched`.
pub async fn ask(url: &Url, matched: &[&str], max_results: u32) -> Result<Vec<Hit>, SearchError> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let key = net::Key {
        name: "grants.browser.origins",
        scheme: Some(if url.scheme() == "https" {
            "https"
        } else {
            "http"
        }),
    };
    let addrs = tokio::time::timeout(TIMEOUT, net::resolve_admitted(host, port, matched, key))
        .await
        .map_err(|_| SearchError::Timeout)??;
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")))
        .timeout(TIMEOUT)
        .no_proxy();
    if let Some(url::Host::Domain(domain)) = url.host() {
        builder = builder.resolve_to_addrs(domain, &addrs);
    }
    let client = builder
        .build()
        .map_err(|e| SearchError::Unreachable(e.to_string()))?;
    let mut response = client
        .get(url.clone())
        .header("Accept", "application/json")
        .send()
        .await
        .map_err(|e| {
            if e.is_timeout() {
                SearchError::Timeout
            } else {
                SearchError::Unreachable(e.to_string())
            }
        })?;
    if !response.status().is_success() {
        return Err(SearchError::Status(response.status().as_u16()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| SearchError::Unreachable(e.to_string()))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(SearchError::Answer(format!(
                "larger than {} MiB",
                MAX_BODY >> 20
            )));
        }
        body.extend_from_slice(&chunk);
    }
    parse(&body, max_results)
}

/// The results of a SearXNG JSON answer: http(s) URLs only, text trimmed, at most `max`.
pub fn parse(body: &[u8], max: u32) -> Result<Vec<Hit>, SearchError> {
    let answer: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| SearchError::Answer(e.to_string()))?;
    let results = answer["results"]
        .as_array()
        .ok_or_else(|| SearchError::Answer("no \"results\" list".into()))?;
    Ok(results
        .iter()
        .filter_map(|r| {
            let url = Url::parse(r["url"].as_str()?).ok()?;
            if !matches!(url.scheme(), "http" | "https") {
                return None;
            }
            Some(Hit {
                title: trimmed(r["title"].as_str().unwrap_or_default(), MAX_TITLE),
                url: url.to_string(),
                snippet: trimmed(r["content"].as_str().unwrap_or_default(), MAX_SNIPPET),
            })
        })
        .take(usize::try_from(max).unwrap_or(usize::MAX))
        .collect())
}

/// `s` on one line, at most `max` characters.
fn trimmed(s: &str, max: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > max {
        let mut cut: String = one.chars().take(max - 1).collect();
        cut.push('…');
        cut
    } else {
        one
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_searxng_answer_gives_http_results_trimmed_and_capped() {
        let body = br#"{"query": "q", "results": [
            {"url": "https://a.example/x", "title": "A\n  title", "content": "first"},
            {"url": "javascript:alert(1)", "title": "script", "content": ""},
            {"url": "not a url", "title": "bad"},
            {"url": "http://b.example/", "title": "B"},
            {"url": "https://c.example/", "title": "C", "content": "third"}
        ]}"#;
        let hits = parse(body, 2).expect("parsed");
        assert_eq!(
            hits,
            vec![
                Hit {
                    title: "A title".into(),
                    url: "https://a.example/x".into(),
                    snippet: "first".into()
                },
                Hit {
                    title: "B".into(),
                    url: "http://b.example/".into(),
                    snippet: String::new()
                },
            ]
        );
    }

    #[test]
    fn an_answer_that_is_not_a_result_list_is_a_clear_error() {
        for body in [&b"<html>"[..], b"{\"answers\": []}"] {
            let e = parse(body, 10).expect_err("refused");
            assert!(
                e.to_string().contains("not a SearXNG JSON result list"),
                "{e}"
            );
        }
    }

    #[test]
    fn the_query_is_encoded_into_the_endpoint() {
        let config = SearchConfig {
            endpoint: Url::parse("https://searx.example/search").expect("url"),
            max_results: 10,
        };
        let url = request_url(&config, "a&b=c #d", 2);
        assert_eq!(
            url.as_str(),
            "https://searx.example/search?q=a%26b%3Dc+%23d&format=json&pageno=2"
        );
    }
}
