//! `browse_find`: matches on the whole page, each with its context — the text and the
//! controls of the row, list item, section or card it sits in — so the agent can act on
//! what it found (the row's "Buy" button) without paging through snapshots.

use crate::refs::RefMap;
use crate::render::{self, Mode};
use crate::text;
use std::collections::HashSet;
use warden_sdk::browser::{Element, Snapshot};

/// At most this many controls of a match's context are listed, the nearest first.
const CONTEXT_REFS: usize = 8;
/// A context's text is cut at this many characters.
const CONTEXT_CHARS: usize = 200;
/// Without a row or card around it, a match's context is this many elements either side.
const NEAR: usize = 3;

/// The container an element belongs to: (frame, container id, kind), from its `group`.
fn group(e: &Element) -> Option<(u32, &str, &str)> {
    let g = e.attributes.iter().find(|(k, _)| k == "group")?;
    let (id, kind) = g.1.split_once(' ')?;
    Some((e.frame, id, kind))
}

/// How well an element matches, best first: where the query stands in its accessible name
/// (the whole name, a whole word, the start of a word, inside a word), then a match only in
/// its value or attributes. On a large page the one the agent wants is rarely the first in
/// document order (a heading "Map" after 80 "Mapping …" links), so matches are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Exact,
    Word,
    Prefix,
    Inside,
    Elsewhere,
}

impl Rank {
    fn label(self) -> &'static str {
        match self {
            Rank::Exact => "exact",
            Rank::Word => "whole word",
            Rank::Prefix => "word start",
            Rank::Inside => "inside a word",
            Rank::Elsewhere => "value or attribute",
        }
    }
}

/// Where `query` (lowercase, not empty) stands in `text`, the best place it occurs.
fn rank_in(text: &str, query: &str) -> Option<Rank> {
    let lower = text.trim().to_lowercase();
    if lower == query {
        return Some(Rank::Exact);
    }
    // A query that starts or ends with punctuation (`op17(`) needs no boundary there.
    let open_start = !query.starts_with(char::is_alphanumeric);
    let open_end = !query.ends_with(char::is_alphanumeric);
    let mut best: Option<Rank> = None;
    for (at, _) in lower.match_indices(query) {
        let before = lower[..at].chars().next_back();
        let after = lower[at + query.len()..].chars().next();
        let starts = open_start || before.is_none_or(|c| !c.is_alphanumeric());
        let ends = open_end || after.is_none_or(|c| !c.is_alphanumeric());
        let here = match (starts, ends) {
            (true, true) => Rank::Word,
            (true, false) => Rank::Prefix,
            _ => Rank::Inside,
        };
        best = Some(best.map_or(here, |b| b.min(here)));
        if here == Rank::Word {
            break;
        }
    }
    best
}

/// How `e` matches `query` (lowercase), or `None`.
fn rank(e: &Element, query: &str, role: Option<&str>) -> Option<Rank> {
    if role.is_some_and(|r| r != e.role) {
        return None;
    }
    rank_in(&e.name, query).or_else(|| {
        let elsewhere = e
            .value
            .as_deref()
            .is_some_and(|v| v.to_lowercase().contains(query))
            || e.attributes
                .iter()
                .any(|(k, v)| !render::internal(k) && v.to_lowercase().contains(query));
        elsewhere.then_some(Rank::Elsewhere)
    })
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// The part of a long text around the first place `query` (lowercase) occurs in it.
fn excerpt(text: &str, query: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= CONTEXT_CHARS {
        return text.to_string();
    }
    let lower = text.to_lowercase();
    let at = lower
        .find(query)
        .map_or(0, |byte| lower[..byte].chars().count())
        .min(chars.len());
    let from = at.saturating_sub(CONTEXT_CHARS / 3);
    let to = (from + CONTEXT_CHARS).min(chars.len());
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.extend(&chars[from..to]);
    if to < chars.len() {
        out.push('…');
    }
    out
}

/// A control as a context names it: `@eN [role] "name"`.
fn short(e: &Element, refs: &mut RefMap) -> String {
    let inferred = if e.attributes.iter().any(|(k, _)| k == "name-from") {
        "~"
    } else {
        ""
    };
    format!(
        "@e{} [{}] {inferred}{}",
        refs.ref_of(e.handle),
        e.role,
        text::quoted(&cut(&e.name, 40))
    )
}

/// The context line of the match at `at`: its container's kind, text and nearest controls.
fn context(snap: &Snapshot, at: usize, refs: &mut RefMap) -> Option<String> {
    let els = &snap.elements;
    let me = &els[at];
    let (kind, members): (&str, Vec<usize>) = match group(me) {
        Some(key) => (
            key.2,
            (0..els.len())
                .filter(|&i| group(&els[i]) == Some(key))
                .collect(),
        ),
        None => (
            "near",
            (at.saturating_sub(NEAR)..(at + NEAR + 1).min(els.len()))
                .filter(|&i| els[i].frame == me.frame)
                .collect(),
        ),
    };
    let text: Vec<&str> = members
        .iter()
        .filter(|&&i| i != at && !els[i].interactive)
        .map(|&i| els[i].name.as_str())
        .collect();
    let mut controls: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&i| i != at && els[i].interactive)
        .collect();
    if text.is_empty() && controls.is_empty() {
        return None;
    }
    controls.sort_by_key(|&i| i.abs_diff(at));
    let more = controls.len().saturating_sub(CONTEXT_REFS);
    controls.truncate(CONTEXT_REFS);
    controls.sort_unstable();
    let mut line = if kind == "near" {
        "  near:".to_string()
    } else {
        format!("  in {kind}:")
    };
    if !text.is_empty() {
        line.push(' ');
        line.push_str(&text::quoted(&cut(&text.join(" · "), CONTEXT_CHARS)));
    }
    let shown: Vec<String> = controls.iter().map(|&i| short(&els[i], refs)).collect();
    if !shown.is_empty() {
        line.push(' ');
        line.push_str(&shown.join(", "));
    }
    if more > 0 {
        line.push_str(&format!(" (+{more} more)"));
    }
    Some(line)
}

