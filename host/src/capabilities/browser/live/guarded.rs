//! Browser contexts behind a network guard of their own (`guard/`), and the running browser
//! as the guard's source of whose grants apply.

use super::browser::Live;
use crate::capabilities::browser::error::BrowserError;
use crate::capabilities::browser::guard::{BYPASS, NetGuard, Owners};
use crate::capabilities::browser::model::downloads::Place;
use crate::capabilities::browser::model::owner::Owner;
use serde_json::json;
use std::sync::Weak;

impl Live {
    /// Create a browser context whose every connection goes through a network guard of its
    /// own (chained to `upstream`, a profile's proxy and bypass rules, when given), and whose
    /// downloads go to `downloads` or are refused: no context exists without both rules.
    pub(crate) async fn guarded_context(
        &self,
        upstream: Option<(&str, &[String])>,
        downloads: Option<Place>,
    ) -> Result<String, BrowserError> {
        let guard = NetGuard::start(self.guard, upstream, &self.listen)
            .await
            .map_err(BrowserError::Io)?;
        let created = self
            .cdp
            .call_raw(
                None,
                "Target.createBrowserContext",
                json!({
                    "disposeOnDetach": true,
                    "proxyServer": guard.proxy_server(),
                    "proxyBypassList": BYPASS,
                }),
            )
            .await?;
        let id = created["browserContextId"]
            .as_str()
            .filter(|id| !id.is_empty())
            .ok_or_else(|| BrowserError::Io("the browser created a context without an id".into()))?
            .to_string();
        let me: Weak<dyn Owners> = self.me.clone();
        guard.bind(me, Some(id.clone()));
        self.guards().insert(id.clone(), guard);
        if let Err(e) = self.set_downloads(&id, downloads).await {
            let _ = self
                .cdp
                .call_raw(
                    None,
                    "Target.disposeBrowserContext",
                    json!({ "browserContextId": id }),
                )
                .await;
            self.guards().remove(&id);
            return Err(e);
        }
        Ok(id)
    }
}

impl Owners for Live {
    /// Whose grants a request of `context` (`None`: the default context) is checked against:
    /// the plugin whose session it is; in the default context, the plugin whose capture calls
    /// occupy it (`occupancy.rs`), never the union of the plugins whose tabs it shows.
    fn owners_of(&self, context: Option<&str>) -> Vec<Owner> {
        let st = self.lock();
        let Some(context) = context.or(st.default_context.as_deref()) else {
            return Vec::new();
        };
        let mut owners: Vec<Owner> = st.contexts.get(context).cloned().into_iter().collect();
        if st.default_context.as_deref() == Some(context)
            && let Some(occupant) = &st.occupant
            && !owners
                .iter()
                .any(|o| o.scope.plugin == occupant.owner.scope.plugin)
        {
            owners.push(occupant.owner.clone());
        }
        owners
    }
}
