//! What proves to `page.js` `adopt` that an element of the browser's document is the one the
//! host numbered: when the browser loads a page the host read, each number the agent was shown
//! is given to the element at that place only if it has the same name, the same parent, the
//! same place among its parent's elements, and the same attributes and first words of text
//! (a hash of them, computed alike on both sides). One mismatch, or another count of elements,
//! and no number is given at all: the agent's refs then fail as stale, never reaching a
//! neighbour.

use super::dom::{Dom, Ix};

/// How many UTF-16 code units of an element's `textContent` its fingerprint covers.
pub const TEXT_UNITS: usize = 64;

/// Attributes left out of the fingerprint: Chromium empties a `nonce` once it is read.
const UNSTABLE: &[&str] = &["nonce"];

/// One numbered element, as `adopt` checks it: `[id, name, parent, index, print]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The node number: the element's 1-based index in `getElementsByTagName('*')`.
    pub id: u64,
    /// `localName`.
    pub name: String,
    /// The parent element's number (0: none, the root element).
    pub parent: u64,
    /// Its index among its parent's element children.
    pub index: u32,
    /// [`hash`] of its attributes (qualified name, value; in order) and text's start.
    pub print: i32,
}

impl Identity {
    /// As `page.js` `adopt` takes it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!([self.id, self.name, self.parent, self.index, self.print])
    }
}

/// page.js `fingerprint`: a 31-based hash over UTF-16 code units, each part closed by a 1,
/// in 32-bit signed arithmetic as `Math.imul` and `| 0` do it.
pub fn hash<'a>(parts: impl IntoIterator<Item = Units<'a>>) -> i32 {
    let mut h: i32 = 0;
    for part in parts {
        for unit in part {
            h = h.wrapping_mul(31).wrapping_add(i32::from(unit));
        }
        h = h.wrapping_mul(31).wrapping_add(1);
    }
    h
}

/// A string's UTF-16 code units.
pub type Units<'a> = Box<dyn Iterator<Item = u16> + 'a>;

fn units(s: &str) -> Units<'_> {
    Box::new(s.encode_utf16())
}

/// The identity of the element at `i`.
pub(super) fn identity(dom: &Dom, i: Ix) -> Identity {
    let (name, attrs) = dom
        .elem(i)
        .map(|e| (e.local.clone(), e.attrs.as_slice()))
        .unwrap_or_default();
    let parent = dom.parent_el(i);
    let index = parent.map_or(0, |p| {
        dom.children(p)
            .filter(|&c| dom.elem(c).is_some())
            .take_while(|&c| c != i)
            .count()
    });
    let text: Vec<u16> = dom
        .texts(i)
        .flat_map(|(_, t)| t.encode_utf16())
        .take(TEXT_UNITS)
        .collect();
    let mut parts: Vec<Units<'_>> = Vec::new();
    for (k, v) in attrs
        .iter()
        .filter(|(k, _)| !UNSTABLE.contains(&k.as_str()))
    {
        parts.push(units(k));
        parts.push(units(v));
    }
    parts.push(Box::new(text.into_iter()));
    Identity {
        id: dom.num(i),
        name,
        parent: parent.map_or(0, |p| dom.num(p)),
        index: u32::try_from(index).unwrap_or(u32::MAX),
        print: hash(parts),
    }
}
