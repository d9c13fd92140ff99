//! What the manifest says about registries ([`Distribution`], [`RegistrySettings`],
//! [`Deadlines`]) and one plugin's `oci://` source ([`OciSource`]); the media types and
//! sizes every pull holds to.

use super::error::FetchError;
use super::reference::OciRef;
use super::trust::Trust;
use crate::scrub::Secrets;
use std::collections::BTreeMap;
use std::time::Duration;
use url::Url;

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

/// How long one request to a registry may take, whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// A manifest, an upload's steps, and the least any blob gets.
    pub floor: Duration,
    /// The slowest rate a blob may arrive at, in bytes per second: a blob's deadline is the
    /// floor plus its declared size at this rate.
    pub min_rate: u64,
}

impl Default for Deadlines {
    /// A minute, and 256 KiB/s for a blob: a 256 MiB component gets 18 minutes.
    fn default() -> Self {
        Self {
            floor: Duration::from_secs(60),
            min_rate: 256 * 1024,
        }
    }
}

impl Deadlines {
    /// The time a transfer of `size` bytes may take.
    pub fn for_size(&self, size: u64) -> Duration {
        self.floor
            .saturating_add(Duration::from_secs(size / self.min_rate.max(1)))
    }
}

/// One `[registries."HOST:PORT"]` entry.
#[derive(Debug, Clone, Default)]
pub struct RegistrySettings {
    /// A bearer token is read from this environment variable.
    pub token_env: Option<String>,
    /// Basic authentication: the user, with the password read from `password_env`.
    pub username: Option<String>,
    pub password_env: Option<String>,
    /// Speak plain HTTP (a registry on this machine or a lab network).
    pub plain_http: bool,
    /// The token service on another host that may receive the Basic credentials to issue
    /// a token (a realm on the registry's own origin always may).
    pub token_realm: Option<Url>,
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
