//! The snapshot: page.js `walk` over the body in reading order, the groups its items are in,
//! and the JSON `snapshot` returns.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use super::dom::{Dom, Ix, Ns};
use super::page::Page;
use super::style::Disp;
use super::text::{clean, css_space, js_len, js_number, js_number_json, js_space, js_trim};
use super::vocab::{CARD_WORDS, NAME_MAX, NO_TEXT, SKIP, has};

impl<'d> Page<'d> {
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
    pub(super) fn meta(&self, url: &url::Url) -> Value {
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
    pub(super) fn snapshot(
        &self,
        text: bool,
        meta: &Value,
        names: &mut HashMap<Ix, (String, Option<&'static str>)>,
        nodes: &mut BTreeMap<u64, Ix>,
    ) -> Value {
        let dom = self.dom;
        let items = Walk::new(self, text, names).run();
        let mut groups = HashMap::new();
        let name_node = |i: Ix, nodes: &mut BTreeMap<u64, Ix>| {
            let num = dom.num(i);
            nodes.entry(num).or_insert(i);
            num
        };
        let mut group_attr = |start: Option<Ix>, nodes: &mut BTreeMap<u64, Ix>| {
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
