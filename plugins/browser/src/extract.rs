//! `browse_extract`: the page's readable content, paged by a token budget.

use crate::memory;
use warden_sdk::browser::ContentFormat;
use warden_sdk::prelude::*;

/// Default budget of one answer; `page` reads on.
const DEFAULT_MAX_TOKENS: usize = 4000;

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum FormatArg {
    #[default]
    Markdown,
    Text,
    Html,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExtractArgs {
    /// markdown (default), text, or the document's html.
    format: Option<FormatArg>,
    max_tokens: Option<usize>,
    /// Of long content (default 1).
    page: Option<usize>,
}

fn browse_extract(args: ExtractArgs) -> Result<String, ToolError> {
    let format = match args.format.unwrap_or_default() {
        FormatArg::Markdown => ContentFormat::Markdown,
        FormatArg::Text => ContentFormat::Text,
        FormatArg::Html => ContentFormat::Html,
    };
    let max_chars = args.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(50) * 4;
    let page = args.page.unwrap_or(1);
    if page == 0 {
        return Err(ToolError::invalid_arguments("page counts from 1"));
    }
    let read = memory::with(|st| -> Result<_, ToolError> {
        let tab = st.existing_tab()?;
        Ok(tab.page.extract(format)?)
    })?;
    if page == 1 {
        let label = match format {
            ContentFormat::Markdown => "markdown",
            ContentFormat::Text => "text",
            ContentFormat::Html => "html",
        };
        crate::cache::remember(&read.url, &read.title, label, &read.content);
    }
    let (body, parts) = crate::text::part(&read.content, max_chars, page);
    if page > parts {
        return Err(ToolError::invalid_arguments(format!(
            "page {page} is past the end: the content has {parts} page(s) of {} tokens",
            max_chars / 4
        )));
    }
    let mut out = format!("# {}\n{} ({})\n\n{body}", read.title, read.url, read.source);
    if read.content.trim().is_empty() {
        out.push_str("(the page has no readable content)");
    }
    if parts > 1 {
        let total = read.content.chars().count();
        out.push_str(&if page < parts {
            format!(
                "\n\n[part {page} of {parts}; {total} characters in all. More: browse_extract {{\"page\": {}}}]",
                page + 1
            )
        } else {
            format!("\n\n[part {page} of {parts}; {total} characters in all]")
        });
    }
    Ok(out)
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_extract", browse_extract)
            .description("The page's main content as markdown, to read articles and docs.")
            .read_only(),
    )
}
