//! What plugins keep between calls (`warden:plugin/state`; the import itself is
//! `runtime/plugin_state_host.rs`). An instance serves one conversation and may serve its
//! next call, but its memory is only a cache: it is dropped when it idles out
//! (`runtime/plugin.rs`), traps, or meets a parallel call of the same conversation, which runs
//! in an instance of its own. What must outlive a call lives here instead, in the host, one
//! scope per plugin and conversation: an agent reads only what calls of its own conversation
//! wrote, whatever the plugin does.
//!
//! Bounds: each scope holds at most the plugin's `limits.state` bytes (keys and values); a
//! plugin keeps at most [`SCOPES_PER_PLUGIN`] scopes and [`SCOPES_HELD_FULL`] times
//! `limits.state` in all (a client that opens many sessions cannot grow the host without
//! bound); a scope whose conversation ended (its MCP session closed) is dropped at the next
//! sweep. The bounds are shared fairly among clients (`fair_share.rs`): past one, the client
//! that presses loses its own least recently used scope when it holds more than its share
//! (the bound divided by the clients holding state in the plugin), else the client that
//! holds the most does. A client that keeps within its share loses nothing to another's
//! many sessions.

use crate::capabilities::conversation::Conversation;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Scopes one plugin keeps at once; past it the least recently used is dropped.
pub const SCOPES_PER_PLUGIN: usize = 1024;
/// How many full scopes' worth of bytes a plugin keeps in all.
pub const SCOPES_HELD_FULL: u64 = 64;
/// The longest key.
pub const MAX_KEY: usize = 256;
/// New scopes between two sweeps for ended conversations.
const SWEEP_EVERY: usize = 32;

/// Why a write was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    #[error(
        "this conversation's state would hold {would} bytes, over the plugin's limits.state of {limit} bytes; delete keys it no longer needs"
    )]
    LimitReached { would: u64, limit: u64 },
    #[error("a state key must be 1 to {MAX_KEY} bytes long; this one is {0} bytes")]
    InvalidKey(usize),
}

/// Every plugin's kept values. Shared across manifest reloads, like terminal sessions.
#[derive(Default)]
pub struct StateStore {
    plugins: Mutex<HashMap<String, Scopes>>,
}

impl std::fmt::Debug for StateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateStore")
    }
}

#[derive(Default)]
struct Scopes {
    by_conversation: HashMap<Arc<str>, Scope>,
    clock: u64,
    since_sweep: usize,
    /// Bytes of every scope together.
    bytes: u64,
}

struct Scope {
    values: BTreeMap<String, Vec<u8>>,
    bytes: u64,
    used: u64,
    conversation: Conversation,
}

impl Scopes {
    /// The scope of `conversation`, made when missing (which may drop the least recently
    /// used one, and sweeps ended conversations now and then).
    fn scope(&mut self, conversation: &Conversation) -> &mut Scope {
        self.clock += 1;
        let now = self.clock;
        let key: Arc<str> = Arc::from(conversation.key());
        if !self.by_conversation.contains_key(&key) {
            self.since_sweep += 1;
            if self.since_sweep >= SWEEP_EVERY {
                self.since_sweep = 0;
                self.by_conversation
                    .retain(|_, s| s.conversation.is_alive());
                self.bytes = self.by_conversation.values().map(|s| s.bytes).sum();
            }
            if self.by_conversation.len() >= SCOPES_PER_PLUGIN {
                self.make_room(conversation, Measure::Scopes);
            }
        }
        let scope = self.by_conversation.entry(key).or_insert_with(|| Scope {
            values: BTreeMap::new(),
            bytes: 0,
            used: now,
            conversation: conversation.clone(),
        });
        scope.used = now;
        scope
    }
}

/// Which bound a scope is dropped for.
#[derive(Clone, Copy)]
enum Measure {
    /// [`SCOPES_PER_PLUGIN`]: `presser` is about to add a scope.
    Scopes,
    /// [`SCOPES_HELD_FULL`] times the limit, in bytes.
    Bytes(u64),
}

impl Scopes {
    /// Drop one scope other than `presser`'s own, to make room for it (`fair_share.rs`);
    /// false when there is none to drop.
    fn make_room(&mut self, presser: &Conversation, measure: Measure) -> bool {
        let keep = presser.key();
        let (cap, pressing) = match measure {
            Measure::Scopes => (SCOPES_PER_PLUGIN as u64, 1),
            Measure::Bytes(cap) => (cap, self.by_conversation.get(keep).map_or(0, |s| s.bytes)),
        };
        let held = self
            .by_conversation
            .iter()
            .filter(|(k, _)| &***k != keep)
            .map(|(key, scope)| crate::fair_share::Held {
                key,
                owner: scope.conversation.owner(),
                weight: match measure {
                    Measure::Scopes => 1,
                    Measure::Bytes(_) => scope.bytes,
                },
                used: scope.used,
            });
        let victim = crate::fair_share::victim(held, presser.owner(), pressing, cap).cloned();
        match victim.and_then(|k| self.by_conversation.remove(&k)) {
            Some(scope) => {
                self.bytes -= scope.bytes;
                true
            }
            None => false,
        }
    }
}

