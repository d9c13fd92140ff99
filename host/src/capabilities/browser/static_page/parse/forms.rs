//! Forms, and the markup the browser checks read: input types and the values fields load
//! with, labels, a select's options, checkedness; scripts that run, `javascript:` URLs.

use std::collections::HashMap;

use super::dom::{Dom, Ix, Ns};
use super::text::{css_space, js_number_string};
use super::vocab::has;

/// `(el.getAttribute('type') || 'text').toLowerCase()`.
pub(super) fn input_type(dom: &Dom, el: Ix) -> String {
    dom.attr(el, "type")
        .filter(|t| !t.is_empty())
        .unwrap_or("text")
        .to_lowercase()
}

/// HTML's labelable elements.
pub(super) fn labelable(dom: &Dom, i: Ix) -> bool {
    dom.html_in(
        i,
        &[
            "button", "meter", "output", "progress", "select", "textarea",
        ],
    ) || (dom.html(i, "input")
        && !dom
            .attr(i, "type")
            .is_some_and(|t| t.eq_ignore_ascii_case("hidden")))
}

/// Whether a `<script>` runs: JavaScript (classic or module) or an import map; anything else
/// is a data block. A `language` attribute stands in for a missing `type`, as in browsers.
pub(super) fn runs(dom: &Dom, script: Ix) -> bool {
    #[rustfmt::skip]
    const JS: &[&str] = &[
        "application/ecmascript", "application/javascript", "application/x-ecmascript",
        "application/x-javascript", "text/ecmascript", "text/javascript", "text/javascript1.0",
        "text/javascript1.1", "text/javascript1.2", "text/javascript1.3", "text/javascript1.4",
        "text/javascript1.5", "text/javascript1.6", "text/javascript1.7", "text/jscript",
        "text/livescript", "text/x-ecmascript", "text/x-javascript",
    ];
    let ty = match (dom.attr(script, "type"), dom.attr(script, "language")) {
        (Some(t), _) => t.to_string(),
        (None, Some(l)) if !l.is_empty() => format!("text/{l}"),
        (None, _) => String::new(),
    };
    let ty = ty.trim_matches(css_space).to_ascii_lowercase();
    // Parameters are ignored: a `charset` on a script's type should not hide it.
    let essence = ty.split(';').next().unwrap_or("").trim_matches(css_space);
    ty.is_empty() || has(JS, essence) || ty == "module" || ty == "importmap"
}

/// A `javascript:` URL as a URL parser reads it (leading controls and spaces, and tabs and
/// newlines anywhere, do not count).
pub(super) fn javascript_url(v: &str) -> bool {
    let s: String = v
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let s = s.trim_start_matches(|c: char| c <= ' ');
    s.get(..11)
        .is_some_and(|p| p.eq_ignore_ascii_case("javascript:"))
}

