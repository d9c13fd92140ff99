//! The page cache: what `browse_extract` read is kept per agent (conversation-scoped state,
//! so no other client ever sees it, and `limits.state` bounds it), to be read again
//! (`cache_get`) or searched (`cache_search`, BM25 over the kept pages) without fetching the
//! page again. Kept pages yield to the tabs' own state: when a write of that state is over
//! the limit, the oldest pages go first (`make_room`).

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};
use warden_sdk::prelude::*;
use warden_sdk::state as kept;

const PREFIX: &str = "cache/page/";
/// Where the URLs of the last `cache_search` are kept, for `cN`.
const HITS: &str = "cache/hits";
/// At most this many pages, and this many characters of one page.
const MAX_PAGES: usize = 100;
const MAX_CHARS: usize = 256 * 1024;
/// The cache's own budget, so the tabs' state keeps room under the default `limits.state`.
const MAX_BYTES: usize = 1024 * 1024;
/// Results of one search.
const MAX_HITS: usize = 10;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Page {
    url: String,
    title: String,
    /// markdown, text or html: what `browse_extract` gave.
    format: String,
    /// Milliseconds since the Unix epoch when it was read: pages read within one second
    /// must still come out oldest first.
    at: u64,
    text: String,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A page's key: its URL without the fragment, hashed (state keys are at most 256 bytes).
fn key_of(url: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    url.split('#').next().unwrap_or(url).hash(&mut h);
    format!("{PREFIX}{:016x}", h.finish())
}

/// Every kept page with its key and size, oldest first.
fn pages() -> Vec<(String, usize, Page)> {
    let mut all: Vec<_> = kept::keys(PREFIX)
        .into_iter()
        .filter_map(|key| {
            let bytes = kept::get(&key)?;
            let page = serde_json::from_slice::<Page>(&bytes).ok()?;
            Some((key, bytes.len(), page))
        })
        .collect();
    all.sort_by(|(ka, _, a), (kb, _, b)| a.at.cmp(&b.at).then_with(|| ka.cmp(kb)));
    all
}

/// Keep what `browse_extract` read. Best effort: a page the budget cannot hold is not kept.
pub fn remember(url: &str, title: &str, format: &str, text: &str) {
    if text.trim().is_empty() || !(url.starts_with("http://") || url.starts_with("https://")) {
        return;
    }
    let page = Page {
        url: url.to_string(),
        title: title.to_string(),
        format: format.to_string(),
        at: now(),
        text: text.chars().take(MAX_CHARS).collect(),
    };
    let Ok(bytes) = serde_json::to_vec(&page) else {
        return;
    };
    let key = key_of(url);
    // Within the cache's own budget first, oldest out.
    let mut others: Vec<_> = pages().into_iter().filter(|(k, _, _)| *k != key).collect();
    let mut used: usize = others.iter().map(|(_, n, _)| n).sum();
    while !others.is_empty() && (used + bytes.len() > MAX_BYTES || others.len() >= MAX_PAGES) {
        let (old, n, _) = others.remove(0);
        kept::delete(&old);
        used -= n;
    }
    if bytes.len() > MAX_BYTES {
        return;
    }
    // Then within `limits.state`, which the tabs share.
    loop {
        match kept::set(&key, &bytes) {
            Ok(()) => return,
            Err(kept::StateError::LimitReached(_)) if !others.is_empty() => {
                let (old, _, _) = others.remove(0);
                kept::delete(&old);
            }
            Err(_) => return,
        }
    }
}

/// Drop the oldest kept page to make room for other state; false when none is left.
pub fn make_room() -> bool {
    match pages().into_iter().next() {
        Some((key, _, _)) => {
            kept::delete(&key);
            true
        }
        None => false,
    }
}

fn age(at: u64) -> String {
    let secs = now().saturating_sub(at) / 1000;
    match secs {
        0..=59 => "just now".into(),
        60..=3599 => format!("{} min ago", secs / 60),
        _ => format!("{} h ago", secs / 3600),
    }
}

/// `text` without markdown link targets: a URL's path is not what a page is about.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at + 1]);
        rest = &rest[at + 2..];
        rest = rest.find(')').map_or("", |end| &rest[end + 1..]);
    }
    out.push_str(rest);
    out
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// BM25 scores of `docs` (title counted twice) for `query`'s words, best first, over 0 only.
fn rank(docs: &[&Page], query: &str) -> Vec<(usize, f64)> {
    let terms: Vec<String> = {
        let mut t = words(query);
        t.dedup();
        t
    };
    let bags: Vec<(HashMap<String, usize>, usize)> = docs
        .iter()
        .map(|p| {
            let mut bag = HashMap::new();
            let mut len = 0;
            for w in words(&p.title)
                .into_iter()
                .chain(words(&p.title))
                .chain(words(&p.text))
            {
                *bag.entry(w).or_insert(0) += 1;
                len += 1;
            }
            (bag, len)
        })
        .collect();
    let n = docs.len() as f64;
    let avg = bags.iter().map(|(_, l)| *l as f64).sum::<f64>() / n.max(1.0);
    let (k1, b) = (1.2, 0.75);
    let mut scored: Vec<(usize, f64)> = bags
        .iter()
        .enumerate()
        .map(|(i, (bag, len))| {
            let score = terms
                .iter()
                .map(|t| {
                    let tf = *bag.get(t).unwrap_or(&0) as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = bags.iter().filter(|(b, _)| b.contains_key(t)).count() as f64;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * *len as f64 / avg.max(1.0)))
                })
                .sum();
            (i, score)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored
}

