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
//!
//! One job per file:
//!
//! | file | job |
//! |---|---|
//! | `text.rs` | JS string semantics: white space, `trim`, `length`, page.js `clean`, `Number` |
//! | `dom.rs` | parsing as Chromium does, and the DOM arena |
//! | `style.rs` | style without style sheets: inline `style`, the UA sheet's `display`, clips |
//! | `page.rs` | the page: each node's style and state worked out, and the browser checks |
//! | `names.rs` | roles, names, labels and inferred names; `innerText` and `textContent` |
//! | `states.rs` | values, attributes and states; what takes the focus on load |
//! | `forms.rs` | forms: input types and values, labels, options, checkedness; scripts that run |
//! | `walk.rs` | the walk in reading order, groups, and the snapshot's JSON |
//! | `tests.rs` | the tests |

mod dom;
mod forms;
mod names;
mod page;
mod states;
mod style;
mod text;
mod walk;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use dom::{Dom, scripted_parse};
use page::Page;

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

#[cfg(test)]
mod tests;
