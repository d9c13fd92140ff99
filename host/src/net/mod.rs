//! The private-network rule, shared by everything that connects on a plugin's behalf (the
//! browser's network guard and `capture`'s `http_get`): a name is resolved here, every
//! address it resolves to is classified, and an address in private space (loopback, private,
//! link-local, unique-local) is used only when a grant pattern that matched names that space
//! explicitly: an IP literal, `localhost` or `*.localhost`. A glob such as `https://*` or
//! `*.example.com` never opens private space, even when the name resolves into it (DNS
//! rebinding). The caller connects to the addresses returned here, never to the name again.
//!
//! What such a server answers is read through [`body`]: bounded in size and in time; a URL
//! the admin configured is named in logs as [`shown`] gives it, without its credentials.
//!
//! Before any grant is asked, an address where Warden itself listens is taken out
//! ([`forbidden`]): no grant opens those.

//!
//! | file | job |
//! |------|-----|
//! | `addr.rs` | the class of an address (loopback, private, ..., public), IPv4 carried in IPv6 |
//! | `space.rs` | what a grant pattern names: the grant list ([`Key`]), private space ([`Space`]) |
//! | `lookup.rs`, `resolve.rs` | DNS, and a name or literal to addresses |
//! | `forbidden.rs` | addresses where Warden itself listens: no grant opens them |
//! | `error.rs` | [`NetError`]: a refusal or a failed resolution, with the grant that would open it |
//! | `admit.rs` | the rule applied: [`resolve`], [`admit`], [`resolve_admitted`] |
//! | `pinned.rs` | connections pinned to the admitted addresses |
//! | `interfaces.rs` | this machine's own addresses |
//! | `body.rs` | answers read bounded in size and time |
//! | `chain.rs`, `shown.rs` | an error's chain of causes; a URL without its credentials |

pub mod addr;
mod admit;
pub mod body;
pub mod chain;
mod error;
pub mod forbidden;
pub mod interfaces;
pub mod lookup;
pub mod pinned;
mod resolve;
pub mod shown;
mod space;
#[cfg(test)]
mod tests;

pub use admit::{admit, resolve, resolve_admitted};
pub use error::NetError;
pub use space::{Key, Space, explicit_space, is_localhost_name, pattern_host};
