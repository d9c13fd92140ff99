//! Glob lists: the patterns a grant or filter names (origins, hosts, tools), compiled once.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A list of glob patterns, kept with their text for messages.
#[derive(Debug, Clone)]
pub struct GlobList {
    patterns: Vec<String>,
    set: GlobSet,
}

impl GlobList {
    /// Compile `patterns` (case-insensitive; `*` also matches dots and slashes; an IPv6
    /// literal in brackets is an address, not a character class).
    pub fn new(patterns: &[String]) -> Result<Self, globset::Error> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            builder.add(
                GlobBuilder::new(&literal_brackets(pattern))
                    .case_insensitive(true)
                    .literal_separator(false)
                    .build()?,
            );
        }
        Ok(Self {
            patterns: patterns.to_vec(),
            set: builder.build()?,
        })
    }

    pub fn empty() -> Self {
        Self {
            patterns: Vec::new(),
            set: GlobSet::empty(),
        }
    }

    pub fn is_match(&self, candidate: &str) -> bool {
        self.set.is_match(candidate)
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The patterns that match `candidate`.
    pub fn matching(&self, candidate: &str) -> Vec<&str> {
        self.set
            .matches(candidate)
            .into_iter()
            .filter_map(|i| self.patterns.get(i).map(String::as_str))
            .collect()
    }
}

/// `pattern` with the brackets of an IPv6 literal (`http://[::1]:8080`, `[fd00::5]:*`)
/// escaped, so they match themselves: a character class never holds a `:`, an address
/// always does. The address itself may still hold globs (`[fd00::*]`).
fn literal_brackets(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut rest = pattern;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let inner = &rest[open + 1..];
        match inner.find(']') {
            Some(close) if inner[..close].contains(':') => {
                out.push_str("[[]");
                out.push_str(&inner[..close]);
                out.push_str("[]]");
                rest = &inner[close + 1..];
            }
            _ => {
                out.push('[');
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    out
}
