//! Style without style sheets: inline `style` declarations and the user agent style sheet's
//! `display`, as far as page.js's answers depend on them.

use super::dom::{Dom, Ix, Ns};
use super::text::css_space;
use super::vocab::has;

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
        "revert" => DisplaySpec::Revert,
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

/// A property page.js's answers depend on (directly, or because the host cannot tell what
/// it does to the box: a size, an offset, an animation).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Prop {
    Display,
    Visibility,
    Opacity,
    Clip,
    ClipPath,
    ContentVisibility,
    Float,
    Position,
    Cursor,
    OverflowX,
    OverflowY,
    /// `width`, `height`, `max-width`, `max-height`.
    Size,
    /// `left`, `top`: where a placed box starts.
    Start,
    /// `right`, `bottom`, `inset`.
    Offset,
    /// `transform`, `translate`, `scale`.
    Transform,
    TextTransform,
    Animation,
    Appearance,
    All,
}

/// Property names, and what they set.
#[rustfmt::skip]
const PROPS: &[(&str, &[Prop])] = &[
    ("display", &[Prop::Display]), ("visibility", &[Prop::Visibility]),
    ("opacity", &[Prop::Opacity]), ("clip", &[Prop::Clip]), ("clip-path", &[Prop::ClipPath]),
    ("content-visibility", &[Prop::ContentVisibility]), ("float", &[Prop::Float]),
    ("position", &[Prop::Position]), ("cursor", &[Prop::Cursor]),
    ("overflow", &[Prop::OverflowX, Prop::OverflowY]), ("overflow-x", &[Prop::OverflowX]),
    ("overflow-y", &[Prop::OverflowY]), ("overflow-inline", &[Prop::OverflowX]),
    ("overflow-block", &[Prop::OverflowY]),
    ("width", &[Prop::Size]), ("height", &[Prop::Size]), ("max-width", &[Prop::Size]),
    ("max-height", &[Prop::Size]), ("inline-size", &[Prop::Size]), ("block-size", &[Prop::Size]),
    ("max-inline-size", &[Prop::Size]), ("max-block-size", &[Prop::Size]),
    ("left", &[Prop::Start]), ("top", &[Prop::Start]), ("right", &[Prop::Offset]),
    ("bottom", &[Prop::Offset]), ("inset", &[Prop::Offset]),
    ("inset-inline-start", &[Prop::Start]), ("inset-block-start", &[Prop::Start]),
    ("inset-inline-end", &[Prop::Offset]), ("inset-block-end", &[Prop::Offset]),
    ("transform", &[Prop::Transform]), ("translate", &[Prop::Transform]),
    ("scale", &[Prop::Transform]),
    ("text-transform", &[Prop::TextTransform]), ("animation", &[Prop::Animation]),
    ("animation-name", &[Prop::Animation]), ("appearance", &[Prop::Appearance]),
    ("-webkit-appearance", &[Prop::Appearance]), ("all", &[Prop::All]),
];

/// One declaration of a [`Prop`]: its value lowercased and single-spaced.
#[derive(Clone, Debug)]
pub(super) struct Decl {
    pub(super) prop: Prop,
    pub(super) value: String,
    pub(super) important: bool,
}

