//! A secret and the forms it takes in text it comes back in, and scrubbing them out: what a
//! page or a server can turn a secret into with one built-in call (URL encoding, base64 at
//! every byte alignment, JSON escapes, hex, reversed). Used wherever a value the host holds
//! for a plugin could come back to it: typed page secrets and web search's key
//! (`capabilities/browser`), credentials the host adds to a plugin's HTTP requests
//! (`capabilities/http`), a registry's credentials in what the registry says
//! (`distribution`). [`Scrubber`] does the same over a stream of bytes; [`Secrets`] holds a
//! set of secrets and masks text on one line, cut to a bound, for messages and logs.

//!
//! | file | job |
//! |------|-----|
//! | `variants.rs` | a secret's variants ([`variants`]) and scrubbing them out of text ([`scrub`]) |
//! | `escapes.rs` | a secret with each character plain or in any escaped form (JSON, percent), as one pattern |
//! | `known.rs` | [`Secrets`]: a set of secrets, masked in one line cut to a bound |
//! | `stream.rs` | [`Scrubber`]: the same over a stream of bytes |

mod escapes;
mod known;
mod stream;
mod variants;

pub use known::{MASK, Secrets, cut};
pub use stream::Scrubber;
pub use variants::{scrub, variants};
