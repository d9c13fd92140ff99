//! The handle of a tab given to a plugin (the WIT `page` resource).

/// A tab handed to a plugin.
#[derive(Debug)]
pub struct PageHandle {
    /// Which browser process the tab lives in; a restarted browser makes old handles stale.
    pub(crate) generation: u64,
    pub(crate) target: String,
    pub(crate) session: String,
}
