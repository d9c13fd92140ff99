//! A static page's HTML to the JSON `page.js` `snapshot()` returns for it, without a browser.
//!
//! This is the no-JavaScript fast path: a page with no script is fetched by the host and its
//! snapshot computed here, as a port of `page.js`'s `snapshot` and its helpers to a parsed DOM
//! that has no layout and no style sheets. What `page.js` asks the browser's layout (display,
//! visibility, sizes) is answered from the user agent style sheet's tag rules, the `hidden`
//! attribute and inline `style` declarations. There are no bounds (`null`), nothing is
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

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use dom_query::{Document, NodeData, NodeRef, TreeNode};
use serde_json::{Value, json};

/// The snapshots of a static page, as `page.js` would report them in the browser.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// page.js `snapshot({text: false})`'s JSON for this document.
    pub interactive: serde_json::Value,
    /// page.js `snapshot({text: true})`'s JSON.
    pub with_text: serde_json::Value,
    /// Every node number either snapshot names (element handles and group ids), with its
    /// element's local name (`localName`: lowercase for HTML, SVG's own case such as
    /// `foreignObject`, as page.js `adopt` compares it), so the browser can give the same
    /// numbers to the same elements when it loads this document (checked by name).
    pub nodes: Vec<(u64, String)>,
}

/// Why a page's snapshot needs the browser: what it shows or does cannot be known from its
/// markup alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeedsBrowser {
    /// A `<script>` that runs (JavaScript, a module or an import map).
    Script,
    /// An `on…` attribute or a `javascript:` URL.
    InlineHandler,
    /// An iframe, frame, frameset, object or embed.
    Frames,
    /// A `<meta http-equiv="refresh">`.
    Refresh,
    /// An element whose name has a `-`: a custom element, which only script renders.
    CustomElements,
    /// A dialog shown on load, which covers the page.
    Modal,
    /// Fewer than [`MIN_CONTROLS`] controls: probably an app shell that script fills in.
    TooFewControls(usize),
}

impl fmt::Display for NeedsBrowser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Script => f.write_str("it runs scripts"),
            Self::InlineHandler => f.write_str("it has inline event handlers"),
            Self::Frames => f.write_str("it embeds other documents"),
            Self::Refresh => f.write_str("it refreshes itself"),
            Self::CustomElements => f.write_str("it uses custom elements"),
            Self::Modal => f.write_str("it opens with a dialog"),
            Self::TooFewControls(n) => write!(f, "it has only {n} controls"),
        }
    }
}

/// The fewest controls a page parsed here may have; fewer sends it to the browser.
pub const MIN_CONTROLS: usize = 5;

/// The snapshots of `html`, the document at `url` (its `location.href`, whatever `<base>` the
/// document has), or why the page needs the browser. The browser checks come first, on the
/// whole document.
pub fn parse(html: &str, url: &url::Url) -> Result<Parsed, NeedsBrowser> {
    let dom = Dom::build(&scripted_parse(html));
    let page = Page::new(&dom, url);
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
        nodes: nodes.into_iter().collect(),
    })
}

// ----------------------------------------------------------------- page.js constants
// Each as page.js names it; see there for why.

/// What a secret field's value reads as.
const MASK: &str = "••••";
/// A control's longest name.
const NAME_MAX: usize = 200;
/// The longest text beside a field that still reads as its label.
const LABEL_MAX: usize = 60;
/// Roles that make an element a control.
#[rustfmt::skip]
const INTERACTIVE_ROLES: &[&str] = &[
    "button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "switch", "option", "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem",
    "listbox",
];
/// Input types whose value is text.
#[rustfmt::skip]
const TEXT_INPUTS: &[&str] = &[
    "text", "email", "tel", "url", "search", "number", "date", "datetime-local", "month", "week",
    "time", "color", "",
];
/// Roles of boxes of choices: a control only while no control is inside.
const CONTAINER_ROLES: &[&str] = &[
    "listbox", "menu", "menubar", "tree", "tablist", "grid", "treegrid",
];
/// Controls whose missing name the text around them can stand for.
#[rustfmt::skip]
const LABELLED_ROLES: &[&str] = &[
    "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "slider", "spinbutton",
    "password", "file", "switch",
];
/// Words of an icon's class or file name that say what the control does.
const ICON_WORDS: &[&str] = &[
    "add", "archive", "back", "bookmark", "cart", "close", "collapse", "copy", "delete",
    "download", "edit", "expand", "favorite", "filter", "flag", "forward", "heart", "help", "home",
    "like", "menu", "minus", "more", "next", "pause", "play", "plus", "prev", "previous",
    "refresh", "remove", "reply", "retweet", "save", "search", "send", "settings", "share", "sort",
    "star", "trash", "upload", "user",
];
/// page.js `CARD`'s words: a `<div>` class with one of them (or its plural) is a card.
const CARD_WORDS: &[&str] = &[
    "card", "item", "product", "result", "row", "entry", "tile", "listing", "post", "record",
];
/// page.js `SKIP` (HTML tag names): never walked.
const SKIP: &[&str] = &[
    "script", "style", "noscript", "template", "head", "iframe", "frame", "object",
];
/// page.js `NO_TEXT`'s HTML tags (`svg` and `math` are checked by namespace).
const NO_TEXT: &[&str] = &[
    "select", "textarea", "option", "datalist", "canvas", "video", "audio",
];

/// `list` holds `s`.
fn has(list: &[&str], s: &str) -> bool {
    list.contains(&s)
}

/// page.js `role && SET.has(role)`.
fn role_in(list: &[&str], role: Option<&str>) -> bool {
    role.is_some_and(|r| has(list, r))
}

// ----------------------------------------------------------------- JS string semantics

/// JS `\s`: what `String.prototype.trim` and `/\s+/` treat as white space.
fn js_space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ');
    }
    "\u{a0}\u{1680}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}".contains(c)
        || ('\u{2000}'..='\u{200a}').contains(&c)
}

/// HTML's ASCII white space, the white space CSS collapses.
fn css_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// JS `s.trim()`.
fn js_trim(s: &str) -> &str {
    s.trim_matches(js_space)
}

/// A string's JS `length`: UTF-16 code units.
fn js_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// page.js `clean`: white space runs to one space, trimmed, and cut to `max` JS characters
/// with a trailing `…`. A character astride the cut (half a surrogate pair in JS) is dropped,
/// as a Rust string cannot hold half of one.
fn clean(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max.saturating_mul(4)));
    let mut space = false;
    for c in s.chars() {
        if js_space(c) {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    if js_len(&out) <= max {
        return out;
    }
    let keep = max.saturating_sub(1);
    let mut units = 0;
    let mut cut = 0;
    for (i, c) in out.char_indices() {
        if units + c.len_utf16() > keep {
            break;
        }
        units += c.len_utf16();
        cut = i + c.len_utf8();
    }
    out.truncate(cut);
    out.push('…');
    out
}

/// `s.replace(/\s+/g, ' ')`, untrimmed.
fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if js_space(c) {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            space = false;
            out.push(c);
        }
    }
    out
}

/// JS `Number(s)`: NaN for anything but a number literal (decimal, hex, octal, binary).
fn js_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            return digits
                .chars()
                .filter_map(|c| c.to_digit(radix))
                .fold(0.0, |n, d| n * f64::from(radix) + f64::from(d));
        }
    }
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(e) => (&body[..e], Some(&body[e + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if !mantissa_ok || !exponent_ok {
        return f64::NAN;
    }
    t.parse().unwrap_or(f64::NAN)
}

/// A JS number as JSON: an integer when it is one (as `JSON.stringify` prints it), `null`
/// when not finite.
fn js_number_json(n: f64) -> Value {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        // Exact: the value is an integer within f64's exact range.
        #[allow(clippy::cast_possible_truncation)]
        let i = n as i64;
        json!(i)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// A number as JS's `String(n)` prints the usual ones (no exponent forms).
fn js_number_string(n: f64) -> String {
    if n == 0.0 {
        return "0".into();
    }
    format!("{n}")
}

// ----------------------------------------------------------------- parsing as Chromium does

/// `html` parsed as Chromium parses it, with scripting enabled: a `<noscript>`'s content is
/// raw text, not elements (in `<head>`, elements would leave for `<body>` and shift every
/// node number after them). `dom_query`'s own `Document::from` parses with scripting off.
fn scripted_parse(html: &str) -> Document {
    use html5ever::tendril::TendrilSink;
    let opts = html5ever::ParseOpts {
        tree_builder: html5ever::tree_builder::TreeBuilderOpts {
            scripting_enabled: true,
            ..Default::default()
        },
        ..Default::default()
    };
    html5ever::parse_document(Document::default(), opts).one(html)
}

// ----------------------------------------------------------------- the DOM arena

/// A node's index in the arena (its place in document order).
type Ix = usize;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ns {
    Html,
    Svg,
    Math,
    Other,
}

/// An element's name and attributes.
struct Elem {
    /// The local name as parsed: lowercase for HTML, case kept in SVG (`foreignObject`).
    local: String,
    ns: Ns,
    /// Qualified names (`xlink:href`) and values, each name's first occurrence (as parsed).
    attrs: Vec<(String, String)>,
    /// The node number: the element's 1-based index among the document's elements.
    num: u64,
}

/// A node: the document, an element, a text, or something page.js never reads (comments,
/// the doctype).
enum Kind {
    Root,
    Elem(Elem),
    Text(String),
    Other,
}

/// A node and its links, as the DOM has them.
struct Node {
    kind: Kind,
    parent: Option<Ix>,
    first: Option<Ix>,
    last: Option<Ix>,
    next: Option<Ix>,
    prev: Option<Ix>,
    /// One past the last index of the node's subtree: nodes are stored in document order.
    end: Ix,
}

/// The document as an arena in document order. Template contents are not in it (a browser
/// keeps them in a separate fragment, and `dom_query` out of the element's children).
struct Dom {
    nodes: Vec<Node>,
    body: Option<Ix>,
    ids: HashMap<String, Ix>,
}

/// The namespaces an element's name may be in.
const HTML_NS: &str = "http://www.w3.org/1999/xhtml";
const SVG_NS: &str = "http://www.w3.org/2000/svg";
const MATH_NS: &str = "http://www.w3.org/1998/Math/MathML";

/// A `dom_query` node as the arena keeps it.
fn convert(node: &TreeNode) -> Kind {
    match &node.data {
        NodeData::Document | NodeData::Fragment => Kind::Root,
        NodeData::Text { contents } => Kind::Text(String::from(&**contents)),
        NodeData::Element(e) => {
            let ns = match &*e.name.ns {
                HTML_NS => Ns::Html,
                SVG_NS => Ns::Svg,
                MATH_NS => Ns::Math,
                _ => Ns::Other,
            };
            let local = String::from(&*e.name.local);
            let attrs: Vec<(String, String)> = e
                .attrs
                .iter()
                .map(|a| {
                    let name = match &a.name.prefix {
                        Some(p) => format!("{}:{}", &**p, &*a.name.local),
                        None => String::from(&*a.name.local),
                    };
                    (name, String::from(&*a.value))
                })
                .collect();
            Kind::Elem(Elem {
                local,
                ns,
                attrs,
                num: 0,
            })
        }
        _ => Kind::Other,
    }
}

impl Dom {
    /// The parsed document, copied in document order without recursion.
    fn build(doc: &Document) -> Self {
        let mut nodes: Vec<Node> = Vec::new();
        let mut stack: Vec<(NodeRef<'_>, Option<Ix>)> = vec![(doc.root(), None)];
        let mut num = 0;
        while let Some((node, parent)) = stack.pop() {
            let mut kind = node.query(convert).unwrap_or(Kind::Other);
            if let Kind::Elem(e) = &mut kind {
                num += 1;
                e.num = num;
            }
            let ix = nodes.len();
            nodes.push(Node {
                kind,
                parent,
                first: None,
                last: None,
                next: None,
                prev: None,
                end: ix + 1,
            });
            if let Some(p) = parent {
                let prev = nodes[p].last;
                nodes[ix].prev = prev;
                match prev {
                    Some(q) => nodes[q].next = Some(ix),
                    None => nodes[p].first = Some(ix),
                }
                nodes[p].last = Some(ix);
            }
            // Reversed, so the first child is taken next: indexes are in document order.
            for child in node.children().into_iter().rev() {
                stack.push((child, Some(ix)));
            }
        }
        for i in (0..nodes.len()).rev() {
            if let Some(last) = nodes[i].last {
                nodes[i].end = nodes[last].end;
            }
        }
        let mut dom = Self {
            nodes,
            body: None,
            ids: HashMap::new(),
        };
        let html = dom.children(0).find(|&c| dom.elem(c).is_some());
        dom.body = html.and_then(|h| {
            dom.children(h)
                .find(|&c| dom.html(c, "body") || dom.html(c, "frameset"))
        });
        let mut ids = HashMap::new();
        for i in 0..dom.nodes.len() {
            if let Some(id) = dom.attr(i, "id")
                && !id.is_empty()
            {
                ids.entry(id.to_string()).or_insert(i);
            }
        }
        dom.ids = ids;
        dom
    }

    /// The element at `i`, if it is one.
    fn elem(&self, i: Ix) -> Option<&Elem> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Elem(e)) => Some(e),
            _ => None,
        }
    }

    /// The text at `i`, if it is a text node.
    fn text(&self, i: Ix) -> Option<&str> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// `getAttribute(name)`.
    fn attr(&self, i: Ix, name: &str) -> Option<&str> {
        self.elem(i)?
            .attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `hasAttribute(name)`.
    fn has(&self, i: Ix, name: &str) -> bool {
        self.attr(i, name).is_some()
    }

    /// A CSS type selector's match (and `tagName.toLowerCase()`'s): the local name, in any
    /// namespace.
    fn named(&self, i: Ix, tag: &str) -> bool {
        self.elem(i).is_some_and(|e| e.local == tag)
    }

    /// page.js's `el.tagName === 'TAG'`: an HTML element of that name.
    fn html(&self, i: Ix, tag: &str) -> bool {
        self.elem(i)
            .is_some_and(|e| e.ns == Ns::Html && e.local == tag)
    }

    /// An HTML element named one of `tags`.
    fn html_in(&self, i: Ix, tags: &[&str]) -> bool {
        self.elem(i)
            .is_some_and(|e| e.ns == Ns::Html && has(tags, &e.local))
    }

    /// The element's namespace.
    fn ns(&self, i: Ix) -> Option<Ns> {
        self.elem(i).map(|e| e.ns)
    }

    /// The element's node number.
    fn num(&self, i: Ix) -> u64 {
        self.elem(i).map_or(0, |e| e.num)
    }

    /// `parentNode`.
    fn parent(&self, i: Ix) -> Option<Ix> {
        self.nodes.get(i)?.parent
    }

    /// `parentElement`.
    fn parent_el(&self, i: Ix) -> Option<Ix> {
        self.parent(i).filter(|&p| self.elem(p).is_some())
    }

    /// One past the last node of `i`'s subtree.
    fn end(&self, i: Ix) -> Ix {
        self.nodes.get(i).map_or(i, |n| n.end)
    }

    /// `childNodes`.
    fn children(&self, i: Ix) -> impl Iterator<Item = Ix> + '_ {
        std::iter::successors(self.nodes.get(i).and_then(|n| n.first), move |&c| {
            self.nodes[c].next
        })
    }

    /// `a.contains(b)`: `b` is `a` or inside it.
    fn contains(&self, a: Ix, b: Ix) -> bool {
        a <= b && b < self.end(a)
    }

    /// `el.closest(…)`: the element or its nearest ancestor that matches.
    fn closest(&self, i: Ix, f: impl Fn(Ix) -> bool) -> Option<Ix> {
        let mut a = self.elem(i).map(|_| i);
        while let Some(x) = a {
            if f(x) {
                return Some(x);
            }
            a = self.parent_el(x);
        }
        None
    }

    /// `nextElementSibling`.
    fn next_el_sibling(&self, i: Ix) -> Option<Ix> {
        std::iter::successors(self.nodes.get(i)?.next, |&s| self.nodes[s].next)
            .find(|&s| self.elem(s).is_some())
    }

    /// `previousElementSibling`.
    fn prev_el_sibling(&self, i: Ix) -> Option<Ix> {
        std::iter::successors(self.nodes.get(i)?.prev, |&s| self.nodes[s].prev)
            .find(|&s| self.elem(s).is_some())
    }

    /// `getElementById`: the first element with that id.
    fn by_id(&self, id: &str) -> Option<Ix> {
        self.ids.get(id).copied()
    }

    /// The text nodes of `i`'s subtree, in order.
    fn texts(&self, i: Ix) -> impl Iterator<Item = (Ix, &str)> + '_ {
        (i..self.end(i)).filter_map(|j| self.text(j).map(|t| (j, t)))
    }

    /// `textContent`.
    fn text_content(&self, i: Ix) -> String {
        self.texts(i).map(|(_, t)| t).collect()
    }

    /// `textContent.length > limit`, without building it.
    fn text_longer(&self, i: Ix, limit: usize) -> bool {
        let mut len = 0;
        for (_, t) in self.texts(i) {
            len += js_len(t);
            if len > limit {
                return true;
            }
        }
        false
    }

    /// Every element, in document order.
    fn elements(&self) -> impl Iterator<Item = (Ix, &Elem)> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match &n.kind {
                Kind::Elem(e) => Some((i, e)),
                _ => None,
            })
    }
}

