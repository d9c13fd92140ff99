//! `[search]`: the web search backend the browser's search tool asks (SearXNG or Brave).

use super::schema;
use super::validate::Validator;

/// `[search]`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    pub endpoint: url::Url,
    pub max_results: u32,
    pub provider: SearchProvider,
}

/// The API a `[search]` backend speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchProvider {
    /// SearXNG's JSON API (or anything that speaks it).
    Searxng,
    /// The Brave Search API, with its key read from this environment variable.
    Brave { key_env: String },
}

/// The Brave Search API's web endpoint.
pub const BRAVE_ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";

impl Validator<'_> {
    /// `[search]`: an http(s) endpoint without a query (Warden adds its own), and a result
    /// count in range.
    pub(super) fn search(&mut self, section: &schema::SearchSection) -> Option<SearchConfig> {
        let provider = match section.provider.as_ref().map(|p| (p, p.get_ref().as_str())) {
            None | Some((_, "searxng")) => {
                if let Some(k) = &section.key_env {
                    self.error(k.span(), "search.key_env: the searxng provider takes no key; remove it, or set provider = \"brave\"".into());
                }
                SearchProvider::Searxng
            }
            Some((p, "brave")) => match &section.key_env {
                Some(k) if !k.get_ref().trim().is_empty() => SearchProvider::Brave {
                    key_env: k.get_ref().trim().to_string(),
                },
                _ => {
                    self.error(p.span(), "search.provider = \"brave\" needs key_env: the environment variable that holds the API key, e.g. key_env = \"BRAVE_SEARCH_KEY\"".into());
                    SearchProvider::Searxng
                }
            },
            Some((p, other)) => {
                self.error(p.span(), format!("search.provider: \"{other}\" is not a provider Warden speaks; use \"searxng\" or \"brave\""));
                SearchProvider::Searxng
            }
        };
        let most = if matches!(provider, SearchProvider::Brave { .. }) {
            20
        } else {
            50
        };
        let max_results = match &section.max_results {
            None => 10,
            Some(n) => match u32::try_from(*n.get_ref()) {
                Ok(v) if (1..=most).contains(&v) => v,
                _ => {
                    self.error(
                        n.span(),
                        format!(
                            "search.max_results: {} is not between 1 and {most}",
                            n.get_ref()
                        ),
                    );
                    10
                }
            },
        };
        let endpoint = match (&section.endpoint, &provider) {
            (Some(e), _) => Some((e.get_ref().trim().to_string(), e.span())),
            (None, SearchProvider::Brave { .. }) => Some((BRAVE_ENDPOINT.to_string(), 0..0)),
            (None, SearchProvider::Searxng) => None,
        };
        let Some((endpoint, span)) = endpoint else {
            if let Some(n) = &section.max_results {
                self.error(
                    n.span(),
                    "search.max_results needs search.endpoint: the search backend to ask".into(),
                );
            }
            return None;
        };
        let url = url::Url::parse(&endpoint).ok().filter(|u| {
            matches!(u.scheme(), "http" | "https") && u.host().is_some() && u.query().is_none()
        });
        if url.is_none() {
            self.error(
                span,
                format!(
                    "search.endpoint: \"{endpoint}\" is not an http(s) URL without a query; write it like \"https://searx.example.org/search\""
                ),
            );
        }
        Some(SearchConfig {
            endpoint: url?,
            max_results,
            provider,
        })
    }
}
