//! A secret in any mix of escaped and plain characters: one pattern per secret in which each
//! character may be written plain or in any escape a standard serializer or encoder writes
//! for it, whatever it does with the characters around it. Enumerating whole variants
//! ([`super::variants`]) covers one serializer at a time; serializers differ per character
//! (Go's `encoding/json` writes `<` as `\u003c` and leaves `/`, PHP's `json_encode` writes `/`
//! as `\/`, .NET's `System.Text.Json` writes `+` as `\u002B`, Python's `json.dumps` writes
//! non-ASCII as `\u00e9`, Gson writes `=` as `\u003d`), so a pattern per character covers
//! them all, and mixes, in either hex case. The forms of a character:
//!
//! - itself;
//! - JSON: `\uXXXX` (UTF-16 units, a surrogate pair past the BMP), `\/`, `\"`, `\\`;
//! - percent: `%XX` of each UTF-8 byte, and `+` for a space (form encoding);
//!
//! each hex digit in either case. The pattern is over bytes, each literal written as `\xHH`.

/// Shorter secrets are not matched: their forms would mask ordinary text (as
/// [`super::variants`]).
const MIN_CHARS: usize = 4;

/// A regex over bytes matching `secret` with each character in any of its forms, and the
/// longest text it can match; `None` for a secret too short to match.
pub fn pattern(secret: &str) -> Option<(String, usize)> {
    if secret.chars().count() < MIN_CHARS {
        return None;
    }
    let mut out = String::new();
    let mut longest = 0;
    for c in secret.chars() {
        let (alternatives, len) = forms(c);
        out.push_str("(?:");
        out.push_str(&alternatives.join("|"));
        out.push(')');
        longest += len;
    }
    Some((out, longest))
}

/// The alternatives for one character, and the longest of them in bytes.
fn forms(c: char) -> (Vec<String>, usize) {
    let mut utf8 = [0u8; 4];
    let bytes = c.encode_utf8(&mut utf8).as_bytes();
    let mut alternatives = vec![bytes.iter().map(|b| byte(*b)).collect::<String>()];
    // `\uXXXX` per UTF-16 unit.
    let mut units = [0u16; 2];
    let units = c.encode_utf16(&mut units);
    let json: String = units
        .iter()
        .map(|u| {
            format!(
                "{}{}{}",
                byte(b'\\'),
                byte(b'u'),
                hex_digits(u64::from(*u), 4)
            )
        })
        .collect();
    let mut longest = 6 * units.len();
    alternatives.push(json);
    // The short JSON escapes.
    match c {
        '/' | '"' | '\\' => alternatives.push(format!("{}{}", byte(b'\\'), byte(bytes[0]))),
        _ => {}
    }
    // `%XX` per UTF-8 byte.
    let percent: String = bytes
        .iter()
        .map(|b| format!("{}{}", byte(b'%'), hex_digits(u64::from(*b), 2)))
        .collect();
    longest = longest.max(3 * bytes.len());
    alternatives.push(percent);
    if c == ' ' {
        alternatives.push(byte(b'+'));
    }
    (alternatives, longest)
}

/// `\xHH`: one literal byte in a bytes regex.
fn byte(b: u8) -> String {
    format!("\\x{b:02X}")
}

/// `value` as `digits` hex digits, each one matching either case: `[aA]`.
fn hex_digits(value: u64, digits: u32) -> String {
    (0..digits)
        .rev()
        .map(|i| {
            let d = ((value >> (4 * i)) & 0xF) as u8;
            let lower = char::from_digit(u32::from(d), 16).unwrap_or('0');
            if lower.is_ascii_digit() {
                byte(lower as u8)
            } else {
                let upper = lower.to_ascii_uppercase();
                format!("[{}{}]", byte(lower as u8), byte(upper as u8))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "tok-9f/a+b&c<d>e=f'g é";

    fn finds(text: &str) -> bool {
        let (p, longest) = pattern(SECRET).expect("a pattern");
        let re = regex::bytes::RegexBuilder::new(&p)
            .unicode(false)
            .build()
            .expect("a regex");
        let found = re.find(text.as_bytes());
        if let Some(m) = &found {
            assert!(m.len() <= longest, "{} > {longest}", m.len());
        }
        found.is_some()
    }

    #[test]
    fn every_serializers_escapes_and_any_mix_are_found() {
        let texts = [
            // Python json.dumps (ensure_ascii): non-ASCII as \u00e9.
            r"tok-9f/a+b&c<d>e=f'g \u00e9",
            // PHP json_encode: `\/`.
            r"tok-9f\/a+b&c<d>e=f'g \u00e9",
            // Go encoding/json: <, >, & as \u003c, \u003e, \u0026.
            r"tok-9f/a+b\u0026c\u003cd\u003ee=f'g é",
            // .NET System.Text.Json: + < > & ' as \u002B ..., uppercase hex.
            r"tok-9f/a\u002Bb\u0026c\u003Cd\u003Ee=f\u0027g \u00E9",
            // Gson: = and ' too.
            r"tok-9f/a+b\u0026c\u003cd\u003ee\u003df\u0027g é",
            // Percent-encoded, mixed case, and form encoding's `+` for the space.
            "tok-9f%2fa%2Bb%26c%3Cd%3ee%3Df%27g+%C3%A9",
            // Every character escaped.
            r"\u0074\u006F\u006b\u002d9f\/a+b&c<d>e=f'g é",
        ];
        for t in texts {
            assert!(finds(&format!("{{\"echo\":\"{t}\"}}")), "{t}");
        }
        assert!(!finds("tok-9f/a+b&c<d>e=f'g"), "a prefix is not the secret");
        assert!(pattern("abc").is_none());
        // Past the BMP: a surrogate pair.
        let (p, _) = pattern("key🔑x").expect("a pattern");
        let re = regex::bytes::RegexBuilder::new(&p)
            .unicode(false)
            .build()
            .expect("a regex");
        assert!(re.is_match(br"key\ud83d\uDD11x"));
    }
}