// ----------------------------------------------------------------- style without style sheets

/// A computed `display`, in the classes page.js tells apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Disp {
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
    fn inline(self) -> bool {
        matches!(self, Self::Inline | Self::InlineBlock | Self::Contents)
    }
}

/// A `display` declaration: a value (and whether it makes a flex or grid container, whose
/// children are blockified) or a CSS-wide keyword.
#[derive(Clone, Copy)]
enum DisplaySpec {
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
struct Style {
    display: Option<DisplaySpec>,
    visibility: Option<String>,
    opacity: Option<String>,
    clip: Option<String>,
    clip_path: Option<String>,
    content_visibility: Option<String>,
    float: Option<String>,
    position: Option<String>,
    cursor: Option<String>,
}

/// Keywords every property takes.
const CSS_WIDE: &[&str] = &["inherit", "initial", "unset", "revert", "revert-layer"];

/// A `style` attribute's declarations.
fn parse_style(s: &str) -> Style {
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
fn opacity_of(v: &str) -> Option<f64> {
    match v.strip_suffix('%') {
        Some(p) => p.parse::<f64>().ok().map(|p| p / 100.0),
        None => v.parse::<f64>().ok(),
    }
    .filter(|n| n.is_finite())
}

/// The clip page.js's `clipped` reads as nothing shown: `rect(0 0 0 0)` or `inset(50%)`.
fn clips_all(style: &Style) -> bool {
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
fn ua_display(dom: &Dom, i: Ix, open: bool) -> Disp {
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
const SVG_UNDRAWN: &[&str] = &[
    "defs", "clipPath", "mask", "pattern", "marker", "symbol", "title", "desc", "metadata",
    "linearGradient", "radialGradient", "filter", "style", "script",
];

// ----------------------------------------------------------------- the page

/// The document with what page.js reads of its style and state worked out per node.
struct Page<'d> {
    dom: &'d Dom,
    display: Vec<Disp>,
    /// Laid out: no `display: none` on it or an ancestor, and not in content the browser does
    /// not render (a closed `<details>`, a `<textarea>`'s text, a canvas's fallback…).
    rendered: Vec<bool>,
    /// The computed `visibility` is `visible`.
    vis: Vec<bool>,
    /// Its own `opacity` is 0.
    faded: Vec<bool>,
    /// It or an ancestor has `opacity: 0` (`checkVisibility`'s opacity check).
    faded_up: Vec<bool>,
    clipped: Vec<bool>,
    cv_hidden: Vec<bool>,
    editable: Vec<bool>,
    inert: Vec<bool>,
    /// A `<details>`'s or `<dialog>`'s `open`, after details name groups closed the later ones.
    open: Vec<bool>,
    /// An `<input>`'s checkedness after parsing (the last checked radio of a group wins).
    checked: Vec<bool>,
    /// A closed `<details>`'s first `<summary>`, the one it shows.
    summary: HashMap<Ix, Ix>,
    /// Each `<label>`'s labeled control.
    control: HashMap<Ix, Ix>,
    /// Each control's labels, in document order (`el.labels`).
    labels: HashMap<Ix, Vec<Ix>>,
    /// The computed `cursor` is `pointer` (a link's, from the UA sheet, or inline style's).
    pointer: Vec<bool>,
    /// `document.activeElement` once loaded: what Chromium focuses (`autofocus`), or the body.
    focused: Option<Ix>,
    // Answers to `closest` questions, worked out once so deep documents do not ask each
    // element's ancestors again for each of its descendants.
    /// In (or is) a summary, button, `[role=button]` or `a[href]`: groupOf's "inside a control".
    in_control: Vec<bool>,
    /// In (or is) an element whose words besideText skips (select, textarea, script…).
    text_skipped: Vec<bool>,
    /// In (or is) a heading, link or button, where besideText stops.
    text_stops: Vec<bool>,
    /// The label it is in (or is).
    label_up: Vec<Option<Ix>>,
    /// Its nearest ancestor-or-self that is not inline (besideText's block), or the root.
    block_of: Vec<Ix>,
    /// In a disabled fieldset, outside that fieldset's first legend.
    fieldset_off: Vec<bool>,
}

impl<'d> Page<'d> {
    /// Works out each node's style and state, parents before children (`url` for autofocus).
    fn new(dom: &'d Dom, url: &url::Url) -> Self {
        let n = dom.nodes.len();
        let mut page = Page {
            dom,
            display: vec![Disp::Inline; n],
            rendered: vec![false; n],
            vis: vec![true; n],
            faded: vec![false; n],
            faded_up: vec![false; n],
            clipped: vec![false; n],
            cv_hidden: vec![false; n],
            editable: vec![false; n],
            inert: vec![false; n],
            open: vec![false; n],
            checked: vec![false; n],
            summary: HashMap::new(),
            control: HashMap::new(),
            labels: HashMap::new(),
            pointer: vec![false; n],
            focused: None,
            in_control: vec![false; n],
            text_skipped: vec![false; n],
            text_stops: vec![false; n],
            label_up: vec![None; n],
            block_of: (0..n).collect(),
            fieldset_off: vec![false; n],
        };
        // Children of flex and grid containers are blockified.
        let mut flex_kids = vec![false; n];
        let mut open_groups: HashMap<&str, Ix> = HashMap::new();
        let mut legends: HashMap<Ix, Option<Ix>> = HashMap::new();
        // Parents come before their children, so each node reads its parent's answers.
        for i in 0..n {
            let parent = dom.parent_el(i);
            let Some(e) = dom.elem(i) else {
                if dom.text(i).is_some() {
                    page.rendered[i] =
                        parent.is_some_and(|p| page.rendered[p] && page.child_shown(p, i));
                }
                continue;
            };
            let html = e.ns == Ns::Html;
            page.open[i] = match e.local.as_str() {
                "details" if html && dom.has(i, "open") => {
                    match dom.attr(i, "name").filter(|g| !g.is_empty()) {
                        // Chromium closes a details element inserted while another of its group is open.
                        Some(group) => *open_groups.entry(group).or_insert(i) == i,
                        None => true,
                    }
                }
                "dialog" if html => dom.has(i, "open"),
                _ => false,
            };
            if html
                && e.local == "details"
                && !page.open[i]
                && let Some(s) = dom.children(i).find(|&c| dom.html(c, "summary"))
            {
                page.summary.insert(i, s);
            }
            let style = if matches!(e.ns, Ns::Html | Ns::Svg | Ns::Math) {
                dom.attr(i, "style").map(parse_style).unwrap_or_default()
            } else {
                Style::default()
            };
            let parent_display = parent.map_or(Disp::Block, |p| page.display[p]);
            let ua = ua_display(dom, i, page.open[i]);
            let (mut display, flex) = match style.display {
                None | Some(DisplaySpec::Revert) => (ua, false),
                Some(DisplaySpec::Is(d, f)) => (d, f),
                Some(DisplaySpec::Initial) => (Disp::Inline, false),
                Some(DisplaySpec::Inherit) => {
                    (parent_display, parent.is_some_and(|p| flex_kids[p]))
                }
            };
            // `input[type=hidden]`'s rule is `!important` in the UA sheet.
            if html
                && e.local == "input"
                && dom
                    .attr(i, "type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("hidden"))
            {
                display = Disp::None;
            }
            let floated = matches!(
                style.float.as_deref(),
                Some("left" | "right" | "inline-start" | "inline-end")
            );
            let placed = matches!(style.position.as_deref(), Some("absolute" | "fixed"));
            let root = parent.is_none();
            if (floated || placed || root || parent.is_some_and(|p| flex_kids[p]))
                && matches!(display, Disp::Inline | Disp::InlineBlock | Disp::Cell)
            {
                display = Disp::Block;
            }
            page.display[i] = display;
            flex_kids[i] = match display {
                Disp::Contents => parent.is_some_and(|p| flex_kids[p]),
                Disp::None => false,
                _ => flex,
            };
            page.rendered[i] = display != Disp::None
                && match parent {
                    Some(p) => page.rendered[p] && page.child_shown(p, i),
                    None => true,
                };
            let parent_vis = parent.is_none_or(|p| page.vis[p]);
            page.vis[i] = match style.visibility.as_deref() {
                Some("visible" | "initial") => true,
                Some("hidden" | "collapse") => false,
                _ => parent_vis,
            };
            page.faded[i] = match style.opacity.as_deref() {
                Some("inherit") => parent.is_some_and(|p| page.faded[p]),
                Some(v) => opacity_of(v).is_some_and(|o| o <= 0.0),
                None => false,
            };
            page.faded_up[i] = page.faded[i] || parent.is_some_and(|p| page.faded_up[p]);
            page.clipped[i] = clips_all(&style);
            page.cv_hidden[i] = style.content_visibility.as_deref() == Some("hidden");
            let parent_editable = parent.is_some_and(|p| page.editable[p]);
            page.editable[i] = match dom
                .attr(i, "contenteditable")
                .filter(|_| html)
                .map(str::to_ascii_lowercase)
            {
                Some(v) if matches!(v.as_str(), "" | "true" | "plaintext-only") => true,
                Some(v) if v == "false" => false,
                _ => parent_editable,
            };
            page.inert[i] = (html && dom.has(i, "inert")) || parent.is_some_and(|p| page.inert[p]);
            let parent_pointer = parent.is_some_and(|p| page.pointer[p]);
            page.pointer[i] = match style.cursor.as_deref() {
                Some("pointer") => true,
                Some("inherit" | "unset") => parent_pointer,
                Some(_) => false,
                None => {
                    (html && matches!(e.local.as_str(), "a" | "area") && dom.has(i, "href"))
                        || parent_pointer
                }
            };
            let up = |v: &[bool]| parent.is_some_and(|p| v[p]);
            let named = |tags: &[&str]| has(tags, &e.local);
            let role = dom.attr(i, "role");
            let link = e.local == "a" && dom.has(i, "href");
            page.in_control[i] = up(&page.in_control)
                || named(&["summary", "button"])
                || role == Some("button")
                || link;
            page.text_skipped[i] = up(&page.text_skipped)
                || named(&[
                    "select", "textarea", "script", "style", "noscript", "template",
                ]);
            page.text_stops[i] = up(&page.text_stops)
                || named(&["h1", "h2", "h3", "h4", "h5", "h6", "button"])
                || link
                || matches!(role, Some("heading" | "button" | "link"));
            page.label_up[i] = if e.local == "label" {
                Some(i)
            } else {
                parent.and_then(|p| page.label_up[p])
            };
            page.block_of[i] = match parent {
                Some(p) if display.inline() => page.block_of[p],
                _ => i,
            };
            page.fieldset_off[i] = match parent {
                Some(p) if dom.html(p, "fieldset") && dom.has(p, "disabled") => {
                    let legend = *legends
                        .entry(p)
                        .or_insert_with(|| dom.children(p).find(|&c| dom.html(c, "legend")));
                    page.fieldset_off[p] || legend != Some(i)
                }
                Some(p) => page.fieldset_off[p],
                None => false,
            };
        }
        page.checked = checkedness(dom);
        for (i, e) in dom.elements() {
            if e.ns != Ns::Html || e.local != "label" {
                continue;
            }
            let control = match dom.attr(i, "for") {
                Some(id) => dom.by_id(id).filter(|&c| labelable(dom, c)),
                None => (i + 1..dom.end(i)).find(|&c| labelable(dom, c)),
            };
            if let Some(c) = control {
                page.control.insert(i, c);
                page.labels.entry(c).or_default().push(i);
            }
        }
        // With nothing focused, `document.activeElement` is the body.
        page.focused = page.autofocus(url).or(dom.body);
        page
    }

    /// Whether `parent` lays out its child `c` (given that it is laid out itself).
    fn child_shown(&self, parent: Ix, c: Ix) -> bool {
        let dom = self.dom;
        if dom.html_in(
            parent,
            &[
                "textarea", "canvas", "video", "audio", "iframe", "object", "select", "datalist",
            ],
        ) {
            return false;
        }
        if dom.html(parent, "details") && !self.open[parent] {
            return self.summary.get(&parent) == Some(&c);
        }
        match dom.ns(parent) {
            Some(Ns::Svg) => {
                let local = dom.elem(parent).map_or("", |e| e.local.as_str());
                if has(SVG_UNDRAWN, local) {
                    return false;
                }
                // SVG draws text only inside a <text>.
                let draws = |a: Ix| dom.named(a, "text") || dom.named(a, "foreignObject");
                dom.text(c).is_none()
                    || dom
                        .closest(parent, |a| dom.ns(a) != Some(Ns::Svg) || draws(a))
                        .is_some_and(draws)
            }
            _ => true,
        }
    }

    /// It has a box: `getClientRects()` is not empty.
    fn boxed(&self, i: Ix) -> bool {
        self.rendered[i] && self.display[i] != Disp::Contents
    }

    /// page.js `visible(el, rect)`: a box and `visibility: visible`.
    fn visible(&self, i: Ix) -> bool {
        self.boxed(i) && self.vis[i]
    }

    /// page.js `shown`: `checkVisibility` with its opacity and visibility checks.
    fn shown(&self, i: Ix) -> bool {
        self.visible(i) && !self.faded_up[i]
    }

    // ------------------------------------------------------------- the browser checks

    /// The first reason, in [`NeedsBrowser`]'s order, the page needs the browser.
    fn needs_browser(&self) -> Option<NeedsBrowser> {
        let dom = self.dom;
        let mut found: Vec<NeedsBrowser> = Vec::new();
        for (i, e) in dom.elements() {
            if e.local == "script" && matches!(e.ns, Ns::Html | Ns::Svg) && runs(dom, i) {
                found.push(NeedsBrowser::Script);
            }
            for (name, value) in &e.attrs {
                let local = name.rsplit(':').next().unwrap_or(name);
                if name.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("on"))
                    || (matches!(local, "href" | "src" | "action" | "formaction")
                        && javascript_url(value))
                {
                    found.push(NeedsBrowser::InlineHandler);
                }
            }
            if has(
                &["iframe", "frame", "frameset", "object", "embed"],
                &e.local,
            ) {
                found.push(NeedsBrowser::Frames);
            }
            if e.local == "meta"
                && dom
                    .attr(i, "http-equiv")
                    .is_some_and(|v| v.trim_matches(css_space).eq_ignore_ascii_case("refresh"))
            {
                found.push(NeedsBrowser::Refresh);
            }
            if e.ns == Ns::Html && e.local.contains('-') {
                found.push(NeedsBrowser::CustomElements);
            }
            let role = dom
                .attr(i, "role")
                .and_then(|r| r.split(css_space).find(|w| !w.is_empty()))
                .unwrap_or("");
            let modal = (e.ns == Ns::Html && e.local == "dialog" && dom.has(i, "open"))
                || dom
                    .attr(i, "aria-modal")
                    .is_some_and(|v| v.trim_matches(css_space).eq_ignore_ascii_case("true"))
                || role.eq_ignore_ascii_case("dialog")
                || role.eq_ignore_ascii_case("alertdialog");
            if modal && self.rendered[i] && self.vis[i] {
                found.push(NeedsBrowser::Modal);
            }
        }
        [
            NeedsBrowser::Script,
            NeedsBrowser::InlineHandler,
            NeedsBrowser::Frames,
            NeedsBrowser::Refresh,
            NeedsBrowser::CustomElements,
            NeedsBrowser::Modal,
        ]
        .into_iter()
        .find(|why| found.contains(why))
    }

    // ------------------------------------------------------------- roles and names

    /// page.js `roleOf`.
    fn role_of(&self, el: Ix) -> Option<&'d str> {
        let dom = self.dom;
        let explicit = dom
            .attr(el, "role")
            .unwrap_or("")
            .split(' ')
            .next()
            .unwrap_or("");
        if !explicit.is_empty() {
            return Some(explicit);
        }
        let e = dom.elem(el)?;
        // `tagName.toLowerCase()`: HTML names are lowercase already.
        let tag = if e.local.chars().any(char::is_uppercase) {
            Cow::Owned(e.local.to_lowercase())
        } else {
            Cow::Borrowed(e.local.as_str())
        };
        match tag.as_ref() {
            "a" => dom.has(el, "href").then_some("link"),
            "button" | "summary" => Some("button"),
            "select" => Some(if dom.has(el, "multiple") {
                "listbox"
            } else {
                "combobox"
            }),
            "textarea" => Some("textbox"),
            "input" => {
                let ty = input_type(dom, el);
                Some(match ty.as_str() {
                    "hidden" => return None,
                    "checkbox" => "checkbox",
                    "radio" => "radio",
                    "submit" | "button" | "reset" | "image" => "button",
                    "password" => "password",
                    "file" => "file",
                    "range" => "slider",
                    "search" => "searchbox",
                    _ => "textbox",
                })
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Some("heading"),
            "img" => dom
                .attr(el, "alt")
                .is_some_and(|a| !a.is_empty())
                .then_some("img"),
            _ => (self.content_editable(el) && dom.has(el, "contenteditable")).then_some("textbox"),
        }
    }

    /// `el.isContentEditable` (HTML elements only have it).
    fn content_editable(&self, el: Ix) -> bool {
        self.dom.ns(el) == Some(Ns::Html) && self.editable[el]
    }

    /// page.js `isInteractive` (no `onclick` here: inline handlers send the page to the browser).
    fn is_interactive(&self, el: Ix, role: Option<&str>) -> bool {
        role_in(INTERACTIVE_ROLES, role)
            || matches!(role, Some("password" | "file"))
            || self.dom.attr(el, "draggable") == Some("true")
            || self.focusable_container(el, role)
    }

    /// page.js `focusableContainer`.
    fn focusable_container(&self, el: Ix, role: Option<&str>) -> bool {
        self.dom
            .attr(el, "tabindex")
            .is_some_and(|t| js_number(t) >= 0.0)
            && !self.dom.html(el, "div")
            && !role_in(INTERACTIVE_ROLES, role)
    }

    /// page.js `isContainer`.
    fn is_container(&self, el: Ix, role: Option<&str>) -> bool {
        !self.dom.html(el, "select")
            && (role_in(CONTAINER_ROLES, role) || self.focusable_container(el, role))
    }

    /// `innerText` as far as `clean(…, max)` reads it, and whether it is non-empty
    /// (`innerText || …` reads it). An element not laid out answers its `textContent`. Blocks,
    /// cells and `<br>` part words with a space: page.js collapses all white space, so only
    /// where words part matters.
    fn inner_text(&self, el: Ix, max: usize) -> (String, bool) {
        let dom = self.dom;
        if !self.rendered[el] {
            let t = text_prefix(dom, el, max, |_| false);
            let some = !t.is_empty();
            return (t, some);
        }
        let mut out = Prefix::new(max);
        let mut some = false;
        let mut closers: Vec<Ix> = Vec::new();
        let end = dom.end(el);
        let mut j = el + 1;
        while j < end && !out.full() {
            while closers.last().is_some_and(|&c| c <= j) {
                closers.pop();
                out.push(" ");
            }
            match &dom.nodes[j].kind {
                Kind::Text(t) => {
                    if self.rendered[j] && dom.parent(j).is_some_and(|p| self.vis[p]) {
                        some |= t.chars().any(|c| !css_space(c));
                        out.push(t);
                    }
                    j += 1;
                }
                Kind::Elem(_) if !self.rendered[j] => j = dom.end(j),
                Kind::Elem(_) if dom.html(j, "select") => {
                    // Its options are blocks of innerText though not laid out as boxes.
                    if self.vis[j] {
                        for o in options(dom, j) {
                            let t = option_text(dom, o);
                            some |= !t.is_empty();
                            out.push(" ");
                            out.push(&t);
                            out.push(" ");
                        }
                    }
                    j = dom.end(j);
                }
                Kind::Elem(_) => {
                    if dom.html(j, "br") {
                        out.push(" ");
                        some = true;
                    }
                    if matches!(self.display[j], Disp::Block | Disp::Cell) {
                        out.push(" ");
                        closers.push(dom.end(j));
                    }
                    j += 1;
                }
                _ => j += 1,
            }
        }
        (out.text, some)
    }

    /// page.js `textOf`: `clean(el.innerText || el.textContent, 200)`.
    fn text_of(&self, el: Ix) -> String {
        let (inner, some) = self.inner_text(el, 200);
        if some {
            clean(&inner, 200)
        } else {
            clean(&text_prefix(self.dom, el, 200, |_| false), 200)
        }
    }

    /// page.js `labelText`: a label's words without those of the controls in it.
    fn label_text(&self, label: Ix) -> String {
        let dom = self.dom;
        let control = |j: Ix| {
            ["select", "textarea", "input", "button", "a"]
                .iter()
                .any(|t| dom.named(j, t))
                || dom.attr(j, "role") == Some("button")
        };
        clean(&text_prefix(dom, label, 100, control), 100)
    }

    /// page.js `nameOf`.
    fn name_of(&self, el: Ix, role: Option<&str>) -> String {
        let dom = self.dom;
        if let Some(by) = dom.attr(el, "aria-labelledby").filter(|b| !b.is_empty()) {
            let t = by
                .split(js_space)
                .filter_map(|id| dom.by_id(id))
                .map(|i| self.text_of(i))
                .collect::<Vec<_>>()
                .join(" ");
            if !t.is_empty() {
                return clean(&t, 100);
            }
        }
        if let Some(aria) = dom.attr(el, "aria-label").filter(|a| !a.is_empty()) {
            return clean(aria, 100);
        }
        let tag = dom
            .elem(el)
            .map(|e| e.local.to_lowercase())
            .unwrap_or_default();
        if matches!(tag.as_str(), "input" | "select" | "textarea") {
            let ty = dom.attr(el, "type").unwrap_or("").to_lowercase();
            if matches!(ty.as_str(), "submit" | "button" | "reset") {
                let value = self.dom_value(el);
                return clean(if value.is_empty() { &ty } else { &value }, 100);
            }
            if ty == "image" {
                return clean(
                    dom.attr(el, "alt")
                        .filter(|a| !a.is_empty())
                        .unwrap_or("image"),
                    100,
                );
            }
            if let Some(labels) = self.labels.get(&el).filter(|l| !l.is_empty()) {
                let words: Vec<String> = labels.iter().map(|&l| self.label_text(l)).collect();
                return clean(&words.join(" "), 100);
            }
            return clean(dom.attr(el, "title").unwrap_or(""), 100);
        }
        if role == Some("img") {
            return clean(dom.attr(el, "alt").unwrap_or(""), 100);
        }
        let t = self.text_of(el);
        if !t.is_empty() {
            return t;
        }
        if let Some(img) = (el + 1..dom.end(el)).find(|&j| dom.named(j, "img") && dom.has(j, "alt"))
        {
            return clean(dom.attr(img, "alt").unwrap_or(""), 100);
        }
        clean(dom.attr(el, "title").unwrap_or(""), 100)
    }

    /// A control's name, or the one inferred for it and where from (page.js `walk`).
    fn name_and_source(&self, el: Ix, role: Option<&str>) -> (String, Option<&'static str>) {
        let name = self.name_of(el, role);
        if !name.is_empty() {
            return (name, None);
        }
        let inferred = if role_in(LABELLED_ROLES, role) {
            self.infer_name(el, role)
        } else {
            self.infer_control_name(el)
        };
        match inferred {
            Some((name, from)) => (name, Some(from)),
            None => (name, None),
        }
    }

    /// `el.labels` has a label with a size: its box holds text or a replaced element.
    fn hidden_but_labelled(&self, el: Ix) -> bool {
        let dom = self.dom;
        let sized = |l: Ix| {
            self.boxed(l)
                && (l + 1..dom.end(l)).any(|j| match &dom.nodes[j].kind {
                    Kind::Text(t) => self.rendered[j] && t.chars().any(|c| !css_space(c)),
                    Kind::Elem(e) => {
                        self.boxed(j)
                            && ((e.ns == Ns::Svg && e.local == "svg")
                                || dom.html_in(
                                    j,
                                    &[
                                        "img", "input", "select", "textarea", "button", "video",
                                        "canvas", "meter", "progress",
                                    ],
                                ))
                    }
                    _ => false,
                })
        };
        self.labels
            .get(&el)
            .is_some_and(|ls| ls.iter().any(|&l| sized(l)))
    }

    // ------------------------------------------------------------- inferred names

    /// page.js `besideText`: the short visible text next to `el` in reading order.
    fn beside_text(&self, el: Ix, forward: bool) -> Option<String> {
        let dom = self.dom;
        let body = dom.body?;
        let step = |from: Ix| -> Option<Ix> {
            let mut j = from;
            loop {
                if forward {
                    j += 1;
                    if j >= dom.end(body) {
                        return None;
                    }
                } else {
                    if j <= body + 1 {
                        return None;
                    }
                    j -= 1;
                }
                if matches!(dom.nodes[j].kind, Kind::Elem(_) | Kind::Text(_)) {
                    return Some(j);
                }
            }
        };
        if !dom.contains(body, el) {
            return None;
        }
        let mut parts: Vec<String> = Vec::new();
        let mut home: Option<Ix> = None;
        let mut steps = 0;
        let mut next = step(el);
        while let Some(n) = next
            && steps < 40
        {
            next = step(n);
            steps += 1;
            if let Some(data) = dom.text(n) {
                let t = collapse(data);
                if js_trim(&t).is_empty() {
                    if !parts.is_empty() {
                        parts.push(" ".into());
                    }
                    continue;
                }
                let Some(p) = dom.parent_el(n) else { continue };
                if !self.shown(p) {
                    continue;
                }
                if self.text_skipped[p] {
                    continue;
                }
                if self.text_stops[p] {
                    break;
                }
                // A label names its own control; one tied to none names the control beside it.
                if let Some(label) = self.label_up[p]
                    && self.control.get(&label).is_some_and(|&c| c != el)
                {
                    break;
                }
                // The block the words are in.
                let b = self.block_of[p];
                if home.is_some_and(|h| h != b) {
                    break;
                }
                let beside = |h: Option<Ix>| {
                    let sib = h.and_then(|h| {
                        if forward {
                            dom.prev_el_sibling(h)
                        } else {
                            dom.next_el_sibling(h)
                        }
                    });
                    sib.is_some_and(|s| {
                        dom.contains(s, el)
                            && (!forward || dom.texts(s).all(|(_, t)| js_trim(t).is_empty()))
                    })
                };
                if home.is_none()
                    && !(dom.contains(b, el) || beside(Some(b)) || beside(dom.parent_el(b)))
                {
                    break;
                }
                home = Some(b);
                parts.push(t);
                if js_len(&clean(&parts.concat(), 100)) > LABEL_MAX {
                    return None;
                }
                continue;
            }
            if dom.contains(n, el) {
                // Leaving a container of the control backwards.
                if !parts.is_empty() && !self.display[n].inline() {
                    break;
                }
                continue;
            }
            let role = self.role_of(n);
            if role == Some("heading")
                || self.is_interactive(n, role)
                || (dom.html(n, "label") && self.control.contains_key(&n))
            {
                break;
            }
            if !parts.is_empty() && !self.display[n].inline() {
                break;
            }
        }
        if !parts.iter().any(|p| !js_trim(p).is_empty()) {
            return None;
        }
        if !forward {
            parts.reverse();
        }
        let t = clean(&parts.concat(), 100);
        let bare = t.trim_end_matches(|c: char| c == ':' || c == '*' || js_space(c));
        (!bare.is_empty()).then_some(t)
    }

    /// page.js `toggledList`: the nested list among the next three element siblings.
    fn toggled_list(&self, el: Ix) -> Option<Ix> {
        let dom = self.dom;
        std::iter::successors(dom.next_el_sibling(el), |&s| dom.next_el_sibling(s))
            .take(3)
            .find(|&s| {
                dom.named(s, "ul")
                    || dom.named(s, "ol")
                    || matches!(dom.attr(s, "role"), Some("group" | "tree"))
            })
    }

    /// page.js `iconWord`, from classes and an image's file name (no style sheets, so no
    /// background images).
    fn icon_word(&self, el: Ix) -> Option<&'static str> {
        let dom = self.dom;
        let img = if dom.html(el, "img") {
            Some(el)
        } else {
            (el + 1..dom.end(el)).find(|&j| dom.named(j, "img"))
        };
        let mut sources: Vec<String> = dom
            .attr(el, "class")
            .unwrap_or("")
            .split(css_space)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        if let Some(img) = img {
            let src = dom.attr(img, "src").unwrap_or("");
            let path = src.split(['?', '#']).next().unwrap_or("");
            let file = path.rsplit('/').next().unwrap_or("");
            let file = match file.rfind('.') {
                Some(dot)
                    if dot + 1 < file.len()
                        && file[dot + 1..]
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
                {
                    &file[..dot]
                }
                _ => file,
            };
            sources.push(file.to_string());
        }
        for source in sources {
            let lower = source.to_lowercase();
            for word in lower.split(|c: char| c == '-' || c == '_' || c == '.' || js_space(c)) {
                if let Some(w) = ICON_WORDS.iter().find(|w| **w == word) {
                    return Some(w);
                }
            }
        }
        None
    }

    /// page.js `inferControlName`.
    fn infer_control_name(&self, el: Ix) -> Option<(String, &'static str)> {
        if self.toggled_list(el).is_some()
            && let Some(text) = self.beside_text(el, true)
        {
            return Some((text, "text"));
        }
        self.icon_word(el).map(|w| (w.to_string(), "icon"))
    }

    /// page.js `inferName`.
    fn infer_name(&self, el: Ix, role: Option<&str>) -> Option<(String, &'static str)> {
        let check = matches!(role, Some("checkbox" | "radio" | "switch"));
        let text = if check {
            self.beside_text(el, true)
                .or_else(|| self.beside_text(el, false))
        } else {
            self.beside_text(el, false)
        };
        if let Some(t) = text {
            return Some((t, "text"));
        }
        for (attr, from) in [("placeholder", "placeholder"), ("name", "name")] {
            if let Some(v) = self.dom.attr(el, attr) {
                let v = clean(v, 100);
                if !v.is_empty() {
                    return Some((v, from));
                }
            }
        }
        None
    }

    // ------------------------------------------------------------- values, attributes, states

    /// `el.value` as the page loads, for the elements that have one.
    fn dom_value(&self, el: Ix) -> String {
        let dom = self.dom;
        match dom
            .elem(el)
            .filter(|e| e.ns == Ns::Html)
            .map(|e| e.local.as_str())
        {
            Some("input") => input_value(dom, el),
            Some("select") => selected(dom, el)
                .first()
                .map(|&o| {
                    dom.attr(o, "value")
                        .map_or_else(|| option_text(dom, o), str::to_string)
                })
                .unwrap_or_default(),
            Some("textarea") => dom.text_content(el),
            Some("option") => dom
                .attr(el, "value")
                .map_or_else(|| option_text(dom, el), str::to_string),
            Some("button" | "data" | "param") => dom.attr(el, "value").unwrap_or("").to_string(),
            _ => String::new(),
        }
    }

    /// page.js `valueOf`.
    fn value_of(&self, el: Ix, role: Option<&str>) -> Option<String> {
        let dom = self.dom;
        let tag = dom
            .elem(el)
            .map(|e| e.local.to_lowercase())
            .unwrap_or_default();
        let masked = |v: String| {
            Some(if v.is_empty() {
                String::new()
            } else {
                MASK.to_string()
            })
        };
        if role == Some("password") || dom.has(el, "data-warden-secret") {
            return masked(self.dom_value(el));
        }
        match tag.as_str() {
            "select" => {
                let labels: Vec<String> = selected(dom, el)
                    .into_iter()
                    .map(|o| option_label(dom, o))
                    .collect();
                return Some(clean(&labels.join(", "), 200));
            }
            "textarea" => return Some(clean(&text_prefix(dom, el, 200, |_| false), 200)),
            "input" => {
                let ty = input_type(dom, el);
                if ty == "file" {
                    return Some(String::new());
                }
                if has(TEXT_INPUTS, &ty) || ty == "range" {
                    return Some(clean(&input_value(dom, el), 200));
                }
                return None;
            }
            _ => {}
        }
        if role == Some("textbox") && self.content_editable(el) {
            return Some(clean(&self.inner_text(el, 200).0, 200));
        }
        if matches!(
            role,
            Some("slider" | "spinbutton" | "progressbar" | "scrollbar" | "meter")
        ) {
            let v = dom
                .attr(el, "aria-valuetext")
                .filter(|v| !v.is_empty())
                .or_else(|| dom.attr(el, "aria-valuenow"));
            if let Some(v) = v {
                return Some(clean(v, 60));
            }
        }
        None
    }

    /// page.js `attrsOf`.
    fn attrs_of(&self, el: Ix, role: Option<&str>) -> Vec<(&'static str, String)> {
        let dom = self.dom;
        let mut out = Vec::new();
        let tag = dom
            .elem(el)
            .map(|e| e.local.to_lowercase())
            .unwrap_or_default();
        if let Some(ph) = dom.attr(el, "placeholder").filter(|p| !p.is_empty()) {
            out.push(("placeholder", clean(ph, 60)));
        }
        if role == Some("link") {
            let href = dom.attr(el, "href").unwrap_or("");
            if !href.is_empty() && !href.starts_with("javascript:") {
                out.push(("href", clean(href, 120)));
            }
            if dom.attr(el, "target") == Some("_blank") {
                out.push(("target", "_blank".into()));
            }
        }
        if tag == "input" {
            let ty = input_type(dom, el);
            if role == Some("textbox") && ty != "text" {
                out.push(("type", ty));
            } else if role == Some("file")
                && let Some(accept) = dom.attr(el, "accept").filter(|a| !a.is_empty())
            {
                out.push(("accept", accept.to_string()));
            }
        }
        if tag == "select" {
            let opts: Vec<String> = options(dom, el)
                .into_iter()
                .map(|o| clean(&option_label(dom, o), 40))
                .collect();
            let shown = opts
                .iter()
                .take(12)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" | ");
            out.push((
                "options",
                if opts.len() > 12 {
                    format!("{shown} | …({} total)", opts.len())
                } else {
                    shown
                },
            ));
        }
        if tag == "textarea" {
            out.push(("multiline", "true".into()));
        }
        if dom.attr(el, "draggable") == Some("true") {
            out.push(("draggable", "true".into()));
        }
        out
    }

    /// `:disabled`, and `el.disabled` (which `<link>` has too).
    fn disabled(&self, el: Ix) -> bool {
        let dom = self.dom;
        let Some(e) = dom.elem(el).filter(|e| e.ns == Ns::Html) else {
            return false;
        };
        let own = dom.has(el, "disabled");
        match e.local.as_str() {
            "link" | "optgroup" => own,
            "option" => {
                own || dom
                    .parent_el(el)
                    .is_some_and(|p| dom.html(p, "optgroup") && dom.has(p, "disabled"))
            }
            "button" | "input" | "select" | "textarea" | "fieldset" => {
                // Inside a disabled fieldset, except in its first <legend>.
                own || self.fieldset_off[el]
            }
            _ => false,
        }
    }

    /// page.js `statesOf` (never `offscreen`: there is no layout).
    fn states_of(&self, el: Ix) -> Vec<&'static str> {
        let dom = self.dom;
        let aria = |n: &str| dom.attr(el, n);
        let html_of = |tags: &[&str]| dom.html_in(el, tags);
        let mut s = Vec::new();
        if aria("aria-disabled") == Some("true") || self.disabled(el) {
            s.push("disabled");
        }
        if aria("aria-checked") == Some("mixed") {
            s.push("mixed");
        } else if (html_of(&["input"]) && self.checked[el])
            || aria("aria-checked") == Some("true")
            || aria("aria-pressed") == Some("true")
        {
            s.push("checked");
        }
        if aria("aria-selected") == Some("true") {
            s.push("selected");
        }
        let summary = dom.html(el, "summary");
        let list = if aria("aria-expanded").is_none() && !summary {
            self.toggled_list(el)
        } else {
            None
        };
        let expander = list.filter(|_| self.text_of(el).is_empty());
        let opened = summary && dom.parent_el(el).is_some_and(|p| self.open[p]);
        if aria("aria-expanded") == Some("true") || opened {
            s.push("expanded");
        } else if expander.is_some_and(|x| self.shown(x)) {
            // A nameless expander is expanded while the list it toggles is shown.
            s.push("expanded");
        }
        if self.focused == Some(el) {
            s.push("focused");
        }
        if (html_of(&["input", "select", "textarea"]) && dom.has(el, "required"))
            || aria("aria-required") == Some("true")
        {
            s.push("required");
        }
        if (html_of(&["input", "textarea"]) && dom.has(el, "readonly"))
            || aria("aria-readonly") == Some("true")
        {
            s.push("readonly");
        }
        s
    }

