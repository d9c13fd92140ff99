//! An HTTP client's error with its causes: reqwest's own message hides them ("error sending
//! request"), and the cause (refused, timed out, bad certificate) is what the reader needs.

/// `e` and every error under it, joined by ": ".
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
