//! A running browser's downloads: where each context saves them, and moving a finished one
//! to its own name.

use super::browser::Live;
use crate::audit::Used;
use crate::capabilities::browser::hostile_fs;
use crate::capabilities::browser::model::downloads::{Download, Place, Status, unique};
use serde_json::json;
use std::time::Duration;

impl Live {
    /// Set where the pages of `context` save downloads (`None`: refused). Called when the
    /// session's context is created, before any of its tabs runs.
    pub(super) async fn set_downloads(
        &self,
        context: &str,
        place: Option<Place>,
    ) -> crate::capabilities::browser::error::Result<()> {
        let params = match &place {
            Some(place) => {
                let partial = place.partial();
                std::fs::create_dir_all(&place.dir).map_err(|e| {
                    crate::capabilities::browser::error::BrowserError::Io(format!(
                        "cannot create the download directory {}: {e}",
                        place.dir.display()
                    ))
                })?;
                json!({
                    "behavior": "allowAndName",
                    "browserContextId": context,
                    "downloadPath": partial,
                    "eventsEnabled": true,
                })
            }
            None => json!({
                "behavior": "deny",
                "browserContextId": context,
                "eventsEnabled": true,
            }),
        };
        self.cdp
            .call_raw(None, "Browser.setDownloadBehavior", params)
            .await?;
        let mut st = self.lock();
        match place {
            Some(place) => st.downloads.places.insert(context.to_string(), place),
            None => st.downloads.places.remove(context),
        };
        Ok(())
    }

    /// Every download of `context` the session still lists, oldest first.
    pub fn downloads_of(&self, context: &str) -> Vec<Download> {
        self.lock()
            .downloads
            .of(context)
            .into_iter()
            .cloned()
            .collect()
    }

    /// The downloads of `context` that started or changed state since the last call: what
    /// an action's answer reports.
    pub fn download_news(&self, context: &str) -> Vec<Download> {
        let mut st = self.lock();
        let mut news = Vec::new();
        for d in st.downloads.items.values_mut() {
            if d.context == context && d.reported != Some(d.status) {
                d.reported = Some(d.status);
                news.push(d.clone());
            }
        }
        news.sort_by_key(|d| d.seq);
        news
    }

    /// Wait until `context` has a download and none is in progress, or `timeout`; returns
    /// whether that happened.
    pub async fn wait_downloads(&self, context: &str, timeout: Duration) -> bool {
        self.wait_for(timeout, |st| {
            let list = st.downloads.of(context);
            (!list.is_empty() && list.iter().all(|d| d.status.finished())).then_some(())
        })
        .await
        .is_ok()
    }

    /// Take a completed download from the browser's directory (`partial/GUID`), check it is
    /// a plain file the browser wrote (`hostile_fs::take`: a symlink, fifo or hard link the
    /// browser's user planted there is refused, never followed), place it under its own name
    /// and audit it. Done on the event loop on purpose: doing the placements one at a time
    /// is what keeps two downloads of one name from both choosing the same free name.
    pub(super) fn place_download(&self, guid: String) {
        let (download, places) = {
            let st = self.lock();
            let Some(d) = st.downloads.items.get(&guid) else {
                return;
            };
            (d.clone(), st.downloads.places.clone())
        };
        // A download from a frame Warden had not seen is found by where its file is.
        let found = places
            .iter()
            .filter(|(ctx, _)| download.context.is_empty() || **ctx == download.context)
            .find(|(_, p)| std::fs::symlink_metadata(p.partial().join(&guid)).is_ok())
            .map(|(ctx, p)| (ctx.clone(), p.clone()));
        let browser = self
            .process
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|p| (p.dirs().held(), p.dirs().owner().uid));
        let placed = match (&found, browser) {
            (Some((_, place)), Some((held, uid))) => {
                let to = unique(&place.dir, &download.file_name);
                hostile_fs::take(&place.partial().join(&guid), &held, &to, uid)
                    .map(|_| to)
                    .map_err(|e| e.to_string())
            }
            _ => Err("its file is not in the session's download directory".into()),
        };
        let mut st = self.lock();
        let owner = found
            .as_ref()
            .and_then(|(ctx, _)| st.contexts.get(ctx))
            .cloned();
        if let Some(d) = st.downloads.items.get_mut(&guid) {
            if let Some((ctx, _)) = &found {
                d.context = ctx.clone();
            }
            match &placed {
                Ok(path) => {
                    d.status = Status::Completed;
                    d.file_name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    d.path = Some(path.clone());
                }
                Err(why) => {
                    tracing::warn!("download {guid} could not be placed: {why}");
                    d.status = Status::Failed;
                }
            }
        }
        drop(st);
        if let Some(owner) = owner {
            let detail = match &placed {
                Ok(path) => format!("saved to {}", path.display()),
                Err(why) => format!("not saved: {why}"),
            };
            owner.scope.used(&Used {
                capability: "browser.download",
                target: &download.source,
                error: placed.is_err().then_some("io"),
                duration: download.started.elapsed(),
                detail: Some(&detail),
                bytes: Some(download.received),
                ..Default::default()
            });
        }
        self.bump();
    }

    /// Cancel a download past the session's cap and remove what it wrote.
    pub(super) fn cancel_download(&self, guid: String, context: String) {
        let cdp = self.cdp.clone();
        let partial = self
            .lock()
            .downloads
            .places
            .get(&context)
            .map(|p| p.partial().join(&guid));
        tokio::spawn(async move {
            let mut params = json!({ "guid": guid });
            if !context.is_empty() {
                params["browserContextId"] = json!(context);
            }
            if let Err(e) = cdp.call_raw(None, "Browser.cancelDownload", params).await {
                tracing::debug!("cancelling a download past its cap failed: {e}");
            }
            if let Some(partial) = partial {
                let _ = tokio::fs::remove_file(partial).await;
            }
        });
    }
}
