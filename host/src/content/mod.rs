//! A page's HTML to its title and content as HTML, text or Markdown, computed by the host.
//!
//! The HTML is the rendered DOM the browser serialized (`DOM.getOuterHTML`), so no script of
//! ours runs in the page and a hostile page can shape only its markup, never the extractor.
//! Main content comes from `dom_smoothie` (a port of Mozilla's Readability.js) when the page
//! reads as an article; otherwise from the page's `<main>`/`<article>`/`[role=main]` or its
//! `<body>`. Markdown and text come from `dom_query` (the DOM `dom_smoothie` is built on).
//! Before either runs, scripts, styles, navigation, forms, embedded frames and hidden
//! elements are removed, and links and images are made absolute (other schemes dropped).

#[cfg(test)]
mod tests;

use dom_query::{Document, NodeRef, Selection};
use dom_smoothie::{Config, Readability, ReadabilityError, TextMode};
use url::Url;

/// What to return of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The document's HTML, as given.
    Html,
    /// The main content's text, one blank line between blocks.
    Text,
    /// The main content as Markdown.
    Markdown,
}

/// A page's title and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    pub title: String,
    pub content: String,
    /// Where the content came from: `article` (readability), `main` or `body`, or `document`
    /// for the HTML format.
    pub source: &'static str,
}

#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    #[error(
        "\"{url}\" is not an absolute http(s) URL to resolve the page's links against: {reason}"
    )]
    BadUrl { url: String, reason: String },
    #[error(
        "the page's HTML is {size} bytes, more than the {max} bytes the extractor reads; capture it with format \"html\""
    )]
    TooLarge { size: usize, max: usize },
}

/// HTML larger than this is refused for text and Markdown: parsing it would take seconds.
pub const MAX_HTML: usize = 16 * 1024 * 1024;
/// The HTML format's title is read from this much of the document's start (where `<head>`
/// is), so a page of any size costs one small parse; the document itself is handed on whole.
const TITLE_WINDOW: usize = 512 * 1024;
/// Readability gives up on documents with more elements than this (and the body is used).
const MAX_ELEMENTS: usize = 100_000;

/// Removed before extraction: they carry no readable content, or content the reader does not
/// see (scripts, hidden elements), or navigation and controls around it.
const DROP: &str = "script, style, noscript, template, iframe, frame, frameset, object, embed, \
    applet, svg, math, canvas, audio, video, source, track, form, button, input, select, \
    textarea, nav, dialog, link, meta, base, [hidden], [aria-hidden=true], \
    [style*='display:none' i], [style*='display: none' i], [style*='visibility:hidden' i], \
    [style*='visibility: hidden' i]";

/// Also removed when there is no article: the page furniture readability would have skipped.
const DROP_AROUND: &str = "header, footer, aside, [role=navigation], [role=banner], \
    [role=contentinfo], [role=complementary], [role=search]";

/// Schemes a link may keep; others (`javascript:`, `data:`, `file:`...) lose their target.
const LINK_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// The first `max` bytes of `html`, cut on a character boundary.
fn start_of(html: &str, max: usize) -> &str {
    let mut end = max.min(html.len());
    while !html.is_char_boundary(end) {
        end -= 1;
    }
    html.get(..end).unwrap_or_default()
}

/// Extract `format` from `html`, the document at `page_url`.
pub fn extract(html: &str, page_url: &str, format: Format) -> Result<Extracted, ContentError> {
    let base = Url::parse(page_url).map_err(|e| ContentError::BadUrl {
        url: page_url.to_string(),
        reason: e.to_string(),
    })?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(ContentError::BadUrl {
            url: page_url.to_string(),
            reason: format!("{}: is not http or https", base.scheme()),
        });
    }
    if format == Format::Html {
        return Ok(Extracted {
            title: title_of(&Document::from(start_of(html, TITLE_WINDOW))),
            content: html.to_string(),
            source: "document",
        });
    }
    if html.len() > MAX_HTML {
        return Err(ContentError::TooLarge {
            size: html.len(),
            max: MAX_HTML,
        });
    }

    let doc = Document::from(html);
    let title = title_of(&doc);
    let base = base_of(&doc, base);
    clean(&doc, &base);
    let cleaned = doc.html();

    let mut config = Config {
        max_elements_to_parse: MAX_ELEMENTS,
        // The page's own claims about itself are not content.
        disable_json_ld: true,
        ..Config::default()
    };
    config.text_mode = match format {
        Format::Markdown => TextMode::Markdown,
        _ => TextMode::Formatted,
    };
    let article = match Readability::new(cleaned.clone(), Some(base.as_str()), Some(config)) {
        Ok(mut r) if r.is_probably_readable() => match r.parse() {
            Ok(a) if !a.text_content.trim().is_empty() => Some(a),
            Ok(_) | Err(ReadabilityError::GrabFailed | ReadabilityError::TooManyElements(..)) => {
                None
            }
            Err(ReadabilityError::BadDocumentURL) => None,
        },
        _ => None,
    };
    let (content, source, article_title) = match article {
        Some(a) => (a.text_content.to_string(), "article", a.title),
        None => {
            let doc = Document::from(cleaned);
            doc.select(DROP_AROUND).remove();
            let (root, source) = main_root(&doc);
            let content = match (root, format) {
                (Some(n), Format::Markdown) => n.md(None).to_string(),
                (Some(n), _) => n.formatted_text().to_string(),
                (None, _) => String::new(),
            };
            (content, source, String::new())
        }
    };
    Ok(Extracted {
        title: if title.is_empty() {
            article_title
        } else {
            title
        },
        content: tidy(&content),
        source,
    })
}

/// The first `<title>`'s text, whitespace collapsed.
fn title_of(doc: &Document) -> String {
    collapse(&doc.select("title").first().text())
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The URL relative links resolve against: the document's first `<base href>`, as in the
/// browser (a link's real target is what the reader must see), else the page's URL.
fn base_of(doc: &Document, page: Url) -> Url {
    doc.select("base[href]")
        .first()
        .attr("href")
        .and_then(|href| page.join(href.trim()).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or(page)
}

/// Drop what is not content and make every kept link and image absolute.
fn clean(doc: &Document, base: &Url) {
    doc.select(DROP).remove();
    for a in doc.select("a[href], area[href]").iter() {
        set_absolute(&a, "href", base, LINK_SCHEMES);
    }
    for img in doc.select("img").iter() {
        img.remove_attrs(&["srcset", "sizes"]);
        if img.attr("src").is_some() {
            set_absolute(&img, "src", base, &["http", "https"]);
        }
    }
}

/// Resolve `attr` against `base`; remove it when it does not resolve to one of `schemes`.
fn set_absolute(sel: &Selection, attr: &str, base: &Url, schemes: &[&str]) {
    let value = sel.attr(attr).unwrap_or_default();
    match base.join(value.trim()) {
        Ok(u) if schemes.contains(&u.scheme()) => sel.set_attr(attr, u.as_str()),
        _ => sel.remove_attr(attr),
    }
}

/// The element that holds the page's content when readability found no article: the first
/// `<main>`, `<article>` or `[role=main]` with text, else `<body>`.
fn main_root(doc: &Document) -> (Option<NodeRef<'_>>, &'static str) {
    for selector in ["main", "article", "[role=main]"] {
        let sel = doc.select(selector);
        if let Some(node) = sel.nodes().iter().find(|n| !n.text().trim().is_empty()) {
            return (Some(*node), "main");
        }
    }
    (doc.select("body").nodes().first().copied(), "body")
}

/// Trim trailing spaces and keep at most one blank line between blocks.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}
