//! Resource subscriptions: `resources/subscribe` on 2025-11-25 sessions and
//! `resourceSubscriptions` in a 2026-07-28 `subscriptions/listen` filter. Changes come from the
//! host's resource bus ([`ResourceEvents`]); one forwarder task coalesces them (a session that
//! prints a megabyte is one notification per [`WINDOW`], not thousands) and tells each
//! subscriber of a URI, if the plugin that announced the change is the one that serves it
//! and the subscriber's client owns what changed (another user's shell is not announced).

use crate::capabilities::conversation::Owner;
use crate::capabilities::resource_events::{ResourceChange, ResourceEvents};
use crate::runtime::registry::Registry;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// Changes of one URI within this window become one notification.
pub const WINDOW: Duration = Duration::from_millis(200);

/// Subscriptions one server holds at most (sessions and listen streams together).
pub const MAX_SUBSCRIPTIONS: usize = 4096;

/// Who hears of a URI's changes, and for which client.
struct Subscriber {
    to: Target,
    owner: Owner,
}

enum Target {
    Session(Peer<RoleServer>),
    Listener(u64, SubscriptionSink),
}

impl Subscriber {
    fn is_session(&self, peer: &Peer<RoleServer>) -> bool {
        matches!(&self.to, Target::Session(p) if same_peer(p, peer))
    }

    fn is_listener(&self, listen: ListenId) -> bool {
        matches!(&self.to, Target::Listener(id, _) if *id == listen.0)
    }

    fn is_gone(&self) -> bool {
        matches!(&self.to, Target::Session(p) if p.is_transport_closed())
    }
}

/// One listen stream's subscriptions, dropped when the stream ends ([`Subscriptions::end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenId(u64);

/// The subscriptions of one server, by URI.
#[derive(Default)]
pub struct Subscriptions {
    by_uri: Mutex<HashMap<String, Vec<Subscriber>>>,
    next_listen: std::sync::atomic::AtomicU64,
}

/// Why a subscription was refused.
#[derive(Debug, thiserror::Error)]
pub enum SubscribeError {
    #[error(
        "too many resource subscriptions on this server ({MAX_SUBSCRIPTIONS}); unsubscribe from some first"
    )]
    Full,
}

impl Subscriptions {
    /// How many subscriptions are held, once those of closed sessions are dropped (a client
    /// that went away without unsubscribing must not fill the server).
    fn count(map: &mut HashMap<String, Vec<Subscriber>>) -> usize {
        map.retain(|_, list| {
            list.retain(|s| !s.is_gone());
            !list.is_empty()
        });
        map.values().map(Vec::len).sum()
    }

    /// `peer`, a session of `owner`, hears of changes of `uri` (once, however often it
    /// subscribes).
    pub fn subscribe(
        &self,
        uri: &str,
        peer: Peer<RoleServer>,
        owner: Owner,
    ) -> Result<(), SubscribeError> {
        let mut map = self.by_uri.lock().unwrap_or_else(|p| p.into_inner());
        if Self::count(&mut map) >= MAX_SUBSCRIPTIONS {
            return Err(SubscribeError::Full);
        }
        let list = map.entry(uri.to_string()).or_default();
        if !list.iter().any(|s| s.is_session(&peer)) {
            list.push(Subscriber {
                to: Target::Session(peer),
                owner,
            });
        }
        Ok(())
    }

    pub fn unsubscribe(&self, uri: &str, peer: &Peer<RoleServer>) {
        let mut map = self.by_uri.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(list) = map.get_mut(uri) {
            list.retain(|s| !s.is_session(peer));
            if list.is_empty() {
                map.remove(uri);
            }
        }
    }

    /// A 2026-07-28 listen stream of `owner` hears of changes of `uris` until [`Self::end`].
    pub fn listen(
        &self,
        uris: &[String],
        sink: &SubscriptionSink,
        owner: &Owner,
    ) -> Result<ListenId, SubscribeError> {
        let mut map = self.by_uri.lock().unwrap_or_else(|p| p.into_inner());
        if Self::count(&mut map) + uris.len() > MAX_SUBSCRIPTIONS {
            return Err(SubscribeError::Full);
        }
        let id = self
            .next_listen
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        for uri in uris {
            map.entry(uri.clone()).or_default().push(Subscriber {
                to: Target::Listener(id, sink.clone()),
                owner: owner.clone(),
            });
        }
        Ok(ListenId(id))
    }

