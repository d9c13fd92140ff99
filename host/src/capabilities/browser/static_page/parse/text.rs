//! JS string semantics: what page.js's string handling (`trim`, `\s`, `length`, `clean`,
//! `Number`) does, in Rust.

use serde_json::{Value, json};

/// JS `\s`: what `String.prototype.trim` and `/\s+/` treat as white space.
pub(super) fn js_space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ');
    }
    "\u{a0}\u{1680}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}".contains(c)
        || ('\u{2000}'..='\u{200a}').contains(&c)
}

/// HTML's ASCII white space, the white space CSS collapses.
pub(super) fn css_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// JS `s.trim()`.
pub(super) fn js_trim(s: &str) -> &str {
    s.trim_matches(js_space)
}

/// A string's JS `length`: UTF-16 code units.
pub(super) fn js_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// page.js `clean`: white space runs to one space, trimmed, and cut to `max` JS characters
/// with a trailing `…`. A character astride the cut (half a surrogate pair in JS) is dropped,
/// as a Rust string cannot hold half of one.
pub(super) fn clean(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max.saturating_mul(4)));
    let mut space = false;
    for c in s.chars() {
        if js_space(c) {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    if js_len(&out) <= max {
        return out;
    }
    let keep = max.saturating_sub(1);
    let mut units = 0;
    let mut cut = 0;
    for (i, c) in out.char_indices() {
        if units + c.len_utf16() > keep {
            break;
        }
        units += c.len_utf16();
        cut = i + c.len_utf8();
    }
    out.truncate(cut);
    out.push('…');
    out
}

/// `s.replace(/\s+/g, ' ')`, untrimmed.
pub(super) fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if js_space(c) {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            space = false;
            out.push(c);
        }
    }
    out
}

/// JS `Number(s)`: NaN for anything but a number literal (decimal, hex, octal, binary).
pub(super) fn js_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            return digits
                .chars()
                .filter_map(|c| c.to_digit(radix))
                .fold(0.0, |n, d| n * f64::from(radix) + f64::from(d));
        }
    }
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(e) => (&body[..e], Some(&body[e + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if !mantissa_ok || !exponent_ok {
        return f64::NAN;
    }
    t.parse().unwrap_or(f64::NAN)
}

/// A JS number as JSON: an integer when it is one (as `JSON.stringify` prints it), `null`
/// when not finite.
pub(super) fn js_number_json(n: f64) -> Value {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        // Exact: the value is an integer within f64's exact range.
        #[allow(clippy::cast_possible_truncation)]
        let i = n as i64;
        json!(i)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// A number as JS's `String(n)` prints the usual ones (no exponent forms).
pub(super) fn js_number_string(n: f64) -> String {
    if n == 0.0 {
        return "0".into();
    }
    format!("{n}")
}
