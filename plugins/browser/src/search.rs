//! `browse_search`: web search through the host's `[search]` backend. The results come back
//! as compact text with `rN` refs; `browse_navigate {"url": "rN"}` opens one (through the same
//! origin grant as any URL). The last results are kept per agent, like its tabs' refs.

use warden_sdk::browser::{self, SearchResult};
use warden_sdk::prelude::*;
use warden_sdk::{context, state as kept};

/// Where the last search's result URLs are kept.
const KEY: &str = "search/last";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// What to search the web for.
    query: String,
    /// Page of results, from 1.
    page: Option<u32>,
}

fn render(query: &str, page: u32, hits: &[SearchResult]) -> String {
    let q = crate::text::quoted(query);
    if hits.is_empty() {
        return format!("No results for {q} (page {page}).");
    }
    let mut out = format!("Search {q}, page {page}: {} result(s)\n", hits.len());
    for (i, h) in hits.iter().enumerate() {
        out.push_str(&format!(
            "[r{}] {} {}\n",
            i + 1,
            crate::text::quoted(&h.title),
            h.url
        ));
        if !h.snippet.is_empty() {
            out.push_str(&format!("  {}\n", h.snippet));
        }
    }
    out.push_str(&format!(
        "Open one: browse_navigate {{\"url\": \"r1\"}}. More: browse_search {{\"query\": {q}, \"page\": {}}}.",
        page + 1
    ));
    out
}

fn browse_search(args: SearchArgs) -> Result<String, ToolError> {
    let page = args.page.unwrap_or(1).max(1);
    let hits = browser::search(&args.query, page)?;
    let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
    if let Err(e) = kept::set_json(KEY, &urls) {
        context::log(
            context::Level::Warning,
            format!("search results not kept: {e}"),
        );
    }
    Ok(render(args.query.trim(), page, &hits))
}

/// The URL `browse_navigate` opens for `url`: result `rN` of the last search, or `url` itself.
pub fn target(url: &str) -> Result<String, ToolError> {
    let Some(n) = url
        .strip_prefix('r')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n >= 1)
    else {
        return Ok(url.to_string());
    };
    let urls: Vec<String> = kept::get_json(KEY).ok().flatten().unwrap_or_default();
    urls.get(n - 1).cloned().ok_or_else(|| {
        ToolError::not_found(format!(
            "no search result r{n}: the last browse_search gave {} result(s)",
            urls.len()
        ))
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_search", browse_search)
            .description(
                "Search the web (the admin's search backend); results as [rN] lines. Open one with \
                 browse_navigate {\"url\": \"rN\"}.",
            )
            .read_only()
            .open_world(),
    )
}
