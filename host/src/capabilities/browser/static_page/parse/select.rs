//! Selectors, matched against the DOM arena with the `selectors` crate (Servo's engine, the
//! one `dom_query` uses), as Chromium matches them for a page no one has touched: no element
//! is hovered, focused or active, no link visited (Chromium styles `:visited` by colour only),
//! no popover or modal open. A pseudo-class whose answer depends on more than the markup
//! (`:hover`, `:focus`, `:target`, `:lang()`, validity...) parses, and marks its selector as
//! one the host cannot evaluate; a name it does not know fails the selector, as an unknown
//! one fails it in Chromium, and the caller does not guess what the rule would have done.

use std::cell::Cell;
use std::fmt;

use cssparser::{CowRcStr, ParseError, ToCss};
use precomputed_hash::PrecomputedHash;
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::BloomFilter;
use selectors::context::{
    MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode,
    SelectorCaches,
};
use selectors::matching::ElementSelectorFlags;
use selectors::parser::{ParseRelative, Selector, SelectorList, SelectorParseErrorKind};
use selectors::{Element, OpaqueElement};

use super::dom::{Dom, Ix, Kind, Ns};

/// A name or value in a selector.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Atom(pub(super) String);

impl From<&str> for Atom {
    fn from(s: &str) -> Self {
        Self(s.to_string())
    }
}

impl AsRef<str> for Atom {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl ToCss for Atom {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        cssparser::serialize_identifier(&self.0, dest)
    }
}

impl PrecomputedHash for Atom {
    fn precomputed_hash(&self) -> u32 {
        // FNV-1a: only the bloom filter, which is not used here, reads it.
        self.0.bytes().fold(0x811c_9dc5_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
    }
}

/// The pseudo-classes a selector can hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PseudoClass {
    /// `:link`, `:any-link`: for what the host reads, every link (Chromium applies only
    /// colours of `:visited`).
    Link,
    /// `:visited`: never, for the properties the host reads.
    Visited,
    Checked,
    /// `:defined`: every element of a page without custom elements.
    Defined,
    /// States a page nobody touched and that runs no script is never in.
    Never(&'static str),
    /// What the host cannot evaluate: the selector is marked so.
    Unknowable(String),
}

impl ToCss for PseudoClass {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        match self {
            Self::Link => dest.write_str(":link"),
            Self::Visited => dest.write_str(":visited"),
            Self::Checked => dest.write_str(":checked"),
            Self::Defined => dest.write_str(":defined"),
            Self::Never(name) => write!(dest, ":{name}"),
            Self::Unknowable(name) => write!(dest, ":{name}"),
        }
    }
}

impl selectors::parser::NonTSPseudoClass for PseudoClass {
    fn is_active_or_hover(&self) -> bool {
        false
    }

    fn is_user_action_state(&self) -> bool {
        false
    }
}

/// A pseudo-element: a rule with one styles no element of the DOM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PseudoElement(String);

impl ToCss for PseudoElement {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        write!(dest, "::{}", self.0)
    }
}

