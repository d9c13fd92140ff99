//! Downloads: each action's answer names the files it started saving (`⬇ DOWNLOAD` lines),
//! and `browse_downloads` lists the session's downloads or waits for them.

use crate::memory::{self, TabRefs};
use std::time::Duration;
use warden_sdk::browser::{Download, DownloadStatus};
use warden_sdk::prelude::*;

/// How long an action's answer waits for a download it started to finish: small files are
/// done by then; a large one is reported in progress.
const ACTION_WAIT: Duration = Duration::from_secs(2);
const DEFAULT_WAIT_MS: u64 = 30_000;

/// Lines for the downloads that started or changed since the last answer; empty when none.
pub(crate) fn news(tab: &TabRefs) -> String {
    // An answer never fails over its download lines.
    let mut news = tab.page.download_news().unwrap_or_default();
    if news
        .iter()
        .any(|d| matches!(d.status, DownloadStatus::InProgress))
    {
        let _ = tab.page.wait_downloads(ACTION_WAIT);
        for d in tab.page.download_news().unwrap_or_default() {
            match news.iter_mut().find(|n| n.id == d.id) {
                Some(old) => *old = d,
                None => news.push(d),
            }
        }
    }
    news.iter()
        .map(|d| format!("\n⬇ DOWNLOAD {}", describe(d)))
        .collect()
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// One download in a line.
fn describe(d: &Download) -> String {
    let what = match d.status {
        DownloadStatus::Completed => format!(
            "saved to {} ({})",
            d.path.as_deref().unwrap_or("?"),
            size(d.received_bytes)
        ),
        DownloadStatus::InProgress => format!(
            "in progress ({}{}); browse_downloads {{\"wait\": true}} waits for it",
            size(d.received_bytes),
            d.total_bytes
                .map(|t| format!(" of {}", size(t)))
                .unwrap_or_default()
        ),
        DownloadStatus::Refused => {
            "refused: this plugin may not save downloads (grants.browser.download_dir)".into()
        }
        DownloadStatus::TooLarge => {
            "cancelled: larger than this plugin may save (grants.browser.download_max)".into()
        }
        DownloadStatus::Canceled => "cancelled by the page or the browser".into(),
        DownloadStatus::Failed => "not saved: the host could not move it into place".into(),
    };
    format!("{} from {}: {what}", d.file_name, d.source)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DownloadsArgs {
    /// Until one has started and none is in progress.
    wait: Option<bool>,
    timeout_ms: Option<u64>,
}

fn browse_downloads(args: DownloadsArgs) -> Result<String, ToolError> {
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let mut waited = String::new();
        if args.wait.unwrap_or(false) {
            let timeout = args.timeout_ms.unwrap_or(DEFAULT_WAIT_MS).clamp(1, 600_000);
            if !tab.page.wait_downloads(Duration::from_millis(timeout))? {
                waited = format!(
                    "Still waiting after {timeout} ms: no download started, or one is still in progress.\n"
                );
            }
        }
        // Listed here, so the next action's answer does not repeat them.
        let _ = tab.page.download_news();
        let list = tab.page.downloads()?;
        if list.is_empty() {
            return Ok(format!(
                "{waited}No downloads in this session. A click on a download link saves the file when the plugin has grants.browser.download_dir."
            ));
        }
        let lines: Vec<String> = list
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{}. {}", i + 1, describe(d)))
            .collect();
        Ok(format!("{waited}Downloads:\n{}", lines.join("\n")))
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_downloads", browse_downloads)
            .description("List the session's downloads (saved files), or wait for them.")
            .read_only(),
    )
}