/// A declaration block's declarations of the properties in [`PROPS`] (a `style` attribute, or
/// a rule's block), and whether it holds nested rules.
pub(super) fn declarations(s: &str) -> (Vec<Decl>, bool) {
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
    let mut nested = false;
    let (mut depth, mut quote, mut start) = (0usize, None, 0);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.saturating_sub(1),
            (None, '{') => nested = true,
            (None, ';') if depth == 0 => {
                decls.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    decls.push(&text[start..]);
    let mut out = Vec::new();
    for decl in decls {
        let Some((prop, value)) = decl.split_once(':') else {
            continue;
        };
        let prop = prop.trim_matches(css_space).to_ascii_lowercase();
        let Some((_, props)) = PROPS.iter().find(|(name, _)| *name == prop) else {
            continue;
        };
        let mut value = value.trim_matches(css_space).to_ascii_lowercase();
        let mut important = false;
        if let Some(bang) = value.rfind('!')
            && value[bang + 1..].trim_matches(css_space) == "important"
        {
            value.truncate(bang);
            important = true;
        }
        let value = value
            .split(css_space)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if value.is_empty()
            // Chromium drops an invalid value at parse time, so an earlier one applies.
            || (prop == "opacity" && !has(CSS_WIDE, &value) && opacity_of(&value).is_none())
        {
            continue;
        }
        for &p in *props {
            out.push(Decl {
                prop: p,
                value: value.clone(),
                important,
            });
        }
    }
    (out, nested)
}

impl Decl {
    /// Could this declaration change what page.js reports, on some element? A size only
    /// when it is tiny, an offset or transform only when it may move a box off the page.
    pub(super) fn matters(&self) -> bool {
        match self.prop {
            Prop::Size => tiny(&self.value),
            Prop::Start | Prop::Offset | Prop::Transform => far(&self.value),
            _ => true,
        }
    }
}

/// Does this CSS text name one of [`PROPS`] as a declaration (`name:`)? A rough reading, for
/// blocks the host does not apply: it may say yes where no such declaration is.
pub(super) fn mentions_relevant(css: &str) -> bool {
    let lower = css.to_ascii_lowercase();
    PROPS.iter().any(|(name, _)| {
        lower.match_indices(name).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + name.len()..].trim_start_matches(css_space);
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-') && after.starts_with(':')
        })
    })
}

/// The declarations of the properties page.js's answers depend on that apply to an
/// element: from its `style` attribute and the page's style sheets, after the cascade.
#[derive(Default, Clone)]
pub(super) struct Style {
    pub(super) display: Option<DisplaySpec>,
    /// The `display` value, as written, when it is not one the host knows.
    pub(super) unknown_display: Option<String>,
    pub(super) visibility: Option<String>,
    pub(super) opacity: Option<String>,
    clip: Option<String>,
    clip_path: Option<String>,
    pub(super) content_visibility: Option<String>,
    pub(super) float: Option<String>,
    pub(super) position: Option<String>,
    pub(super) cursor: Option<String>,
    overflow_x: Option<String>,
    overflow_y: Option<String>,
    sizes: Vec<String>,
    starts: Vec<String>,
    offsets: Vec<String>,
    transform: Option<String>,
    text_transform: Option<String>,
    animation: Option<String>,
    appearance: Option<String>,
    all: Option<String>,
}

/// Keywords every property takes.
const CSS_WIDE: &[&str] = &["inherit", "initial", "unset", "revert", "revert-layer"];

impl Style {
    /// Set a winning declaration.
    pub(super) fn set(&mut self, d: &Decl) {
        let v = Some(d.value.clone());
        let wide = has(CSS_WIDE, &d.value);
        match d.prop {
            Prop::Display => match display_spec(&d.value) {
                Some(spec) => {
                    self.display = Some(spec);
                    self.unknown_display = None;
                }
                None => self.unknown_display = v,
            },
            Prop::Visibility => self.visibility = v,
            Prop::Opacity if wide || opacity_of(&d.value).is_some() => self.opacity = v,
            Prop::Opacity => {}
            Prop::Clip => self.clip = v,
            Prop::ClipPath => self.clip_path = v,
            Prop::ContentVisibility => self.content_visibility = v,
            Prop::Float => self.float = v,
            Prop::Position => self.position = v,
            Prop::Cursor => self.cursor = v,
            Prop::OverflowX => self.overflow_x = v,
            Prop::OverflowY => self.overflow_y = v,
            Prop::Size => self.sizes.push(d.value.clone()),
            Prop::Start => self.starts.push(d.value.clone()),
            Prop::Offset => self.offsets.push(d.value.clone()),
            Prop::Transform => self.transform = v,
            Prop::TextTransform => self.text_transform = v,
            Prop::Animation => self.animation = v,
            Prop::Appearance => self.appearance = v,
            Prop::All => self.all = v,
        }
    }

