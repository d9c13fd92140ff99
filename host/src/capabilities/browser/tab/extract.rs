//! A tab's document read through the DOM domain and extracted by [`crate::content`], for
//! `browse_extract` and for the capture capability. Nothing of ours runs in the page, so the
//! page can shape only its markup, never the reading.

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::content::{self, ContentError, Format};
use serde_json::json;
use std::time::Duration;

/// What a page holds, as [`Tab::extract`] read it.
#[derive(Debug)]
pub struct PageContent {
    pub title: String,
    /// The URL the tab shows now (after redirects).
    pub url: String,
    pub content: String,
    /// `article` (readability), `main`, `body` or `document` (the HTML format).
    pub source: &'static str,
}

impl Tab {
    /// The document's HTML as the browser holds it now. A document replaced between the two
    /// calls (a late redirect, a script rewriting it) invalidates the node id: read again.
    pub async fn document_html(&self) -> Result<String> {
        if let Some(html) = self.static_html()? {
            return Ok(html);
        }
        let session = self.live.with_tab(&self.target, |t| t.session.clone())?;
        let cdp = &self.live.cdp;
        let mut tries = 0;
        loop {
            tries += 1;
            let doc = cdp
                .call_raw(Some(&session), "DOM.getDocument", json!({ "depth": 0 }))
                .await?;
            let node = doc["root"]["nodeId"]
                .as_i64()
                .ok_or_else(|| BrowserError::Io("the page has no document to read".into()))?;
            match cdp
                .call_raw(
                    Some(&session),
                    "DOM.getOuterHTML",
                    json!({ "nodeId": node }),
                )
                .await
            {
                Ok(html) => return Ok(html["outerHTML"].as_str().unwrap_or_default().to_string()),
                Err(e) if tries < 5 => {
                    tracing::debug!("reading the document again: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The page's title, URL and content in `format` (main content for text and Markdown).
    pub async fn extract(&self, format: Format) -> Result<PageContent> {
        let html = self.document_html().await?;
        let url = self.url()?;
        let page_url = url.clone();
        // Parsing a large page takes a while: keep it off the async workers.
        let extracted =
            tokio::task::spawn_blocking(move || content::extract(&html, &page_url, format))
                .await
                .map_err(|e| BrowserError::Io(format!("reading the page's content failed: {e}")))?
                .map_err(|e| match e {
                    ContentError::TooLarge { .. } => BrowserError::Invalid(e.to_string()),
                    ContentError::BadUrl { .. } => BrowserError::Io(e.to_string()),
                })?;
        let title = if extracted.title.is_empty() {
            self.live
                .with_tab(&self.target, |t| t.shown().1.to_string())
                .unwrap_or_default()
        } else {
            extracted.title
        };
        Ok(PageContent {
            title,
            url,
            content: extracted.content,
            source: extracted.source,
        })
    }
}
