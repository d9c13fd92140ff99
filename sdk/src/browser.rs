//! A real Chromium driven by the host (`warden:browser/browser`). Every navigation is
//! checked against the plugin's `browser.origins` grant.

use std::time::Duration;

use crate::CapabilityError;
use crate::bindings::warden::browser::browser as wit;

/// When a navigation counts as done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum WaitUntil {
    /// The `load` event fired.
    #[default]
    Load,
    /// The `DOMContentLoaded` event fired.
    DomContentLoaded,
    /// The network has been idle for a moment.
    NetworkIdle,
}

impl From<WaitUntil> for wit::WaitUntil {
    fn from(w: WaitUntil) -> Self {
        match w {
            WaitUntil::Load => Self::Load,
            WaitUntil::DomContentLoaded => Self::DomContentLoaded,
            WaitUntil::NetworkIdle => Self::NetworkIdle,
        }
    }
}

/// One tab in a named, isolated browser session. Dropping it releases the handle; call
/// [`Page::close`] to close the tab.
#[derive(Debug)]
pub struct Page(wit::Page);

/// Opens a tab in `session` (created on first use; `"default"` when `None`).
pub fn open_page(session: Option<&str>) -> Result<Page, CapabilityError> {
    Ok(Page(wit::open_page(session)?))
}

impl Page {
    /// The page's current URL.
    pub fn url(&self) -> Result<String, CapabilityError> {
        Ok(self.0.url()?)
    }

    /// Navigates to `url`, waiting until `wait_until` or `timeout` (millisecond precision);
    /// returns the URL the host reports after navigation. Fails with access-denied when the
    /// URL's origin is not granted.
    pub fn navigate(
        &self,
        url: &str,
        wait_until: WaitUntil,
        timeout: Duration,
    ) -> Result<String, CapabilityError> {
        let timeout_ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        Ok(self.0.navigate(url, wait_until.into(), timeout_ms)?)
    }

    /// Closes the tab.
    pub fn close(self) -> Result<(), CapabilityError> {
        Ok(self.0.close()?)
    }
}