    /// What in this style the host cannot answer for as Chromium's layout would, for an
    /// element that is laid out.
    pub(super) fn unmodelled(&self) -> Option<&'static str> {
        let plain = |v: &Option<String>, ok: &[&str]| {
            v.as_deref().is_none_or(|v| has(CSS_WIDE, v) || has(ok, v))
        };
        let values = [
            &self.visibility,
            &self.opacity,
            &self.clip,
            &self.clip_path,
            &self.content_visibility,
            &self.float,
            &self.position,
            &self.cursor,
            &self.overflow_x,
            &self.overflow_y,
        ];
        let computed = |v: &str| v.contains("var(") || v.contains("env(") || v.contains("attr(");
        if values.iter().any(|v| v.as_deref().is_some_and(computed))
            || self.unknown_display.as_deref().is_some_and(computed)
        {
            return Some("a style set by a CSS variable");
        }
        if self.unknown_display.is_some() {
            return Some("a display the host does not know");
        }
        if !plain(&self.visibility, &["visible", "hidden", "collapse"]) {
            return Some("a visibility the host does not know");
        }
        if !plain(&self.content_visibility, &["visible", "hidden"]) {
            return Some("content-visibility");
        }
        if !plain(&self.text_transform, &["none"]) {
            return Some("text transformed by CSS");
        }
        if !plain(&self.animation, &["none"]) {
            return Some("an animation");
        }
        if self
            .appearance
            .as_deref()
            .is_some_and(|a| a.contains("base-select"))
        {
            return Some("a customizable select");
        }
        if self.all.is_some() {
            return Some("the all property");
        }
        if self.position.as_deref() == Some("fixed") {
            // A fixed layer may cover the page: only the browser's hit testing tells.
            return Some("a fixed layer");
        }
        let hides = |v: &Option<String>| !plain(v, &["visible"]);
        if (hides(&self.overflow_x) || hides(&self.overflow_y))
            && self.sizes.iter().any(|s| tiny(s))
        {
            return Some("content hidden by its size");
        }
        if self.placed()
            && (self.offsets.iter().any(|o| far(o))
                || self.starts.iter().any(|o| far(o) && !far_off(o))
                || self
                    .transform
                    .as_deref()
                    .is_some_and(|t| t != "none" && far(t)))
        {
            return Some("content placed off the page");
        }
        None
    }

    /// Placed out of the flow: `position` `absolute` or `fixed`.
    fn placed(&self) -> bool {
        matches!(self.position.as_deref(), Some("absolute" | "fixed"))
    }

    /// A placed box moved so far left or up that page.js's `clipped` finds it off the page
    /// (`left: -9999px`, the usual skip link and screen-reader text).
    pub(super) fn off_page(&self) -> bool {
        self.placed() && self.starts.iter().any(|o| far_off(o))
    }
}

/// An offset that puts any box of a realistic size (under 5,000 pixels) before the page's
/// start: `-5000px` or further.
fn far_off(v: &str) -> bool {
    v.strip_suffix("px")
        .and_then(|n| n.parse::<f64>().ok())
        .is_some_and(|n| n <= -5000.0)
}

/// A size of at most a pixel (or one the host cannot tell).
fn tiny(v: &str) -> bool {
    v.split(' ').any(|w| {
        let n = w
            .strip_suffix("px")
            .or_else(|| w.strip_suffix('%'))
            .or_else(|| w.strip_suffix("em"))
            .or_else(|| w.strip_suffix("rem"))
            .unwrap_or(w);
        match n.parse::<f64>() {
            Ok(n) => n <= 1.0,
            Err(_) => w.contains('(') && !w.starts_with("url("),
        }
    })
}

/// An offset or transform that may move a box off the page: negative, huge, or computed.
fn far(v: &str) -> bool {
    v.contains('-') && !v.starts_with("--")
        || v.contains("calc(")
        || v.contains("var(")
        || v.split([' ', '(', ')', ',']).any(|w| {
            let n = w
                .trim_end_matches("px")
                .trim_end_matches('%')
                .trim_end_matches("em")
                .trim_end_matches("vw")
                .trim_end_matches("vh");
            n.parse::<f64>().is_ok_and(|n| n >= 100.0)
        })
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

/// The `display` the element has before the page's own CSS: the `hidden` attribute's (a
/// presentational hint in Chromium, which an author's `display` overrides and `revert` skips),
/// or the user agent style sheet's ([`ua_display`]).
pub(super) fn hinted_display(dom: &Dom, i: Ix, open: bool) -> Disp {
    if dom.ns(i) == Some(Ns::Html) && dom.has(i, "hidden") {
        return Disp::None;
    }
    ua_display(dom, i, open)
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
    if dom.has(i, "popover") && !(e.local == "dialog" && open) {
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
