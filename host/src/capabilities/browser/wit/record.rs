//! What of a call goes into the session's recording (`../recording.rs`), when browsers are
//! recorded: the action and its arguments, the URL after it, the snapshot or screenshot the
//! plugin received. Called once the grant checks passed, with what the plugin is handed.

use super::super::bindings::warden::browser::browser::Snapshot;
use super::super::error::BrowserError;
use super::super::recording::{SessionRecording, Whom};
use super::super::scope::SessionKey;
use super::super::tab::Tab;
use super::ctx::BrowserCtx;
use super::handle::PageHandle;
use crate::capabilities::View;
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::Arc;
use wasmtime::component::Resource;

impl View<'_, BrowserCtx> {
    /// The recording of the session `page` belongs to; none when browsers are not recorded.
    pub(super) fn recording(
        &mut self,
        page: &Resource<PageHandle>,
    ) -> Option<Arc<SessionRecording>> {
        let recordings = self.recordings.clone()?;
        let key = self.table().get(page).ok()?.session.clone();
        let name = SessionKey::visible(&key, &self.conversation)?.to_string();
        let caller = self.scope.caller();
        self.browser.recorded.recording(
            &recordings,
            Whom {
                plugin: self.plugin(),
                key: &key,
                name: &name,
                client: caller.client,
                mcp_session: caller.session,
            },
        )
    }

    /// Record that the plugin did `action` with `args` on `tab`, and the URL it shows after.
    pub(super) fn record_action(
        &mut self,
        page: &Resource<PageHandle>,
        tab: &Tab,
        action: &str,
        mut args: Value,
        error: Option<&BrowserError>,
    ) {
        if let Some(r) = self.recording(page) {
            if let (Some(e), Some(args)) = (error, args.as_object_mut()) {
                args.insert("error".into(), Value::String(e.to_string()));
            }
            r.action(&tab.target, action, args);
            r.url(tab);
            r.watch(tab);
        }
    }

    /// Record the snapshot the plugin receives.
    pub(super) fn record_snapshot(
        &mut self,
        page: &Resource<PageHandle>,
        tab: &Tab,
        snapshot: &Snapshot,
    ) {
        if let Some(r) = self.recording(page) {
            r.url(tab);
            r.snapshot(&tab.target, &snapshot.meta.url, &as_text(snapshot));
        }
    }

    /// Record the screenshot the plugin receives.
    pub(super) fn record_screenshot(
        &mut self,
        page: &Resource<PageHandle>,
        tab: &Tab,
        jpeg: bool,
        image: &[u8],
    ) {
        if let Some(r) = self.recording(page) {
            r.url(tab);
            r.screenshot(&tab.target, jpeg, image);
        }
    }
}

/// A snapshot as the lines an admin reads: the page, then one line per element,
/// `[handle] role "name" = value`, and the text blocks it carried.
fn as_text(s: &Snapshot) -> String {
    let mut out = format!("page {} \"{}\"\n", s.meta.url, s.meta.title);
    for o in &s.overlays {
        let _ = writeln!(out, "overlay {} \"{}\"", o.kind, o.label);
    }
    for e in &s.elements {
        let role = if e.level > 0 {
            format!("{}{}", e.role, e.level)
        } else {
            e.role.clone()
        };
        let _ = write!(out, "[{}] {role} \"{}\"", e.handle, e.name);
        if let Some(v) = &e.value {
            let _ = write!(out, " = \"{v}\"");
        }
        if e.frame > 0 {
            let _ = write!(out, " (frame {})", e.frame);
        }
        out.push('\n');
    }
    out
}
