//! `localStorage` and `sessionStorage` of a tab's page, read and changed from Warden's
//! isolated world (it shares the page's storage but not its scripts).

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use serde_json::{Value, json};

/// The isolated world storage calls run in.
const WORLD: &str = "__warden_storage__";
/// Longer values are cut in listings.
const MAX_VALUE: usize = 4000;

#[derive(Debug, Clone, Copy)]
pub enum Area {
    Local,
    Session,
}

impl Area {
    fn js(self) -> &'static str {
        match self {
            Self::Local => "localStorage",
            Self::Session => "sessionStorage",
        }
    }
}

impl Tab {
    /// Run `body` (with `s` bound to the storage object) in the main frame; its JSON result.
    async fn storage_call(&self, area: Area, body: &str) -> Result<Value> {
        let session = self.live.with_tab(&self.target, |t| t.session.clone())?;
        let cdp = &self.live.cdp;
        let world = cdp
            .call_raw(
                Some(&session),
                "Page.createIsolatedWorld",
                json!({ "frameId": self.target, "worldName": WORLD, "grantUniveralAccess": false }),
            )
            .await?;
        let expression = format!("(() => {{ const s = window.{}; {body} }})()", area.js());
        let result = cdp
            .call_raw(
                Some(&session),
                "Runtime.evaluate",
                json!({ "expression": expression, "contextId": world["executionContextId"], "returnByValue": true }),
            )
            .await?;
        if let Some(ex) = result.get("exceptionDetails") {
            let text = ex["exception"]["description"]
                .as_str()
                .or_else(|| ex["text"].as_str())
                .unwrap_or("unknown error");
            let first = text.lines().next().unwrap_or(text);
            return Err(BrowserError::Invalid(format!(
                "the page refused {} access: {first} (a blank page has no storage: open a page of a site first)",
                area.js()
            )));
        }
        Ok(result["result"]["value"].clone())
    }

    /// Every item, in key order.
    pub async fn storage_items(&self, area: Area) -> Result<Vec<(String, String)>> {
        let value = self
            .storage_call(
                area,
                "const out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push([k, s.getItem(k)]); } return out;",
            )
            .await?;
        let mut items: Vec<(String, String)> = value
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|kv| {
                let key = kv[0].as_str()?.to_string();
                let mut v = kv[1].as_str()?.to_string();
                if v.len() > MAX_VALUE {
                    let mut end = MAX_VALUE;
                    while !v.is_char_boundary(end) {
                        end -= 1;
                    }
                    v.truncate(end);
                    v.push('…');
                }
                Some((key, v))
            })
            .collect();
        items.sort();
        Ok(items)
    }

    /// Set an item, or remove it (`None`).
    pub async fn set_storage_item(&self, area: Area, key: &str, value: Option<&str>) -> Result<()> {
        let body = match value {
            Some(v) => format!("s.setItem({}, {}); return true;", json!(key), json!(v)),
            None => format!("s.removeItem({}); return true;", json!(key)),
        };
        self.storage_call(area, &body).await.map(|_| ())
    }

    pub async fn clear_storage(&self, area: Area) -> Result<()> {
        self.storage_call(area, "s.clear(); return true;")
            .await
            .map(|_| ())
    }
}
