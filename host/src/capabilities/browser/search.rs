//! Web search for `browse_search`: the manifest's `[search]` backend, asked by the host on a
//! plugin's behalf. Two APIs: SearXNG's JSON (`GET {endpoint}?q=QUERY&format=json&pageno=N`
//! answering `{"results": [{"url", "title", "content"}, ...]}`) and the Brave Search API
//! (`GET {endpoint}?q=QUERY&count=N&offset=P` with the key in `X-Subscription-Token`,
//! answering `{"web": {"results": [{"url", "title", "description"}, ...]}}`). A key is read
//! from the host's environment at each search and scrubbed from the results, so neither the
//! plugin nor the audit log ever holds it. The request is one
//! the plugin's own pages could make: the caller checks the backend's origin against
//! `grants.browser.origins`, and the request goes out under the private-network rule
//! ([`crate::net`]) on a client pinned to the addresses checked, with no proxy and no
//! redirect. The plugin sees results, never the backend's answer as such: the answer is read
//! to at most 2 MiB within the request's time ([`crate::net::body`]), an error answer's body
//! is not read at all, and the key's header is marked sensitive (never in a debug log).

use crate::manifest::{SearchConfig, SearchProvider};
use crate::net::NetError;
use crate::net::body::{self, BodyError};
use crate::net::pinned::{self, PinnedError};
use std::time::Duration;
use url::Url;

/// How long the backend has to answer.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// A query longer than this is refused (a search box takes a few words, not a document).
pub const MAX_QUERY: usize = 500;
/// An answer larger than this is refused.
const MAX_BODY: u64 = 2 << 20;
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
    #[error("the search backend refused the key ({0}); ask the admin to check [search] key_env")]
    Refused(u16),
    #[error(
        "the search backend's answer is not a {provider} result list ({why}); ask the admin to check [search] endpoint"
    )]
    Answer { provider: &'static str, why: String },
    #[error(
        "the search key is not available: the environment variable {0} named by [search] key_env is not set in Warden's environment; ask the admin"
    )]
    Key(String),
    #[error(
        "the search key in the environment variable {0} holds a character an HTTP header cannot carry (a line break?); ask the admin to check it"
    )]
    BadKey(String),
}

/// The variable `[search] key_env` names (empty for a provider without a key).
fn key_env_of(provider: &SearchProvider) -> String {
    match provider {
        SearchProvider::Searxng => String::new(),
        SearchProvider::Brave { key_env } => key_env.clone(),
    }
}

fn provider_name(provider: &SearchProvider) -> &'static str {
    match provider {
        SearchProvider::Searxng => "SearXNG JSON",
        SearchProvider::Brave { .. } => "Brave Search",
    }
}

/// The URL asked for `query`'s page `page` (from 1).
pub fn request_url(config: &SearchConfig, query: &str, page: u32) -> Url {
    let mut url = config.endpoint.clone();
    match config.provider {
        SearchProvider::Searxng => {
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("format", "json")
                .append_pair("pageno", &page.max(1).to_string());
        }
        SearchProvider::Brave { .. } => {
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("count", &config.max_results.to_string())
                .append_pair("offset", &(page.max(1) - 1).to_string());
        }
    }
    url
}

/// Ask the backend at `url`, whose origin matched the grant patterns `matched`.
pub async fn ask(
    url: &Url,
    matched: &[&str],
    config: &SearchConfig,
) -> Result<Vec<Hit>, SearchError> {
    let api_key = match &config.provider {
        SearchProvider::Searxng => None,
        SearchProvider::Brave { key_env } => Some(
            std::env::var(key_env)
                .ok()
                .filter(|k| !k.is_empty())
                .ok_or_else(|| SearchError::Key(key_env.clone()))?,
        ),
    };
    let user_agent = concat!("warden/", env!("CARGO_PKG_VERSION"));
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    let client = pinned::browser_client(url, matched, user_agent, TIMEOUT)
        .await
        .map_err(|e| match e {
            PinnedError::Net(e) => SearchError::Net(e),
            PinnedError::Timeout(_) => SearchError::Timeout,
            PinnedError::Client(e) => SearchError::Unreachable(e),
        })?;
    let mut request = client.get(url.clone()).header("Accept", "application/json");
    if let Some(key) = &api_key {
        let mut value = reqwest::header::HeaderValue::from_str(key)
            .map_err(|_| SearchError::BadKey(key_env_of(&config.provider)))?;
        value.set_sensitive(true);
        request = request.header("X-Subscription-Token", value);
    }
    let mut response = request.send().await.map_err(|e| {
        if e.is_timeout() {
            SearchError::Timeout
        } else {
            SearchError::Unreachable(e.to_string())
        }
    })?;
    let status = response.status().as_u16();
    if api_key.is_some() && matches!(status, 401 | 403 | 422 | 429) {
        return Err(SearchError::Refused(status));
    }
    if !response.status().is_success() {
        return Err(SearchError::Status(status));
    }
    let body = body::read(&mut response, MAX_BODY, deadline)
        .await
        .map_err(|e| match e {
            BodyError::Over { .. } => SearchError::Answer {
                provider: provider_name(&config.provider),
                why: format!("larger than {} MiB", MAX_BODY >> 20),
            },
            BodyError::Deadline => SearchError::Timeout,
            BodyError::Transfer(e) => SearchError::Unreachable(e.to_string()),
        })?;
    let hits = parse(&body, &config.provider, config.max_results)?;
    Ok(match &api_key {
        Some(key) => without_key(hits, key),
        None => hits,
    })
}

