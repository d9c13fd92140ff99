//! Style without style sheets: inline `style` declarations and the user agent style sheet's
//! `display`, as far as page.js's answers depend on them.

use super::dom::{Dom, Ix, Ns};
use super::has;
use super::text::css_space;

/// A computed `display`, in the classes page.js tells apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Disp {
    None,
    Contents,
    Inline,
    /// Inline-level but not `inline`: inline-block, inline-flex, inline-grid.
    InlineBlock,
    /// Anything else that makes a box: block, list-item, table, table-row, flex, math…
    Block,
    Cell,
}

impl Disp {
    /// page.js `inlineDisplay`.
    pub(super) fn inline(self) -> bool {
        matches!(self, Self::Inline | Self::InlineBlock | Self::Contents)
    }
}

/// A `display` declaration: a value (and whether it makes a flex or grid container, whose
/// children are blockified) or a CSS-wide keyword.
#[derive(Clone, Copy)]
pub(super) enum DisplaySpec {
    Is(Disp, bool),
    Inherit,
    Initial,
    Revert,
}

/// A `display` value (lowercase, single-spaced), or `None` when CSS would drop it as invalid.
fn display_spec(v: &str) -> Option<DisplaySpec> {
    use Disp::{Block, Cell, Contents, Inline, InlineBlock};
    let spec = match v {
        "inherit" => DisplaySpec::Inherit,
        "initial" | "unset" => DisplaySpec::Initial,
        "revert" | "revert-layer" => DisplaySpec::Revert,
        "none" => DisplaySpec::Is(Disp::None, false),
        "contents" => DisplaySpec::Is(Contents, false),
        "inline"
        | "ruby"
        | "ruby-text"
        | "ruby-base"
        | "ruby-text-container"
        | "ruby-base-container" => DisplaySpec::Is(Inline, false),
        "inline-block" | "inline-list-item" | "-webkit-inline-box" => {
            DisplaySpec::Is(InlineBlock, false)
        }
        "inline-flex" | "inline-grid" | "-webkit-inline-flex" => DisplaySpec::Is(InlineBlock, true),
        "flex" | "grid" | "-webkit-flex" | "-webkit-box" => DisplaySpec::Is(Block, true),
        "table-cell" => DisplaySpec::Is(Cell, false),
        "block" | "flow-root" | "list-item" | "table" | "inline-table" | "table-row"
        | "table-row-group" | "table-header-group" | "table-footer-group" | "table-column"
        | "table-column-group" | "table-caption" | "run-in" | "math" | "flow" => {
            DisplaySpec::Is(Block, false)
        }
        _ => {
            // Two or three keywords: an outer and an inner display, maybe `list-item`.
            let words: Vec<&str> = v.split(' ').collect();
            let known = [
                "block",
                "inline",
                "run-in",
                "flow",
                "flow-root",
                "table",
                "flex",
                "grid",
                "ruby",
                "math",
                "list-item",
            ];
            if words.len() < 2 || words.iter().any(|w| !known.contains(w)) {
                return None;
            }
            let inline = words.contains(&"inline");
            let inner = words
                .iter()
                .find(|w| !matches!(**w, "block" | "inline" | "run-in" | "list-item"));
            let flex = matches!(inner, Some(&"flex" | &"grid"));
            match (inline, inner) {
                (true, None | Some(&"flow")) if !words.contains(&"list-item") => {
                    DisplaySpec::Is(Inline, false)
                }
                (true, Some(&"table")) => DisplaySpec::Is(Block, false),
                (true, _) => DisplaySpec::Is(InlineBlock, flex),
                (false, _) => DisplaySpec::Is(Block, flex),
            }
        }
    };
    Some(spec)
}

/// The inline `style` declarations page.js's answers depend on; the last valid one of each
/// property wins, `!important` or not (nothing else competes with them here).
#[derive(Default)]
pub(super) struct Style {
    pub(super) display: Option<DisplaySpec>,
    pub(super) visibility: Option<String>,
    pub(super) opacity: Option<String>,
    clip: Option<String>,
    clip_path: Option<String>,
    pub(super) content_visibility: Option<String>,
    pub(super) float: Option<String>,
    pub(super) position: Option<String>,
    pub(super) cursor: Option<String>,
}

/// Keywords every property takes.
const CSS_WIDE: &[&str] = &["inherit", "initial", "unset", "revert", "revert-layer"];

