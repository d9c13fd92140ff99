//! The session's downloads as WIT records (`page.downloads`, `download-news`,
//! `wait-downloads`).

use super::super::bindings::warden::browser::browser::{Download, DownloadStatus};
use super::super::error::{BrowserError, Result};
use super::super::model::downloads::{self, Status};
use super::super::tab::Tab;
use std::time::Duration;

/// The session (browser context) a tab belongs to.
fn context(tab: &Tab) -> Result<String> {
    tab.live.tab_context(&tab.target).ok_or_else(|| {
        BrowserError::Gone(
            "this tab is closed; list the tabs (browse_tabs) or open a new page".into(),
        )
    })
}

pub(super) fn list(tab: &Tab) -> Result<Vec<Download>> {
    Ok(tab
        .live
        .downloads_of(&context(tab)?)
        .iter()
        .map(to_wit)
        .collect())
}

pub(super) fn news(tab: &Tab) -> Result<Vec<Download>> {
    Ok(tab
        .live
        .download_news(&context(tab)?)
        .iter()
        .map(to_wit)
        .collect())
}

pub(super) async fn wait(tab: &Tab, timeout: Duration) -> Result<bool> {
    Ok(tab.live.wait_downloads(&context(tab)?, timeout).await)
}

fn to_wit(d: &downloads::Download) -> Download {
    Download {
        id: d.guid.clone(),
        source: d.source.clone(),
        file_name: d.file_name.clone(),
        path: d.path.as_ref().map(|p| p.display().to_string()),
        status: match d.status {
            Status::InProgress => DownloadStatus::InProgress,
            Status::Completed => DownloadStatus::Completed,
            Status::Canceled => DownloadStatus::Canceled,
            Status::Refused => DownloadStatus::Refused,
            Status::TooLarge => DownloadStatus::TooLarge,
            Status::Failed => DownloadStatus::Failed,
        },
        received_bytes: d.received,
        total_bytes: d.total,
    }
}
