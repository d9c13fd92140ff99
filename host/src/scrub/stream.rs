//! Scrubbing a stream of bytes (an HTTP response body) chunk by chunk. A variant may be split
//! across two chunks, so the end of what has been seen, `longest match - 1` bytes, is held
//! back until the next chunk (or the end) shows whether it starts a variant.
//!
//! Two passes: the whole variants of [`super::variants`] (base64, hex, reversed, ...) in one
//! Aho-Corasick automaton, then each secret in any mix of escaped and plain characters
//! ([`super::escapes`]) in one regex.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use bytes::{Bytes, BytesMut};
use regex::bytes::{NoExpand, Regex, RegexBuilder};

/// Replaces every variant of a set of secrets in a byte stream with a mask.
#[derive(Clone)]
pub struct Scrubber {
    /// `None` when there is nothing to scrub: bytes pass through untouched.
    finder: Option<AhoCorasick>,
    /// Each secret with its characters in any escaped form.
    escaped: Option<Regex>,
    /// The same two, ignoring ASCII case: for header names, which HTTP lowercases.
    folded: Option<(AhoCorasick, Option<Regex>)>,
    mask: Bytes,
    /// Bytes of the longest match less one: what may be the start of a variant.
    hold: usize,
    held: BytesMut,
}

/// Never prints what it masks.
impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scrubber")
            .field("hold", &self.hold)
            .finish_non_exhaustive()
    }
}

/// One automaton over `patterns`, the longest match at each place.
fn automaton(patterns: &[&str], fold: bool) -> Option<AhoCorasick> {
    // A contiguous NFA: quick to build for the few dozen variants of a request's secrets,
    // and quick enough to run over a response.
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .ascii_case_insensitive(fold)
        .build(patterns)
        .ok()
        .filter(|_| !patterns.is_empty())
}

fn regex(alternatives: &[String], fold: bool) -> Option<Regex> {
    if alternatives.is_empty() {
        return None;
    }
    RegexBuilder::new(&alternatives.join("|"))
        .unicode(false)
        .case_insensitive(fold)
        .size_limit(64 << 20)
        .dfa_size_limit(16 << 20)
        .build()
        .ok()
}

impl Scrubber {
    /// A scrubber of `variants` (each secret's [`super::variants`]), written over with `mask`.
    /// At each place the longest variant that matches is replaced, so a variant that holds
    /// another is masked whole.
    pub fn new(variants: &[String], mask: &str) -> Self {
        Self::build(variants, &[], mask)
    }

    /// A scrubber of `secrets`: their [`super::variants`], and each in any mix of escaped
    /// and plain characters ([`super::escapes`]).
    pub fn of_secrets(secrets: &[String], mask: &str) -> Self {
        let mut variants: Vec<String> = secrets.iter().flat_map(|s| super::variants(s)).collect();
        variants.sort();
        variants.dedup();
        // Longest secret first: at one place, the regex takes its first alternative that
        // matches, so a secret that holds another is masked whole.
        let mut sorted: Vec<&String> = secrets.iter().collect();
        sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
        sorted.dedup();
        let escaped: Vec<(String, usize)> = sorted
            .into_iter()
            .filter_map(|s| super::escapes::pattern(s))
            .collect();
        Self::build(&variants, &escaped, mask)
    }

    fn build(variants: &[String], escaped: &[(String, usize)], mask: &str) -> Self {
        let patterns: Vec<&str> = variants
            .iter()
            .map(String::as_str)
            .filter(|v| !v.is_empty())
            .collect();
        let alternatives: Vec<String> = escaped.iter().map(|(p, _)| p.clone()).collect();
        let hold = patterns
            .iter()
            .map(|p| p.len())
            .chain(escaped.iter().map(|(_, longest)| *longest))
            .max()
            .unwrap_or(0)
            .saturating_sub(1);
        Self {
            finder: automaton(&patterns, false),
            escaped: regex(&alternatives, false),
            folded: automaton(&patterns, true).map(|a| (a, regex(&alternatives, true))),
            mask: Bytes::copy_from_slice(mask.as_bytes()),
            hold,
            held: BytesMut::new(),
        }
    }

