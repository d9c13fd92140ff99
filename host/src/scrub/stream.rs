//! Scrubbing a stream of bytes (an HTTP response body) chunk by chunk. A variant may be split
//! across two chunks, so the end of what has been seen, `longest variant - 1` bytes, is held
//! back until the next chunk (or the end) shows whether it starts a variant.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use bytes::{Bytes, BytesMut};

/// Replaces every variant of a set of secrets in a byte stream with a mask.
#[derive(Clone)]
pub struct Scrubber {
    /// `None` when there is nothing to scrub: bytes pass through untouched.
    finder: Option<AhoCorasick>,
    mask: Bytes,
    /// Bytes of the longest variant less one: what may be the start of a variant.
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

impl Scrubber {
    /// A scrubber of `variants` (each secret's [`super::variants`]), written over with `mask`.
    /// At each place the longest variant that matches is replaced, so a variant that holds
    /// another is masked whole.
    pub fn new(variants: &[String], mask: &str) -> Self {
        let patterns: Vec<&str> = variants
            .iter()
            .map(String::as_str)
            .filter(|v| !v.is_empty())
            .collect();
        // A contiguous NFA: quick to build for the few dozen variants of a request's secrets,
        // and quick enough to run over a response.
        let finder = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&patterns)
            .ok()
            .filter(|_| !patterns.is_empty());
        let hold = patterns
            .iter()
            .map(|p| p.len())
            .max()
            .unwrap_or(0)
            .saturating_sub(1);
        Self {
            finder,
            mask: Bytes::copy_from_slice(mask.as_bytes()),
            hold,
            held: BytesMut::new(),
        }
    }

    /// Scrub a whole text at once (a header value).
    pub fn scrub_all(&self, bytes: &[u8]) -> Vec<u8> {
        match &self.finder {
            Some(finder) => {
                finder.replace_all_bytes(bytes, &vec![self.mask.as_ref(); finder.patterns_len()])
            }
            None => bytes.to_vec(),
        }
    }

    /// The next chunk of the stream: returns what can be passed on now, scrubbed.
    pub fn feed(&mut self, chunk: &[u8]) -> Bytes {
        let Some(finder) = &self.finder else {
            return Bytes::copy_from_slice(chunk);
        };
        self.held.extend_from_slice(chunk);
        let masks = vec![self.mask.as_ref(); finder.patterns_len()];
        let scrubbed = finder.replace_all_bytes(&self.held, &masks);
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
    fn other_bytes_pass_unchanged() {
        let text: Vec<u8> = (0u8..=255).cycle().take(5000).collect();
        assert_eq!(stream(&text, 7), text);
        let mut none = Scrubber::new(&[], "x");
        assert_eq!(none.feed(b"abc").as_ref(), b"abc");
        assert!(none.finish().is_empty());
    }
}