    /// The element Chromium focuses on load: the first `autofocus` one that can take focus,
    /// unless the URL's fragment points at an element (then the page scrolls there instead).
    fn autofocus(&self, url: &url::Url) -> Option<Ix> {
        let dom = self.dom;
        if let Some(fragment) = url.fragment().filter(|f| !f.is_empty()) {
            let decoded = percent_decode(fragment);
            let target = dom.by_id(&decoded).is_some()
                || dom.elements().any(|(i, e)| {
                    e.ns == Ns::Html && e.local == "a" && dom.attr(i, "name") == Some(&decoded)
                });
            if target {
                return None;
            }
        }
        dom.elements()
            .filter(|(i, e)| matches!(e.ns, Ns::Html | Ns::Svg) && dom.has(*i, "autofocus"))
            .map(|(i, _)| i)
            .find(|&i| self.focusable(i))
    }

    /// Whether the element can take the focus as the page loads.
    fn focusable(&self, i: Ix) -> bool {
        let dom = self.dom;
        if !self.visible(i) || self.inert[i] || self.disabled(i) {
            return false;
        }
        let parse_int = |t: &str| {
            let t = t.trim_start_matches(css_space);
            let t = t.strip_prefix(['-', '+']).unwrap_or(t);
            t.starts_with(|c: char| c.is_ascii_digit())
        };
        if dom.attr(i, "tabindex").is_some_and(parse_int) {
            return true;
        }
        let Some(e) = dom.elem(i) else { return false };
        if e.ns == Ns::Svg {
            return e.local == "a" && (dom.has(i, "href") || dom.has(i, "xlink:href"));
        }
        match e.local.as_str() {
            "a" | "area" => dom.has(i, "href"),
            "button" | "select" | "textarea" | "iframe" | "embed" | "object" => true,
            "input" => input_type(dom, i) != "hidden",
            "summary" => dom.parent_el(i).is_some_and(|p| {
                dom.html(p, "details")
                    && dom.children(p).find(|&c| dom.html(c, "summary")) == Some(i)
            }),
            "audio" | "video" => dom.has(i, "controls"),
            _ => self.editable[i] && !dom.parent_el(i).is_some_and(|p| self.editable[p]),
        }
    }