    /// Scrub a whole text at once (a header value).
    pub fn scrub_all(&self, bytes: &[u8]) -> Vec<u8> {
        let plain = match &self.finder {
            Some(finder) => {
                finder.replace_all_bytes(bytes, &vec![self.mask.as_ref(); finder.patterns_len()])
            }
            None => bytes.to_vec(),
        };
        match &self.escaped {
            Some(re) => re
                .replace_all(&plain, NoExpand(self.mask.as_ref()))
                .into_owned(),
            None => plain,
        }
    }

    /// Whether `name` (a header name, which HTTP writes in any case) holds a secret in any
    /// form, whatever the case of its letters.
    pub fn in_name(&self, name: &[u8]) -> bool {
        let Some((finder, escaped)) = &self.folded else {
            return false;
        };
        finder.is_match(name) || escaped.as_ref().is_some_and(|re| re.is_match(name))
    }

    /// The next chunk of the stream: returns what can be passed on now, scrubbed.
    pub fn feed(&mut self, chunk: &[u8]) -> Bytes {
        if self.finder.is_none() && self.escaped.is_none() {
            return Bytes::copy_from_slice(chunk);
        }
        self.held.extend_from_slice(chunk);
        let scrubbed = self.scrub_all(&self.held);
        // A match that starts before the held-back tail ends inside what was seen, so
        // everything before the tail is final.
        let ready = scrubbed.len().saturating_sub(self.hold);
        let (out, tail) = scrubbed.split_at(ready);
        self.held = BytesMut::from(tail);
        Bytes::copy_from_slice(out)
    }

    /// The end of the stream: what was held back, scrubbed.
    pub fn finish(&mut self) -> Bytes {
        let held = std::mem::take(&mut self.held);
        Bytes::from(self.scrub_all(&held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    const TOKEN: &str = "tok-3f9a1c77e2";

    fn stream(text: &[u8], chunk: usize) -> Vec<u8> {
        let mut s = Scrubber::new(&crate::scrub::variants(TOKEN), "[credential]");
        let mut out = Vec::new();
        for part in text.chunks(chunk.max(1)) {
            out.extend_from_slice(&s.feed(part));
        }
        out.extend_from_slice(&s.finish());
        out
    }

    #[test]
    fn a_variant_split_across_chunks_is_masked() {
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("Bearer {TOKEN}"));
        let text = format!(
            "{{\"echo\":\"{TOKEN}\",\"b64\":\"{b64}\",\"rev\":\"{}\"}}",
            TOKEN.chars().rev().collect::<String>()
        );
        for chunk in 1..text.len() + 1 {
            let out = String::from_utf8(stream(text.as_bytes(), chunk)).expect("utf-8");
            assert!(!out.contains(TOKEN), "chunk {chunk}: {out}");
            assert!(!out.contains(&b64), "chunk {chunk}: {out}");
            assert_eq!(
                out.matches("[credential]").count(),
                3,
                "chunk {chunk}: {out}"
            );
        }
    }

    #[test]
    fn escaped_forms_split_across_chunks_and_names_in_any_case_are_found() {
        let secret = "tok-3f/9a+1c";
        let text = br#"{"php":"tok-3f\/9a+1c","net":"tok-3f/9a\u002B1c","pct":"tok-3f%2f9a%2B1c"}"#;
        for chunk in 1..text.len() + 1 {
            let mut s = Scrubber::of_secrets(&[secret.to_string()], "[credential]");
            let mut out = Vec::new();
            for part in text.chunks(chunk) {
                out.extend_from_slice(&s.feed(part));
            }
            out.extend_from_slice(&s.finish());
            let out = String::from_utf8(out).expect("utf-8");
            assert_eq!(
                out.matches("[credential]").count(),
                3,
                "chunk {chunk}: {out}"
            );
        }
        let s = Scrubber::of_secrets(&["Tok-ABCdef12".to_string()], "x");
        assert!(s.in_name(b"x-tok-abcdef12"));
        let hex: String = "Tok-ABCdef12".bytes().map(|b| format!("{b:02x}")).collect();
        assert!(s.in_name(format!("x-{hex}").as_bytes()));
        assert!(!s.in_name(b"content-type"));
    }

    #[test]
    fn other_bytes_pass_unchanged() {
        let text: Vec<u8> = (0u8..=255).cycle().take(5000).collect();
        assert_eq!(stream(&text, 7), text);
        let mut none = Scrubber::new(&[], "x");
        assert_eq!(none.feed(b"abc").as_ref(), b"abc");
        assert!(none.finish().is_empty());
    }
}
