//! A set of secrets held for one purpose (a registry connection's credentials and the tokens
//! it was issued), ready to mask text before it reaches a message, a log or an audit line.

use super::variants::{scrub, variants};

/// A set of secrets, each with its [`variants`], longest first: ready to mask text.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    forms: Vec<String>,
}

impl Secrets {
    /// Add `secret` and its variants (an empty secret adds nothing).
    pub fn add(&mut self, secret: &str) {
        if secret.is_empty() {
            return;
        }
        for v in variants(secret) {
            if !self.forms.contains(&v) {
                self.forms.push(v);
            }
        }
        // Longest first, so a variant that contains another is masked whole.
        self.forms.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    /// Whether `text` carries a secret in any of its variants.
    pub fn finds(&self, text: &str) -> bool {
        self.forms.iter().any(|f| text.contains(f.as_str()))
    }

    /// `text` with every variant of every secret replaced by `mask`.
    pub fn scrub(&self, text: &str, mask: &str) -> String {
        scrub(text, &self.forms, mask)
    }

    /// `text` scrubbed, on one line (control characters as spaces, so it cannot forge a log
    /// line), then cut to at most `max` bytes. Scrubbed before it is cut, so a secret the cut
    /// would split is masked whole first.
    pub fn bounded(&self, text: &str, max: usize) -> String {
        let one_line: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        cut(&self.scrub(&one_line, MASK), max)
    }
}

/// What a scrubbed secret reads as in messages and logs.
pub const MASK: &str = "[redacted]";

/// `text` cut to at most `max` bytes on a character boundary, with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let ellipsis = if max >= "…".len() { "…" } else { "" };
    let mut end = max - ellipsis.len();
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ellipsis}", text.get(..end).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::super::variants::percent;
    use super::*;
    use base64::Engine as _;

    #[test]
    fn registry_credentials_are_masked_in_every_encoding_and_text_is_bounded() {
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut s = Secrets::default();
        s.add("s3cret-pass");
        s.add("ci:s3cret-pass");
        let echoed = format!(
            "Authorization: Basic {}\npassword=s3cret-pass {} {}",
            b64.encode("ci:s3cret-pass"),
            b64.encode("s3cret-pass"),
            percent("s3cret-pass", b"-._~", false)
        );
        let out = s.bounded(&echoed, 512);
        assert!(!out.contains("s3cret"), "{out}");
        assert!(!out.contains(&b64.encode("ci:s3cret-pass")), "{out}");
        assert!(!out.contains(&b64.encode("s3cret-pass")), "{out}");
        assert!(!out.contains('\n'), "{out}");
        // A secret past the bound is masked before the cut, never left half.
        let long = format!("{}s3cret-pass", "x".repeat(505));
        let out = s.bounded(&long, 512);
        assert!(out.len() <= 512 && !out.contains("s3cr"), "{out}");
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(cut("héllo", 4), "h…");
        assert_eq!(cut("héllo", 9), "héllo");
        assert!(cut(&"é".repeat(1000), 512).len() <= 512);
    }
}
