//! The document: `html` parsed as Chromium parses it, then copied into an arena in document
//! order.

use std::collections::HashMap;

use dom_query::{Document, NodeData, NodeRef, TreeNode};

use super::text::js_len;
use super::vocab::has;

// ----------------------------------------------------------------- parsing as Chromium does

/// `html` parsed as Chromium parses it, with scripting enabled: a `<noscript>`'s content is
/// raw text, not elements (in `<head>`, elements would leave for `<body>` and shift every
/// node number after them). `dom_query`'s own `Document::from` parses with scripting off.
pub(super) fn scripted_parse(html: &str) -> Document {
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
pub(super) type Ix = usize;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Ns {
    Html,
    Svg,
    Math,
    Other,
}

/// An element's name and attributes.
pub(super) struct Elem {
    /// The local name as parsed: lowercase for HTML, case kept in SVG (`foreignObject`).
    pub(super) local: String,
    pub(super) ns: Ns,
    /// Qualified names (`xlink:href`) and values, each name's first occurrence (as parsed).
    pub(super) attrs: Vec<(String, String)>,
    /// The node number: the element's 1-based index among the document's elements.
    num: u64,
}

/// A node: the document, an element, a text, or something page.js never reads (comments,
/// the doctype).
pub(super) enum Kind {
    Root,
    Elem(Elem),
    Text(String),
    Other,
}

/// A node and its links, as the DOM has them.
pub(super) struct Node {
    pub(super) kind: Kind,
    parent: Option<Ix>,
    pub(super) first: Option<Ix>,
    last: Option<Ix>,
    pub(super) next: Option<Ix>,
    prev: Option<Ix>,
    /// One past the last index of the node's subtree: nodes are stored in document order.
    end: Ix,
}

/// The document as an arena in document order. Template contents are not in it (a browser
/// keeps them in a separate fragment, and `dom_query` out of the element's children).
pub(super) struct Dom {
    pub(super) nodes: Vec<Node>,
    pub(super) body: Option<Ix>,
    ids: HashMap<String, Ix>,
    /// The document is in quirks mode (no standards doctype), where selectors match classes
    /// and ids whatever their case.
    pub(super) quirks: bool,
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
    pub(super) fn build(doc: &Document) -> Self {
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
            quirks: doc.quirks_mode.get() == html5ever::tree_builder::QuirksMode::Quirks,
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
    pub(super) fn elem(&self, i: Ix) -> Option<&Elem> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Elem(e)) => Some(e),
            _ => None,
        }
    }

    /// The text at `i`, if it is a text node.
    pub(super) fn text(&self, i: Ix) -> Option<&str> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// `getAttribute(name)`.
    pub(super) fn attr(&self, i: Ix, name: &str) -> Option<&str> {
        self.elem(i)?
            .attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `hasAttribute(name)`.
    pub(super) fn has(&self, i: Ix, name: &str) -> bool {
        self.attr(i, name).is_some()
    }

    /// A CSS type selector's match (and `tagName.toLowerCase()`'s): the local name, in any
    /// namespace.
    pub(super) fn named(&self, i: Ix, tag: &str) -> bool {
        self.elem(i).is_some_and(|e| e.local == tag)
    }

    /// page.js's `el.tagName === 'TAG'`: an HTML element of that name.
    pub(super) fn html(&self, i: Ix, tag: &str) -> bool {
        self.elem(i)
            .is_some_and(|e| e.ns == Ns::Html && e.local == tag)
    }

    /// An HTML element named one of `tags`.
    pub(super) fn html_in(&self, i: Ix, tags: &[&str]) -> bool {
        self.elem(i)
            .is_some_and(|e| e.ns == Ns::Html && has(tags, &e.local))
    }

    /// The element's namespace.
    pub(super) fn ns(&self, i: Ix) -> Option<Ns> {
        self.elem(i).map(|e| e.ns)
    }

    /// The element's node number.
    pub(super) fn num(&self, i: Ix) -> u64 {
        self.elem(i).map_or(0, |e| e.num)
    }

    /// `parentNode`.
    pub(super) fn parent(&self, i: Ix) -> Option<Ix> {
        self.nodes.get(i)?.parent
    }

    /// `parentElement`.
    pub(super) fn parent_el(&self, i: Ix) -> Option<Ix> {
        self.parent(i).filter(|&p| self.elem(p).is_some())
    }

    /// One past the last node of `i`'s subtree.
    pub(super) fn end(&self, i: Ix) -> Ix {
        self.nodes.get(i).map_or(i, |n| n.end)
    }

    /// `childNodes`.
    pub(super) fn children(&self, i: Ix) -> impl Iterator<Item = Ix> + '_ {
        std::iter::successors(self.nodes.get(i).and_then(|n| n.first), move |&c| {
            self.nodes[c].next
        })
    }

    /// `a.contains(b)`: `b` is `a` or inside it.
    pub(super) fn contains(&self, a: Ix, b: Ix) -> bool {
        a <= b && b < self.end(a)
    }

    /// `el.closest(…)`: the element or its nearest ancestor that matches.
    pub(super) fn closest(&self, i: Ix, f: impl Fn(Ix) -> bool) -> Option<Ix> {
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
    pub(super) fn next_el_sibling(&self, i: Ix) -> Option<Ix> {
        std::iter::successors(self.nodes.get(i)?.next, |&s| self.nodes[s].next)
            .find(|&s| self.elem(s).is_some())
    }

    /// `previousElementSibling`.
    pub(super) fn prev_el_sibling(&self, i: Ix) -> Option<Ix> {
        std::iter::successors(self.nodes.get(i)?.prev, |&s| self.nodes[s].prev)
            .find(|&s| self.elem(s).is_some())
    }

    /// `getElementById`: the first element with that id.
    pub(super) fn by_id(&self, id: &str) -> Option<Ix> {
        self.ids.get(id).copied()
    }

    /// The text nodes of `i`'s subtree, in order.
    pub(super) fn texts(&self, i: Ix) -> impl Iterator<Item = (Ix, &str)> + '_ {
        (i..self.end(i)).filter_map(|j| self.text(j).map(|t| (j, t)))
    }

    /// `textContent`.
    pub(super) fn text_content(&self, i: Ix) -> String {
        self.texts(i).map(|(_, t)| t).collect()
    }

    /// `textContent.length > limit`, without building it.
    pub(super) fn text_longer(&self, i: Ix, limit: usize) -> bool {
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
    pub(super) fn elements(&self) -> impl Iterator<Item = (Ix, &Elem)> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match &n.kind {
                Kind::Elem(e) => Some((i, e)),
                _ => None,
            })
    }
}