    /// The listen stream ended: drop its subscriptions.
    pub fn end(&self, listen: ListenId) {
        let mut map = self.by_uri.lock().unwrap_or_else(|p| p.into_inner());
        map.retain(|_, list| {
            list.retain(|s| !s.is_listener(listen));
            !list.is_empty()
        });
    }

    /// Tell the subscribers of `uri` that `owner` has (every one when `None`); drop those
    /// that are gone.
    async fn notify(&self, uri: &str, owner: Option<&Owner>) {
        let targets: Vec<Subscriber> = {
            let mut map = self.by_uri.lock().unwrap_or_else(|p| p.into_inner());
            match map.remove(uri) {
                Some(list) => list,
                None => return,
            }
        };
        let mut alive = Vec::new();
        for target in targets {
            let sent = if owner.is_some_and(|o| *o != target.owner) {
                true
            } else {
                match &target.to {
                    Target::Session(peer) => peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(
                            uri.to_string(),
                        ))
                        .await
                        .is_ok(),
                    Target::Listener(_, sink) => sink.notify_resource_updated(uri).await.is_ok(),
                }
            };
            if sent {
                alive.push(target);
            }
        }
        if !alive.is_empty() {
            let mut map = self.by_uri.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(uri.to_string()).or_default().extend(alive);
        }
    }

    fn all_uris(&self) -> Vec<String> {
        let map = self.by_uri.lock().unwrap_or_else(|p| p.into_inner());
        map.keys().cloned().collect()
    }
}

/// The same session: its handshake info is one shared allocation per session.
fn same_peer(a: &Peer<RoleServer>, b: &Peer<RoleServer>) -> bool {
    match (a.peer_info(), b.peer_info()) {
        (Some(x), Some(y)) => Arc::ptr_eq(&x, &y),
        _ => false,
    }
}

/// Forward the bus's changes to the subscribers, for as long as the server lives.
pub fn forward(
    events: &ResourceEvents,
    subscriptions: Arc<Subscriptions>,
    registry: Arc<RwLock<Arc<super::served::Served>>>,
) {
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let mut rx = events.subscribe();
    handle.spawn(async move {
        loop {
            let mut changed: HashSet<ResourceChange> = HashSet::new();
            let mut lagged = false;
            match rx.recv().await {
                Ok(change) => {
                    changed.insert(change);
                }
                Err(RecvError::Lagged(_)) => lagged = true,
                Err(RecvError::Closed) => return,
            }
            // Coalesce what arrives within the window.
            let deadline = tokio::time::Instant::now() + WINDOW;
            loop {
                match tokio::time::timeout_at(deadline, rx.recv()).await {
                    Ok(Ok(change)) => {
                        changed.insert(change);
                    }
                    Ok(Err(RecvError::Lagged(_))) => lagged = true,
                    Ok(Err(RecvError::Closed)) => return,
                    Err(_) => break,
                }
            }
            let served = registry
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .registry
                .clone();
            // After a lag, what changed is unknown: every subscriber hears, which tells
            // nobody of anything in particular.
            let uris: Vec<(String, Option<Owner>)> = if lagged {
                subscriptions
                    .all_uris()
                    .into_iter()
                    .map(|uri| (uri, None))
                    .collect()
            } else {
                changed
                    .into_iter()
                    .filter(|c| owned_by(&served, &c.uri, &c.plugin))
                    .map(|c| (c.uri.to_string(), Some(c.owner)))
                    .collect()
            };
            for (uri, owner) in uris {
                tracing::debug!(uri, "resource changed; telling its subscribers");
                subscriptions.notify(&uri, owner.as_ref()).await;
            }
        }
    });
}

/// True when `plugin` is the one that serves `uri`.
fn owned_by(registry: &Registry, uri: &str, plugin: &str) -> bool {
    registry
        .resource_owner(uri)
        .is_some_and(|owner| owner.name() == plugin)
}