/// About 200 characters of `text` where most of `query`'s words meet, on one line.
fn snippet(text: &str, query: &str) -> String {
    const WIDTH: usize = 200;
    let chars: Vec<char> = prose(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let terms: Vec<Vec<char>> = words(query).iter().map(|w| w.chars().collect()).collect();
    let hits = |from: usize| -> Vec<usize> {
        terms
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                let end = (from + WIDTH).min(lower.len());
                lower[from..end]
                    .windows(t.len().max(1))
                    .any(|w| w == t.as_slice())
            })
            .map(|(i, _)| i)
            .collect()
    };
    // Every place a word starts is a candidate window; the one holding most words wins.
    let mut best = (0, 0);
    for (at, _) in lower
        .iter()
        .enumerate()
        .filter(|(i, _)| *i == 0 || !lower[i - 1].is_alphanumeric())
    {
        if terms.iter().any(|t| lower[at..].starts_with(t)) {
            let n = hits(at.saturating_sub(40)).len();
            if n > best.1 {
                best = (at.saturating_sub(40), n);
            }
        }
    }
    let cut: String = chars.iter().skip(best.0).take(WIDTH).collect();
    format!("{}{cut}…", if best.0 > 0 { "…" } else { "" })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words to find in the pages read so far.
    query: String,
}

fn cache_search(args: SearchArgs) -> Result<String, ToolError> {
    let query = args.query.trim();
    if words(query).is_empty() {
        return Err(ToolError::invalid_arguments(
            "the query has no words to look for",
        ));
    }
    let all = pages();
    let docs: Vec<&Page> = all.iter().map(|(_, _, p)| p).collect();
    let ranked = rank(&docs, query);
    let q = crate::text::quoted(query);
    if ranked.is_empty() {
        return Ok(format!(
            "No kept page matches {q} ({} page(s) kept). Pages are kept when browse_extract reads them.",
            docs.len()
        ));
    }
    let shown: Vec<&Page> = ranked
        .iter()
        .take(MAX_HITS)
        .map(|(i, _)| docs[*i])
        .collect();
    let urls: Vec<&str> = shown.iter().map(|p| p.url.as_str()).collect();
    let _ = kept::set_json(HITS, &urls);
    let mut out = format!(
        "Cache search {q}: {} of {} kept page(s) match{}\n",
        ranked.len(),
        docs.len(),
        if ranked.len() > MAX_HITS {
            format!(", the best {MAX_HITS} shown")
        } else {
            String::new()
        }
    );
    for (i, p) in shown.iter().enumerate() {
        out.push_str(&format!(
            "[c{}] {} {} (read {})\n  {}\n",
            i + 1,
            crate::text::quoted(&p.title),
            p.url,
            age(p.at),
            snippet(&p.text, query)
        ));
    }
    out.push_str("Read one: cache_get {\"url\": \"c1\"}.");
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetArgs {
    /// The page's URL, or cN from the last cache_search.
    url: String,
    max_tokens: Option<usize>,
    /// Of long content (default 1).
    page: Option<usize>,
}

/// The URL `url` names: result `cN` of the last cache search, or itself.
fn target(url: &str) -> Result<String, ToolError> {
    let Some(n) = url
        .strip_prefix('c')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n >= 1)
    else {
        return Ok(url.to_string());
    };
    let urls: Vec<String> = kept::get_json(HITS).ok().flatten().unwrap_or_default();
    urls.get(n - 1).cloned().ok_or_else(|| {
        ToolError::not_found(format!(
            "no cache result c{n}: the last cache_search gave {} result(s)",
            urls.len()
        ))
    })
}