/// The answer of `browse_find`: a count, then the matches best first (see [`Rank`]; in
/// document order within a rank), `limit` of them from `offset`, each with its context.
pub fn find(
    snap: &Snapshot,
    refs: &mut RefMap,
    query: &str,
    role: Option<&str>,
    limit: usize,
    offset: usize,
) -> String {
    let q = query.trim().to_lowercase();
    let frames: Vec<String> = snap.frames.iter().map(|f| f.name.clone()).collect();
    let mut hits: Vec<(Rank, usize)> = (0..snap.elements.len())
        .filter_map(|i| rank(&snap.elements[i], &q, role).map(|r| (r, i)))
        .collect();
    hits.sort();
    let mut out = format!(
        "{} match(es) for \"{}\" on {}",
        hits.len(),
        query,
        snap.meta.url
    );
    let counts: Vec<String> = [
        Rank::Exact,
        Rank::Word,
        Rank::Prefix,
        Rank::Inside,
        Rank::Elsewhere,
    ]
    .iter()
    .filter_map(|&r| {
        let n = hits.iter().filter(|(h, _)| *h == r).count();
        (n > 0).then(|| format!("{n} {}", r.label()))
    })
    .collect();
    if hits.len() > 1 {
        out.push_str(&format!(", best first: {}", counts.join(", ")));
    }
    let end = offset.saturating_add(limit).min(hits.len());
    if hits.is_empty() {
        // Nothing to show, whatever the offset.
    } else if offset >= hits.len() {
        out.push_str(&format!(
            "; none from offset {offset} (offset 0 starts from the best)"
        ));
    } else if offset > 0 || end < hits.len() {
        out.push_str(&format!("; shown: {} to {end}", offset + 1));
        if end < hits.len() {
            out.push_str(&format!(
                "; offset {end} shows the next, or narrow the query or role"
            ));
        }
    }
    out.push('\n');
    // A container shared by several matches is shown once.
    let mut seen = HashSet::new();
    for &(_, i) in hits.iter().skip(offset).take(limit) {
        let e = &snap.elements[i];
        if e.interactive || e.role == "heading" {
            out.push_str(&render::element_line(e, refs, Mode::Full, &frames));
        } else {
            out.push_str(&format!("- {}", excerpt(&e.name, &q)));
        }
        out.push('\n');
        if let Some(key) = group(e)
            && !seen.insert(key)
        {
            continue;
        }
        if let Some(line) = context(snap, i, refs) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_sdk::browser::{ElementStates, PageMeta};

    fn el(handle: u64, role: &str, name: &str, group: Option<&str>) -> Element {
        Element {
            handle,
            frame: 0,
            role: role.into(),
            name: name.into(),
            value: None,
            attributes: group
                .map(|g| vec![("group".to_string(), g.to_string())])
                .unwrap_or_default(),
            states: ElementStates::empty(),
            bounds: None,
            interactive: role != "text",
            level: 0,
            overlay: None,
        }
    }

    fn snap(elements: Vec<Element>) -> Snapshot {
        Snapshot {
            meta: PageMeta {
                url: "http://x/".into(),
                title: String::new(),
                page_type: None,
                has_login_form: false,
                has_captcha: false,
                form_count: 0,
                description: None,
            },
            elements,
            overlays: vec![],
            frames: vec![],
            text_included: true,
        }
    }

    #[test]
    fn a_match_comes_with_its_rows_controls_and_text() {
        let mut els = Vec::new();
        for row in 0..3u64 {
            let g = format!("{} row", 100 + row);
            els.push(el(row * 10 + 1, "link", &format!("Vase {row}"), Some(&g)));
            els.push(el(row * 10 + 2, "text", "$12 | In stock", Some(&g)));
            els.push(el(row * 10 + 3, "button", "Buy", Some(&g)));
        }
        let s = snap(els);
        let mut refs = RefMap::default();
        let out = find(&s, &mut refs, "vase 1", None, 20, 0);
        assert!(out.starts_with("1 match(es)"), "{out}");
        assert!(out.contains("@e1 [link] \"Vase 1\""), "{out}");
        assert!(
            out.contains("  in row: \"$12 | In stock\" @e2 [button] \"Buy\"\n"),
            "{out}"
        );
        assert_eq!(refs.handle(2).ok(), Some(13));
        // "row" is a group kind, not page text: it matches nothing.
        assert!(find(&s, &mut refs, "row", None, 20, 0).starts_with("0 match"));
    }

    #[test]
    fn a_long_text_match_is_shown_around_the_match() {
        let long = format!("{} needle {}", "a".repeat(500), "b".repeat(500));
        let out = find(
            &snap(vec![el(1, "text", &long, None)]),
            &mut RefMap::default(),
            "needle",
            None,
            20,
            0,
        );
        let line = out.lines().nth(1).unwrap_or_default();
        assert!(line.starts_with("- …a") && line.ends_with("b…"), "{line}");
        assert!(line.contains("needle") && line.chars().count() < CONTEXT_CHARS + 10);
    }

    #[test]
    fn context_is_bounded() {
        let mut els = vec![el(1, "heading", "Section", Some("9 section"))];
        els[0].interactive = false;
        for i in 0..20u64 {
            els.push(el(10 + i, "link", &format!("Link {i}"), Some("9 section")));
        }
        let out = find(&snap(els), &mut RefMap::default(), "link 10", None, 20, 0);
        assert!(out.contains("(+11 more)"), "{out}");
        let context = out.lines().nth(2).unwrap_or_default();
        assert_eq!(context.matches("@e").count(), CONTEXT_REFS, "{out}");
        assert!(context.contains("\"Link 9\"") && context.contains("\"Link 11\""));
    }

    #[test]
    fn a_query_ranks_where_it_stands_in_a_name() {
        assert_eq!(rank_in("  Map ", "map"), Some(Rank::Exact));
        assert_eq!(rank_in("Site map and index", "map"), Some(Rank::Word));
        assert_eq!(rank_in("Mapping tables", "map"), Some(Rank::Prefix));
        assert_eq!(rank_in("Heatmaps", "map"), Some(Rank::Inside));
        // The best place in the name counts, not the first.
        assert_eq!(rank_in("heatmap, map", "map"), Some(Rank::Word));
        assert_eq!(rank_in("Roadmap", "map"), Some(Rank::Inside));
        assert_eq!(rank_in("nothing here", "map"), None);
        // Punctuation at the query's edge needs no word boundary there.
        assert_eq!(
            rank_in("pub fn op17(&self)", "pub fn op17("),
            Some(Rank::Word)
        );
        assert_eq!(rank_in("Straße", "straße"), Some(Rank::Exact));
    }

    #[test]
    fn the_best_match_comes_first_however_late_it_is_and_the_rest_page() {
        let mut els: Vec<Element> = (0..88u64)
            .map(|i| el(i + 1, "link", &format!("Mapping {i}"), None))
            .collect();
        els.push(el(200, "link", "Heatmap", None));
        els.push(el(201, "link", "Map", None));
        els.push(el(202, "link", "The map room", None));
        let mut value = el(203, "textbox", "Search", None);
        value.value = Some("map".into());
        els.push(value);
        let s = snap(els);
        let mut refs = RefMap::default();
        let out = find(&s, &mut refs, "Map", None, 5, 0);
        // The matches' lines, without their context lines.
        let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("  ")).collect();
        assert!(
            lines[0].starts_with("92 match(es) for \"Map\"")
                && lines[0].contains(
                    "best first: 1 exact, 1 whole word, 88 word start, 1 inside a word, 1 value or attribute"
                )
                && lines[0].contains("shown: 1 to 5; offset 5 shows the next"),
            "{out}"
        );
        assert!(lines[1].contains("[link] \"Map\""), "{out}");
        assert!(lines[2].contains("\"The map room\""), "{out}");
        assert!(lines[3].contains("\"Mapping 0\""), "{out}");

        let last = find(&s, &mut refs, "map", None, 5, 90);
        assert!(
            last.lines()
                .next()
                .is_some_and(|l| l.contains("shown: 91 to 92")),
            "{last}"
        );
        assert!(!last.contains("offset 92"), "{last}");
        assert!(
            last.contains("\"Heatmap\"") && last.contains("[textbox]"),
            "{last}"
        );
        let past = find(&s, &mut refs, "map", None, 5, usize::MAX);
        assert!(past.contains("none from offset"), "{past}");
        assert_eq!(past.lines().count(), 1, "{past}");
        let none = find(&s, &mut refs, "zebra", None, 5, usize::MAX);
        assert_eq!(none, "0 match(es) for \"zebra\" on http://x/\n");
    }
}
