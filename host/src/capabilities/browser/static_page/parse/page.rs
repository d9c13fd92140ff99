//! The page: the document with what page.js reads of its style and state worked out per
//! node, and the checks that send a page to the browser. `Page`'s other methods are in
//! `names.rs`, `states.rs` and `walk.rs`.

use std::collections::HashMap;

use super::NeedsBrowser;
use super::dom::{Dom, Ix, Ns};
use super::forms::{checkedness, javascript_url, labelable, runs};
use super::style::{
    Disp, DisplaySpec, SVG_UNDRAWN, Style, clips_all, hinted_display, opacity_of, ua_display,
};
use super::text::css_space;
use super::vocab::has;
use super::vocab::policy_restricts_styles;

/// The document with what page.js reads of its style and state worked out per node.
pub(super) struct Page<'d> {
    pub(super) dom: &'d Dom,
    pub(super) display: Vec<Disp>,
    /// Laid out: no `display: none` on it or an ancestor, and not in content the browser does
    /// not render (a closed `<details>`, a `<textarea>`'s text, a canvas's fallback…).
    pub(super) rendered: Vec<bool>,
    /// The computed `visibility` is `visible`.
    pub(super) vis: Vec<bool>,
    /// Its own `opacity` is 0.
    pub(super) faded: Vec<bool>,
    /// It or an ancestor has `opacity: 0` (`checkVisibility`'s opacity check).
    faded_up: Vec<bool>,
    pub(super) clipped: Vec<bool>,
    pub(super) cv_hidden: Vec<bool>,
    pub(super) editable: Vec<bool>,
    pub(super) inert: Vec<bool>,
    /// A `<details>`'s or `<dialog>`'s `open`, after details name groups closed the later ones.
    pub(super) open: Vec<bool>,
    /// An `<input>`'s checkedness after parsing (the last checked radio of a group wins).
    pub(super) checked: Vec<bool>,
    /// A closed `<details>`'s first `<summary>`, the one it shows.
    summary: HashMap<Ix, Ix>,
    /// Each `<label>`'s labeled control.
    pub(super) control: HashMap<Ix, Ix>,
    /// Each control's labels, in document order (`el.labels`).
    pub(super) labels: HashMap<Ix, Vec<Ix>>,
    /// The computed `cursor` is `pointer` (a link's, from the UA sheet, or inline style's).
    pub(super) pointer: Vec<bool>,
    /// `document.activeElement` once loaded: what Chromium focuses (`autofocus`), or the body.
    pub(super) focused: Option<Ix>,
    // Answers to `closest` questions, worked out once so deep documents do not ask each
    // element's ancestors again for each of its descendants.
    /// In (or is) a summary, button, `[role=button]` or `a[href]`: groupOf's "inside a control".
    pub(super) in_control: Vec<bool>,
    /// In (or is) an element whose words besideText skips (select, textarea, script…).
    pub(super) text_skipped: Vec<bool>,
    /// In (or is) a heading, link or button, where besideText stops.
    pub(super) text_stops: Vec<bool>,
    /// The label it is in (or is).
    pub(super) label_up: Vec<Option<Ix>>,
    /// Its nearest ancestor-or-self that is not inline (besideText's block), or the root.
    pub(super) block_of: Vec<Ix>,
    /// In a disabled fieldset, outside that fieldset's first legend.
    pub(super) fieldset_off: Vec<bool>,
    /// What the style of an element that is laid out does that only the browser's layout
    /// answers for (`Style::unmodelled`), the first one.
    unmodelled: Option<&'static str>,
}

