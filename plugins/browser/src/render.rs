//! The snapshot as agents read it: one line per element, `@eN [role] "name" attrs`, the
//! page's meta first, overlays before everything else, bounded by a token budget with pages
//! and a closing line that says what was left out and how to reach it.

use crate::refs::RefMap;
use crate::text::quoted;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use warden_sdk::browser::{Element, ElementStates, Snapshot};

/// What a snapshot shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Interactive elements only.
    Interactive,
    /// Interactive elements, headings and text, in page order.
    Full,
}

/// From this many tokens on, a snapshot's header states its size.
const SHOW_SIZE_FROM: usize = 500;

/// Tokens as agents' tokenizers roughly count them.
pub fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// A rendered snapshot: the header, the overlay warnings and every element line.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Rendered {
    pub url: String,
    pub header: String,
    pub warnings: Vec<String>,
    pub lines: Vec<String>,
}

fn quote(s: &str, max: usize) -> String {
    let s: String = if s.chars().count() > max {
        let mut cut: String = s.chars().take(max - 1).collect();
        cut.push('…');
        cut
    } else {
        s.to_string()
    };
    quoted(&s)
}

/// The attributes the page script adds for the plugin, not for matching or showing.
pub fn internal(key: &str) -> bool {
    key == "group" || key == "name-from"
}

const STATES: &[(ElementStates, &str)] = &[
    (ElementStates::DISABLED, "disabled"),
    (ElementStates::CHECKED, "checked"),
    (ElementStates::MIXED, "mixed"),
    (ElementStates::SELECTED, "selected"),
    (ElementStates::EXPANDED, "expanded"),
    (ElementStates::FOCUSED, "focused"),
    (ElementStates::REQUIRED, "required"),
    (ElementStates::READONLY, "readonly"),
];

/// One element's line (and its ref, for interactive elements).
pub fn element_line(e: &Element, refs: &mut RefMap, mode: Mode, frames: &[String]) -> String {
    if !e.interactive {
        if e.role == "heading" {
            let level = usize::from(e.level.clamp(1, 6));
            return format!("{} {}", "#".repeat(level), e.name);
        }
        return format!("- {}", e.name);
    }
    let r = refs.ref_of(e.handle);
    // A name the page does not give but its visible text suggests is marked `~`.
    let inferred = e.attributes.iter().any(|(k, _)| k == "name-from");
    let max = if mode == Mode::Full { 200 } else { 80 };
    let mut line = format!(
        "@e{r} [{}] {}{}",
        e.role,
        if inferred { "~" } else { "" },
        quote(&e.name, max)
    );
    if let Some(v) = e.value.as_deref().filter(|v| !v.is_empty() && *v != e.name) {
        line.push_str(&format!(" value={}", quote(v, 80)));
    }
    for (k, v) in &e.attributes {
        match k.as_str() {
            // Where a link goes is left out for tokens, unless the link has no name (an
            // icon-only link): then it is all that tells the agent what the link is.
            "href" if mode == Mode::Interactive && !e.name.is_empty() => {}
            "target" => line.push_str(" →new tab"),
            "multiline" => {}
            k if internal(k) => {}
            _ => line.push_str(&format!(" {k}={}", quote(v, 120))),
        }
    }
    for (flag, name) in STATES {
        if e.states.contains(*flag) {
            line.push_str(&format!(" [{name}]"));
        }
    }
    if e.frame > 0 {
        match frames.get(e.frame as usize).filter(|n| !n.is_empty()) {
            Some(name) => line.push_str(&format!(" (frame {name})")),
            None => line.push_str(&format!(" (frame {})", e.frame)),
        }
    }
    line
}