/// The results of an answer: http(s) URLs only, text trimmed, at most `max`.
pub fn parse(body: &[u8], provider: &SearchProvider, max: u32) -> Result<Vec<Hit>, SearchError> {
    let fail = |why: String| SearchError::Answer {
        provider: provider_name(provider),
        why,
    };
    let answer: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| fail(e.to_string()))?;
    let (results, snippet) = match provider {
        SearchProvider::Searxng => (
            answer["results"]
                .as_array()
                .ok_or_else(|| fail("no \"results\" list".into()))?,
            "content",
        ),
        SearchProvider::Brave { .. } => match answer["web"]["results"].as_array() {
            Some(results) => (results, "description"),
            // Brave leaves `web` out when nothing was found.
            None if answer["type"] == "search" => return Ok(Vec::new()),
            None => return Err(fail("no \"web\" results".into())),
        },
    };
    Ok(results
        .iter()
        .filter_map(|r| {
            let url = Url::parse(r["url"].as_str()?).ok()?;
            if !matches!(url.scheme(), "http" | "https") {
                return None;
            }
            Some(Hit {
                title: trimmed(
                    &strip_tags(r["title"].as_str().unwrap_or_default()),
                    MAX_TITLE,
                ),
                url: url.to_string(),
                snippet: trimmed(
                    &strip_tags(r[snippet].as_str().unwrap_or_default()),
                    MAX_SNIPPET,
                ),
            })
        })
        .take(usize::try_from(max).unwrap_or(usize::MAX))
        .collect())
}

/// The results with the key and its encodings masked, and any result whose URL carries it
/// dropped: a backend that echoes the request must not hand the key to the plugin.
fn without_key(hits: Vec<Hit>, key: &str) -> Vec<Hit> {
    let mut forms = crate::scrub::variants(key);
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    hits.into_iter()
        .filter(|h| !forms.iter().any(|f| h.url.contains(f.as_str())))
        .map(|h| Hit {
            title: crate::scrub::scrub(&h.title, &forms, "[key]"),
            snippet: crate::scrub::scrub(&h.snippet, &forms, "[key]"),
            url: h.url,
        })
        .collect()
}

/// Brave marks the query's words with `<strong>`: the plugin gets plain text.
fn strip_tags(s: &str) -> String {
    s.replace("<strong>", "").replace("</strong>", "")
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
        let hits = parse(body, &SearchProvider::Searxng, 2).expect("parsed");
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
            let e = parse(body, &SearchProvider::Searxng, 10).expect_err("refused");
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
            provider: SearchProvider::Searxng,
        };
        let url = request_url(&config, "a&b=c #d", 2);
        assert_eq!(
            url.as_str(),
            "https://searx.example/search?q=a%26b%3Dc+%23d&format=json&pageno=2"
        );
    }

    #[test]
    fn a_brave_answer_gives_plain_results_and_never_the_key() {
        let brave = SearchProvider::Brave {
            key_env: "K".into(),
        };
        let body = br#"{"type": "search", "web": {"results": [
            {"url": "https://a.example/", "title": "<strong>Red</strong> shoes", "description": "cheap"},
            {"url": "https://echo.example/?token=k3y-s3cret-value", "title": "leak", "description": ""},
            {"url": "https://b.example/", "title": "B", "description": "your key: k3y-s3cret-value"}
        ]}}"#;
        let hits = without_key(parse(body, &brave, 10).expect("parsed"), "k3y-s3cret-value");
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!(hits[0].title, "Red shoes");
        assert_eq!(hits[1].snippet, "your key: [key]");
        assert!(
            parse(br#"{"type": "search"}"#, &brave, 10)
                .expect("parsed")
                .is_empty()
        );
        assert!(parse(b"{}", &brave, 10).is_err());
        let config = SearchConfig {
            endpoint: Url::parse(crate::manifest::BRAVE_ENDPOINT).expect("url"),
            max_results: 5,
            provider: brave,
        };
        assert_eq!(
            request_url(&config, "red shoes", 3).as_str(),
            "https://api.search.brave.com/res/v1/web/search?q=red+shoes&count=5&offset=2"
        );
    }
}