/// A URL fragment's `%XX` escapes decoded (UTF-8, lossy).
pub(super) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|&c| hex(c)),
                b.get(i + 2).and_then(|&c| hex(c)),
            )
        {
            // Two hex digits make a byte.
            #[allow(clippy::cast_possible_truncation)]
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Each `<input>`'s checkedness once parsed: its `checked` attribute, except that a radio
/// group keeps only its last checked button (each one checked unchecks the others).
pub(super) fn checkedness(dom: &Dom) -> Vec<bool> {
    let mut checked = vec![false; dom.nodes.len()];
    let mut groups: HashMap<(Option<Ix>, &str), Ix> = HashMap::new();
    for (i, e) in dom.elements() {
        if e.ns != Ns::Html || e.local != "input" || !dom.has(i, "checked") {
            continue;
        }
        checked[i] = true;
        let radio = dom
            .attr(i, "type")
            .is_some_and(|t| t.eq_ignore_ascii_case("radio"));
        if let Some(name) = dom.attr(i, "name").filter(|n| radio && !n.is_empty()) {
            let form = match dom.attr(i, "form") {
                Some(id) => dom.by_id(id).filter(|&f| dom.html(f, "form")),
                None => dom.closest(i, |a| dom.html(a, "form")),
            };
            if let Some(before) = groups.insert((form, name), i) {
                checked[before] = false;
            }
        }
    }
    checked
}

/// A select's options (`el.options`): its option descendants, not those of a nested select
/// or datalist (the relaxed `<select>` parser lets other markup wrap them).
pub(super) fn options(dom: &Dom, select: Ix) -> Vec<Ix> {
    let mut out = Vec::new();
    let mut j = select + 1;
    while j < dom.end(select) {
        if dom.html(j, "option") {
            out.push(j);
            j = dom.end(j);
        } else if dom.html_in(j, &["select", "datalist"]) {
            j = dom.end(j);
        } else {
            j += 1;
        }
    }
    out
}

/// `option.text`: its text but a script's, ASCII white space stripped and collapsed.
pub(super) fn option_text(dom: &Dom, o: Ix) -> String {
    let mut text = String::new();
    let mut j = o + 1;
    while j < dom.end(o) {
        if dom.named(j, "script") {
            j = dom.end(j);
            continue;
        }
        if let Some(t) = dom.text(j) {
            text.push_str(t);
        }
        j += 1;
    }
    text.split(css_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `o.label || o.text`.
pub(super) fn option_label(dom: &Dom, o: Ix) -> String {
    match dom.attr(o, "label").filter(|l| !l.is_empty()) {
        Some(l) => l.to_string(),
        None => option_text(dom, o),
    }
}

/// `selectedOptions` as the page loads: options with `selected` (in a single select, the last
/// of them), else a drop-down's first enabled option.
pub(super) fn selected(dom: &Dom, select: Ix) -> Vec<Ix> {
    let opts = options(dom, select);
    let chosen: Vec<Ix> = opts
        .iter()
        .copied()
        .filter(|&o| dom.has(o, "selected"))
        .collect();
    if dom.has(select, "multiple") {
        return chosen;
    }
    if let Some(&last) = chosen.last() {
        return vec![last];
    }
    let size = dom.attr(select, "size").and_then(|s| {
        let digits: String = s
            .trim_start_matches(css_space)
            .trim_start_matches('+')
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse::<u64>().ok()
    });
    if size.is_some_and(|s| s > 1) {
        return Vec::new();
    }
    let enabled = |o: Ix| {
        !dom.has(o, "disabled")
            && !dom
                .parent_el(o)
                .is_some_and(|p| dom.html(p, "optgroup") && dom.has(p, "disabled"))
    };
    opts.into_iter().find(|&o| enabled(o)).into_iter().collect()
}

/// An `<input>`'s `value` as it loads: the `value` attribute after its type's sanitization.
pub(super) fn input_value(dom: &Dom, el: Ix) -> String {
    let raw = dom.attr(el, "value");
    let v = raw.unwrap_or("");
    let no_newlines = || {
        v.chars()
            .filter(|c| !matches!(c, '\n' | '\r'))
            .collect::<String>()
    };
    match input_type(dom, el).as_str() {
        "checkbox" | "radio" => raw.unwrap_or("on").to_string(),
        "hidden" | "submit" | "reset" | "button" | "image" => v.to_string(),
        "file" => String::new(),
        "url" | "email" => no_newlines().trim_matches(css_space).to_string(),
        "number" => {
            if valid_float(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "range" => range_value(dom, el),
        "color" => {
            let ok =
                v.len() == 7 && v.starts_with('#') && v[1..].bytes().all(|b| b.is_ascii_hexdigit());
            if ok {
                v.to_ascii_lowercase()
            } else {
                "#000000".into()
            }
        }
        "date" => {
            if date_ok(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "month" => {
            if month_ok(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "week" => {
            if week_ok(v) {
                v.to_string()
            } else {
                String::new()
            }
        }
        "time" => {
            if time_parts(v).is_some() {
                v.to_string()
            } else {
                String::new()
            }
        }
        "datetime-local" => datetime_local(v).unwrap_or_default(),
        _ => no_newlines(),
    }
}

/// HTML's valid floating-point number (no `+`, no trailing `.`).
fn valid_float(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(e) => (&body[..e], Some(&body[e + 1..])),
        None => (body, None),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => (int.is_empty() || digits(int)) && digits(frac),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)))
}

/// An attribute as a valid floating-point number.
fn float_attr(dom: &Dom, el: Ix, name: &str) -> Option<f64> {
    dom.attr(el, name)
        .filter(|v| valid_float(v))
        .and_then(|v| v.parse().ok())
        .filter(|n: &f64| n.is_finite())
}

/// A range input's value: clamped to min..max (0..100 by default), its default the middle,
/// rounded to the step (ties upward).
fn range_value(dom: &Dom, el: Ix) -> String {
    let min = float_attr(dom, el, "min").unwrap_or(0.0);
    let max = float_attr(dom, el, "max").unwrap_or(100.0).max(min);
    let value = float_attr(dom, el, "value")
        .unwrap_or(min + (max - min) / 2.0)
        .clamp(min, max);
    let any = dom
        .attr(el, "step")
        .is_some_and(|s| s.eq_ignore_ascii_case("any"));
    let step = float_attr(dom, el, "step")
        .filter(|s| *s > 0.0)
        .unwrap_or(1.0);
    let base = float_attr(dom, el, "min")
        .or_else(|| float_attr(dom, el, "value"))
        .unwrap_or(0.0);
    let mut v = value;
    if !any {
        v = base + ((value - base) / step + 0.5).floor() * step;
        if v > max {
            v -= step;
        }
        if v < min {
            v += step;
        }
    }
    js_number_string(v)
}

/// Days in a month of the Gregorian calendar.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A run of `len` ASCII digits.
fn number(s: &str, len: std::ops::RangeInclusive<usize>) -> Option<u32> {
    (len.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A valid month string's year and month.
fn year_month(s: &str) -> Option<(u32, u32)> {
    let (y, m) = s.split_once('-')?;
    let (y, m) = (number(y, 4..=6)?, number(m, 2..=2)?);
    (y > 0 && (1..=12).contains(&m)).then_some((y, m))
}

/// A valid date string (`YYYY-MM-DD`).
fn date_ok(s: &str) -> bool {
    s.rsplit_once('-').is_some_and(|(ym, d)| {
        year_month(ym)
            .zip(number(d, 2..=2))
            .is_some_and(|((y, m), d)| d >= 1 && d <= days_in_month(y, m))
    })
}

/// A valid month string (`YYYY-MM`).
fn month_ok(s: &str) -> bool {
    year_month(s).is_some()
}

/// A valid week string (`YYYY-Www`).
fn week_ok(s: &str) -> bool {
    let Some((y, w)) = s.split_once("-W") else {
        return false;
    };
    let (Some(y), Some(w)) = (number(y, 4..=6), number(w, 2..=2)) else {
        return false;
    };
    // A year has 53 weeks when it starts on a Thursday, or on a Wednesday in a leap year.
    // Jan 1's weekday, 0 for Sunday (Gregorian calendar).
    let p = y.saturating_sub(1);
    let jan1 = (1 + 5 * (p % 4) + 4 * (p % 100) + 6 * (p % 400)) % 7;
    let weeks = if jan1 == 4 || (jan1 == 3 && days_in_month(y, 2) == 29) {
        53
    } else {
        52
    };
    y > 0 && w >= 1 && w <= weeks
}

/// A valid time string's hours, minutes, seconds and milliseconds.
fn time_parts(s: &str) -> Option<(u32, u32, u32, u32)> {
    let mut it = s.splitn(3, ':');
    let h = number(it.next()?, 2..=2)?;
    let m = number(it.next()?, 2..=2)?;
    let (sec, ms) = match it.next() {
        None => (0, 0),
        Some(rest) => {
            let (sec, frac) = rest.split_once('.').unwrap_or((rest, ""));
            let sec = number(sec, 2..=2)?;
            let ms = if rest.contains('.') {
                let f = number(frac, 1..=3)?;
                f * 10u32.pow(3 - u32::try_from(frac.len()).ok()?)
            } else {
                0
            };
            (sec, ms)
        }
    };
    (h < 24 && m < 60 && sec < 60).then_some((h, m, sec, ms))
}

/// A datetime-local value normalized as Chromium keeps it (`T`, shortest time).
fn datetime_local(s: &str) -> Option<String> {
    let at = s.find(['T', ' '])?;
    let (date, time) = (&s[..at], &s[at + 1..]);
    if !date_ok(date) {
        return None;
    }
    let (h, m, sec, ms) = time_parts(time)?;
    Some(match (sec, ms) {
        (0, 0) => format!("{date}T{h:02}:{m:02}"),
        (_, 0) => format!("{date}T{h:02}:{m:02}:{sec:02}"),
        _ => format!("{date}T{h:02}:{m:02}:{sec:02}.{ms:03}"),
    })
}
