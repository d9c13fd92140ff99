//! The shape of a recording's lines, one implementation per kind of session.

/// What a recording's events look like on disk (asciicast for terminals).
pub trait Format: Send {
    /// One event as a line, `t` seconds after the recording began.
    fn line(&mut self, t: f64, code: u8, data: &[u8]) -> Vec<u8>;
    /// A note in the recording itself (dropped events, the end of the recording).
    fn note(&mut self, t: f64, text: &str) -> Vec<u8>;
}