/// Render every element of `snap`, assigning refs in page order.
pub fn render(snap: &Snapshot, refs: &mut RefMap, mode: Mode) -> Rendered {
    let frames: Vec<String> = snap.frames.iter().map(|f| f.name.clone()).collect();
    let mut lines = Vec::new();
    let mut overlay_first_ref: Vec<Option<u32>> = vec![None; snap.overlays.len()];
    let wanted = |e: &&Element| mode == Mode::Full || e.interactive;
    // Elements in an overlay come first: the agent has to deal with it before the rest.
    let (in_overlay, rest): (Vec<&Element>, Vec<&Element>) = snap
        .elements
        .iter()
        .filter(wanted)
        .partition(|e| e.overlay.is_some());
    for e in in_overlay.iter().chain(rest.iter()) {
        let slot = e
            .overlay
            .filter(|_| e.interactive)
            .and_then(|o| overlay_first_ref.get_mut(o as usize));
        if let Some(slot @ None) = slot {
            *slot = Some(refs.ref_of(e.handle));
        }
        lines.push(element_line(e, refs, mode, &frames));
    }
    let m = &snap.meta;
    let mut tags = Vec::new();
    if m.has_login_form {
        tags.push("[login form]".to_string());
    } else if let Some(t) = &m.page_type {
        tags.push(format!("[{t}]"));
    }
    if m.has_captcha {
        tags.push("[captcha]".into());
    }
    if m.form_count > 1 {
        tags.push(format!("[{} forms]", m.form_count));
    }
    let mut header = format!("Page: {} {}", quote(&m.title, 80), m.url);
    if !tags.is_empty() {
        header.push(' ');
        header.push_str(&tags.join(" "));
    }
    let opaque = snap.frames.iter().filter(|f| f.opaque).count();
    if opaque > 0 {
        header.push_str(&format!(" ({opaque} frame(s) unreadable)"));
    }
    let warnings = snap
        .overlays
        .iter()
        .zip(&overlay_first_ref)
        .map(|(o, r)| {
            let at = r.map(|r| format!(" @e{r}")).unwrap_or_default();
            format!(
                "⚠ OVERLAY: [{}] {}{at} — handle it first",
                o.kind,
                quote(&o.label, 40)
            )
        })
        .collect();
    Rendered {
        url: m.url.clone(),
        header,
        warnings,
        lines,
    }
}

/// The text of page `page` (1-based) of a rendered snapshot within `max_tokens`.
pub fn page_text(r: &Rendered, max_tokens: usize, page: usize) -> String {
    let fixed: usize = tokens(&r.header) + r.warnings.iter().map(|w| tokens(w)).sum::<usize>() + 40;
    let budget = max_tokens.saturating_sub(fixed).max(50);
    // Split the lines into pages that fit the budget.
    let mut pages: Vec<(usize, usize)> = Vec::new();
    let (mut start, mut used) = (0, 0);
    for (i, line) in r.lines.iter().enumerate() {
        let t = tokens(line) + 1;
        if used + t > budget && i > start {
            pages.push((start, i));
            start = i;
            used = 0;
        }
        used += t;
    }
    pages.push((start, r.lines.len()));
    let total_pages = pages.len();
    let page = page.clamp(1, total_pages);
    let (from, to) = pages[page - 1];
    let body: Vec<&str> = r.lines[from..to].iter().map(String::as_str).collect();
    let mut out = String::new();
    let body_tokens: usize = body.iter().map(|l| tokens(l) + 1).sum();
    let shown_tokens = fixed - 40 + body_tokens;
    // The size is worth its words only on a long answer.
    if shown_tokens >= SHOW_SIZE_FROM {
        out.push_str(&format!("{} ~{shown_tokens} tokens\n", r.header));
    } else {
        out.push_str(&r.header);
        out.push('\n');
    }
    for w in &r.warnings {
        out.push_str(w);
        out.push('\n');
    }
    if r.lines.is_empty() {
        out.push_str("(no interactive elements; try mode \"full\" for the page's text)\n");
    }
    for line in &body {
        out.push_str(line);
        out.push('\n');
    }
    if total_pages > 1 {
        let after = r.lines.len() - to;
        let before = from;
        let mut note = format!(
            "… page {page} of {total_pages}: lines {}-{} of {}",
            from + 1,
            to,
            r.lines.len()
        );
        if after > 0 {
            note.push_str(&format!(
                "; {after} more not shown: browse_snapshot {{\"page\": {}}} for the next page, or browse_find {{\"query\": \"…\"}} to search the whole page",
                page + 1
            ));
        }
        if before > 0 && after == 0 {
            note.push_str("; this is the last page");
        }
        out.push_str(&note);
        out.push('\n');
    }
    out
}

