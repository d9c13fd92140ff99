//! What the proxy's connections of one guard share, and where the guard reads whose grants
//! apply ([`Owners`], implemented by the running browser in `live/guarded.rs`).

use super::deny_log::DenyLog;
use super::failures;
use super::listen;
use super::policy::{self, Purpose, Refusal, Target};
use super::upstream::Upstream;
use crate::capabilities::browser::model::owner::{Guard, Owner};
use std::net::SocketAddr;
use std::sync::{OnceLock, Weak};
use tokio_util::sync::CancellationToken;

/// Where a guard reads whose grants apply to a connection of its context: the running
/// browser (`live/guarded.rs`), asked at each connection so a manifest reload applies at once.
pub trait Owners: Send + Sync {
    /// The owners whose grants a request of `context` (`None`: the default context) is
    /// checked against.
    fn owners_of(&self, context: Option<&str>) -> Vec<Owner>;
}

/// Which browser context a guard serves, filled in once the context exists.
#[derive(Default)]
pub(super) struct OwnerSource {
    pub(super) live: OnceLock<Weak<dyn Owners>>,
    /// The context id; unset for a launched browser's default context.
    pub(super) context: OnceLock<String>,
}

impl OwnerSource {
    pub(super) fn owners(&self) -> Vec<Owner> {
        self.live
            .get()
            .and_then(Weak::upgrade)
            .map(|live| live.owners_of(self.context.get().map(String::as_str)))
            .unwrap_or_default()
    }
}

/// What the proxy's connections share.
pub(super) struct Shared {
    pub(super) guard: Guard,
    pub(super) owners: OwnerSource,
    pub(super) upstream: Option<Upstream>,
    /// Hosts that go around `upstream` (the profile's `proxy_bypass`), and whether loopback
    /// does too (Chromium's implicit rule, unless the list says `<-loopback>`).
    pub(super) bypass: Option<globset::GlobSet>,
    pub(super) bypass_loopback: bool,
    pub(super) deny_log: DenyLog,
    /// Why recent connections were not carried, by `host:port`.
    pub(super) failures: failures::Failures,
    /// Whom it serves.
    pub(super) listen: listen::Listen,
    /// Cancelled (and replaced) to end every tunnel open now: they were admitted for
    /// owners that are gone (`occupancy.rs`).
    pub(super) tunnels: std::sync::Mutex<CancellationToken>,
}

impl Shared {
    /// What ends a tunnel admitted from now on; take it before reading the owners.
    pub(super) fn tunnel_end(&self) -> CancellationToken {
        self.tunnels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(super) async fn decide(
        &self,
        owners: &[Owner],
        target: &Target,
        purpose: Purpose,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        policy::decide(self.guard, owners, target, purpose).await
    }

    /// The upstream proxy for a connection to `host` at `addrs`, if it takes that one.
    pub(super) fn upstream_for(&self, host: &str, addrs: &[SocketAddr]) -> Option<&Upstream> {
        let upstream = self.upstream.as_ref()?;
        let loopback = addrs
            .iter()
            .all(|a| crate::net::addr::canonical(a.ip()).is_loopback());
        let bypassed = (self.bypass_loopback && loopback)
            || self
                .bypass
                .as_ref()
                .is_some_and(|b| b.is_match(host.to_ascii_lowercase()));
        (!bypassed).then_some(upstream)
    }
}