impl selectors::parser::PseudoElement for PseudoElement {
    fn accepts_state_pseudo_classes(&self) -> bool {
        true
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Impl;

impl selectors::parser::SelectorImpl for Impl {
    type ExtraMatchingData<'a> = ();
    type AttrValue = Atom;
    type Identifier = Atom;
    type LocalName = Atom;
    type NamespaceUrl = Atom;
    type NamespacePrefix = Atom;
    type BorrowedNamespaceUrl = Atom;
    type BorrowedLocalName = Atom;
    type NonTSPseudoClass = PseudoClass;
    type PseudoElement = PseudoElement;
}

/// Pseudo-classes whose state a freshly loaded page without script is never in.
const NEVER: &[&str] = &[
    "active",
    "host",
    "autofill",
    "-webkit-autofill",
    "fullscreen",
    "modal",
    "picture-in-picture",
    "popover-open",
    "user-invalid",
    "user-valid",
    "xr-overlay",
];

/// Pseudo-classes Chromium knows whose answer depends on more than the markup.
#[rustfmt::skip]
const UNKNOWABLE: &[&str] = &[
    "hover", "focus", "focus-visible", "focus-within", "target", "target-within", "enabled",
    "disabled", "indeterminate", "default", "valid", "invalid", "in-range", "out-of-range",
    "required", "optional", "read-only", "read-write", "placeholder-shown", "open", "closed",
    "playing", "paused", "seeking", "buffering", "stalled", "muted", "volume-locked",
    "local-link", "current", "past", "future", "blank",
];

/// Functional pseudo-classes Chromium knows that the host does not evaluate.
const UNKNOWABLE_FN: &[&str] = &[
    "lang",
    "dir",
    "state",
    "host",
    "host-context",
    "active-view-transition-type",
];

/// Pseudo-elements Chromium knows (a rule with one styles no element here).
#[rustfmt::skip]
const PSEUDO_ELEMENTS: &[&str] = &[
    "before", "after", "marker", "placeholder", "selection", "first-line", "first-letter",
    "backdrop", "file-selector-button", "target-text", "spelling-error", "grammar-error",
    "cue", "details-content", "checkmark", "picker-icon", "scroll-marker",
    "scroll-marker-group", "scroll-button", "column", "search-text",
    "-webkit-scrollbar", "-webkit-scrollbar-thumb", "-webkit-scrollbar-track",
    "-webkit-scrollbar-track-piece", "-webkit-scrollbar-button", "-webkit-scrollbar-corner",
    "-webkit-resizer", "-webkit-input-placeholder", "-webkit-search-cancel-button",
    "-webkit-search-decoration", "-webkit-inner-spin-button", "-webkit-outer-spin-button",
    "-webkit-details-marker", "-webkit-file-upload-button", "-webkit-calendar-picker-indicator",
    "-webkit-datetime-edit", "-webkit-progress-bar", "-webkit-progress-value",
    "-webkit-meter-bar", "-webkit-slider-thumb", "-webkit-slider-runnable-track",
];

/// The selector parser: notes in `unknowable` that a selector holds what cannot be
/// evaluated.
struct Parser<'a> {
    unknowable: &'a Cell<bool>,
}

impl<'i> selectors::parser::Parser<'i> for Parser<'_> {
    type Impl = Impl;
    type Error = SelectorParseErrorKind;

    fn parse_is_and_where(&self) -> bool {
        true
    }

    fn parse_has(&self) -> bool {
        true
    }

    fn parse_nth_child_of(&self) -> bool {
        true
    }

    fn parse_non_ts_pseudo_class(
        &self,
        name: CowRcStr<'i>,
    ) -> Result<PseudoClass, ParseError<Self::Error>> {
        let lower = name.to_ascii_lowercase();
        let known = match lower.as_str() {
            "link" | "any-link" | "-webkit-any-link" => Some(PseudoClass::Link),
            "visited" => Some(PseudoClass::Visited),
            "checked" => Some(PseudoClass::Checked),
            "defined" => Some(PseudoClass::Defined),
            _ => NEVER
                .iter()
                .find(|n| **n == lower)
                .map(|n| PseudoClass::Never(n)),
        };
        if let Some(pc) = known {
            return Ok(pc);
        }
        if UNKNOWABLE.contains(&lower.as_str()) {
            self.unknowable.set(true);
            return Ok(PseudoClass::Unknowable(lower));
        }
        Err(ParseError::custom(
            SelectorParseErrorKind::UnsupportedPseudoClassOrElement,
        ))
    }

    fn parse_non_ts_functional_pseudo_class(
        &self,
        name: CowRcStr<'i>,
        parser: &mut cssparser::Parser<'i>,
        _after_part: bool,
    ) -> Result<PseudoClass, ParseError<Self::Error>> {
        let lower = name.to_ascii_lowercase();
        // The arguments are skipped, not read.
        while parser.next().is_ok() {}
        self.unknowable.set(true);
        if UNKNOWABLE_FN.contains(&lower.as_str()) {
            Ok(PseudoClass::Unknowable(lower))
        } else {
            Err(ParseError::custom(
                SelectorParseErrorKind::UnsupportedPseudoClassOrElement,
            ))
        }
    }