    // ------------------------------------------------------------- groups

    /// page.js `groupOf`: the row, item, section or card `start` (a control's parent, or a
    /// text run's element) is in, as `(element, kind)`; `cache` remembers each ancestor's.
    fn group_of(
        &self,
        start: Option<Ix>,
        cache: &mut HashMap<Ix, Option<(Ix, &'static str)>>,
    ) -> Option<(Ix, &'static str)> {
        let dom = self.dom;
        let mut path = Vec::new();
        let mut found = None;
        let mut a = start;
        while let Some(x) = a {
            if Some(x) == dom.body {
                break;
            }
            if let Some(cached) = cache.get(&x) {
                found = *cached;
                break;
            }
            path.push(x);
            if let Some(kind) = self.group_kind(x) {
                // A container inside a control (rustdoc's <section> in a <summary>) is part of it.
                let in_control = dom.parent_el(x).is_some_and(|p| self.in_control[p]);
                if !in_control {
                    found = Some((x, kind));
                    break;
                }
            }
            a = dom.parent_el(x);
        }
        for p in path {
            cache.insert(p, found);
        }
        found
    }

    /// page.js `GROUP_ROLES[role] || GROUP_TAGS[tag] || card`.
    fn group_kind(&self, a: Ix) -> Option<&'static str> {
        let dom = self.dom;
        let by_role = match dom.attr(a, "role") {
            Some("row") => Some("row"),
            Some("listitem") => Some("item"),
            Some("article") => Some("article"),
            Some("region") => Some("section"),
            Some("group") => Some("group"),
            _ => None,
        };
        let e = dom.elem(a)?;
        let by_tag = match (e.ns, e.local.as_str()) {
            (Ns::Html, "tr") => Some("row"),
            (Ns::Html, "li") => Some("item"),
            (Ns::Html, "article") => Some("article"),
            (Ns::Html, "section" | "details") => Some("section"),
            _ => None,
        };
        let card = || {
            dom.html(a, "div")
                && dom
                    .attr(a, "class")
                    .unwrap_or("")
                    .split(css_space)
                    .any(|c| {
                        c.split(['-', '_']).any(|seg| {
                            let seg = seg.to_ascii_lowercase();
                            let stem = seg.strip_suffix('s').unwrap_or(&seg);
                            has(CARD_WORDS, &seg) || has(CARD_WORDS, stem)
                        })
                    })
        };
        by_role.or(by_tag).or_else(|| card().then_some("card"))
    }

    // ------------------------------------------------------------- the snapshot