fn check_key(key: &str) -> Result<(), StateError> {
    if key.is_empty() || key.len() > MAX_KEY {
        return Err(StateError::InvalidKey(key.len()));
    }
    Ok(())
}

/// What one entry costs against the limit.
fn cost(key: &str, value: &[u8]) -> u64 {
    (key.len() + value.len()) as u64
}

impl StateStore {
    fn with<R>(&self, plugin: &str, f: impl FnOnce(&mut Scopes) -> R) -> R {
        let mut plugins = self.plugins.lock().unwrap_or_else(|p| p.into_inner());
        let scopes = match plugins.get_mut(plugin) {
            Some(scopes) => scopes,
            None => plugins.entry(plugin.to_string()).or_default(),
        };
        f(scopes)
    }

    pub fn get(&self, plugin: &str, conversation: &Conversation, key: &str) -> Option<Vec<u8>> {
        self.with(plugin, |scopes| {
            scopes.clock += 1;
            let now = scopes.clock;
            let scope = scopes.by_conversation.get_mut(conversation.key())?;
            scope.used = now;
            scope.values.get(key).cloned()
        })
    }

    pub fn set(
        &self,
        plugin: &str,
        conversation: &Conversation,
        limit: u64,
        key: &str,
        value: Vec<u8>,
    ) -> Result<(), StateError> {
        check_key(key)?;
        self.with(plugin, |scopes| {
            let scope = scopes.scope(conversation);
            let old = scope.values.get(key).map_or(0, |v| cost(key, v));
            let would = scope.bytes - old + cost(key, &value);
            if would > limit {
                return Err(StateError::LimitReached { would, limit });
            }
            let before = scope.bytes;
            scope.bytes = would;
            scope.values.insert(key.to_string(), value);
            scopes.bytes = scopes.bytes - before + would;
            let cap = limit.saturating_mul(SCOPES_HELD_FULL);
            while scopes.bytes > cap && scopes.make_room(conversation, Measure::Bytes(cap)) {}
            Ok(())
        })
    }

    pub fn delete(&self, plugin: &str, conversation: &Conversation, key: &str) {
        self.with(plugin, |scopes| {
            if let Some(scope) = scopes.by_conversation.get_mut(conversation.key())
                && let Some(value) = scope.values.remove(key)
            {
                scope.bytes -= cost(key, &value);
                scopes.bytes -= cost(key, &value);
            }
        });
    }