    fn parse_pseudo_element(
        &self,
        name: CowRcStr<'i>,
    ) -> Result<PseudoElement, ParseError<Self::Error>> {
        let lower = name.to_ascii_lowercase();
        if PSEUDO_ELEMENTS.contains(&lower.as_str()) {
            return Ok(PseudoElement(lower));
        }
        Err(ParseError::custom(
            SelectorParseErrorKind::UnsupportedPseudoClassOrElement,
        ))
    }
}

/// A rule's selectors, parsed.
pub(super) enum Parsed {
    /// Selectors the host matches exactly (those with a pseudo-element left out).
    Exact(Vec<Selector<Impl>>),
    /// Selectors that hold what the host cannot evaluate, or that did not parse.
    Unknowable,
}

/// Parse a rule's prelude (`text`).
pub(super) fn parse(text: &str) -> Parsed {
    let unknowable = Cell::new(false);
    let mut input = cssparser::Parser::new(text);
    let parsed = SelectorList::parse(
        &Parser {
            unknowable: &unknowable,
        },
        &mut input,
        ParseRelative::No,
    );
    match parsed {
        Ok(list) if !unknowable.get() => Parsed::Exact(
            list.slice()
                .iter()
                .filter(|s| !s.has_pseudo_element())
                .cloned()
                .collect(),
        ),
        _ => Parsed::Unknowable,
    }
}

/// What a selector's rightmost compound says an element must be, to find candidates fast.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    Id(String),
    Class(String),
    Tag(String),
    Any,
}

/// The most selective key of `selector`'s rightmost compound.
pub(super) fn key(selector: &Selector<Impl>) -> Key {
    use selectors::parser::Component;
    let mut key = Key::Any;
    for c in selector.iter() {
        match c {
            Component::ID(id) => return Key::Id(id.0.clone()),
            Component::Class(c) => key = Key::Class(c.0.clone()),
            Component::LocalName(n) if key == Key::Any => {
                key = Key::Tag(n.lower_name.0.clone());
            }
            _ => {}
        }
    }
    key
}

/// The document as the matcher sees it: the DOM and the checkedness of its controls.
pub(super) struct Doc<'d> {
    pub(super) dom: &'d Dom,
    /// Each `<input>`'s checkedness, and each selected `<option>`.
    pub(super) checked: Vec<bool>,
}

/// How selectors match in this document: in quirks mode, classes and ids whatever their case.
fn quirks_mode(dom: &Dom) -> QuirksMode {
    if dom.quirks {
        QuirksMode::Quirks
    } else {
        QuirksMode::NoQuirks
    }
}

/// An element of [`Doc`].
#[derive(Clone, Copy)]
pub(super) struct El<'d> {
    doc: &'d Doc<'d>,
    i: Ix,
}

impl fmt::Debug for El<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "El({})", self.i)
    }
}

impl Doc<'_> {
    fn el(&self, i: Ix) -> El<'_> {
        El { doc: self, i }
    }

    /// Does the element at `i` match `selector`?
    pub(super) fn matches(
        &self,
        selector: &Selector<Impl>,
        i: Ix,
        caches: &mut SelectorCaches,
    ) -> bool {
        let mut context = MatchingContext::new(
            MatchingMode::Normal,
            None,
            caches,
            quirks_mode(self.dom),
            NeedsSelectorFlags::No,
            MatchingForInvalidation::No,
        );
        selectors::matching::matches_selector(selector, 0, None, &self.el(i), &mut context)
    }
}

impl<'d> El<'d> {
    fn dom(&self) -> &'d Dom {
        self.doc.dom
    }

    fn at(&self, i: Option<Ix>) -> Option<Self> {
        i.map(|i| El { doc: self.doc, i })
    }

    fn ns_url(&self) -> &'static str {
        match self.dom().ns(self.i) {
            Some(Ns::Html) => "http://www.w3.org/1999/xhtml",
            Some(Ns::Svg) => "http://www.w3.org/2000/svg",
            Some(Ns::Math) => "http://www.w3.org/1998/Math/MathML",
            _ => "",
        }
    }
}

