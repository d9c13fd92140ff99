//! A secret's variants (the forms a page or a server can turn it into with one built-in
//! call) and scrubbing them out of text.

use base64::Engine as _;

/// Variants shorter than this (and every variant of a shorter secret) are not scrubbed: they
/// would mask ordinary text.
const MIN_VARIANT: usize = 4;

/// The secret and the forms a page can turn it into with one built-in call: URL-encoded
/// (`encodeURIComponent`, form encoding, RFC 3986), base64 (standard and URL-safe, at every
/// byte alignment, so it is found inside a longer encoded text), JSON-escaped, hex, reversed.
pub fn variants(secret: &str) -> Vec<String> {
    let mut out = vec![secret.to_string()];
    if secret.chars().count() < MIN_VARIANT {
        // Its encodings would be as short, and mask ordinary text.
        return out;
    }
    let mut add = |v: String| {
        if v.len() >= MIN_VARIANT && !out.contains(&v) {
            out.push(v);
        }
    };
    add(secret.chars().rev().collect());
    add(percent(secret, b"-_.!~*'()", false));
    add(lower_hex(&percent(secret, b"-_.!~*'()", false)));
    add(percent(secret, b"*-._", true));
    add(percent(secret, b"-._~", false));
    let json = serde_json::to_string(secret).unwrap_or_default();
    add(json.trim_matches('"').to_string());
    add(ascii_json(secret));
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    add(hex.to_ascii_uppercase());
    add(hex);
    for offset in 0..3 {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret.as_bytes());
        let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes);
        // Characters that carry filler bits at the start, or padding bits at the end, depend
        // on the neighbouring bytes: keep only those made of the secret's bits alone.
        let skip = (offset * 8).div_ceil(6);
        let keep_end = if (bytes.len() * 8) % 6 == 0 {
            encoded.len()
        } else {
            encoded.len().saturating_sub(1)
        };
        if let Some(core) = encoded.get(skip..keep_end) {
            add(core.to_string());
            add(core.replace('+', "-").replace('/', "_"));
        }
    }
    out
}

/// Percent-encode `s`, keeping ASCII letters, digits and `keep`; `plus` writes a space as `+`.
pub(super) fn percent(s: &str, keep: &[u8], plus: bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(char::from(b));
        } else if plus && b == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// JSON string content with every character outside printable ASCII as `\uXXXX`.
fn ascii_json(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out
}

/// `%2F` as `%2f`: some encoders write lowercase hex digits.
fn lower_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let end = (at + 3).min(rest.len());
        out.push_str(&rest.get(at..end).unwrap_or_default().to_ascii_lowercase());
        rest = rest.get(end..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// Replace every variant in `secrets` (longest first) with `mask`.
pub fn scrub(text: &str, secrets: &[String], mask: &str) -> String {
    let mut out = text.to_string();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), mask);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr3t pässword/+&\"x";

    fn masked(text: &str) -> String {
        let mut v = variants(SECRET);
        v.sort_by_key(|s| std::cmp::Reverse(s.len()));
        scrub(text, &v, "••••")
    }

    #[test]
    fn encodings_a_page_applies_are_masked() {
        let b64 = base64::engine::general_purpose::STANDARD;
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let reversed: String = SECRET.chars().rev().collect();
        let json = serde_json::to_string(SECRET).expect("json");
        let mut form = String::new();
        for b in SECRET.bytes() {
            match b {
                b' ' => form.push('+'),
                b if b.is_ascii_alphanumeric() || b"*-._".contains(&b) => form.push(char::from(b)),
                b => form.push_str(&format!("%{b:02X}")),
            }
        }
        let texts = [
            format!("typed {SECRET}"),
            format!("<h1>{reversed}</h1>"),
            format!("GET /steal?p={}", percent(SECRET, b"-_.!~*'()", false)),
            format!("POST body={form}"),
            format!("{{\"p\":{json}}}"),
            format!("b64:{}", b64.encode(SECRET)),
            format!("b64:{}", b64.encode(format!("user=alice&p={SECRET}"))),
            format!("b64:{}", b64.encode(format!("u={SECRET}&x=1"))),
            format!("b64:{}", b64.encode(format!("ab{SECRET}"))),
            format!("b64url:{}", url_safe.encode(format!("k:{SECRET}"))),
            format!(
                "hex:{}",
                SECRET
                    .bytes()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            ),
        ];
        for text in texts {
            let out = masked(&text);
            assert!(out.contains("••••"), "not masked: {text} -> {out}");
            assert!(!out.contains(SECRET), "{out}");
        }
        assert_eq!(masked("nothing to see"), "nothing to see");
    }

    #[test]
    fn short_variants_are_not_scrubbed() {
        // A 2-character secret masks itself, not every 2-character base64 fragment.
        let v = variants("ab");
        assert_eq!(v, vec!["ab".to_string()]);
    }
}
