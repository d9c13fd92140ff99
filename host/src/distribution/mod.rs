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
mod destination;
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
pub mod trust_root;

pub use client::{Access, Deadlines, RegistrySettings};
pub use keyless::TrustedIdentity;
pub use keys::{KeyError, PrivateKey, TrustedKey};
pub use pull::fetch;
pub use reference::OciRef;
pub use said::{MAX_SAID, Said};
pub use signature::{SignedBy, Signer};
pub use trust_root::{TrustRoot, TrustRootError};

use crate::scrub::Secrets;
use std::collections::BTreeMap;

/// Layer media types of a Wasm component: the CNCF Wasm OCI artifact's `application/wasm`
/// (what `wkg` publishes, and what `warden plugin push` writes) and the older
/// `application/vnd.wasm.content.layer.v1+wasm`.
pub const WASM_LAYER_TYPES: [&str; 2] = [
    "application/wasm",
    "application/vnd.wasm.content.layer.v1+wasm",
];
/// The CNCF Wasm OCI artifact's config media type.
pub const WASM_CONFIG_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The largest component Warden pulls.
pub const MAX_COMPONENT: u64 = 256 * 1024 * 1024;

/// Whose signatures are accepted: `[trust]`.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// `[trust.keys]`: public keys.
    pub keys: Vec<TrustedKey>,
    /// `[trust.identities]`: keyless signers, certified by a trust root's authority.
    pub identities: Vec<TrustedIdentity>,
}

impl Trust {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.identities.is_empty()
    }

    /// The trusted signers' names, for messages: `keys: a, b; identities: c`.
    pub fn names(&self) -> String {
        let list = |names: Vec<&str>| names.join(", ");
        let keys = list(self.keys.iter().map(|k| k.name.as_str()).collect());
        let ids = list(self.identities.iter().map(|i| i.name.as_str()).collect());
        match (keys.is_empty(), ids.is_empty()) {
            (_, true) => format!("keys: {keys}"),
            (true, false) => format!("identities: {ids}"),
            (false, false) => format!("keys: {keys}; identities: {ids}"),
        }
    }
}

/// What the manifest says about registries and signers.
#[derive(Debug, Clone, Default)]
pub struct Distribution {
    /// `[trust]`: the keys and identities whose signatures are accepted.
    pub trust: Trust,
    /// `[registries."HOST:PORT"]`, by `HOST:PORT`.
    pub registries: BTreeMap<String, RegistrySettings>,
    /// How long one request to a registry may take.
    pub deadlines: Deadlines,
}

/// The longest message about a pull that reaches a log, an audit line or the terminal.
pub const MAX_MESSAGE: usize = 2048;

impl Distribution {
    /// Every registry credential the environment holds for these registries, to be masked.
    pub fn scrubber(&self) -> Secrets {
        let mut scrubber = Secrets::default();
        for s in self.registries.values() {
            let read = |var: &Option<String>| var.as_ref().and_then(|v| std::env::var(v).ok());
            if let Some(token) = read(&s.token_env) {
                scrubber.add(&token);
            }
            if let Some(password) = read(&s.password_env) {
                scrubber.add(&password);
                if let Some(user) = &s.username {
                    scrubber.add(&format!("{user}:{password}"));
                }
            }
        }
        scrubber
    }

    /// `e` as a message that may be logged, audited or shown: the last guard after each
    /// registry word was already bounded and scrubbed where it entered ([`Said`]).
    pub fn message(&self, e: &FetchError) -> String {
        self.scrubber().bounded(&e.to_string(), MAX_MESSAGE)
    }
}

/// One `[[plugin]]`'s `oci://` source and how it must be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciSource {
    pub reference: OciRef,
    /// Load only with a valid signature by a `[trust]` key or identity (default for `oci://`).
    pub verify: bool,
}

/// Where the loaded bytes came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Pulled from the registry now.
    Registry,
    /// Read from the store, pulled earlier (the registry was not asked for the component).
    Store,
}

/// A pulled, checked component.
#[derive(Debug)]
pub struct Fetched {
    pub bytes: Vec<u8>,
    /// The manifest digest the bytes belong to.
    pub digest: String,
    /// Who signed it; `None` when `verify = false`.
    pub signer: Option<Signer>,
    pub origin: Origin,
    /// The stored copy had been changed on disk and was pulled again.
    pub repaired: bool,
}

