//! The secret the viewer prints at start: every request must show it.

/// The secret a request must show: 32 random bytes, hex.
#[derive(Debug, Clone)]
pub struct Token(String);

impl Token {
    pub fn random() -> Self {
        Self(hex::encode(rand::random::<[u8; 32]>()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Compared in constant time: the answer's timing tells nothing of the token.
    pub(super) fn matches(&self, candidate: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), candidate.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}