impl Element for El<'_> {
    type Impl = Impl;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(&self.dom().nodes[self.i])
    }

    fn parent_element(&self) -> Option<Self> {
        self.at(self.dom().parent_el(self.i))
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        self.at(self.dom().prev_el_sibling(self.i))
    }

    fn next_sibling_element(&self) -> Option<Self> {
        self.at(self.dom().next_el_sibling(self.i))
    }

    fn first_element_child(&self) -> Option<Self> {
        let dom = self.dom();
        self.at(dom.children(self.i).find(|&c| dom.elem(c).is_some()))
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.dom().ns(self.i) == Some(Ns::Html)
    }

    fn has_local_name(&self, name: &Atom) -> bool {
        self.dom().named(self.i, &name.0)
    }

    fn has_namespace(&self, ns: &Atom) -> bool {
        self.ns_url() == ns.0
    }

    fn is_same_type(&self, other: &Self) -> bool {
        let dom = self.dom();
        match (dom.elem(self.i), dom.elem(other.i)) {
            (Some(a), Some(b)) => a.local == b.local && a.ns == b.ns,
            _ => false,
        }
    }

    fn attr_matches(
        &self,
        ns: &NamespaceConstraint<&Atom>,
        local_name: &Atom,
        operation: &AttrSelectorOperation<&Atom>,
    ) -> bool {
        let Some(e) = self.dom().elem(self.i) else {
            return false;
        };
        e.attrs.iter().any(|(name, value)| {
            let (prefix, local) = match name.split_once(':') {
                Some((p, l)) => (Some(p), l),
                None => (None, name.as_str()),
            };
            let ns_ok = match ns {
                NamespaceConstraint::Any => true,
                // Only attributes in no namespace are selected without a prefix.
                NamespaceConstraint::Specific(url) => url.0.is_empty() && prefix.is_none(),
            };
            ns_ok && local == local_name.0 && operation.eval_str(value)
        })
    }

    fn match_non_ts_pseudo_class(
        &self,
        pc: &PseudoClass,
        _context: &mut MatchingContext<'_, Impl>,
    ) -> bool {
        match pc {
            PseudoClass::Link => self.is_link(),
            PseudoClass::Visited | PseudoClass::Never(_) | PseudoClass::Unknowable(_) => false,
            PseudoClass::Checked => self.doc.checked.get(self.i).copied().unwrap_or(false),
            PseudoClass::Defined => true,
        }
    }

    fn match_pseudo_element(
        &self,
        _pe: &PseudoElement,
        _context: &mut MatchingContext<'_, Impl>,
    ) -> bool {
        false
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn is_link(&self) -> bool {
        let dom = self.dom();
        dom.html_in(self.i, &["a", "area", "link"]) && dom.has(self.i, "href")
    }

    fn is_html_slot_element(&self) -> bool {
        self.dom().html(self.i, "slot")
    }

    fn has_id(&self, id: &Atom, case_sensitivity: CaseSensitivity) -> bool {
        self.dom()
            .attr(self.i, "id")
            .is_some_and(|v| case_sensitivity.eq(v.as_bytes(), id.0.as_bytes()))
    }

    fn has_class(&self, name: &Atom, case_sensitivity: CaseSensitivity) -> bool {
        self.dom().attr(self.i, "class").is_some_and(|v| {
            v.split_ascii_whitespace()
                .any(|c| case_sensitivity.eq(c.as_bytes(), name.0.as_bytes()))
        })
    }

    fn has_custom_state(&self, _name: &Atom) -> bool {
        false
    }

    fn imported_part(&self, _name: &Atom) -> Option<Atom> {
        None
    }

    fn is_part(&self, _name: &Atom) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        let dom = self.dom();
        dom.children(self.i).all(|c| match &dom.nodes[c].kind {
            Kind::Elem(_) => false,
            Kind::Text(t) => t.is_empty(),
            _ => true,
        })
    }

    fn is_root(&self) -> bool {
        let dom = self.dom();
        dom.parent(self.i)
            .is_some_and(|p| matches!(dom.nodes[p].kind, Kind::Root))
    }

    fn add_element_unique_hashes(&self, _filter: &mut BloomFilter) -> bool {
        false
    }
}