/// Why a plugin could not be taken from its registry; each message says what to do. Every
/// word of the registry in it is [`Said`]: bounded and scrubbed of credentials.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(
        "registry {registry} resolves to {addr}, a {class} address; a registry in private network space is used only when named: add [registries.\"{registry}\"] to the manifest"
    )]
    PrivateRegistry {
        registry: String,
        addr: String,
        class: String,
    },
    #[error(
        "registry {registry} sent Warden to {destination} ({hop}), which resolves to {addr}, a {class} address: refused, and nothing was sent there; a destination in private network space is reached only when named: if it is meant to be reached, add [registries.\"{key}\"] (or name it as the registry's token_realm)"
    )]
    PrivateDestination {
        registry: String,
        hop: &'static str,
        destination: Said,
        key: Said,
        addr: std::net::IpAddr,
        class: crate::net::addr::Class,
    },
    #[error("registry {registry}: refused {hop} {destination}: {refused}")]
    OwnListener {
        registry: String,
        hop: &'static str,
        destination: Said,
        refused: Said,
    },
    #[error("registry {registry}: {message}")]
    Registry { registry: String, message: Said },
    #[error(
        "registry {registry}: {message}; an unpinned tag is resolved at every start, so it cannot start from the cache: pin it as source = \"{pinned}\" (the digest it named last time)"
    )]
    UnpinnedOffline {
        registry: String,
        message: Said,
        pinned: String,
    },
    #[error(
        "the registry has no {what}; check the reference (`warden plugin pull oci://REGISTRY/REPO:TAG` prints the digest a tag names)"
    )]
    NotFound { what: String },
    #[error(
        "registry {registry} refused the credentials: {message}; set them under [registries.\"{registry}\"] (token_env, or username and password_env)"
    )]
    Unauthorized { registry: String, message: Said },
    #[error("registry {registry}: the environment variable {var} named in [registries] is not set")]
    Credentials { registry: String, var: String },
    #[error(
        "the registry credentials hold a character an HTTP header cannot carry (a line break?); check the variable named in [registries]"
    )]
    BadCredentials,
    #[error(
        "the registry sent a manifest that is not the pinned {expected} ({detail}): refused; if the artifact was re-pushed on purpose, pin the new digest"
    )]
    DigestMismatch { expected: String, detail: String },
    #[error(
        "the bytes of {what} hash to {got}, not the {expected} its manifest names: refused (the registry's copy is damaged or was tampered with)"
    )]
    LayerMismatch {
        what: String,
        expected: String,
        got: String,
    },
    #[error(
        "the registry sent {detail} bytes for {what} than the {declared} its manifest declares: refused (the registry's copy is damaged or was tampered with)"
    )]
    SizeMismatch {
        what: String,
        declared: u64,
        /// `more`, or `only N`.
        detail: String,
    },
    #[error(
        "the artifact has no Wasm component layer (layers: {found}); push it with `warden plugin push` or `wkg oci push`"
    )]
    MissingLayer { found: Said },
    #[error("the component layer is {size} bytes, over the {max}-byte limit")]
    TooLarge { size: u64, max: u64 },
    #[error(
        "the registry sent more than {max} bytes for {what}: refused (no honest one is that large)"
    )]
    Oversized { what: String, max: u64 },
    #[error(
        "registry {registry} did not finish sending {what} within {secs} s: refused (a minute for a manifest, plus 1 s per 256 KiB for a blob); try again, or check the registry's link"
    )]
    Slow {
        registry: String,
        what: String,
        secs: u64,
    },
    #[error("the artifact's manifest is not an OCI image manifest: {0}")]
    BadManifest(Said),
    #[error("{0}")]
    Signature(#[from] signature::SignatureError),
    #[error("cannot store the pulled artifact under the cache directory: {0}")]
    Store(std::io::Error),
    #[error(
        "the stored copy of {digest} was changed on disk since it was pulled (it is removed; nothing changed is loaded), and it could not be pulled again: {then}"
    )]
    StoreChanged {
        digest: String,
        then: Box<FetchError>,
    },
}

impl FetchError {
    /// A short stable name of the error, for audit lines.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::PrivateRegistry { .. } => "private_registry",
            Self::PrivateDestination { .. } => "private_destination",
            Self::OwnListener { .. } => "own_listener",
            Self::Registry { .. } | Self::UnpinnedOffline { .. } => "registry",
            Self::NotFound { .. } => "not_found",
            Self::Unauthorized { .. } | Self::Credentials { .. } | Self::BadCredentials => {
                "unauthorized"
            }
            Self::DigestMismatch { .. } => "digest_mismatch",
            Self::LayerMismatch { .. } => "layer_mismatch",
            Self::SizeMismatch { .. } => "size_mismatch",
            Self::MissingLayer { .. } | Self::BadManifest(_) => "bad_artifact",
            Self::TooLarge { .. } | Self::Oversized { .. } => "too_large",
            Self::Slow { .. } => "timeout",
            Self::Signature(signature::SignatureError::Unsigned { .. }) => "unsigned",
            Self::Signature(signature::SignatureError::Untrusted { .. }) => "untrusted_signature",
            Self::Store(_) => "store",
            Self::StoreChanged { .. } => "store_changed",
        }
    }
}
