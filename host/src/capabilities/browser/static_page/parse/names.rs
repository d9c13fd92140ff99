//! Roles, names and labels of the page's elements, and the names inferred for controls
//! without one (page.js `roleOf`, `nameOf`, `besideText`, `inferName`...).

use std::borrow::Cow;

use super::dom::{Dom, Ix, Kind, Ns};
use super::forms::{input_type, option_text, options};
use super::page::Page;
use super::style::Disp;
use super::text::{clean, collapse, css_space, js_len, js_number, js_space, js_trim};
use super::vocab::{
    CONTAINER_ROLES, ICON_WORDS, INTERACTIVE_ROLES, LABEL_MAX, LABELLED_ROLES, role_in,
};

impl<'d> Page<'d> {
    // ------------------------------------------------------------- roles and names

    /// page.js `roleOf`.
    pub(super) fn role_of(&self, el: Ix) -> Option<&'d str> {
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
    pub(super) fn content_editable(&self, el: Ix) -> bool {
        self.dom.ns(el) == Some(Ns::Html) && self.editable[el]
    }

    /// page.js `isInteractive` (no `onclick` here: inline handlers send the page to the browser).
    pub(super) fn is_interactive(&self, el: Ix, role: Option<&str>) -> bool {
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
    pub(super) fn is_container(&self, el: Ix, role: Option<&str>) -> bool {
        !self.dom.html(el, "select")
            && (role_in(CONTAINER_ROLES, role) || self.focusable_container(el, role))
    }

    /// `innerText` as far as `clean(…, max)` reads it, and whether it is non-empty
    /// (`innerText || …` reads it). An element not laid out answers its `textContent`. Blocks,
    /// cells and `<br>` part words with a space: page.js collapses all white space, so only
    /// where words part matters.
    pub(super) fn inner_text(&self, el: Ix, max: usize) -> (String, bool) {
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
    pub(super) fn text_of(&self, el: Ix) -> String {
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
    pub(super) fn name_of(&self, el: Ix, role: Option<&str>) -> String {
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
    pub(super) fn name_and_source(
        &self,
        el: Ix,
        role: Option<&str>,
    ) -> (String, Option<&'static str>) {
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
    pub(super) fn hidden_but_labelled(&self, el: Ix) -> bool {
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
    pub(super) fn toggled_list(&self, el: Ix) -> Option<Ix> {
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
pub(super) fn text_prefix(dom: &Dom, el: Ix, max: usize, skip: impl Fn(Ix) -> bool) -> String {
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
