//! The cookies of a tab's page (reading needs the `cookies` grant, checked by the caller).

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use serde_json::{Value, json};

impl Tab {
    pub async fn cookies(&self) -> Result<Vec<Value>> {
        let url = self.url()?;
        let answer = self
            .call("Network.getCookies", json!({ "urls": [url] }))
            .await?;
        Ok(answer["cookies"].as_array().cloned().unwrap_or_default())
    }

    pub async fn set_cookie(&self, cookie: Value) -> Result<()> {
        let answer = self.call("Network.setCookie", cookie).await?;
        if answer["success"].as_bool() == Some(false) {
            return Err(BrowserError::Invalid(
                "the browser rejected that cookie (check its domain and path)".into(),
            ));
        }
        Ok(())
    }

    pub async fn clear_cookies(&self) -> Result<()> {
        let context = self.live.tab_context(&self.target).unwrap_or_default();
        self.live
            .cdp
            .call_raw(
                None,
                "Storage.clearCookies",
                json!({ "browserContextId": context }),
            )
            .await?;
        Ok(())
    }
}
