//! Changing a running browser's session routes (the routes themselves: `model/routes.rs`).

use super::browser::Live;
use crate::capabilities::browser::error::Result;
use crate::capabilities::browser::model::routes::{Route, SessionExtras, fetch_patterns};

impl Live {
    /// Change the routes of `context` with `f`. When the context gains its first route or
    /// loses its last, its open tabs' requests are paused (or no longer) accordingly; new
    /// tabs read the routes when they attach.
    pub async fn change_routes<R>(
        &self,
        context: &str,
        f: impl FnOnce(&mut SessionExtras) -> Result<R>,
    ) -> Result<R> {
        let (answer, was, now, sessions) = {
            let mut st = self.lock();
            let extras = st.extras.entry(context.to_string()).or_default();
            let was = !extras.routes.is_empty();
            let answer = f(extras)?;
            let now = !extras.routes.is_empty();
            let mut sessions = st.tab_sessions(context);
            // Out-of-process frames pause their own requests.
            sessions.extend(st.frame_sessions(context));
            (answer, was, now, sessions)
        };
        if was != now {
            for sid in sessions {
                if let Err(e) = self
                    .cdp
                    .call_raw(Some(&sid), "Fetch.enable", fetch_patterns(now))
                    .await
                {
                    // A tab that closed meanwhile; the others still get theirs.
                    tracing::debug!("Fetch.enable for routes failed: {e}");
                }
            }
        }
        Ok(answer)
    }

    /// The routes of `context`, in the order they match.
    pub fn routes_of(&self, context: &str) -> Vec<Route> {
        self.lock()
            .extras
            .get(context)
            .map(|x| x.routes.clone())
            .unwrap_or_default()
    }
}