/// A `style` attribute's declarations.
pub(super) fn parse_style(s: &str) -> Style {
    let mut style = Style::default();
    // Comments out; declarations split on `;` outside strings and parentheses.
    let mut text = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("/*") {
        text.push_str(&rest[..at]);
        rest = rest[at + 2..]
            .find("*/")
            .map_or("", |e| &rest[at + 2 + e + 2..]);
    }
    text.push_str(rest);
    let mut decls = Vec::new();
    let (mut depth, mut quote, mut start) = (0usize, None, 0);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, ';') if depth == 0 => {
                decls.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    decls.push(&text[start..]);
    for decl in decls {
        let Some((prop, value)) = decl.split_once(':') else {
            continue;
        };
        let prop = prop.trim_matches(css_space).to_ascii_lowercase();
        let mut value = value.trim_matches(css_space).to_ascii_lowercase();
        if let Some(bang) = value.rfind('!')
            && value[bang + 1..].trim_matches(css_space) == "important"
        {
            value.truncate(bang);
        }
        let value = value
            .split(css_space)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if value.is_empty() {
            continue;
        }
        let wide = has(CSS_WIDE, &value);
        match prop.as_str() {
            "display" => {
                if let Some(d) = display_spec(&value) {
                    style.display = Some(d);
                }
            }
            "visibility" if wide || matches!(value.as_str(), "visible" | "hidden" | "collapse") => {
                style.visibility = Some(value);
            }
            "opacity" if wide || opacity_of(&value).is_some() => style.opacity = Some(value),
            "clip" => style.clip = Some(value),
            "clip-path" => style.clip_path = Some(value),
            "content-visibility" => style.content_visibility = Some(value),
            "float" => style.float = Some(value),
            "position" => style.position = Some(value),
            "cursor" => style.cursor = Some(value),
            _ => {}
        }
    }
    style
}

/// An `opacity` number or percentage.
pub(super) fn opacity_of(v: &str) -> Option<f64> {
    match v.strip_suffix('%') {
        Some(p) => p.parse::<f64>().ok().map(|p| p / 100.0),
        None => v.parse::<f64>().ok(),
    }
    .filter(|n| n.is_finite())
}

/// The clip page.js's `clipped` reads as nothing shown: `rect(0 0 0 0)` or `inset(50%)`.
pub(super) fn clips_all(style: &Style) -> bool {
    let rect = style
        .clip
        .as_deref()
        .and_then(|c| c.strip_prefix("rect(")?.strip_suffix(')'))
        .is_some_and(|inner| {
            let parts: Vec<&str> = inner.split([',', ' ']).filter(|p| !p.is_empty()).collect();
            parts.len() == 4 && parts.iter().all(|p| matches!(*p, "0" | "0px"))
        });
    rect || style.clip_path.as_deref() == Some("inset(50%)")
}

/// The user agent style sheet's `display` for an element (Chromium's `html.css`).
pub(super) fn ua_display(dom: &Dom, i: Ix, open: bool) -> Disp {
    let Some(e) = dom.elem(i) else {
        return Disp::Inline;
    };
    match e.ns {
        Ns::Html => {}
        Ns::Math if e.local == "math" => return Disp::Block,
        _ => return Disp::Inline,
    }
    if dom.has(i, "hidden") || (dom.has(i, "popover") && !(e.local == "dialog" && open)) {
        return Disp::None;
    }
    match e.local.as_str() {
        "address" | "article" | "aside" | "blockquote" | "body" | "center" | "dd" | "details"
        | "dir" | "div" | "dl" | "dt" | "fieldset" | "figcaption" | "figure" | "footer"
        | "form" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "header" | "hgroup" | "hr"
        | "html" | "legend" | "li" | "listing" | "main" | "menu" | "nav" | "ol" | "p"
        | "plaintext" | "pre" | "search" | "section" | "summary" | "ul" | "xmp" | "optgroup"
        | "option" | "table" | "caption" | "thead" | "tbody" | "tfoot" | "tr" | "col"
        | "colgroup" | "frameset" | "frame" => Disp::Block,
        "dialog" if open => Disp::Block,
        "td" | "th" => Disp::Cell,
        "button" | "input" | "select" | "textarea" | "meter" | "progress" | "marquee"
        | "keygen" => Disp::InlineBlock,
        "dialog" | "head" | "script" | "style" | "template" | "noscript" | "title" | "meta"
        | "link" | "base" | "basefont" | "datalist" | "area" | "param" | "source" | "track"
        | "noembed" | "noframes" | "rp" => Disp::None,
        "audio" if !dom.has(i, "controls") => Disp::None,
        "slot" => Disp::Contents,
        _ => Disp::Inline,
    }
}

/// SVG elements whose content is never drawn.
#[rustfmt::skip]
pub(super) const SVG_UNDRAWN: &[&str] = &[
    "defs", "clipPath", "mask", "pattern", "marker", "symbol", "title", "desc", "metadata",
    "linearGradient", "radialGradient", "filter", "style", "script",
];
