//! JavaScript dialogs (alert, confirm, prompt, beforeunload): what is open, and answering it.
//! While one is open the page's scripts and input wait behind it, so most operations refuse
//! to start until it is answered.

use super::Tab;
use crate::capabilities::browser::error::{BrowserError, Result};
use crate::capabilities::browser::model::state::Dialog;
use serde_json::json;

impl Tab {
    /// Fail fast when a dialog blocks the page: scripts and input would hang behind it.
    pub(crate) fn no_dialog(&self) -> Result<()> {
        match self.state(|t| t.dialog.clone())? {
            Some(d) => Err(BrowserError::Invalid(format!(
                "a {} dialog is open (\"{}\"); answer it first (browse_dialog)",
                d.kind, d.message
            ))),
            None => Ok(()),
        }
    }

    pub fn dialog(&self) -> Result<Option<Dialog>> {
        self.state(|t| t.dialog.clone())
    }

    pub async fn answer_dialog(&self, accept: bool, prompt: Option<&str>) -> Result<()> {
        let Some(session) = self.state(|t| t.dialog.as_ref().map(|d| d.session.clone()))? else {
            return Err(BrowserError::Invalid(
                "no dialog is open on this tab".into(),
            ));
        };
        let mut params = json!({ "accept": accept });
        if let Some(text) = prompt {
            params["promptText"] = json!(text);
        }
        let before = self.mark()?;
        // The page goes on once the dialog closes, and may open the next one (a confirm
        // whose accept asks for a prompt) before the browser answers this call.
        let answered = self
            .call_until_dialog_on(&session, "Page.handleJavaScriptDialog", params)
            .await?;
        self.state(|t| {
            if t.dialog_seq == before.dialogs() {
                t.dialog = None;
            }
        })?;
        if answered.is_none() {
            return Ok(());
        }
        // What the answer started: a navigation (a confirmed form), requests, the next dialog.
        self.settle(before).await
    }
}
