//! `browse_find`: matches on the whole page, each with its context — the text and the
//! controls of the row, list item, section or card it sits in — so the agent can act on
//! what it found (the row's "Buy" button) without paging through snapshots.

use crate::refs::RefMap;
use crate::render::{self, Mode};
use std::collections::HashSet;
use warden_sdk::browser::{Element, Snapshot};

/// At most this many controls of a match's context are listed, the nearest first.
const CONTEXT_REFS: usize = 8;
/// A context's text is cut at this many characters.
const CONTEXT_CHARS: usize = 200;
/// Without a row or card around it, a match's context is this many elements either side.
const NEAR: usize = 3;

/// The attributes the page script adds for the plugin, not for matching or showing.
pub fn internal(key: &str) -> bool {
    key == "group" || key == "name-from"
}

/// The container an element belongs to: (frame, container id, kind), from its `group`.
fn group(e: &Element) -> Option<(u32, &str, &str)> {
    let g = e.attributes.iter().find(|(k, _)| k == "group")?;
    let (id, kind) = g.1.split_once(' ')?;
    Some((e.frame, id, kind))
}

fn matches(e: &Element, query: &str, role: Option<&str>) -> bool {
    if role.is_some_and(|r| r != e.role) {
        return false;
    }
    e.name.to_lowercase().contains(query)
        || e.value
            .as_deref()
            .is_some_and(|v| v.to_lowercase().contains(query))
        || e.attributes
            .iter()
            .any(|(k, v)| !internal(k) && v.to_lowercase().contains(query))
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
        "@e{} [{}] {inferred}\"{}\"",
        refs.ref_of(e.handle),
        e.role,
        cut(&e.name, 40).replace('"', "'")
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
        line.push_str(&format!(
            " \"{}\"",
            cut(&text.join(" · "), CONTEXT_CHARS).replace('"', "'")
        ));
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

/// The answer of `browse_find`: a count, then each match (at most `limit`) with its context.
pub fn find(
    snap: &Snapshot,
    refs: &mut RefMap,
    query: &str,
    role: Option<&str>,
    limit: usize,
) -> String {
    let q = query.to_lowercase();
    let frames: Vec<String> = snap.frames.iter().map(|f| f.name.clone()).collect();
    let hits: Vec<usize> = (0..snap.elements.len())
        .filter(|&i| matches(&snap.elements[i], &q, role))
        .collect();
    let mut out = format!(
        "{} match(es) for \"{}\" on {}",
        hits.len(),
        query,
        snap.meta.url
    );
    if hits.len() > limit {
        out.push_str(&format!(
            " (first {limit} shown; raise limit for more, or narrow the query or role)"
        ));
    }
    out.push('\n');
    // A container shared by several matches is shown once.
    let mut seen = HashSet::new();
    for &i in hits.iter().take(limit) {
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
        let out = find(&s, &mut refs, "vase 1", None, 20);
        assert!(out.starts_with("1 match(es)"), "{out}");
        assert!(out.contains("@e1 [link] \"Vase 1\""), "{out}");
        assert!(
            out.contains("  in row: \"$12 | In stock\" @e2 [button] \"Buy\"\n"),
            "{out}"
        );
        assert_eq!(refs.handle(2).ok(), Some(13));
        // "row" is a group kind, not page text: it matches nothing.
        assert!(find(&s, &mut refs, "row", None, 20).starts_with("0 match"));
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
        let out = find(&snap(els), &mut RefMap::default(), "link 10", None, 20);
        assert!(out.contains("(+11 more)"), "{out}");
        let context = out.lines().nth(2).unwrap_or_default();
        assert_eq!(context.matches("@e").count(), CONTEXT_REFS, "{out}");
        assert!(context.contains("\"Link 9\"") && context.contains("\"Link 11\""));
    }
}
