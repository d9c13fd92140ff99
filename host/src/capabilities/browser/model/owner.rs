//! Who a browser context or tab belongs to, and which origin grant guards it.

use crate::audit::GuestScope;
use crate::capabilities::conversation::Owner as Client;
use crate::manifest::grants::{Denied, Grants};
use std::sync::Arc;
use url::Url;

/// Who owns a browser context or a tab: whose grants its origin guard checks, and which
/// client opened it (the browser's caps count per plugin and client: `live/caps.rs`).
#[derive(Clone)]
pub struct Owner {
    pub grants: Arc<Grants>,
    pub scope: GuestScope,
    pub client: Client,
}

/// Which grant the origin guard checks: the agents' browser or the capture profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    Browser,
    Capture,
}

impl Guard {
    /// May `grants` load `url`? The refusal keeps its grant and fix; its `message` is what
    /// the agent is shown.
    pub fn check(self, grants: &Grants, url: &Url) -> Result<(), Denied> {
        match self {
            Self::Browser => grants.check_browser_origin(url),
            Self::Capture => grants.check_capture_origin(url),
        }
    }

    pub fn capability(self) -> &'static str {
        match self {
            Self::Browser => "browser",
            Self::Capture => "capture.page",
        }
    }
}
