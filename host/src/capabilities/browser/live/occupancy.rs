//! The persistent profile serves one plugin at a time.
//!
//! Capture tabs open in the browser's default context: the one whose cookies and storage
//! persist in `[capture] profile_dir`, which is the point of capturing (a profile the user
//! logged into). A context has one network guard, and the guard cannot tell which tab a
//! connection comes from (the browser pools connections across the context's tabs), so
//! while two plugins' tabs share the context it could only answer for both grants at once:
//! one plugin's page could reach the other's origins. So the context has one *occupant*, the
//! plugin whose calls have tabs in it, and the guard answers for that plugin's grants alone
//! (`guard/mod.rs`). Another plugin's call waits until the occupant's calls end; when the
//! last one ends, its tabs are closed and the guard drops every tunnel its pages opened, so
//! the next occupant's pages cannot ride one.

use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::live::Live;
use crate::capabilities::browser::model::state::{Occupant, Owner, State};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// One call's hold on the default context; dropping it ends the hold.
pub struct Occupancy {
    live: Arc<Live>,
    plugin: String,
}

impl State {
    /// Take the default context for `owner`'s plugin if it is free or already its own.
    fn try_occupy(&mut self, owner: &Owner) -> bool {
        match &mut self.occupant {
            Some(o) if o.owner.scope.plugin == owner.scope.plugin => {
                // The newest grants (a manifest reload) apply at once.
                o.owner = owner.clone();
                o.calls += 1;
                true
            }
            Some(_) => false,
            None => {
                self.occupant = Some(Occupant {
                    owner: owner.clone(),
                    calls: 1,
                });
                true
            }
        }
    }

    fn free_for(&self, plugin: &str) -> bool {
        self.occupant
            .as_ref()
            .is_none_or(|o| &*o.owner.scope.plugin == plugin)
    }
}

impl Live {
    /// Hold the default context for one call of `owner`, waiting up to `timeout` while
    /// another plugin's calls hold it.
    pub async fn occupy(self: &Arc<Self>, owner: Owner, timeout: Duration) -> Result<Occupancy> {
        let deadline = Instant::now() + timeout;
        let plugin = owner.scope.plugin.to_string();
        loop {
            if self.lock().try_occupy(&owner) {
                return Ok(Occupancy {
                    live: Arc::clone(self),
                    plugin,
                });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero()
                || self
                    .wait_for(left, |st| st.free_for(&plugin).then_some(()))
                    .await
                    .is_err()
            {
                if self.cdp.closed().is_cancelled() {
                    return Err(BrowserError::Gone(
                        "the capture browser exited; try again".into(),
                    ));
                }
                return Err(BrowserError::Timeout(format!(
                    "the capture profile was busy with another plugin's capture for {} ms: it serves one plugin's pages at a time (so that each is judged by its own grants); try again when that capture ends, or raise timeout_ms",
                    timeout.as_millis()
                )));
            }
        }
    }

    fn vacate(&self, plugin: &str) {
        let emptied = {
            let mut st = self.lock();
            match &mut st.occupant {
                Some(o) if &*o.owner.scope.plugin == plugin => {
                    o.calls = o.calls.saturating_sub(1);
                    if o.calls == 0 {
                        st.occupant = None;
                        true
                    } else {
                        false
                    }
                }
                _ => false,
            }
        };
        if emptied {
            // Tunnels the occupant's pages opened stay pooled in the browser: a later page
            // would reuse them past the guard.
            self.drop_default_tunnels();
            self.bump();
        }
    }
}

impl Drop for Occupancy {
    fn drop(&mut self) {
        self.live.vacate(&self.plugin);
    }
}
