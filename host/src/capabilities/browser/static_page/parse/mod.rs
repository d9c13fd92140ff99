//! A static page's HTML to the JSON `page.js` `snapshot()` returns for it, without a browser.
//!
//! This is the no-JavaScript fast path: a page with no script is fetched by the host and its
//! snapshot computed here, as a port of `page.js`'s `snapshot` and its helpers to a parsed DOM
//! that has no layout. What `page.js` asks the browser's layout (display, visibility,
//! opacity, clips) is answered from the user agent style sheet's rules, the `hidden`
//! attribute, and the page's own CSS after the cascade (its `<style>` elements, the sheets it
//! links to, `style` attributes); CSS whose effect takes a layout to know (sizes, offsets,
//! media features, states such as `:hover`) sends the page to the browser. There are no
//! bounds (`null`), nothing is
//! offscreen, there are no overlays, and controls are guessed only where page.js guesses them
//! without listeners (a page without script has none): an item of a focusable list, or an
//! inline `cursor: pointer` area. A page this cannot answer for is left to the browser, and
//! [`NeedsBrowser`] says why.
//!
//! Node numbers are the browser's: an element's 1-based index in document order over all
//! elements (`document.getElementsByTagName('*')`), so the browser can give the same numbers
//! to the same elements when it loads the page.
//!
//! Nothing here recurses over the tree: the DOM is copied into an arena in document order, so
//! a subtree is a range of indexes, and the walk keeps its own stack.
//!
//! One job per file:
//!
//! | file | job |
//! |---|---|
//! | `vocab.rs` | the word lists and role sets the files share; which policies restrict styles |
//! | `needs_browser.rs` | why a page needs the browser |
//! | `text.rs` | JS string semantics: white space, `trim`, `length`, page.js `clean`, `Number` |
//! | `dom.rs` | parsing as Chromium does, and the DOM arena |
//! | `style.rs` | declarations page.js's answers depend on, the UA sheet's `display`, clips |
//! | `sheets.rs` | the page's style sheets as rules, and what in them the host cannot apply |
//! | `select.rs` | selectors matched against the DOM (the `selectors` crate) |
//! | `cascade.rs` | which declaration applies to each element |
//! | `page.rs` | the page: each node's style and state worked out, and the browser checks |
//! | `names.rs` | roles, names, labels and inferred names; `innerText` and `textContent` |
//! | `states.rs` | values, attributes and states; what takes the focus on load |
//! | `forms.rs` | forms: input types and values, labels, options, checkedness; scripts that run |
//! | `walk.rs` | the walk in reading order, groups, and the snapshot's JSON |
//! | `identity.rs` | what proves to `page.js` `adopt` that the browser's element is the one numbered |
//! | `tests.rs` | the tests |

mod cascade;
mod dom;
mod forms;
pub mod identity;
mod names;
mod needs_browser;
mod page;
mod select;
mod sheets;
mod states;
mod style;
mod text;
mod vocab;
mod walk;

use std::collections::{BTreeMap, HashMap};

use dom::{Dom, Ix, Ns, scripted_parse};
use identity::Identity;
pub use needs_browser::NeedsBrowser;
use page::Page;
pub use vocab::policy_restricts_styles;

/// The snapshots of a static page, as `page.js` would report them in the browser.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// page.js `snapshot({text: false})`'s JSON for this document.
    pub interactive: serde_json::Value,
    /// page.js `snapshot({text: true})`'s JSON.
    pub with_text: serde_json::Value,
    /// Every node number either snapshot names (element handles and group ids), with what
    /// proves its element's identity, so the browser gives the same numbers to the same
    /// elements when it loads this document, or none at all.
    pub nodes: Vec<Identity>,
    /// How many elements the document has (`getElementsByTagName('*').length`).
    pub elements: u64,
}

/// The fewest controls a page parsed here may have; fewer sends it to the browser.
pub const MIN_CONTROLS: usize = 5;

/// A document parsed and checked by its markup, with the style sheets it links to, which the
/// caller fetches (through the tab's network guard) before [`finish`] styles it.
pub struct Prepared {
    dom: Dom,
    sources: Vec<Source>,
    links: Vec<url::Url>,
}

/// A style sheet of the document, in cascade order.
enum Source {
    /// A `<style>` element's text.
    Text(String),
    /// The nth linked sheet.
    Linked(usize),
}

impl Prepared {
    /// The style sheets the document links to and the browser would apply, in order.
    pub fn stylesheets(&self) -> &[url::Url] {
        &self.links
    }
}

/// The most style sheets a page may link to and still be read by the host.
pub const MAX_LINKED_SHEETS: usize = 8;

/// Parse `html`, the document at `url` (its `location.href`, whatever `<base>` the document
/// has), and check what its markup says; or why the page needs the browser.
pub fn prepare(html: &str, url: &url::Url) -> Result<Prepared, NeedsBrowser> {
    let dom = Dom::build(&scripted_parse(html));
    if let Some(why) = page::markup_needs_browser(&dom) {
        return Err(why);
    }
    let (sources, links) = stylesheets(&dom, url)?;
    Ok(Prepared {
        dom,
        sources,
        links,
    })
}