fn cache_get(args: GetArgs) -> Result<String, ToolError> {
    let url = target(args.url.trim())?;
    let page = kept::get(&key_of(&url))
        .and_then(|b| serde_json::from_slice::<Page>(&b).ok())
        .filter(|p| p.url.split('#').next() == url.split('#').next())
        .ok_or_else(|| {
            ToolError::not_found(format!(
                "{url} is not in the page cache; browse_navigate to it and browse_extract (cache_stats lists what is kept)"
            ))
        })?;
    let max_chars = args.max_tokens.unwrap_or(4000).max(50) * 4;
    let part = args.page.unwrap_or(1);
    if part == 0 {
        return Err(ToolError::invalid_arguments("page counts from 1"));
    }
    let (body, parts) = crate::text::part(&page.text, max_chars, part);
    if part > parts {
        return Err(ToolError::invalid_arguments(format!(
            "page {part} is past the end: the content has {parts} page(s)"
        )));
    }
    let mut out = format!(
        "# {}\n{} ({}, kept from a read {})\n\n{body}",
        page.title,
        page.url,
        page.format,
        age(page.at)
    );
    if part < parts {
        out.push_str(&format!(
            "\n\n[part {part} of {parts}. More: cache_get {{\"url\": {}, \"page\": {}}}]",
            crate::text::quoted(&page.url),
            part + 1
        ));
    }
    Ok(out)
}

fn cache_stats(_: NoArgs) -> Result<String, ToolError> {
    let all = pages();
    if all.is_empty() {
        return Ok("The page cache is empty; browse_extract keeps what it reads.".into());
    }
    let bytes: usize = all.iter().map(|(_, n, _)| n).sum();
    let mut out = format!(
        "{} page(s) kept, {} KiB of at most {} KiB (oldest go first):\n",
        all.len(),
        bytes.div_ceil(1024),
        MAX_BYTES / 1024
    );
    for (_, n, p) in all.iter().rev() {
        out.push_str(&format!(
            "{} {} ({} KiB, read {})\n",
            crate::text::quoted(&p.title),
            p.url,
            n.div_ceil(1024),
            age(p.at)
        ));
    }
    Ok(out.trim_end().to_string())
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EvictArgs {
    /// The page to drop; without it, every kept page.
    url: Option<String>,
}

fn cache_evict(args: EvictArgs) -> Result<String, ToolError> {
    match args.url {
        Some(url) => {
            let url = target(url.trim())?;
            let key = key_of(&url);
            if kept::get(&key).is_none() {
                return Err(ToolError::not_found(format!(
                    "{url} is not in the page cache"
                )));
            }
            kept::delete(&key);
            Ok(format!("Dropped {url} from the page cache."))
        }
        None => {
            let all = pages();
            for (key, _, _) in &all {
                kept::delete(key);
            }
            kept::delete(HITS);
            Ok(format!(
                "Dropped {} page(s) from the page cache.",
                all.len()
            ))
        }
    }
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("cache_search", cache_search)
            .description("Search the pages read so far (browse_extract keeps them); best matches first, as [cN] lines.")
            .read_only(),
    )
    .tool(
        Tool::new("cache_get", cache_get)
            .description("A page read before, from the cache, without fetching it again: its URL or cN.")
            .read_only(),
    )
    .tool(Tool::new("cache_stats", cache_stats).description("What the page cache holds.").read_only())
    .tool(Tool::new("cache_evict", cache_evict).description("Drop one page (url) or every page from the cache.").idempotent())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(title: &str, text: &str) -> Page {
        Page {
            url: format!("https://x.example/{title}"),
            title: title.into(),
            format: "markdown".into(),
            at: 0,
            text: text.into(),
        }
    }

    #[test]
    fn the_page_about_the_words_ranks_first() {
        let a = page(
            "Install",
            "Install the tool with cargo. Then configure the manifest.",
        );
        let b = page(
            "Manifest",
            "The manifest names plugins and grants. Grants are checked by the host.",
        );
        let c = page("Other", "Nothing to see here.");
        let ranked = rank(&[&a, &b, &c], "manifest grants");
        assert_eq!(
            ranked.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![1, 0]
        );
        assert!(rank(&[&a, &b, &c], "zebra").is_empty());
        assert!(snippet(&b.text, "checked").contains("checked by the host"));
    }
}
