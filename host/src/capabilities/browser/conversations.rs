//! Closing what a conversation left: when an MCP session ends (the client deleted it, or
//! it timed out), the browser sessions scoped to it (`scope.rs`) and the states it saved
//! can never be named again, so they are closed within [`REAP_EVERY`] instead of holding a
//! browser context, its tabs and their memory until Warden stops. Each one closed is audited
//! (`browser.end_session`, `browser.forget_state`), with no tool: no call asked for it.

use super::provider::BrowserProvider;
use super::scope;
use crate::audit::{AuditLog, Record};
use crate::capabilities::conversation::Conversation;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often ended conversations are looked for.
const REAP_EVERY: Duration = Duration::from_secs(5);

impl BrowserProvider {
    /// `conversation` is about to use a session: watch for its end.
    pub(crate) fn conversation_started(
        self: &Arc<Self>,
        conversation: &Conversation,
        audit: &Arc<AuditLog>,
    ) {
        if !conversation.can_end() {
            return;
        }
        self.conversations.audit.get_or_init(|| audit.clone());
        self.conversations
            .lock()
            .entry(conversation.key().to_string())
            .or_insert_with(|| conversation.clone());
        if !self
            .conversations
            .watching
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            tokio::spawn(watch(Arc::downgrade(self)));
        }
    }

    /// Close every session scoped to the conversation `key`, and drop the states it saved.
    async fn close_conversation(&self, key: &str) {
        let mine = |(_, session): &(String, String)| scope::split(session).1 == key;
        for (plugin, session) in self.recorded.sessions().into_iter().filter(mine) {
            self.recorded.end(&plugin, &session);
        }
        for (plugin, session) in self.own_session_keys().into_iter().filter(mine) {
            if self.close_own_session(&plugin, &session).await.is_some() {
                self.audit_ended("browser.end_session", &plugin, &session);
            }
        }
        if let Some(live) = self.current().await {
            for (plugin, session) in live.session_keys().into_iter().filter(mine) {
                match live.close_session(&plugin, &session).await {
                    Ok(()) => self.audit_ended("browser.end_session", &plugin, &session),
                    Err(e) => tracing::warn!(
                        plugin,
                        session,
                        "closing an ended conversation's session: {e}"
                    ),
                }
            }
        }
        for (plugin, state) in self.states.forget_scope(key) {
            self.audit_ended("browser.forget_state", &plugin, &state);
        }
        tracing::info!(
            conversation = key,
            "closed the browser sessions of an ended conversation"
        );
    }

    /// An audit line for a session or state of `plugin` closed because its conversation ended.
    fn audit_ended(&self, capability: &str, plugin: &str, name: &str) {
        let Some(audit) = self.conversations.audit.get() else {
            return;
        };
        audit.write(&Record {
            ts: crate::audit::now(),
            event: "capability_used",
            plugin,
            decision: "allowed",
            capability: Some(capability),
            target: Some(scope::split(name).0),
            detail: Some("its conversation ended"),
            ..Record::default()
        });
    }
}

/// Every [`REAP_EVERY`], close the sessions of conversations that ended; stop with the
/// provider (a reloaded manifest's provider is dropped).
async fn watch(provider: Weak<BrowserProvider>) {
    loop {
        tokio::time::sleep(REAP_EVERY).await;
        let Some(provider) = provider.upgrade() else {
            return;
        };
        for key in provider.conversations.ended() {
            provider.close_conversation(&key).await;
        }
    }
}