/// The snapshots of a prepared document, styled by its own sheets and the linked ones
/// (`linked`, the text of each of [`Prepared::stylesheets`], in order); or why the page needs
/// the browser.
pub fn finish(
    prepared: &Prepared,
    linked: &[String],
    url: &url::Url,
) -> Result<Parsed, NeedsBrowser> {
    let dom = &prepared.dom;
    let mut rules = sheets::Rules::default();
    for source in &prepared.sources {
        match source {
            Source::Text(css) => rules.add_sheet(css),
            Source::Linked(k) => match linked.get(*k) {
                Some(css) => rules.add_sheet(css),
                None => return Err(NeedsBrowser::Unmodelled("a style sheet it could not read")),
            },
        }
    }
    if let Some(why) = rules.why {
        return Err(NeedsBrowser::Unmodelled(why));
    }
    let mut checked = forms::checkedness(dom);
    for (i, _) in dom.elements().filter(|(i, _)| dom.html(*i, "select")) {
        for o in forms::selected(dom, i) {
            if let Some(c) = checked.get_mut(o) {
                *c = true;
            }
        }
    }
    let styles = cascade::styles(dom, &rules, checked);
    let page = Page::new(dom, url, &styles);
    if let Some(why) = page.needs_browser() {
        return Err(why);
    }
    let meta = page.meta(url);
    let mut names = HashMap::new();
    let mut nodes = BTreeMap::new();
    let interactive = page.snapshot(false, &meta, &mut names, &mut nodes);
    let controls = interactive["elements"].as_array().map_or(0, Vec::len);
    if controls < MIN_CONTROLS {
        return Err(NeedsBrowser::TooFewControls(controls));
    }
    let with_text = page.snapshot(true, &meta, &mut names, &mut nodes);
    Ok(Parsed {
        interactive,
        with_text,
        nodes: nodes
            .into_values()
            .map(|i| identity::identity(dom, i))
            .collect(),
        elements: dom.elements().count() as u64,
    })
}

/// [`prepare`] and [`finish`] for a page that links to no style sheet.
#[cfg(test)]
pub fn parse(html: &str, url: &url::Url) -> Result<Parsed, NeedsBrowser> {
    let prepared = prepare(html, url)?;
    if !prepared.links.is_empty() {
        return Err(NeedsBrowser::Unmodelled("linked style sheets"));
    }
    finish(&prepared, &[], url)
}

/// The document's style sheets in cascade order, and the URLs of the linked ones.
fn stylesheets(dom: &Dom, url: &url::Url) -> Result<(Vec<Source>, Vec<url::Url>), NeedsBrowser> {
    let unmodelled = |why| Err(NeedsBrowser::Unmodelled(why));
    let base = dom
        .elements()
        .find(|(i, _)| dom.html(*i, "base") && dom.has(*i, "href"))
        .and_then(|(i, _)| url.join(dom.attr(i, "href")?).ok())
        .unwrap_or_else(|| url.clone());
    let css_type = |i: Ix| {
        dom.attr(i, "type").is_none_or(|t| {
            let t = t.trim_matches(text::css_space);
            t.is_empty() || t.eq_ignore_ascii_case("text/css")
        })
    };
    let (mut sources, mut links) = (Vec::new(), Vec::new());
    // The preferred style sheet set: the title of the first titled sheet. A sheet titled
    // otherwise is not applied (HTML's style sheet sets, as Chromium keeps them).
    let mut preferred: Option<&str> = None;
    let mut in_set = |i: Ix| match dom.attr(i, "title").filter(|t| !t.is_empty()) {
        None => true,
        Some(title) => *preferred.get_or_insert(title) == title,
    };
    for (i, e) in dom.elements() {
        let media = || sheets::media_matches(dom.attr(i, "media").unwrap_or(""));
        match e.local.as_str() {
            "style" if matches!(e.ns, Ns::Html | Ns::Svg) && css_type(i) && in_set(i) => {
                let css = dom.text_content(i);
                match media() {
                    Some(true) => sources.push(Source::Text(css)),
                    Some(false) => {}
                    None if sheets::matters(&css) => {
                        return unmodelled("a style sheet for some screens only");
                    }
                    None => {}
                }
            }
            "link" if e.ns == Ns::Html => {
                let rel = dom.attr(i, "rel").unwrap_or("").to_ascii_lowercase();
                let rel: Vec<&str> = rel.split_ascii_whitespace().collect();
                if !rel.contains(&"stylesheet") {
                    continue;
                }
                let href = dom
                    .attr(i, "href")
                    .unwrap_or("")
                    .trim_matches(text::css_space);
                if dom.has(i, "disabled") || href.is_empty() || !css_type(i) {
                    continue;
                }
                if rel.contains(&"alternate") {
                    return unmodelled("an alternate style sheet");
                }
                if !in_set(i) {
                    continue;
                }
                if dom.has(i, "integrity") {
                    return unmodelled("a style sheet with an integrity check");
                }
                match media() {
                    Some(true) => {}
                    Some(false) => continue,
                    None => return unmodelled("a style sheet for some screens only"),
                }
                let Ok(sheet) = base.join(href) else {
                    continue;
                };
                if !matches!(sheet.scheme(), "http" | "https") {
                    return unmodelled("a style sheet that is not on the web");
                }
                if links.len() == MAX_LINKED_SHEETS {
                    return unmodelled("more style sheets than the host reads");
                }
                sources.push(Source::Linked(links.len()));
                links.push(sheet);
            }
            _ => {}
        }
    }
    Ok((sources, links))
}

// ----------------------------------------------------------------- page.js constants
// Each as page.js names it; see there for why.

#[cfg(test)]
mod tests;
