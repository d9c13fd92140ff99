//! Each plugin's tabs across the browsers of one provider, for `limits.browser_tabs`.

use std::collections::HashMap;
use std::sync::Mutex;

/// Each browser's tabs per plugin, across the browsers of one provider (the shared one,
/// profiles' and fleet sessions' own), so `limits.browser_tabs` caps a plugin's tabs in all
/// of them together. Its lock is taken last (never while waiting for a browser's state).
#[derive(Debug, Default)]
pub struct TabCensus(Mutex<HashMap<u64, HashMap<String, usize>>>);

impl TabCensus {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, HashMap<String, usize>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `plugin`'s tabs in the browsers other than `generation`.
    pub(crate) fn elsewhere(&self, generation: u64, plugin: &str) -> usize {
        self.lock()
            .iter()
            .filter(|(g, _)| **g != generation)
            .filter_map(|(_, tabs)| tabs.get(plugin))
            .sum()
    }

    /// A browser that is gone holds no tabs.
    pub(crate) fn forget(&self, generation: u64) {
        self.lock().remove(&generation);
    }
}
