//! [`FetchError`]: why a plugin could not be taken from its registry.

use super::said::Said;
use super::signature;

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
