//! A tab serves one call at a time. Calls run side by side, each in an instance of its own,
//! so two calls of one agent may name the same tab (a wait in one, a click in the other);
//! a plugin's actions on a tab span several host calls (act, wait for the page to settle,
//! read it back), and its refs are read and written around them. The first time a call
//! reaches a tab (a new handle, or any use of one) it takes the tab's lease, and holds it
//! until the call ends, so a second call on that tab waits for the first; calls on other
//! tabs never wait.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::OwnedMutexGuard;

/// A call's hold on one tab.
pub type Lease = OwnedMutexGuard<()>;

/// One lock per tab some call holds or waits for.
#[derive(Default)]
pub struct TabLeases(Mutex<HashMap<String, Weak<tokio::sync::Mutex<()>>>>);

impl TabLeases {
    /// Wait until no other call holds tab `target`, then hold it.
    pub async fn lease(&self, target: &str) -> Lease {
        let lock = {
            let mut tabs = self.0.lock().unwrap_or_else(|p| p.into_inner());
            // Locks nobody holds or waits for are gone; forget their entries.
            tabs.retain(|_, lock| lock.strong_count() > 0);
            match tabs.get(target).and_then(Weak::upgrade) {
                Some(lock) => lock,
                None => {
                    let lock = Arc::new(tokio::sync::Mutex::new(()));
                    tabs.insert(target.to_string(), Arc::downgrade(&lock));
                    lock
                }
            }
        };
        lock.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_second_call_on_a_tab_waits_and_other_tabs_do_not() {
        let leases = Arc::new(TabLeases::default());
        let first = leases.lease("a").await;
        // Another tab: at once.
        let other = tokio::time::timeout(Duration::from_millis(100), leases.lease("b")).await;
        assert!(other.is_ok());
        // The same tab: only after the first call lets go.
        let waiting = tokio::spawn({
            let leases = leases.clone();
            async move { leases.lease("a").await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(1), waiting).await;
        assert!(matches!(second, Ok(Ok(_))));
    }

    #[tokio::test]
    async fn released_tabs_are_forgotten() {
        let leases = TabLeases::default();
        drop(leases.lease("a").await);
        drop(leases.lease("b").await);
        let held = leases.0.lock().map(|t| t.len()).unwrap_or(usize::MAX);
        assert_eq!(
            held, 1,
            "only the last tab's entry waits for the next sweep"
        );
    }
}
