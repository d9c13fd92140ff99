//! Plugins from OCI registries: `source = "oci://REGISTRY/REPO:TAG@sha256:DIGEST"`.
//! A pull is checked at every step (the manifest against the pinned digest, the component
//! layer against the manifest's digest, the signature against `[trust]`), stored by digest,
//! and loaded offline afterwards. This module knows nothing of the manifest file: the
//! manifest turns its keys into the plain values here.
//!
//! A registry is a server like any other, trusted for nothing but what its digests prove:
//!
//! | file | job |
//! |---|---|
//! | `pull.rs`, `push.rs` | a load (store or registry, every step checked) and `warden plugin push` |
//! | `config.rs`, `trust.rs`, `error.rs` | what the manifest says (registries, `[trust]`), media types and sizes; [`FetchError`] |
//! | `connection.rs` | a connection to one repository: destination, credentials, deadlines |
//! | `client.rs` | the distribution API's requests to one repository, redirects followed hop by hop |
//! | `destination.rs` | the rule every place the client connects to passes: private space only when named |
//! | `auth.rs` | `401` challenges: Basic, or a token realm, and who may receive the credentials |
//! | `body.rs` | reading a blob no further than its declared size (on [`crate::net::body`]) |
//! | `said.rs` | a registry's words, bounded and scrubbed, the only way they enter an error |
//! | `image.rs`, `reference.rs`, `store.rs` | the manifest format, `oci://` references, the store on disk |
//! | `signature.rs`, `keyless.rs`, `keys.rs`, `spki.rs`, `trust_root.rs` | cosign signatures and whom they prove |

mod auth;
mod body;
pub mod client;
mod config;
mod connection;
mod destination;
mod error;
pub mod image;
pub mod keyless;
pub mod keys;
mod pull;
pub mod push;
pub mod reference;
mod said;
pub mod signature;
mod spki;
pub mod store;
mod trust;
pub mod trust_root;

pub use config::{
    Deadlines, Distribution, MAX_COMPONENT, MAX_MESSAGE, OciSource, RegistrySettings,
    WASM_CONFIG_TYPE, WASM_LAYER_TYPES,
};
pub use connection::Access;
pub use error::FetchError;
pub use keyless::TrustedIdentity;
pub use keys::{KeyError, PrivateKey, TrustedKey};
pub use pull::{Fetched, Origin, fetch};
pub use reference::OciRef;
pub use said::{MAX_SAID, Said};
pub use signature::{SignedBy, Signer};
pub use trust::Trust;
pub use trust_root::{TrustRoot, TrustRootError};
