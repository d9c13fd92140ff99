//! What a tab that held a secret the host typed still shows the plugin (see `model/hold.rs`).

use super::Tab;
use crate::capabilities::browser::error::Result;
use crate::capabilities::browser::model::hold::{SecretOrigins, WITHHELD_TITLE, without_query};
use url::Url;

impl Tab {
    /// Does the document this tab shows hold a secret the host typed?
    pub fn holds_secret(&self) -> Result<bool> {
        self.state(|t| t.holds_secret())
    }

    /// Has any tab of this tab's browser held a secret (its clipboard may carry one)?
    pub fn browser_held_secret(&self) -> bool {
        self.live.lock().secret_typed
    }

    /// How many times a secret was typed into a tab of this browser so far.
    pub fn secrets_typed(&self) -> u64 {
        self.live.lock().secrets_typed
    }

    /// The tab's URL as the plugin reads it: scrubbed, and while the page holds a secret
    /// without its query and fragment.
    pub fn shown_url(&self) -> Result<String> {
        let (url, held) = self.state(|t| (t.shown().0.to_string(), t.holds_secret()))?;
        Ok(self.scrub(&if held { without_query(&url) } else { url }))
    }

    /// The tab's title as the plugin reads it: scrubbed, and withheld while the page holds a
    /// secret (what the hold withholds of the URL would come back in the title the browser
    /// derives from it).
    pub fn shown_title(&self) -> Result<String> {
        let (title, held) = self.state(|t| (t.shown().1.to_string(), t.holds_secret()))?;
        Ok(if held {
            WITHHELD_TITLE.to_string()
        } else {
            self.scrub(&title)
        })
    }

    /// Has the origin of the page this tab shows had a secret typed into it in its session?
    pub fn shows_secret_origin(&self) -> Result<bool> {
        let (url, context) = self.state(|t| (t.url.clone(), t.context.clone()))?;
        let origin = Url::parse(&url)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_default();
        Ok(self.live.lock().secret_origin(&context, &origin))
    }

    /// The origins of this tab's session that had a secret typed into them.
    pub fn secret_origins(&self) -> Result<SecretOrigins> {
        let context = self.state(|t| t.context.clone())?;
        Ok(self
            .live
            .lock()
            .extras
            .get(&context)
            .map(|x| x.secret_origins.clone())
            .unwrap_or_default())
    }
}
