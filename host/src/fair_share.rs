//! Who gives way when a cap shared by every client of a plugin is reached: what plugins keep
//! between calls (`plugin_state.rs`), instances idle between a conversation's calls
//! (`runtime/plugin.rs`). A global least-recently-used rule let one client that opened many
//! conversations push out everything another kept; here the client that presses gives way
//! first.
//!
//! Each client's *share* of a cap is the cap divided by the clients holding something under
//! it (the presser counted). When the client that needs room holds more than its share, its
//! own least recently used entry goes; otherwise the least recently used entry of the
//! clients that hold the most goes (over their share, since the cap is reached). So a client
//! that keeps within its share loses nothing to another's pressure.

use crate::capabilities::conversation::Owner;
use std::collections::HashMap;

/// One entry held under a cap.
pub struct Held<'a, K, T> {
    pub key: &'a K,
    pub owner: &'a Owner,
    /// What it counts against the cap (1 for a count, its size for bytes).
    pub weight: u64,
    /// When it was last used: the smallest goes first.
    pub used: T,
}

/// The entry to drop so that `presser` gets room, among `held` (which leaves out what must
/// stay: the presser's entry in use). `pressing` is what the presser holds or needs beyond
/// `held` (its entry in use, the entry it adds); `cap` is the cap. `None`: nothing to drop.
pub fn victim<'a, K, T: Ord + Copy>(
    held: impl IntoIterator<Item = Held<'a, K, T>>,
    presser: &Owner,
    pressing: u64,
    cap: u64,
) -> Option<&'a K> {
    let held: Vec<Held<'a, K, T>> = held.into_iter().collect();
    let mut totals: HashMap<&Owner, u64> = HashMap::new();
    for h in &held {
        *totals.entry(h.owner).or_default() += h.weight;
    }
    let mine = totals.get(presser).copied().unwrap_or(0) + pressing;
    let clients = u64::try_from(totals.len() + usize::from(!totals.contains_key(presser)))
        .unwrap_or(u64::MAX);
    // Over its share: mine > cap / clients.
    let over = u128::from(mine) * u128::from(clients) > u128::from(cap);
    let most = totals.values().copied().max()?;
    let gives_way = |owner: &Owner| {
        if over && totals.contains_key(presser) {
            owner == presser
        } else {
            totals.get(owner) == Some(&most)
        }
    };
    held.iter()
        .filter(|h| gives_way(h.owner))
        .min_by_key(|h| h.used)
        .map(|h| h.key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(name: &str) -> Owner {
        Owner::client(Some(name))
    }

    #[test]
    fn the_presser_over_its_share_gives_way_first() {
        let (alice, bob) = (who("alice"), who("bob"));
        // Alice keeps one entry, the oldest of all; bob fills the rest.
        let mut entries: Vec<(String, &Owner, u64)> = vec![("alice-1".into(), &alice, 0)];
        for i in 1..10 {
            entries.push((format!("bob-{i}"), &bob, i));
        }
        let pick = |presser: &Owner| {
            victim(
                entries.iter().map(|(key, owner, used)| Held {
                    key,
                    owner,
                    weight: 1,
                    used: *used,
                }),
                presser,
                1,
                10,
            )
            .cloned()
        };
        let bob_1 = Some("bob-1".to_string());
        assert_eq!(pick(&bob), bob_1, "bob presses: his own oldest");
        assert_eq!(pick(&alice), bob_1, "alice presses: bob holds the most");
        assert_eq!(pick(&who("carol")), bob_1, "a newcomer: bob's");
    }

    #[test]
    fn bytes_weigh_and_a_presser_within_its_share_takes_from_the_largest() {
        let (alice, bob, carol) = (who("alice"), who("bob"), who("carol"));
        let keys = ["a", "b1", "b2", "c"];
        let entries = [
            (&alice, 10u64, 1u64),
            (&bob, 50, 2),
            (&bob, 5, 3),
            (&carol, 30, 0),
        ];
        let pick = |presser: &Owner, pressing: u64| {
            victim(
                keys.iter()
                    .zip(entries.iter())
                    .map(|(key, (owner, weight, used))| Held {
                        key,
                        owner,
                        weight: *weight,
                        used: *used,
                    }),
                presser,
                pressing,
                90,
            )
            .copied()
        };
        // Alice holds 10 + 20 in use, within her share of 30: bob (55) gives way, oldest first.
        assert_eq!(pick(&alice, 20), Some("b1"));
        // Carol holds 30 + 10: over 30, her own goes.
        assert_eq!(pick(&carol, 10), Some("c"));
        // Nothing held: nothing to drop.
        assert_eq!(victim::<&str, u64>(std::iter::empty(), &alice, 1, 1), None);
    }
}
