//! The conversations that opened browser sessions and can end (`conversations.rs` closes
//! their sessions when they do).

use crate::audit::AuditLog;
use crate::capabilities::conversation::Conversation;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The conversations that opened sessions and can end, by key.
#[derive(Default)]
pub(crate) struct Conversations {
    pub(crate) open: Mutex<HashMap<String, Conversation>>,
    pub(crate) watching: std::sync::atomic::AtomicBool,
    /// Where the closes are audited (the server's one audit log).
    pub(crate) audit: OnceLock<Arc<AuditLog>>,
}

impl Conversations {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Conversation>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The conversations that ended since the last look, forgotten here.
    pub(crate) fn ended(&self) -> Vec<String> {
        let mut ended = Vec::new();
        self.lock().retain(|key, c| {
            let alive = c.is_alive();
            if !alive {
                ended.push(key.clone());
            }
            alive
        });
        ended
    }
}