    /// page.js `snapshot`'s `meta` (the same for both snapshots).
    fn meta(&self, url: &url::Url) -> Value {
        let dom = self.dom;
        let forms = dom
            .elements()
            .filter(|(_, e)| e.ns == Ns::Html && e.local == "form")
            .count();
        let type_is = |i: Ix, t: &str| {
            dom.attr(i, "type")
                .is_some_and(|v| v.eq_ignore_ascii_case(t))
        };
        let password = dom
            .elements()
            .any(|(i, e)| e.local == "input" && type_is(i, "password"));
        let captcha = dom.elements().any(|(i, e)| {
            dom.attr(i, "class")
                .unwrap_or("")
                .split(css_space)
                .any(|c| matches!(c, "g-recaptcha" | "h-captcha" | "cf-turnstile"))
                || dom.has(i, "data-sitekey")
                || (e.local == "iframe"
                    && dom.attr(i, "src").is_some_and(|s| {
                        ["recaptcha", "hcaptcha", "turnstile"]
                            .iter()
                            .any(|w| s.contains(w))
                    }))
        });
        let page_type = if password {
            Some("login")
        } else if dom.elements().any(|(i, e)| {
            (e.local == "input" && type_is(i, "search")) || dom.attr(i, "role") == Some("search")
        }) {
            Some("search")
        } else if dom
            .elements()
            .find(|(_, e)| e.local == "article")
            .is_some_and(|(a, _)| js_len(&self.text_of(a)) > 500)
        {
            // As page.js has it: textOf is cut to 200, so this never holds.
            Some("article")
        } else if forms > 0 {
            Some("form")
        } else {
            None
        };
        let description = dom
            .elements()
            .find(|(i, e)| e.local == "meta" && dom.attr(*i, "name") == Some("description"))
            .map(|(i, _)| clean(dom.attr(i, "content").unwrap_or(""), 200));
        // document.title: the first HTML <title>'s own text, ASCII white space collapsed.
        let title = dom
            .elements()
            .find(|(_, e)| e.ns == Ns::Html && e.local == "title")
            .map(|(t, _)| {
                let own: String = dom.children(t).filter_map(|c| dom.text(c)).collect();
                own.split(css_space)
                    .filter(|w| !w.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        json!({
            "url": url.as_str(),
            "title": title,
            "pageType": page_type,
            "hasLoginForm": password,
            "hasCaptcha": captcha,
            "formCount": forms,
            "description": description,
        })
    }

    /// page.js `snapshot({text})`'s JSON. `names` keeps the controls' names between the two
    /// snapshots; `nodes` collects the numbers named.
    fn snapshot(
        &self,
        text: bool,
        meta: &Value,
        names: &mut HashMap<Ix, (String, Option<&'static str>)>,
        nodes: &mut BTreeMap<u64, String>,
    ) -> Value {
        let dom = self.dom;
        let items = Walk::new(self, text, names).run();
        let mut groups = HashMap::new();
        let name_node = |i: Ix, nodes: &mut BTreeMap<u64, String>| {
            let num = dom.num(i);
            nodes
                .entry(num)
                .or_insert_with(|| dom.elem(i).map(|e| e.local.clone()).unwrap_or_default());
            num
        };
        let mut group_attr = |start: Option<Ix>, nodes: &mut BTreeMap<u64, String>| {
            self.group_of(start, &mut groups)
                .map(|(g, kind)| pair("group", format!("{} {kind}", name_node(g, nodes))))
        };
        // Built as values, not through `json!`, which would copy each nested value again.
        let mut elements = Vec::with_capacity(items.len());
        for it in items {
            let el = it.el;
            let handle = name_node(el, nodes);
            let element = match it.kind {
                ItemKind::Control { role, name, from } => {
                    let mut attributes: Vec<Value> = self
                        .attrs_of(el, role)
                        .into_iter()
                        .filter(|(k, _)| !(from == Some("placeholder") && *k == "placeholder"))
                        .map(|(k, v)| pair(k, v))
                        .collect();
                    if let Some(f) = from {
                        attributes.push(pair("name-from", f.to_string()));
                    }
                    if text && let Some(g) = group_attr(dom.parent_el(el), nodes) {
                        attributes.push(g);
                    }
                    Element {
                        handle,
                        role: role.unwrap_or("generic"),
                        name: clean(&name, NAME_MAX),
                        value: self.value_of(el, role).map_or(Value::Null, Value::String),
                        attributes,
                        states: self.states_of(el),
                        interactive: true,
                        level: Value::from(0),
                    }
                }
                ItemKind::Heading { name } => Element {
                    handle,
                    role: "heading",
                    name,
                    value: Value::Null,
                    attributes: group_attr(dom.parent_el(el), nodes).into_iter().collect(),
                    states: Vec::new(),
                    interactive: false,
                    level: heading_level(dom, el),
                },
                ItemKind::Text { text } => Element {
                    handle,
                    role: "text",
                    name: text,
                    value: Value::Null,
                    attributes: group_attr(Some(el), nodes).into_iter().collect(),
                    states: Vec::new(),
                    interactive: false,
                    level: Value::from(0),
                },
            };
            elements.push(element.into_value());
        }
        let mut out = serde_json::Map::new();
        out.insert("meta".into(), meta.clone());
        out.insert("elements".into(), Value::Array(elements));
        out.insert("overlays".into(), Value::Array(Vec::new()));
        out.insert("frames".into(), Value::Array(Vec::new()));
        out.insert("version".into(), Value::from("static"));
        Value::Object(out)
    }
}

/// An `[key, value]` attribute.
fn pair(key: &str, value: String) -> Value {
    Value::Array(vec![Value::from(key), Value::String(value)])
}

/// One of a snapshot's `elements`, as page.js shapes it (no bounds, no overlay).
struct Element<'a> {
    handle: u64,
    role: &'a str,
    name: String,
    value: Value,
    attributes: Vec<Value>,
    states: Vec<&'static str>,
    interactive: bool,
    level: Value,
}

impl Element<'_> {
    /// The JSON object, keyed as page.js keys it.
    fn into_value(self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("handle".into(), Value::from(self.handle));
        m.insert("role".into(), Value::from(self.role));
        m.insert("name".into(), Value::String(self.name));
        m.insert("value".into(), self.value);
        m.insert("attributes".into(), Value::Array(self.attributes));
        m.insert(
            "states".into(),
            Value::Array(self.states.into_iter().map(Value::from).collect()),
        );
        m.insert("bounds".into(), Value::Null);
        m.insert("interactive".into(), Value::Bool(self.interactive));
        m.insert("level".into(), self.level);
        m.insert("overlay".into(), Value::Null);
        Value::Object(m)
    }
}

/// page.js's heading `level`: `Number(tagName[1]) || Number(aria-level) || 2`.
fn heading_level(dom: &Dom, el: Ix) -> Value {
    let digit = dom
        .elem(el)
        .and_then(|e| e.local.chars().nth(1))
        .and_then(|c| c.to_digit(10))
        .filter(|&d| d > 0);
    if let Some(d) = digit {
        return json!(d);
    }
    let level = dom.attr(el, "aria-level").map_or(f64::NAN, js_number);
    if level.is_nan() || level == 0.0 {
        json!(2)
    } else {
        js_number_json(level)
    }
}

/// Text gathered only as far as `clean(…, max)` reads it: once it holds more than `max` JS
/// characters that are not white space, the rest cannot change what `clean` keeps, and a
/// control wrapping a whole page costs no more than a small one.
struct Prefix {
    text: String,
    words: usize,
    max: usize,
}

impl Prefix {
    fn new(max: usize) -> Self {
        Self {
            text: String::new(),
            words: 0,
            max,
        }
    }

    /// Adds `s` unless enough is held.
    fn push(&mut self, s: &str) {
        if self.full() {
            return;
        }
        self.text.push_str(s);
        self.words += s
            .chars()
            .filter(|&c| !js_space(c))
            .map(char::len_utf16)
            .sum::<usize>();
    }

    fn full(&self) -> bool {
        self.words > self.max
    }
}

/// `el.textContent` as far as `clean(…, max)` reads it, without the subtrees `skip` names.
fn text_prefix(dom: &Dom, el: Ix, max: usize, skip: impl Fn(Ix) -> bool) -> String {
    let mut out = Prefix::new(max);
    let mut j = el + 1;
    while j < dom.end(el) && !out.full() {
        match &dom.nodes[j].kind {
            Kind::Text(t) => out.push(t),
            Kind::Elem(_) if skip(j) => {
                j = dom.end(j);
                continue;
            }
            _ => {}
        }
        j += 1;
    }
    out.text
}

// ----------------------------------------------------------------- forms

/// `(el.getAttribute('type') || 'text').toLowerCase()`.
fn input_type(dom: &Dom, el: Ix) -> String {
    dom.attr(el, "type")
        .filter(|t| !t.is_empty())
        .unwrap_or("text")
        .to_lowercase()
}

/// HTML's labelable elements.
fn labelable(dom: &Dom, i: Ix) -> bool {
    dom.html_in(
        i,
        &[
            "button", "meter", "output", "progress", "select", "textarea",
        ],
    ) || (dom.html(i, "input")
        && !dom
            .attr(i, "type")
            .is_some_and(|t| t.eq_ignore_ascii_case("hidden")))
}

/// Whether a `<script>` runs: JavaScript (classic or module) or an import map; anything else
/// is a data block. A `language` attribute stands in for a missing `type`, as in browsers.
fn runs(dom: &Dom, script: Ix) -> bool {
    #[rustfmt::skip]
    const JS: &[&str] = &[
        "application/ecmascript", "application/javascript", "application/x-ecmascript",
        "application/x-javascript", "text/ecmascript", "text/javascript", "text/javascript1.0",
        "text/javascript1.1", "text/javascript1.2", "text/javascript1.3", "text/javascript1.4",
        "text/javascript1.5", "text/javascript1.6", "text/javascript1.7", "text/jscript",
        "text/livescript", "text/x-ecmascript", "text/x-javascript",
    ];
    let ty = match (dom.attr(script, "type"), dom.attr(script, "language")) {
        (Some(t), _) => t.to_string(),
        (None, Some(l)) if !l.is_empty() => format!("text/{l}"),
        (None, _) => String::new(),
    };
    let ty = ty.trim_matches(css_space).to_ascii_lowercase();
    // Parameters are ignored: a `charset` on a script's type should not hide it.
    let essence = ty.split(';').next().unwrap_or("").trim_matches(css_space);
    ty.is_empty() || has(JS, essence) || ty == "module" || ty == "importmap"
}

/// A `javascript:` URL as a URL parser reads it (leading controls and spaces, and tabs and
/// newlines anywhere, do not count).
fn javascript_url(v: &str) -> bool {
    let s: String = v
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let s = s.trim_start_matches(|c: char| c <= ' ');
    s.get(..11)
        .is_some_and(|p| p.eq_ignore_ascii_case("javascript:"))
}

/// A URL fragment's `%XX` escapes decoded (UTF-8, lossy).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|&c| hex(c)),
                b.get(i + 2).and_then(|&c| hex(c)),
            )
        {
            // Two hex digits make a byte.
            #[allow(clippy::cast_possible_truncation)]
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Each `<input>`'s checkedness once parsed: its `checked` attribute, except that a radio
/// group keeps only its last checked button (each one checked unchecks the others).
fn checkedness(dom: &Dom) -> Vec<bool> {
    let mut checked = vec![false; dom.nodes.len()];
    let mut groups: HashMap<(Option<Ix>, &str), Ix> = HashMap::new();
    for (i, e) in dom.elements() {
        if e.ns != Ns::Html || e.local != "input" || !dom.has(i, "checked") {
            continue;
        }
        checked[i] = true;
        let radio = dom
            .attr(i, "type")
            .is_some_and(|t| t.eq_ignore_ascii_case("radio"));
        if let Some(name) = dom.attr(i, "name").filter(|n| radio && !n.is_empty()) {
            let form = match dom.attr(i, "form") {
                Some(id) => dom.by_id(id).filter(|&f| dom.html(f, "form")),
                None => dom.closest(i, |a| dom.html(a, "form")),
            };
            if let Some(before) = groups.insert((form, name), i) {
                checked[before] = false;
            }
        }
    }
    checked
}

/// A select's options (`el.options`): its option descendants, not those of a nested select
/// or datalist (the relaxed `<select>` parser lets other markup wrap them).
fn options(dom: &Dom, select: Ix) -> Vec<Ix> {
    let mut out = Vec::new();
    let mut j = select + 1;
    while j < dom.end(select) {
        if dom.html(j, "option") {
            out.push(j);
            j = dom.end(j);
        } else if dom.html_in(j, &["select", "datalist"]) {
            j = dom.end(j);
        } else {
            j += 1;
        }
    }
    out
}

/// `option.text`: its text but a script's, ASCII white space stripped and collapsed.
fn option_text(dom: &Dom, o: Ix) -> String {
    let mut text = String::new();
    let mut j = o + 1;
    while j < dom.end(o) {
        if dom.named(j, "script") {
            j = dom.end(j);
            continue;
        }
        if let Some(t) = dom.text(j) {
            text.push_str(t);
        }
        j += 1;
    }
    text.split(css_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `o.label || o.text`.
fn option_label(dom: &Dom, o: Ix) -> String {
    match dom.attr(o, "label").filter(|l| !l.is_empty()) {
        Some(l) => l.to_string(),
        None => option_text(dom, o),
    }
}

/// `selectedOptions` as the page loads: options with `selected` (in a single select, the last
/// of them), else a drop-down's first enabled option.
fn selected(dom: &Dom, select: Ix) -> Vec<Ix> {
    let opts = options(dom, select);
    let chosen: Vec<Ix> = opts
        .iter()
        .copied()
        .filter(|&o| dom.has(o, "selected"))
        .collect();
    if dom.has(select, "multiple") {
        return chosen;
    }
    if let Some(&last) = chosen.last() {
        return vec![last];
    }
    let size = dom.attr(select, "size").and_then(|s| {
        let digits: String = s
            .trim_start_matches(css_space)
            .trim_start_matches('+')
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok()
    });
    if size.is_some_and(|s| s > 1) {
        return Vec::new();
    }
    let enabled = |o: Ix| {
        !dom.has(o, "disabled")
            && !dom
                .parent_el(o)
                .is_some_and(|p| dom.html(p, "optgroup") && dom.has(p, "disabled"))
    };
    opts.into_iter().find(|&o| enabled(o)).into_iter().collect()
}

/// An `<input>`'s `value` as it loads: the `value` attribute after its type's sanitization.
fn input_value(dom: &Dom, el: Ix) -> String {
    let raw = dom.attr(el, "value");
    let v = raw.unwrap_or("");
    let no_newlines = || {
        v.chars()
            .filter(|c| !matches!(c, '\n' | '\r'))
            .collect::<String>()
    };
    match input_type(dom, el).as_str() {
        "checkbox" | "radio" => raw.unwrap_or("on").to_string(),
        "hidden" | "submit" | "reset" | "button" | "image" => v.to_string(),
        "file" => String::new(),
        "url" | "email" => no_newlines().trim_matches(css_space).to_string(),
        "number" => {
            if valid_float(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "range" => range_value(dom, el),
        "color" => {
            let ok =
                v.len() == 7 && v.starts_with('#') && v[1..].bytes().all(|b| b.is_ascii_hexdigit());
            if ok {
                v.to_ascii_lowercase()
            } else {
                "#000000".into()
            }
        }
        "date" => {
            if date_ok(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "month" => {
            if month_ok(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "week" => {
            if week_ok(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "time" => {
            if time_parts(v).is_some() {
                v.to_string()
            } else {
                String::new()
            }
        }
        "datetime-local" => datetime_local(v).unwrap_or_default(),
        _ => no_newlines(),
    }
}

/// HTML's valid floating-point number (no `+`, no trailing `.`).
fn valid_float(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(e) => (&body[..e], Some(&body[e + 1..])),
        None => (body, None),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => (int.is_empty() || digits(int)) && digits(frac),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)))
}

/// An attribute as a valid floating-point number.
fn float_attr(dom: &Dom, el: Ix, name: &str) -> Option<f64> {
    dom.attr(el, name)
        .filter(|v| valid_float(v))
        .and_then(|v| v.parse().ok())
        .filter(|n: &f64| n.is_finite())
}

/// A range input's value: clamped to min..max (0..100 by default), its default the middle,
/// rounded to the step (ties upward).
fn range_value(dom: &Dom, el: Ix) -> String {
    let min = float_attr(dom, el, "min").unwrap_or(0.0);
    let max = float_attr(dom, el, "max").unwrap_or(100.0).max(min);
    let value = float_attr(dom, el, "value")
        .unwrap_or(min + (max - min) / 2.0)
        .clamp(min, max);
    let any = dom
        .attr(el, "step")
        .is_some_and(|s| s.eq_ignore_ascii_case("any"));
    let step = float_attr(dom, el, "step")
        .filter(|s| *s > 0.0)
        .unwrap_or(1.0);
    let base = float_attr(dom, el, "min")
        .or_else(|| float_attr(dom, el, "value"))
        .unwrap_or(0.0);
    let mut v = value;
    if !any {
        v = base + ((value - base) / step + 0.5).floor() * step;
        if v > max {
            v -= step;
        }
        if v < min {
            v += step;
        }
    }
    js_number_string(v)
}

/// Days in a month of the Gregorian calendar.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A run of `len` ASCII digits.
fn number(s: &str, len: std::ops::RangeInclusive<usize>) -> Option<u32> {
    (len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A valid month string's year and month.
fn year_month(s: &str) -> Option<(u32, u32)> {
    let (y, m) = s.split_once('-')?;
    let (y, m) = (number(y, 4..=6)?, number(m, 2..=2)?);
    (y > 0 && (1..=12).contains(&m)).then_some((y, m))
}

/// A valid date string (`YYYY-MM-DD`).
fn date_ok(s: &str) -> bool {
    s.rsplit_once('-').is_some_and(|(ym, d)| {
        year_month(ym)
            .zip(number(d, 2..=2))
            .is_some_and(|((y, m), d)| d >= 1 && d <= days_in_month(y, m))
    })
}

/// A valid month string (`YYYY-MM`).
fn month_ok(s: &str) -> bool {
    year_month(s).is_some()
}

/// A valid week string (`YYYY-Www`).
fn week_ok(s: &str) -> bool {
    let Some((y, w)) = s.split_once("-W") else {
        return false;
    };
    let (Some(y), Some(w)) = (number(y, 4..=6), number(w, 2..=2)) else {
        return false;
    };
    // A year has 53 weeks when it starts on a Thursday, or on a Wednesday in a leap year.
    // Jan 1's weekday, 0 for Sunday (Gregorian calendar).
    let p = y.saturating_sub(1);
    let jan1 = (1 + 5 * (p % 4) + 4 * (p % 100) + 6 * (p % 400)) % 7;
    let weeks = if jan1 == 4 || (jan1 == 3 && days_in_month(y, 2) == 29) {
        53
    } else {
        52
    };
    y > 0 && w >= 1 && w <= weeks
}

/// A valid time string's hours, minutes, seconds and milliseconds.
fn time_parts(s: &str) -> Option<(u32, u32, u32, u32)> {
    let mut it = s.splitn(3, ':');
    let h = number(it.next()?, 2..=2)?;
    let m = number(it.next()?, 2..=2)?;
    let (sec, ms) = match it.next() {
        None => (0, 0),
        Some(rest) => {
            let (sec, frac) = rest.split_once('.').unwrap_or((rest, ""));
            let sec = number(sec, 2..=2)?;
            let ms = if rest.contains('.') {
                let f = number(frac, 1..=3)?;
                f * 10u32.pow(3 - u32::try_from(frac.len()).ok()?)
            } else {
                0
            };
            (sec, ms)
        }
    };
    (h < 24 && m < 60 && sec < 60).then_some((h, m, sec, ms))
}

/// A datetime-local value normalized as Chromium keeps it (`T`, shortest time).
fn datetime_local(s: &str) -> Option<String> {
    let at = s.find(['T', ' '])?;
    let (date, time) = (&s[..at], &s[at + 1..]);
    if !date_ok(date) {
        return None;
    }
    let (h, m, sec, ms) = time_parts(time)?;
    Some(match (sec, ms) {
        (0, 0) => format!("{date}T{h:02}:{m:02}"),
        (_, 0) => format!("{date}T{h:02}:{m:02}:{sec:02}"),
        _ => format!("{date}T{h:02}:{m:02}:{sec:02}.{ms:03}"),
    })
}

// ----------------------------------------------------------------- the walk

/// One of the snapshot's items, in reading order.
struct Item<'d> {
    id: usize,
    /// The control or heading; for text, the parent element of its first text node.
    el: Ix,
    kind: ItemKind<'d>,
}

/// A control (its role, name and where an inferred name came from), a heading, or a text run.
enum ItemKind<'d> {
    Control {
        role: Option<&'d str>,
        name: String,
        from: Option<&'static str>,
    },
    Heading {
        name: String,
    },
    Text {
        text: String,
    },
}

/// What page.js's `visit` passes to an element's children (`ctx`).
#[derive(Clone, Copy)]
struct Ctx {
    text: bool,
    in_control: bool,
    /// The declared container (a focusable list) whose items are its choices.
    container: Option<Ix>,
}

/// An element being walked: what page.js's `visit` keeps between its children.
struct Frame {
    el: Ix,
    next: Option<Ix>,
    inner: Ctx,
    /// Its text nodes are read (`inner.text && inner.visible`).
    reads: bool,
    closed: bool,
    block: bool,
    interactive: bool,
    guessed: bool,
    inline_block: bool,
    /// A box-like control's item and the count of controls just after it was listed.
    container: Option<(usize, usize)>,
}

/// page.js `walk`, with an explicit stack so deep documents cannot exhaust the thread's.
struct Walk<'p, 'd> {
    page: &'p Page<'d>,
    text: bool,
    names: &'p mut HashMap<Ix, (String, Option<&'static str>)>,
    items: Vec<Item<'d>>,
    /// The controls listed: their items and elements.
    controls: Vec<(usize, Ix)>,
    /// The text run being read: its parts joined, and its first text node's parent.
    current: Option<(String, Ix)>,
    serial: usize,
}

impl<'p, 'd> Walk<'p, 'd> {
    /// A walk in text mode (`text`) or not.
    fn new(
        page: &'p Page<'d>,
        text: bool,
        names: &'p mut HashMap<Ix, (String, Option<&'static str>)>,
    ) -> Self {
        Self {
            page,
            text,
            names,
            items: Vec::new(),
            controls: Vec::new(),
            current: None,
            serial: 0,
        }
    }

    /// The items of the document's body, in reading order.
    fn run(mut self) -> Vec<Item<'d>> {
        let dom = self.page.dom;
        let mut stack: Vec<Frame> = Vec::new();
        if let Some(body) = dom.body
            && let Some(f) = self.enter(
                body,
                Ctx {
                    text: self.text,
                    in_control: false,
                    container: None,
                },
            )
        {
            stack.push(f);
        }
        while let Some(top) = stack.last_mut() {
            let Some(c) = top.next else {
                if let Some(f) = stack.pop() {
                    self.exit(f);
                }
                continue;
            };
            top.next = dom.nodes[c].next;
            let (closed, inner, reads) = (top.closed, top.inner, top.reads);
            // A closed <details> shows its summary only.
            if closed && !dom.html(c, "summary") {
                continue;
            }
            if dom.elem(c).is_some() {
                if let Some(f) = self.enter(c, inner) {
                    stack.push(f);
                }
            } else if reads {
                self.add_text(c);
            }
        }
        self.flush();
        self.items
    }

    /// page.js `flush`: the run read so far becomes an item, if it has words.
    fn flush(&mut self) {
        let Some((parts, el)) = self.current.take() else {
            return;
        };
        let cleaned = clean(&parts, 4000);
        let mut s = cleaned.as_str();
        if let Some(rest) = s.strip_prefix('|') {
            s = rest.trim_start_matches(js_space);
        }
        if let Some(rest) = s.strip_suffix('|') {
            s = rest.trim_end_matches(js_space);
        }
        let text = js_trim(s);
        if !text.is_empty() {
            self.push(
                el,
                ItemKind::Text {
                    text: text.to_string(),
                },
            );
        }
    }

    /// Lists an item; its id.
    fn push(&mut self, el: Ix, kind: ItemKind<'d>) -> usize {
        let id = self.serial;
        self.serial += 1;
        self.items.push(Item { id, el, kind });
        id
    }

    /// page.js `addText`: a run starts only with words.
    fn add_text(&mut self, node: Ix) {
        let dom = self.page.dom;
        let Some(data) = dom.text(node) else { return };
        if self.current.is_none() {
            if js_trim(data).is_empty() {
                return;
            }
            let Some(parent) = dom.parent_el(node) else {
                return;
            };
            self.current = Some((String::new(), parent));
        }
        if let Some((parts, _)) = &mut self.current {
            parts.push_str(data);
        }
    }

    /// Adds to the run being read, if any.
    fn push_part(&mut self, s: &str) {
        if let Some((parts, _)) = &mut self.current {
            parts.push_str(s);
        }
    }

    /// page.js `clickable` without listeners: an item of a focusable list, or the outermost
    /// element of an inline `cursor: pointer` area that holds no real control.
    fn clickable(&self, el: Ix, ctx: Ctx) -> bool {
        let page = self.page;
        let dom = page.dom;
        if Some(el) == dom.body || dom.parent(el) == Some(0) {
            return false;
        }
        if ctx.container.is_some() && ctx.container == dom.parent_el(el) && dom.html(el, "li") {
            return true;
        }
        if dom.html(el, "label") && page.control.contains_key(&el) {
            return false;
        }
        if !page.pointer[el] || dom.parent_el(el).is_some_and(|p| page.pointer[p]) {
            return false;
        }
        let control = |j: Ix| {
            ["button", "input", "select", "textarea"]
                .iter()
                .any(|t| dom.named(j, t))
                || (dom.named(j, "a") && dom.has(j, "href"))
                || matches!(
                    dom.attr(j, "role"),
                    Some("button" | "link" | "checkbox" | "tab" | "menuitem" | "option")
                )
        };
        !(el + 1..dom.end(el)).any(|j| dom.elem(j).is_some() && control(j))
    }

    /// `visit` up to its children.
    fn enter(&mut self, el: Ix, ctx: Ctx) -> Option<Frame> {
        let page = self.page;
        let dom = page.dom;
        if dom.html_in(el, SKIP) {
            return None;
        }
        let role = page.role_of(el);
        let declared = page.is_interactive(el, role);
        // Clickable by its pointer only: it may be a box of controls, so like a container it
        // stays only if none is in it.
        let guessed = !declared && !ctx.in_control && self.clickable(el, ctx);
        let interactive = declared || guessed;
        let declared_container = declared && page.is_container(el, role);
        let box_like = guessed || declared_container;
        let display = page.display[el];
        if display == Disp::None && !(interactive && page.hidden_but_labelled(el)) {
            return None;
        }
        let cell = display == Disp::Cell;
        let block = !cell && !display.inline();
        let no_text = dom.html_in(el, NO_TEXT)
            || dom.elem(el).is_some_and(|e| {
                (e.ns == Ns::Svg && e.local == "svg") || (e.ns == Ns::Math && e.local == "math")
            });
        let text_here = ctx.text
            && !no_text
            && dom.attr(el, "aria-hidden") != Some("true")
            && !page.faded[el]
            && !page.cv_hidden[el]
            && !page.clipped[el];
        if cell && self.current.is_some() {
            self.push_part(" | ");
        } else if block || dom.html(el, "br") {
            self.flush();
        } else if display == Disp::InlineBlock {
            self.push_part(" ");
        }
        let mut inner = Ctx {
            text: text_here,
            in_control: ctx.in_control,
            container: None,
        };
        let mut container = None;
        if interactive {
            self.flush();
            if page.visible(el) || page.hidden_but_labelled(el) {
                let (name, from) = self
                    .names
                    .entry(el)
                    .or_insert_with(|| page.name_and_source(el, role))
                    .clone();
                let id = self.push(el, ItemKind::Control { role, name, from });
                self.controls.push((id, el));
                if box_like {
                    container = Some((id, self.controls.len()));
                }
            }
            // Its text is its name; only a long one (a clickable card) is read as text too.
            // Inside a container, what is clickable is its own control. A guessed one is read
            // as usual until it is known to be a control (at its end).
            inner = Ctx {
                text: text_here && (guessed || dom.text_longer(el, 150)),
                in_control: ctx.in_control || !box_like,
                container: declared_container.then_some(el),
            };
        } else if role == Some("heading") {
            self.flush();
            if text_here && page.visible(el) {
                let name = page.name_of(el, role);
                if !name.is_empty() {
                    self.push(el, ItemKind::Heading { name });
                }
            }
            inner.text = false;
        } else if dom.html(el, "label") && page.control.contains_key(&el) {
            // A label's words are its control's name.
            inner.text = false;
        }
        Some(Frame {
            el,
            next: dom.nodes[el].first,
            inner,
            reads: inner.text && page.vis[el],
            closed: dom.html(el, "details") && !page.open[el],
            block,
            interactive,
            guessed,
            inline_block: display == Disp::InlineBlock,
            container,
        })
    }

    /// `visit` after its children.
    fn exit(&mut self, f: Frame) {
        if f.block || f.interactive {
            self.flush();
        } else if f.inline_block {
            self.push_part(" ");
        }
        let Some((id, count)) = f.container else {
            return;
        };
        let page = self.page;
        let wraps = self.controls.len() > count;
        // A clickable box around controls is theirs, not one of its own; unless they are
        // icons without words, when the box's words are its own action.
        let icons_only = || {
            f.guessed
                && self
                    .items
                    .iter()
                    .rev()
                    .find(|it| it.id == id)
                    .is_some_and(|it| match &it.kind {
                        ItemKind::Control { name, .. } => !name.is_empty(),
                        _ => false,
                    })
                && self
                    .controls
                    .iter()
                    .skip(count)
                    .all(|&(_, c)| page.text_of(c).is_empty())
        };
        if wraps && !icons_only() {
            if let Some(at) = self.items.iter().rposition(|it| it.id == id) {
                self.items.remove(at);
            }
            if let Some(at) = count.checked_sub(1).filter(|&at| at < self.controls.len()) {
                self.controls.remove(at);
            }
        } else if !wraps && f.guessed && !page.dom.text_longer(f.el, 150) {
            // A control after all: its words are its name, not text of their own.
            if let Some(at) = self.items.iter().rposition(|it| it.id == id) {
                self.items.truncate(at + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> url::Url {
        url::Url::parse("https://docs.example.test/guide/start.html").expect("url")
    }

    fn parsed(html: &str) -> Parsed {
        parse(html, &url()).expect("a static page")
    }

    fn elements(snapshot: &Value) -> &[Value] {
        snapshot["elements"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The element of `role` named `name`.
    fn find<'a>(snapshot: &'a Value, role: &str, name: &str) -> &'a Value {
        elements(snapshot)
            .iter()
            .find(|e| e["role"] == role && e["name"] == name)
            .unwrap_or_else(|| panic!("no {role} {name:?} in {:#}", snapshot["elements"]))
    }

    fn attr<'a>(e: &'a Value, key: &str) -> Option<&'a str> {
        e["attributes"]
            .as_array()?
            .iter()
            .find(|kv| kv[0] == key)
            .and_then(|kv| kv[1].as_str())
    }

    fn states(e: &Value) -> Vec<&str> {
        e["states"]
            .as_array()
            .map(|s| s.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    fn handle(e: &Value) -> u64 {
        e["handle"].as_u64().expect("a handle")
    }

    /// Five links, so a page is not turned away for having too few controls.
    const LINKS: &str = r#"<p><a href="/1">One</a> <a href="/2">Two</a> <a href="/3">Three</a> <a href="/4">Four</a> <a href="/5">Five</a></p>"#;

    fn page_with(head: &str, body: &str) -> String {
        format!(
            "<!DOCTYPE html><html><head><title>T</title>{head}</head><body>{LINKS}{body}</body></html>"
        )
    }

    /// A documentation site's page, as sites write them: a fixed sidebar of links in divs,
    /// breadcrumbs, a search form whose field is named only by the words before it, a long
    /// options table, a preferences form, details, a hidden mobile menu.
    fn docs_page() -> String {
        let rows: String = (1..=30)
            .map(|i| {
                format!(
                    "<tr><td><code>opt{i}</code></td><td>{}</td><td>Option number {i}.</td></tr>\n",
                    i * 10
                )
            })
            .collect();
        format!(
            r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>  Getting started —
  Widget Docs </title>
<meta name="description" content="How to install   and configure Widget.">
<link rel="stylesheet" href="/static/docs.css">
<script type="application/ld+json">{{"@context":"https://schema.org","@type":"TechArticle"}}</script>
</head>
<body>
<div class="topbar">
  <a class="logo" href="/">Widget</a>
  <a class="icon-search" href="/search"></a>
  <button class="menu-toggle" aria-label="Open menu">&#9776;</button>
  <nav class="mobile-menu" hidden><a href="/m/guide">Guide</a><a href="/m/api">API</a></nav>
</div>
<div class="sidebar" style="position: fixed; top: 0">
  <div class="sidebar-section"><div class="sidebar-title">Guides</div>
    <div class="sidebar-item"><a href="/docs/install">Install</a></div>
    <div class="sidebar-item"><a href="/docs/config" target="_blank">Configure</a></div>
    <div class="sidebar-item" style="color: red; DISPLAY : None !important"><a href="/docs/old">Old page</a></div>
  </div>
</div>
<main>
  <div class="breadcrumbs"><a href="/">Home</a> / <a href="/docs">Docs</a> / <span>Getting started</span></div>
  <h1>Getting started</h1>
  <p>Widget is a <b>small</b> library. Read the <a href="/docs/faq">FAQ</a> first.</p>
  <form class="search" action="/search" method="get">
    <span>Search docs</span> <input name="q" type="search" autofocus>
    <button type="submit">Go</button>
  </form>
  <h2 id="opts-h">Options</h2>
  <table class="options">
    <thead><tr><th>Name</th><th>Default</th><th>Meaning</th></tr></thead>
    <tbody>
{rows}    </tbody>
  </table>
  <form action="/prefs" method="post">
    <input type="checkbox" name="news" id="news" checked> Send me the newsletter<br>
    <label><input type="checkbox" name="terms"> I agree</label>
    <label for="lang">Language</label>
    <select id="lang" name="lang"><option value="en">English</option><option value="fr" selected>Français</option><option value="de">Deutsch</option></select>
    <span id="mail-l">Email</span><span id="mail-hint" hidden>for receipts</span>
    <input type="email" name="mail" aria-labelledby="mail-l mail-hint" value=" me@example.test " required>
    <textarea name="notes">
Hello   world</textarea>
    <fieldset disabled><legend>Legacy <input type="checkbox" name="legacy-ok"></legend><input type="text" name="legacy" placeholder="Legacy key"></fieldset>
    <div role="radiogroup" aria-labelledby="opts-h"><input type="radio" name="size" value="s" checked> Small <input type="radio" name="size" value="l" checked> Large</div>
    <p style="display:none">Only for print <a href="/print">Print</a></p>
    <p aria-hidden="true">Decoration <a href="/deco">Deco</a></p>
  </form>
  <details><summary>Advanced</summary><p>Hidden text</p><a href="/adv">Advanced link</a></details>
  <details open><summary>Troubleshooting</summary><p>Try again.</p></details>
  <ul class="results"><li><a href="/r/1">Result one</a> <span>2 days ago</span></li></ul>
</main>
</body></html>
"#
        )
    }

    #[test]
    fn a_docs_page_reads_as_page_js_reads_it() {
        let page = parsed(&docs_page());
        let snap = &page.with_text;
        assert_eq!(snap["version"], "static");
        assert_eq!(snap["overlays"], json!([]));
        assert_eq!(snap["frames"], json!([]));
        let meta = &snap["meta"];
        assert_eq!(meta["url"], "https://docs.example.test/guide/start.html");
        assert_eq!(meta["title"], "Getting started — Widget Docs");
        assert_eq!(meta["description"], "How to install and configure Widget.");
        assert_eq!(meta["pageType"], "search");
        assert_eq!(meta["formCount"], 2);
        assert_eq!(meta["hasLoginForm"], false);
        assert_eq!(meta["hasCaptcha"], false);

        // By hand: html 1, head 2, meta 3, title 4, meta 5, link 6, script 7, body 8,
        // div.topbar 9, a 10, a 11, button 12, nav 13, a 14, a 15, div.sidebar 16,
        // div.sidebar-section 17, div.sidebar-title 18, div 19, a 20, div 21, a 22, div 23,
        // a 24, main 25, div.breadcrumbs 26, a 27, a 28, span 29, h1 30.
        let h1 = find(snap, "heading", "Getting started");
        assert_eq!(handle(h1), 30);
        assert_eq!(h1["level"], 1);
        assert_eq!(find(snap, "heading", "Options")["level"], 2);
        assert_eq!(handle(find(snap, "link", "Widget")), 10);
        assert!(page.nodes.contains(&(30, "h1".to_string())));

        // The sidebar's links, each in its card-like item; the hidden one is not listed.
        let install = find(snap, "link", "Install");
        assert_eq!(handle(install), 20);
        assert_eq!(attr(install, "href"), Some("/docs/install"));
        assert_eq!(attr(install, "group"), Some("19 card"));
        assert_eq!(
            attr(find(snap, "link", "Configure"), "target"),
            Some("_blank")
        );
        for hidden in [
            "Old page",
            "Guide",
            "API",
            "Print",
            "Advanced link",
            "Hidden text",
            "Only for print",
        ] {
            assert!(
                !elements(snap).iter().any(|e| e["name"] == hidden),
                "{hidden} is hidden"
            );
        }
        // Icon-only: the class says what it does.
        let search = find(snap, "link", "search");
        assert_eq!(attr(search, "name-from"), Some("icon"));
        assert_eq!(find(snap, "button", "Open menu")["value"], Value::Null);

        // Breadcrumbs: links and the words between them, in reading order.
        let names: Vec<&str> = elements(snap)
            .iter()
            .filter_map(|e| e["name"].as_str())
            .collect();
        let crumbs = names.iter().position(|n| *n == "Home").expect("crumbs");
        assert_eq!(
            &names[crumbs..crumbs + 5],
            ["Home", "/", "Docs", "/ Getting started", "Getting started"]
        );
        assert_eq!(handle(find(snap, "text", "/ Getting started")), 26);
        assert!(names.contains(&"Widget is a small library. Read the"));

        // The search field has no label: the words before it name it, and stay text too.
        let q = find(snap, "searchbox", "Search docs");
        assert_eq!(attr(q, "name-from"), Some("text"));
        assert_eq!(q["value"], "");
        assert_eq!(states(q), ["focused"]);
        assert_eq!(q["bounds"], Value::Null);
        assert_eq!(q["overlay"], Value::Null);
        assert_eq!(q["interactive"], true);
        find(snap, "text", "Search docs");

        // The long table: one run per row, cells parted by " | ", each in its row's group.
        let header = find(snap, "text", "Name | Default | Meaning");
        let row = find(snap, "text", "opt7 | 70 | Option number 7.");
        let tr = attr(row, "group").expect("a row group");
        assert!(tr.ends_with(" row"), "{tr}");
        let tr_num: u64 = tr
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a number");
        assert_eq!(
            page.nodes
                .iter()
                .find(|(n, _)| *n == tr_num)
                .map(|(_, name)| name.as_str()),
            Some("tr")
        );
        assert_ne!(attr(header, "group"), Some(tr));
        assert_eq!(
            elements(snap)
                .iter()
                .filter(|e| e["name"].as_str().is_some_and(|n| n.starts_with("opt")))
                .count(),
            30
        );

        // Check boxes named by the words after them; a <label> names its own.
        let news = find(snap, "checkbox", "Send me the newsletter");
        assert_eq!(states(news), ["checked"]);
        assert_eq!(attr(news, "name-from"), Some("text"));
        let terms = find(snap, "checkbox", "I agree");
        assert!(states(terms).is_empty());
        assert_eq!(attr(terms, "name-from"), None);
        assert!(
            !names.contains(&"I agree") || names.iter().filter(|n| **n == "I agree").count() == 1
        );

        // label[for], a selected option.
        let lang = find(snap, "combobox", "Language");
        assert_eq!(lang["value"], "Français");
        assert_eq!(attr(lang, "options"), Some("English | Français | Deutsch"));
        assert!(
            !names.contains(&"Language") || names.iter().filter(|n| **n == "Language").count() == 1
        );

        // aria-labelledby: a hidden element's words count (innerText of what is not laid out
        // is its textContent).
        let mail = find(snap, "textbox", "Email for receipts");
        assert_eq!(attr(mail, "type"), Some("email"));
        assert_eq!(mail["value"], "me@example.test");
        assert_eq!(states(mail), ["required"]);

        let notes = find(snap, "textbox", "notes");
        assert_eq!(notes["value"], "Hello world");
        assert_eq!(attr(notes, "multiline"), Some("true"));
        assert_eq!(attr(notes, "name-from"), Some("name"));

        // A disabled fieldset disables its fields, but not those in its first legend.
        let legacy = find(snap, "textbox", "Legacy key");
        assert_eq!(states(legacy), ["disabled"]);
        assert_eq!(attr(legacy, "name-from"), Some("placeholder"));
        assert_eq!(attr(legacy, "placeholder"), None);
        assert!(states(find(snap, "checkbox", "Legacy")).is_empty());

        // A radio group keeps its last checked button.
        assert!(states(find(snap, "radio", "Small")).is_empty());
        assert_eq!(states(find(snap, "radio", "Large")), ["checked"]);

        // aria-hidden text is not read; its controls are.
        assert!(!names.contains(&"Decoration"));
        find(snap, "link", "Deco");

        // details: a closed one shows its summary; an open one's summary is expanded.
        let advanced = find(snap, "button", "Advanced");
        assert!(states(advanced).is_empty());
        assert!(attr(advanced, "group").is_some_and(|g| g.ends_with(" section")));
        assert_eq!(
            states(find(snap, "button", "Troubleshooting")),
            ["expanded"]
        );
        find(snap, "text", "Try again.");

        let result = find(snap, "link", "Result one");
        let ago = find(snap, "text", "2 days ago");
        assert!(attr(result, "group").is_some_and(|g| g.ends_with(" item")));
        assert_eq!(attr(result, "group"), attr(ago, "group"));

        // Every number named is listed with its element's name.
        for e in elements(snap) {
            assert!(page.nodes.iter().any(|(n, _)| *n == handle(e)));
        }
    }

    #[test]
    fn the_interactive_snapshot_lists_the_same_controls_without_text() {
        let page = parsed(&docs_page());
        let controls: Vec<&Value> = elements(&page.with_text)
            .iter()
            .filter(|e| e["interactive"] == true)
            .collect();
        let listed = elements(&page.interactive);
        assert_eq!(listed.len(), controls.len());
        for (a, b) in listed.iter().zip(controls) {
            assert_eq!(a["handle"], b["handle"]);
            assert_eq!(a["name"], b["name"]);
            assert_eq!(a["value"], b["value"]);
            assert_eq!(a["states"], b["states"]);
            assert_eq!(attr(a, "group"), None);
            assert!(a["role"] != "text" && a["role"] != "heading");
        }
        assert_eq!(page.interactive["meta"], page.with_text["meta"]);
    }

    #[test]
    fn node_numbers_count_every_element_but_template_content_and_noscript_text() {
        let html = r#"<!DOCTYPE html><html><head><title>T</title>
<noscript><img src="/pixel.gif"><style>p{}</style></noscript>
<template><div><a href="/t">In a template</a></div></template>
</head><body>
<svg class="logo"><g><path d="M0 0"/></g></svg>
<noscript><p><a href="/js">Enable JS</a></p></noscript>
<p><a href="/1">One</a> <a href="/2">Two</a> <a href="/3">Three</a> <a href="/4">Four</a> <a href="/5">Five</a></p>
</body></html>"#;
        // html 1, head 2, title 3, noscript 4, template 5, body 6, svg 7, g 8, path 9,
        // noscript 10, p 11, a 12…16.
        let page = parsed(html);
        let snap = &page.with_text;
        assert_eq!(handle(find(snap, "link", "One")), 12);
        assert_eq!(handle(find(snap, "link", "Five")), 16);
        assert!(
            !elements(snap)
                .iter()
                .any(|e| e["name"] == "Enable JS" || e["name"] == "In a template")
        );
        assert_eq!(
            page.nodes,
            [
                (12, "a".into()),
                (13, "a".into()),
                (14, "a".into()),
                (15, "a".into()),
                (16, "a".into())
            ]
        );
    }

    #[test]
    fn noscript_after_head_opens_the_body_as_chromium_does() {
        let html = format!(
            "<html><head><title>T</title></head><noscript><img src=x></noscript><body class=b>{LINKS}</body></html>"
        );
        // html 1, head 2, title 3, body 4, noscript 5, p 6, a 7.
        assert_eq!(handle(find(&parsed(&html).with_text, "link", "One")), 7);
    }

    #[test]
    fn pages_that_need_the_browser_say_why() {
        let cases: &[(&str, &str, NeedsBrowser)] = &[
            (
                "",
                "<script>document.title = 'x'</script>",
                NeedsBrowser::Script,
            ),
            ("<script src=/app.js></script>", "", NeedsBrowser::Script),
            (
                "",
                "<script type=module>import './a.js'</script>",
                NeedsBrowser::Script,
            ),
            (
                "",
                "<script type=' Text/JavaScript; charset=utf-8'>1</script>",
                NeedsBrowser::Script,
            ),
            (
                "",
                "<script type=importmap>{}</script>",
                NeedsBrowser::Script,
            ),
            (
                "",
                "<svg><script>alert(1)</script></svg>",
                NeedsBrowser::Script,
            ),
            (
                "",
                "<button onclick=\"go()\">Go</button>",
                NeedsBrowser::InlineHandler,
            ),
            ("", "<body onload=init()>", NeedsBrowser::InlineHandler),
            (
                "",
                "<a href=' JavaScript:void(0)'>Menu</a>",
                NeedsBrowser::InlineHandler,
            ),
            (
                "",
                "<a href='java\tscript:go()'>Menu</a>",
                NeedsBrowser::InlineHandler,
            ),
            (
                "",
                "<form action='javascript:send()'></form>",
                NeedsBrowser::InlineHandler,
            ),
            (
                "",
                "<svg><a xlink:href='javascript:x()'><text>x</text></a></svg>",
                NeedsBrowser::InlineHandler,
            ),
            ("", "<iframe src=/embed></iframe>", NeedsBrowser::Frames),
            ("", "<object data=/x.pdf></object>", NeedsBrowser::Frames),
            (
                "<meta http-equiv=Refresh content='5; url=/next'>",
                "",
                NeedsBrowser::Refresh,
            ),
            ("", "<my-app></my-app>", NeedsBrowser::CustomElements),
            (
                "",
                "<dialog open><p>Accept cookies?</p></dialog>",
                NeedsBrowser::Modal,
            ),
            (
                "",
                "<div role=dialog aria-modal=true>Sign up</div>",
                NeedsBrowser::Modal,
            ),
            // Scripts come first, whatever else the page has.
            (
                "<script>1</script>",
                "<iframe></iframe><x-y></x-y>",
                NeedsBrowser::Script,
            ),
        ];
        for (head, body, why) in cases {
            assert_eq!(
                parse(&page_with(head, body), &url()).as_ref().err(),
                Some(why),
                "{head} {body}"
            );
        }
        assert_eq!(NeedsBrowser::Script.to_string(), "it runs scripts");
        assert_eq!(
            NeedsBrowser::TooFewControls(2).to_string(),
            "it has only 2 controls"
        );
    }

    #[test]
    fn data_blocks_hidden_dialogs_and_svg_names_do_not_need_the_browser() {
        let ok = [
            (
                "<script type=\"application/ld+json\">{\"@type\":\"Article\"}</script>",
                "",
            ),
            (
                "<script type=text/template><div onclick=x()></div></script>",
                "",
            ),
            ("<script language=vbscript>x</script>", ""),
            (
                "",
                "<dialog><p>Later</p></dialog><div role=dialog hidden>Later</div>",
            ),
            (
                "",
                "<div style='display:none'><div role=alertdialog>x</div></div>",
            ),
            (
                "",
                "<svg><font-face></font-face><foreignObject><p>x</p></foreignObject></svg>",
            ),
            (
                "",
                "<template><script>1</script><x-y onclick=z()></x-y></template>",
            ),
            (
                "",
                "<noscript><iframe src=/x></iframe><script>1</script></noscript>",
            ),
            ("", "<a href='/javascript:intro'>Intro</a>"),
        ];
        for (head, body) in ok {
            assert!(
                parse(&page_with(head, body), &url()).is_ok(),
                "{head} {body}"
            );
        }
    }

    #[test]
    fn a_page_with_few_controls_is_an_app_shell() {
        let html = "<html><body><div id=root><a href=/login>Log in</a><button>Menu</button></div><p>Loading…</p></body></html>";
        assert_eq!(
            parse(html, &url()).err(),
            Some(NeedsBrowser::TooFewControls(2))
        );
        assert_eq!(
            parse("", &url()).err(),
            Some(NeedsBrowser::TooFewControls(0))
        );
    }

    #[test]
    fn five_thousand_nested_divs_do_not_exhaust_the_stack() {
        let depth = 5000;
        let html = format!(
            "<html><body>{}<span>Deep</span>{LINKS}{}</body></html>",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        let run = move || parse(&html, &url());
        // A thread with a small stack: nothing may recurse per level.
        let page = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(run)
            .expect("thread")
            .join()
            .expect("no overflow");
        let page = page.expect("a static page");
        find(&page.with_text, "text", "Deep");
        // html 1, head 2, body 3, the divs, span, p, a.
        assert_eq!(
            handle(find(&page.with_text, "link", "One")),
            3 + depth as u64 + 3
        );
    }

    #[test]
    fn a_one_megabyte_doc_page_parses_quickly() {
        let mut html = String::from(
            "<!DOCTYPE html><html><head><title>Reference</title></head><body><nav class=sidebar>",
        );
        for i in 0..300 {
            html.push_str(&format!(
                "<div class=nav-item><a href=\"/ref/{i}\">Item {i}</a></div>\n"
            ));
        }
        html.push_str("</nav><main>");
        let mut section = 0;
        while html.len() < 1_000_000 {
            html.push_str(&format!(
                "<section id=s{section}><h2>Section {section}</h2><p>Some <em>prose</em> about <a href=\"#s{section}\">this</a> and <code>that()</code>, long enough to be a paragraph of a real page.</p>\
                 <pre><code>fn main() {{ println!(\"{section}\"); }}</code></pre>\
                 <table><tr><th>Arg</th><th>Type</th></tr><tr><td>x</td><td>u32</td></tr><tr><td>y</td><td>&amp;str</td></tr></table>\
                 <ul><li>one</li><li>two <input type=checkbox> three</li></ul></section>\n"
            ));
            section += 1;
        }
        html.push_str("</main></body></html>");
        let started = std::time::Instant::now();
        let page = parsed(&html);
        let took = started.elapsed();
        println!(
            "parse() of a {} byte doc page ({} sections, {} text elements): {took:?}",
            html.len(),
            section,
            elements(&page.with_text).len()
        );
        assert!(elements(&page.interactive).len() > 300);
    }

    #[test]
    fn headings_groups_and_runs_follow_page_js() {
        let body = r#"
<div role=heading aria-level=3>Release notes</div>
<article class=post><h3>Post title</h3><p>First line<br>second line</p></article>
<div class="product-card"><span>Teapot</span> <button>Add to cart</button></div>
<div role=row><span>Cell A</span></div>
<details open><summary><section><span>Inside summary</span></section></summary><p>Body</p></details>
<p>Remember me <input type=checkbox name=remember></p>
<p>Email: <input type=text name=e></p>
"#;
        let snap = parsed(&page_with("", body)).with_text;
        assert_eq!(find(&snap, "heading", "Release notes")["level"], 3);
        let post = find(&snap, "heading", "Post title");
        assert_eq!(post["level"], 3);
        assert!(attr(post, "group").is_some_and(|g| g.ends_with(" article")));
        // A <br> ends a run.
        find(&snap, "text", "First line");
        find(&snap, "text", "second line");
        let teapot = find(&snap, "text", "Teapot");
        assert!(attr(teapot, "group").is_some_and(|g| g.ends_with(" card")));
        assert_eq!(
            attr(find(&snap, "button", "Add to cart"), "group"),
            attr(teapot, "group")
        );
        assert!(attr(find(&snap, "text", "Cell A"), "group").is_some_and(|g| g.ends_with(" row")));
        // A section inside a summary is part of the control: the context is the details'.
        let summary = find(&snap, "button", "Inside summary");
        assert_eq!(
            attr(summary, "group"),
            attr(find(&snap, "text", "Body"), "group")
        );
        // Nothing after it: the words before a check box name it; a colon stays.
        assert_eq!(
            attr(find(&snap, "checkbox", "Remember me"), "name-from"),
            Some("text")
        );
        assert_eq!(
            attr(find(&snap, "textbox", "Email:"), "name-from"),
            Some("text")
        );
    }

    #[test]
    fn clean_counts_as_js_does() {
        assert_eq!(clean("  a\u{a0}\u{a0}b\u{2003}\n c  ", 100), "a b c");
        assert_eq!(clean("abcdef", 4), "abc…");
        assert_eq!(clean("abcd", 4), "abcd");
        // An emoji is two JS characters; one astride the cut is dropped.
        assert_eq!(clean("ab😀cd", 4), "ab…");
        assert_eq!(clean("a😀cdef", 4), "a😀…");
        assert_eq!(js_number(" 0 "), 0.0);
        assert_eq!(js_number(""), 0.0);
        assert_eq!(js_number("-1"), -1.0);
        assert_eq!(js_number("0x10"), 16.0);
        assert!(js_number("1px").is_nan());
        assert!(js_number("inf").is_nan());
    }

    #[test]
    fn form_fields_load_with_the_values_a_browser_gives_them() {
        let body = r##"
<form>
<select name=a><option disabled>Pick one</option><option>Red</option><option>Blue</option></select>
<select name=b size=3><option>Red</option><option>Blue</option></select>
<select name=c multiple><option selected>Red</option><option>Green</option><option selected label="Sky">Blue</option></select>
<select name=d><option selected>Red</option><option selected>Blue</option></select>
<input type=range name=r>
<input type=range name=r2 min=0 max=5>
<input type=number name=n value="1e3">
<input type=number name=n2 value="12abc">
<input type=color name=col value="#FFAA00">
<input type=date name=day value="2024-02-30">
<input type=datetime-local name=dt value="2024-02-03 10:30:00">
<input type=password name=pw value="hunter2">
<input type=file name=up accept=".png,.jpg">
<input name=plain value="a
b">
<div role=slider aria-valuenow=7 aria-valuetext="" tabindex=0>Volume</div>
<div contenteditable role=textbox aria-label=Bio>I <b>write</b> code</div>
<input type=hidden name=csrf value=x>
</form>"##;
        let snap = parsed(&page_with("", body)).with_text;
        let by_name = |n: &str| {
            elements(&snap)
                .iter()
                .find(|e| e["name"] == n)
                .unwrap_or_else(|| panic!("no {n} in {:#}", snap["elements"]))
                .clone()
        };
        assert_eq!(by_name("a")["value"], "Red");
        assert_eq!(by_name("b")["value"], "");
        assert_eq!(by_name("c")["value"], "Red, Sky");
        assert_eq!(by_name("c")["role"], "listbox");
        assert_eq!(attr(&by_name("c"), "options"), Some("Red | Green | Sky"));
        assert_eq!(by_name("d")["value"], "Blue");
        assert_eq!(by_name("r")["value"], "50");
        assert_eq!(by_name("r")["role"], "slider");
        assert_eq!(by_name("r2")["value"], "3");
        assert_eq!(by_name("n")["value"], "1e3");
        assert_eq!(by_name("n2")["value"], "");
        assert_eq!(by_name("col")["value"], "#ffaa00");
        assert_eq!(by_name("day")["value"], "");
        assert_eq!(by_name("dt")["value"], "2024-02-03T10:30");
        assert_eq!(by_name("pw")["value"], MASK);
        assert_eq!(by_name("pw")["role"], "password");
        assert_eq!(by_name("up")["value"], "");
        assert_eq!(attr(&by_name("up"), "accept"), Some(".png,.jpg"));
        assert_eq!(by_name("plain")["value"], "ab");
        assert_eq!(by_name("Volume")["value"], "7");
        assert_eq!(by_name("Bio")["value"], "I write code");
        assert!(!elements(&snap).iter().any(|e| e["name"] == "csrf"));
    }

    #[test]
    fn visibility_and_inline_style_hide_as_css_does() {
        let body = r#"
<div style="visibility:hidden"><a href=/x>Invisible</a><span>gone</span><p style="visibility: visible">Back <a href=/y>Visible</a></p></div>
<div hidden style="display: flex"><a href=/z>Shown anyway</a></div>
<p style="opacity:0">Faded <a href=/f>Faded link</a></p>
<span class=sr style="clip: rect(0 0 0 0); position: absolute">Screen reader words</span>
<input type=checkbox id=remember style="display:none"><label for=remember>Remember me</label>
"#;
        let snap = parsed(&page_with("", body)).with_text;
        let names: Vec<&str> = elements(&snap)
            .iter()
            .filter_map(|e| e["name"].as_str())
            .collect();
        assert!(!names.contains(&"Invisible"));
        assert!(!names.contains(&"gone"));
        assert!(names.contains(&"Back"));
        assert!(names.contains(&"Visible"));
        assert!(names.contains(&"Shown anyway"));
        assert!(!names.contains(&"Faded"));
        assert!(names.contains(&"Faded link"));
        assert!(!names.contains(&"Screen reader words"));
        // A custom check box: the real one hidden, its label shown.
        find(&snap, "checkbox", "Remember me");
    }

    #[test]
    fn a_focusable_list_that_wraps_options_is_theirs() {
        let body = r#"
<ul role=listbox aria-label=Fruit><li role=option>Apple</li><li role=option aria-selected=true>Pear</li></ul>
<ul role=menu aria-label=Empty tabindex=0></ul>
<span tabindex=0>Focusable span</span>
<div tabindex=0>Focusable div</div>
<li><a href=/expand class=toggle></a>Folder<ul><li>File</li></ul></li>
<p><a href=/two autofocus>Second autofocus</a></p>
"#;
        let snap = parsed(&page_with("", body)).with_text;
        let names: Vec<&str> = elements(&snap)
            .iter()
            .filter(|e| e["interactive"] == true)
            .filter_map(|e| e["name"].as_str())
            .collect();
        assert!(!names.contains(&"Fruit"));
        assert_eq!(states(find(&snap, "option", "Pear")), ["selected"]);
        find(&snap, "menu", "Empty");
        find(&snap, "generic", "Focusable span");
        assert!(!names.contains(&"Focusable div"));
        // A nameless expander is named by the item it opens, and expanded while its list shows.
        let toggle = find(&snap, "link", "Folder");
        assert_eq!(attr(toggle, "name-from"), Some("text"));
        assert_eq!(states(toggle), ["expanded"]);
        // The first autofocus that can take focus: a link is focusable.
        assert_eq!(states(find(&snap, "link", "Second autofocus")), ["focused"]);
    }

    #[test]
    fn items_of_a_focusable_list_and_pointer_areas_are_guessed_controls() {
        let body = r#"
<ul class=suggestions tabindex=0><li>Apple pie</li><li>Banana bread</li></ul>
<div class=report style="cursor: pointer"><span>Open the report</span> <b>now</b></div>
<div style="cursor:pointer"><a href=/real>Real link</a> and words</div>
"#;
        let snap = parsed(&page_with("", body)).with_text;
        for name in ["Apple pie", "Banana bread", "Open the report now"] {
            let e = find(&snap, "generic", name);
            assert_eq!(e["interactive"], true);
            // Its words are its name, not text of their own.
            assert!(
                !elements(&snap)
                    .iter()
                    .any(|t| t["role"] == "text" && t["name"] == name),
                "{name}"
            );
        }
        // The list wraps its items: it is theirs, not a control of its own.
        assert!(
            !elements(&snap)
                .iter()
                .any(|e| e["name"] == "Apple pie Banana bread")
        );
        // A pointer area around a real control is that control's.
        find(&snap, "link", "Real link");
        find(&snap, "text", "and words");
    }
}
