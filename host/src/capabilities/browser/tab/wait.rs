//! Waiting for a condition on the page: text appearing or gone, a selector, a URL.

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use serde_json::json;
use std::time::Duration;

impl Tab {
    /// Evaluate `call` in every readable frame; true when any frame answers true.
    pub(super) async fn any_frame(&self, call: &str) -> Result<bool> {
        for frame in self.frames().await? {
            if self
                .world(&frame.id, call, None)
                .await
                .ok()
                .and_then(|(_, v)| v.as_bool())
                == Some(true)
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    pub async fn wait_text(&self, text: &str, gone: bool, timeout: Duration) -> Result<()> {
        let call = format!("hasText({})", json!(text));
        self.poll(
            timeout,
            &format!(
                "text \"{text}\" to {}",
                if gone { "disappear" } else { "appear" }
            ),
            || async { Ok(self.any_frame(&call).await? != gone) },
        )
        .await
    }

    pub async fn wait_selector(&self, selector: &str, timeout: Duration) -> Result<()> {
        let call = format!("hasSelector({})", json!(selector));
        self.poll(timeout, &format!("selector \"{selector}\""), || async {
            self.any_frame(&call).await
        })
        .await
    }

    pub async fn wait_url(&self, pattern: &str, timeout: Duration) -> Result<()> {
        let glob = crate::capabilities::browser::model::routes::url_glob(pattern)?;
        self.poll(timeout, &format!("URL matching \"{pattern}\""), || async {
            // The URL as the plugin may read it (`model/hold.rs`): a glob is an oracle too.
            Ok(glob.is_match(self.shown_url()?))
        })
        .await
    }

    pub(super) async fn poll<F, Fut>(
        &self,
        timeout: Duration,
        what: &str,
        mut check: F,
    ) -> Result<()>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool>>,
    {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            self.no_dialog()?;
            if check().await? {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(BrowserError::Timeout(format!(
                    "waited {} ms for the {what}; it did not happen",
                    timeout.as_millis()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
