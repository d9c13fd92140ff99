//! Values, attributes and states of the page's elements (page.js `valueOf`, `attrsOf`,
//! `statesOf`), and what takes the focus as the page loads.

use super::dom::{Ix, Ns};
use super::forms::{
    input_type, input_value, option_label, option_text, options, percent_decode, selected,
};
use super::names::text_prefix;
use super::page::Page;
use super::text::{clean, css_space};
use super::vocab::{MASK, TEXT_INPUTS, has};

impl<'d> Page<'d> {
    /// `el.value` as the page loads, for the elements that have one.
    pub(super) fn dom_value(&self, el: Ix) -> String {
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
    pub(super) fn value_of(&self, el: Ix, role: Option<&str>) -> Option<String> {
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
    pub(super) fn attrs_of(&self, el: Ix, role: Option<&str>) -> Vec<(&'static str, String)> {
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
    pub(super) fn states_of(&self, el: Ix) -> Vec<&'static str> {
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
    pub(super) fn autofocus(&self, url: &url::Url) -> Option<Ix> {
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
}
