//! What the page tools answer: a snapshot of the tab, or after an action what changed, and
//! the defaults they share (snapshot budget, wait condition, timeout).

use crate::downloads;
use crate::memory::TabRefs;
use crate::render::{self, Mode, Rendered};
use std::time::Duration;
use warden_sdk::browser::WaitUntil;
use warden_sdk::prelude::*;

/// Default snapshot budget: a page costs at most this many tokens unless asked otherwise.
pub const DEFAULT_MAX_TOKENS: usize = 2000;
const DEFAULT_TIMEOUT_MS: u64 = 30_000;

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitArg {
    #[default]
    Load,
    Domcontentloaded,
    Networkidle,
}

impl From<WaitArg> for WaitUntil {
    fn from(w: WaitArg) -> Self {
        match w {
            WaitArg::Load => Self::Load,
            WaitArg::Domcontentloaded => Self::DomContentLoaded,
            WaitArg::Networkidle => Self::NetworkIdle,
        }
    }
}

pub fn timeout(ms: Option<u64>) -> Duration {
    Duration::from_millis(ms.unwrap_or(DEFAULT_TIMEOUT_MS).clamp(1, 600_000))
}

pub fn wait_until(w: Option<WaitArg>) -> WaitUntil {
    w.unwrap_or_default().into()
}

/// Take a snapshot of the current tab and render it in full.
pub fn snapshot_of(
    tab: &mut TabRefs,
    mode: Mode,
    max_tokens: usize,
    page: usize,
) -> Result<String, ToolError> {
    let snap = tab.page.snapshot(mode == Mode::Full)?;
    let rendered = render::render(&snap, &mut tab.refs, mode);
    let text = render::page_text(&rendered, max_tokens, page);
    if mode == Mode::Interactive {
        tab.last = Some(rendered);
    }
    Ok(text)
}

/// What an action answers: a dialog if one opened, else a diff against the last snapshot
/// when little changed, else the new snapshot.
pub fn after_action(tab: &mut TabRefs, done: &str) -> Result<String, ToolError> {
    if let Some(d) = tab.page.dialog()? {
        return Ok(format!(
            "{done}\n⚠ DIALOG [{}] \"{}\"{} — answer it with browse_dialog {{\"accept\": true}} or {{\"accept\": false}}",
            d.kind,
            d.message,
            if d.kind == "prompt" {
                format!(" (default: \"{}\")", d.default_prompt)
            } else {
                String::new()
            }
        ));
    }
    let snap = tab.page.snapshot(false)?;
    let rendered: Rendered = render::render(&snap, &mut tab.refs, Mode::Interactive);
    let body = match tab
        .last
        .as_ref()
        .and_then(|old| render::diff(old, &rendered))
    {
        Some(diff) => diff,
        None => render::page_text(&rendered, DEFAULT_MAX_TOKENS, 1),
    };
    tab.last = Some(rendered);
    Ok(format!("{done}{}\n{body}", downloads::news(tab)))
}
