//! The cascade: which declaration of each property applies to each element, from the page's
//! style sheets (`sheets.rs`, matched by `select.rs`) and its `style` attributes. As CSS
//! orders them: an `!important` one over a normal one, a `style` attribute over a sheet's,
//! a more specific selector over a less specific one, a later rule over an earlier one. The
//! user agent sheet is not here (`style.rs` and `page.rs` apply it). Rules are found for an
//! element by the id, class or name their selector's last part requires, as browsers do.

use std::collections::HashMap;

use selectors::context::SelectorCaches;

use super::dom::{Dom, Ns};
use super::select::{Doc, Key, key};
use super::sheets::Rules;
use super::style::{Decl, Prop, Style, declarations};

/// What orders two declarations of one property: importance, a `style` attribute, the
/// selector's specificity, the rule's place.
type Rank = (bool, bool, u32, usize);

/// Each node's style (`Style::default()` for what is not an element).
pub(super) fn styles(dom: &Dom, rules: &Rules, checked: Vec<bool>) -> Vec<Style> {
    // In quirks mode, classes and ids match whatever their ASCII case: so are they found.
    let fold = |s: &str| {
        if dom.quirks {
            s.to_ascii_lowercase()
        } else {
            s.to_string()
        }
    };
    let mut buckets: HashMap<Key, Vec<(usize, usize)>> = HashMap::new();
    for (r, rule) in rules.rules.iter().enumerate() {
        for (s, selector) in rule.selectors.iter().enumerate() {
            let k = match key(selector) {
                Key::Id(id) => Key::Id(fold(&id)),
                Key::Class(c) => Key::Class(fold(&c)),
                other => other,
            };
            buckets.entry(k).or_default().push((r, s));
        }
    }
    let doc = Doc { dom, checked };
    let mut caches = SelectorCaches::default();
    let mut out = vec![Style::default(); dom.nodes.len()];
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    for (i, e) in dom.elements() {
        if !matches!(e.ns, Ns::Html | Ns::Svg | Ns::Math) {
            continue;
        }
        candidates.clear();
        let mut take = |k: Key| {
            if let Some(b) = buckets.get(&k) {
                candidates.extend_from_slice(b);
            }
        };
        take(Key::Any);
        take(Key::Tag(e.local.to_ascii_lowercase()));
        if let Some(id) = dom.attr(i, "id") {
            take(Key::Id(fold(id)));
        }
        if let Some(class) = dom.attr(i, "class") {
            for c in class.split_ascii_whitespace() {
                take(Key::Class(fold(c)));
            }
        }
        let inline = dom.attr(i, "style").map(|s| declarations(s).0);
        let mut winners: Vec<(Prop, Rank, &Decl)> = Vec::new();
        for &(r, s) in &candidates {
            let Some(rule) = rules.rules.get(r) else {
                continue;
            };
            let Some(selector) = rule.selectors.get(s) else {
                continue;
            };
            if !doc.matches(selector, i, &mut caches) {
                continue;
            }
            for d in &rule.decls {
                win(
                    &mut winners,
                    d,
                    (d.important, false, selector.specificity(), r),
                );
            }
        }
        for d in inline.iter().flatten() {
            win(&mut winners, d, (d.important, true, 0, 0));
        }
        if let Some(style) = out.get_mut(i) {
            for (_, _, d) in &winners {
                style.set(d);
            }
        }
    }
    out
}

/// Keep `d` if it outranks the declaration of its property kept so far (sizes and offsets
/// stand for several properties: each of their declarations is kept).
fn win<'a>(winners: &mut Vec<(Prop, Rank, &'a Decl)>, d: &'a Decl, rank: Rank) {
    if matches!(d.prop, Prop::Size | Prop::Offset) {
        winners.push((d.prop, rank, d));
        return;
    }
    match winners.iter_mut().find(|(p, _, _)| *p == d.prop) {
        Some(w) if w.1 <= rank => *w = (d.prop, rank, d),
        Some(_) => {}
        None => winners.push((d.prop, rank, d)),
    }
}
