//! What a registry says (an error body, a header, a URL it sends Warden to, a transport error
//! about it) on its way into a message: on one line, scrubbed of every credential the
//! connection holds in every encoding, and cut to [`MAX_SAID`] bytes. [`Said`] is made only
//! here, so a [`super::FetchError`] cannot carry a registry's words any other way.

use crate::scrub::Secrets;
use std::fmt;

/// The most of a registry's words one message carries.
pub const MAX_SAID: usize = 512;

/// Text from a registry, bounded and scrubbed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said(String);

impl Said {
    /// `text` from the registry, scrubbed of what `scrubber` holds and cut to [`MAX_SAID`].
    pub fn new(text: &str, scrubber: &Secrets) -> Self {
        Self(scrubber.bounded(text, MAX_SAID))
    }

    /// Text of Warden's own with no registry's words in it (still cut, to keep the promise).
    pub fn ours(text: &str) -> Self {
        Self::new(text, &Secrets::default())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Said {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