impl<'d> Page<'d> {
    /// Works out each node's style and state, parents before children (`url` for autofocus).
    pub(super) fn new(dom: &'d Dom, url: &url::Url, styles: &[Style]) -> Self {
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
            unmodelled: None,
        };
        let unstyled = Style::default();
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
            let style = styles.get(i).unwrap_or(&unstyled);
            let parent_display = parent.map_or(Disp::Block, |p| page.display[p]);
            let ua = hinted_display(dom, i, page.open[i]);
            let (mut display, flex) = match style.display {
                None => (ua, false),
                // To the user agent's, past the `hidden` attribute's hint.
                Some(DisplaySpec::Revert) => (ua_display(dom, i, page.open[i]), false),
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
            page.clipped[i] = clips_all(style) || style.off_page();
            if page.rendered[i] && page.unmodelled.is_none() {
                page.unmodelled = style.unmodelled();
            }
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
    pub(super) fn boxed(&self, i: Ix) -> bool {
        self.rendered[i] && self.display[i] != Disp::Contents
    }

    /// page.js `visible(el, rect)`: a box and `visibility: visible`.
    pub(super) fn visible(&self, i: Ix) -> bool {
        self.boxed(i) && self.vis[i]
    }

    /// page.js `shown`: `checkVisibility` with its opacity and visibility checks.
    pub(super) fn shown(&self, i: Ix) -> bool {
        self.visible(i) && !self.faded_up[i]
    }

    // ------------------------------------------------------------- the browser checks

    /// Why the styled page needs the browser: a dialog shown on load, or a style whose
    /// effect only the browser's layout tells.
    pub(super) fn needs_browser(&self) -> Option<NeedsBrowser> {
        let dom = self.dom;
        for (i, e) in dom.elements() {
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
                return Some(NeedsBrowser::Modal);
            }
        }
        self.unmodelled.map(NeedsBrowser::Unmodelled)
    }
}

/// The first reason, in [`NeedsBrowser`]'s order, the page's markup needs the browser (what
/// it runs, embeds or builds differently there), before its style is known.
pub(super) fn markup_needs_browser(dom: &Dom) -> Option<NeedsBrowser> {
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
    }
    let order = [
        NeedsBrowser::Script,
        NeedsBrowser::InlineHandler,
        NeedsBrowser::Frames,
        NeedsBrowser::Refresh,
        NeedsBrowser::CustomElements,
    ];
    order
        .into_iter()
        .find(|why| found.contains(why))
        .or_else(|| unmodelled(dom).map(NeedsBrowser::Unmodelled))
}

/// Chromium's parser nests elements at most this deep (`kMaximumHTMLParserDOMTreeDepth`);
/// deeper ones become siblings there, not children. Pages near it go to the browser.
const MAX_DEPTH: usize = 500;

/// Chromium splits a text longer than this into several text nodes.
const MAX_TEXT: usize = 65_536;

/// The first construct of the document whose tree or rendering in Chromium the host does not
/// build the same way, if any.
fn unmodelled(dom: &Dom) -> Option<&'static str> {
    let mut depth = vec![0usize; dom.nodes.len()];
    for i in 0..dom.nodes.len() {
        depth[i] = dom.parent(i).map_or(0, |p| depth[p] + 1);
        if depth[i] > MAX_DEPTH {
            return Some("elements nested deeper than the browser's parser nests them");
        }
        if let Some(t) = dom.text(i) {
            if t.encode_utf16().nth(MAX_TEXT).is_some() {
                return Some("a text longer than the browser keeps in one node");
            }
            continue;
        }
        let Some(e) = dom.elem(i) else {
            continue;
        };
        let html = e.ns == Ns::Html;
        let attr_is = |name: &str, values: &[&str]| {
            dom.attr(i, name).is_some_and(|v| {
                let v = v.trim_matches(css_space);
                values.iter().any(|x| v.eq_ignore_ascii_case(x))
            })
        };
        match e.local.as_str() {
            // Chromium attaches a shadow root (whose scripts run) where the template is.
            "template" if html && (dom.has(i, "shadowrootmode") || dom.has(i, "shadowroot")) => {
                return Some("a declarative shadow root");
            }
            // Chromium copies the selected option's content into it.
            "selectedcontent" => return Some("a <selectedcontent>"),
            "fencedframe" | "portal" => return Some("an embedded document"),
            "meta"
                if html
                    && attr_is("http-equiv", &["content-security-policy"])
                    && dom.attr(i, "content").is_some_and(policy_restricts_styles) =>
            {
                return Some("a content security policy for its styles");
            }
            // It names the preferred style sheet set, which decides which titled sheets apply.
            "meta" if html && attr_is("http-equiv", &["default-style"]) => {
                return Some("a default style sheet set");
            }
            _ => {}
        }
        // `hidden=until-found` hides the content, not the box, and a find reveals it.
        if html && attr_is("hidden", &["until-found"]) {
            return Some("content hidden until found");
        }
    }
    None
}