/// A short diff between two renderings of the same page, or none when too much changed
/// for a diff to be shorter than the snapshot.
pub fn diff(old: &Rendered, new: &Rendered) -> Option<String> {
    if old.url != new.url || old.lines.is_empty() {
        return None;
    }
    let old_set: HashSet<&str> = old.lines.iter().map(String::as_str).collect();
    let new_set: HashSet<&str> = new.lines.iter().map(String::as_str).collect();
    let added: Vec<&str> = new
        .lines
        .iter()
        .map(String::as_str)
        .filter(|l| !old_set.contains(l))
        .collect();
    let removed: Vec<&str> = old
        .lines
        .iter()
        .map(String::as_str)
        .filter(|l| !new_set.contains(l))
        .collect();
    // Lines that only moved (a reordered list) make no +/- lines: show the whole page.
    let kept_old = old.lines.iter().filter(|l| new_set.contains(l.as_str()));
    let kept_new = new.lines.iter().filter(|l| old_set.contains(l.as_str()));
    if !kept_old.eq(kept_new) {
        return None;
    }
    let changes = added.len() + removed.len();
    if changes > 12.max(new.lines.len() / 3) || old.warnings != new.warnings {
        return None;
    }
    let mut out = format!("{} (unchanged except:)\n", new.header);
    if changes == 0 {
        out.push_str("no visible change\n");
    }
    for l in removed {
        out.push_str(&format!("- {l}\n"));
    }
    for l in added {
        out.push_str(&format!("+ {l}\n"));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(lines: &[&str]) -> Rendered {
        Rendered {
            url: "http://x/".into(),
            header: "Page: \"x\" (http://x/)".into(),
            warnings: vec![],
            lines: lines.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_name_is_quoted_character_for_character() {
        assert_eq!(
            quote(r#"Type "blue" and press Enter"#, 200),
            r#""Type \"blue\" and press Enter""#
        );
        assert_eq!(quote("it's", 200), "\"it's\"");
    }

    #[test]
    fn pages_fit_the_budget_and_say_what_is_left() {
        let lines: Vec<String> = (1..=500)
            .map(|i| format!("@e{i} [button] \"Row {i}\""))
            .collect();
        let r = Rendered {
            lines,
            ..rendered(&[])
        };
        let first = page_text(&r, 500, 1);
        assert!(tokens(&first) <= 560, "{} tokens", tokens(&first));
        assert!(first.contains("browse_snapshot {\"page\": 2}"));
        assert!(first.contains("browse_find"));
        let long = page_text(&r, 2000, 1);
        assert!(long.lines().next().is_some_and(|l| l.ends_with(" tokens")));
        let small = page_text(&rendered(&["@e1 [button] \"A\""]), 2000, 1);
        assert_eq!(small, "Page: \"x\" (http://x/)\n@e1 [button] \"A\"\n");
        let last = page_text(&r, 500, 999);
        assert!(last.contains("@e500 "));
        assert!(last.contains("last page"));
    }

    #[test]
    fn inferred_names_are_marked_and_internal_attributes_hidden() {
        let e = Element {
            handle: 7,
            frame: 0,
            role: "textbox".into(),
            name: "Email".into(),
            value: None,
            attributes: vec![
                ("name-from".into(), "text".into()),
                ("group".into(), "12 row".into()),
            ],
            states: ElementStates::empty(),
            bounds: None,
            interactive: true,
            level: 0,
            overlay: None,
        };
        let line = element_line(&e, &mut RefMap::default(), Mode::Interactive, &[]);
        assert_eq!(line, "@e1 [textbox] ~\"Email\"");
    }

    #[test]
    fn a_link_without_a_name_shows_where_it_goes() {
        let link = |name: &str| Element {
            handle: 3,
            frame: 0,
            role: "link".into(),
            name: name.into(),
            value: None,
            attributes: vec![("href".into(), "https://github.com/warden".into())],
            states: ElementStates::empty(),
            bounds: None,
            interactive: true,
            level: 0,
            overlay: None,
        };
        let mut refs = RefMap::default();
        assert_eq!(
            element_line(&link(""), &mut refs, Mode::Interactive, &[]),
            "@e1 [link] \"\" href=\"https://github.com/warden\""
        );
        let mut refs = RefMap::default();
        assert_eq!(
            element_line(&link("Source"), &mut refs, Mode::Interactive, &[]),
            "@e1 [link] \"Source\""
        );
    }

    #[test]
    fn small_changes_render_as_a_diff() {
        let a = rendered(&["@e1 [button] \"A\"", "@e2 [textbox] \"B\""]);
        let b = rendered(&["@e1 [button] \"A\"", "@e2 [textbox] \"B\" value=\"x\""]);
        let d = diff(&a, &b).expect("a diff");
        assert!(d.contains("- @e2 [textbox] \"B\"\n"));
        assert!(d.contains("+ @e2 [textbox] \"B\" value=\"x\"\n"));
        let other = Rendered {
            url: "http://y/".into(),
            ..b
        };
        assert!(diff(&a, &other).is_none());
        let reordered = rendered(&["@e2 [textbox] \"B\"", "@e1 [button] \"A\""]);
        assert!(diff(&a, &reordered).is_none(), "a reorder shows the page");
    }
}