    pub fn keys(&self, plugin: &str, conversation: &Conversation, prefix: &str) -> Vec<String> {
        self.with(plugin, |scopes| {
            scopes
                .by_conversation
                .get(conversation.key())
                .map(|scope| {
                    scope
                        .values
                        .range(prefix.to_string()..)
                        .take_while(|(k, _)| k.starts_with(prefix))
                        .map(|(k, _)| k.clone())
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// After a manifest reload: forget the plugins the new manifest no longer serves.
    pub fn retain_plugins(&self, keep: impl Fn(&str) -> bool) {
        let mut plugins = self.plugins.lock().unwrap_or_else(|p| p.into_inner());
        plugins.retain(|name, _| keep(name));
    }

    /// Scopes and bytes held, for the metrics.
    pub fn census(&self) -> (usize, u64) {
        let plugins = self.plugins.lock().unwrap_or_else(|p| p.into_inner());
        plugins.values().fold((0, 0), |(n, bytes), s| {
            (n + s.by_conversation.len(), bytes + s.bytes)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(client: &str) -> Conversation {
        Conversation::client(Some(client))
    }

    #[test]
    fn a_conversation_reads_only_its_own_values() {
        let store = StateStore::default();
        let (alice, bob) = (of("alice"), of("bob"));
        store
            .set("p", &alice, 100, "k", b"alice".to_vec())
            .expect("kept");
        assert_eq!(store.get("p", &alice, "k"), Some(b"alice".to_vec()));
        assert_eq!(store.get("p", &bob, "k"), None);
        assert_eq!(store.get("other", &alice, "k"), None);
        assert!(store.keys("p", &bob, "").is_empty());
        store
            .set("p", &bob, 100, "k", b"bob".to_vec())
            .expect("kept");
        assert_eq!(store.get("p", &alice, "k"), Some(b"alice".to_vec()));
    }

    #[test]
    fn the_limit_counts_keys_and_values_and_a_replaced_value_is_refunded() {
        let store = StateStore::default();
        let c = of("a");
        store.set("p", &c, 10, "ab", vec![0; 8]).expect("kept");
        assert_eq!(
            store.set("p", &c, 10, "cd", vec![0; 1]),
            Err(StateError::LimitReached {
                would: 13,
                limit: 10
            })
        );
        // Replacing a value counts only the difference.
        store.set("p", &c, 10, "ab", vec![0; 6]).expect("kept");
        store.set("p", &c, 10, "c", vec![]).expect("kept");
        store.delete("p", &c, "ab");
        store.set("p", &c, 10, "de", vec![0; 7]).expect("kept");
        assert_eq!(store.keys("p", &c, ""), vec!["c", "de"]);
        assert_eq!(store.census(), (1, 10));
    }

    #[test]
    fn keys_are_listed_by_prefix_and_bad_keys_refused() {
        let store = StateStore::default();
        let c = of("a");
        for k in ["tab/2", "tab/1", "session", "tabs"] {
            store.set("p", &c, 100, k, vec![]).expect("kept");
        }
        assert_eq!(store.keys("p", &c, "tab/"), vec!["tab/1", "tab/2"]);
        assert_eq!(
            store.set("p", &c, 100, "", vec![]),
            Err(StateError::InvalidKey(0))
        );
        assert!(
            store
                .set("p", &c, 100, &"k".repeat(MAX_KEY + 1), vec![])
                .is_err()
        );
    }

    #[test]
    fn among_clients_holding_as_much_the_least_recently_used_scope_goes_first() {
        let store = StateStore::default();
        for i in 0..SCOPES_PER_PLUGIN {
            store
                .set("p", &of(&format!("c{i}")), 100, "k", vec![])
                .expect("kept");
        }
        // c0 is used again, so c1 is now the oldest.
        store.set("p", &of("c0"), 100, "k", vec![1]).expect("kept");
        store.set("p", &of("new"), 100, "k", vec![]).expect("kept");
        assert!(store.get("p", &of("c0"), "k").is_some());
        assert!(store.get("p", &of("c1"), "k").is_none());
        assert!(store.get("p", &of("new"), "k").is_some());
    }

    #[test]
    fn a_plugin_keeps_a_bounded_total_dropping_the_least_recently_used_scopes() {
        let store = StateStore::default();
        let limit = 100;
        for i in 0..SCOPES_HELD_FULL + 10 {
            store
                .set("p", &of(&format!("c{i}")), limit, "k", vec![0; 99])
                .expect("kept");
        }
        let (scopes, bytes) = store.census();
        assert!(bytes <= limit * SCOPES_HELD_FULL, "{bytes}");
        assert_eq!(scopes as u64, SCOPES_HELD_FULL);
        // The newest are kept, the oldest went first.
        assert!(store.get("p", &of("c0"), "k").is_none());
        assert!(
            store
                .get("p", &of(&format!("c{}", SCOPES_HELD_FULL + 9)), "k")
                .is_some()
        );
    }

    #[test]
    fn a_client_with_many_sessions_erases_its_own_not_another_clients() {
        let store = StateStore::default();
        let session = |client: &str, i: usize| {
            Conversation::session(&format!("s{i}"), Some(client), Arc::new(|| true))
        };
        let limit = 100;
        store
            .set("p", &session("alice", 0), limit, "k", b"alice".to_vec())
            .expect("kept");
        // Bob fills more sessions than the plugin keeps in all, by count and by bytes.
        for i in 0..SCOPES_PER_PLUGIN + 10 {
            store
                .set("p", &session("bob", i), limit, "k", vec![0; 90])
                .expect("kept");
        }
        assert_eq!(
            store.get("p", &session("alice", 0), "k"),
            Some(b"alice".to_vec())
        );
        assert!(store.get("p", &session("bob", 0), "k").is_none());
        let (_, bytes) = store.census();
        assert!(bytes <= limit * SCOPES_HELD_FULL, "{bytes}");
        // Alice, within her share, makes room at bob's expense.
        for i in 1..5 {
            store
                .set("p", &session("alice", i), limit, "k", vec![0; 90])
                .expect("kept");
        }
        assert!(store.get("p", &session("alice", 0), "k").is_some());
        assert!(store.get("p", &session("alice", 1), "k").is_some());
    }

    #[test]
    fn ended_conversations_are_swept() {
        let store = StateStore::default();
        let ended = Conversation::session("gone", None, Arc::new(|| false));
        store.set("p", &ended, 10, "k", vec![]).expect("kept");
        for i in 0..SWEEP_EVERY {
            store
                .set("p", &of(&format!("c{i}")), 10, "k", vec![])
                .expect("kept");
        }
        assert!(store.get("p", &ended, "k").is_none());
    }
}
