//! Questions a call puts to its client: the plugin's own (`context.ask`: elicitation,
//! sampling, roots) and the host's approvals (`require_approval`). The MCP layer answers them
//! one way per wire (requests to the client on 2025-11-25, `InputRequiredResult` rounds on
//! 2026-07-28), so the runtime does not depend on a transport. The time a call spends waiting
//! for an answer does not count against its `call_timeout` ([`WaitClock`]).

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// Why a request to the client failed (mirrors `warden:plugin/context.ask-error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskFailure {
    Unsupported(String),
    Failed(String),
}

/// The user's answer to a form (or to a URL, which is accepted without values).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FormAnswer {
    /// With the values as JSON text.
    Accept(String),
    /// A URL the user agreed to open.
    Opened,
    Decline,
    Cancel,
}

/// One question for the client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Question {
    /// Elicitation, form mode; `schema` is JSON text.
    Elicit { message: String, schema: String },
    /// Elicitation, URL mode: send the user to `url` (checked: https, or http on loopback).
    ElicitUrl { message: String, url: String },
    /// Sampling: the JSON text of `sampling/createMessage` params.
    Sample(String),
    /// The client's roots.
    ListRoots,
}

impl Question {
    /// The client capability the question needs, as MCP names it.
    pub fn capability(&self) -> &'static str {
        match self {
            Self::Elicit { .. } | Self::ElicitUrl { .. } => "elicitation",
            Self::Sample(_) => "sampling",
            Self::ListRoots => "roots",
        }
    }

    /// The audit line's capability for asking it.
    pub fn audit_name(&self) -> &'static str {
        match self {
            Self::Elicit { .. } => "client.elicit",
            Self::ElicitUrl { .. } => "client.elicit_url",
            Self::Sample(_) => "client.sample",
            Self::ListRoots => "client.roots",
        }
    }

    /// Bytes the plugin sent with it (for the audit line).
    pub fn bytes(&self) -> usize {
        match self {
            Self::Elicit { message, schema } => message.len() + schema.len(),
            Self::ElicitUrl { message, url } => message.len() + url.len(),
            Self::Sample(request) => request.len(),
            Self::ListRoots => 0,
        }
    }
}

/// The client's answer to a [`Question`], of the same kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    Elicit(FormAnswer),
    /// The JSON text of the sampling result.
    Sample(String),
    /// The JSON text of the roots array.
    Roots(String),
}

/// What the client of a call declared it can be asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Form elicitation.
    pub elicitation: bool,
    /// URL-mode elicitation.
    pub elicitation_url: bool,
    pub sampling: bool,
    pub roots: bool,
}

/// The key the host's own approval question goes under; plugin keys may not start with
/// `warden_`, so a client's answer to a plugin can never pass for an approval.
pub const APPROVAL_KEY: &str = "warden_approval";
/// The key of the host's question to the user about a login that waits for them.
pub const LOGIN_KEY: &str = "warden_login";

/// Questions with the keys their asker chose (unique within one ask).
pub type Questions = Vec<(String, Question)>;
/// Answers under the same keys, in the same order.
pub type Answers = Vec<(String, Answer)>;

/// The client of one call, as something to ask.
pub trait ClientRequests: Send + Sync {
    /// Ask every question; all are answered or the whole ask fails.
    fn ask(&self, questions: Questions) -> BoxFuture<'static, Result<Answers, AskFailure>>;

    /// Turn the call into a task the client polls; true if it is one now (or was already).
    /// Only a 2026-07-28 request for a task-supporting tool, from a client that declared
    /// tasks, can be one.
    fn as_task(&self) -> bool {
        false
    }

    /// Whether an ask waits for the answer while the call goes on (a session's request, a
    /// task), rather than ending this run of the call (a 2026-07-28 input round).
    fn waits(&self) -> bool {
        false
    }
}

/// Time a call has spent waiting for its client. The call's time limit is for the plugin's
/// work: a user reading a form for two minutes must not time out a 60 s call.
#[derive(Debug, Default)]
pub struct WaitClock {
    /// Asks in progress.
    waiting: AtomicU32,
    /// Finished waits, in milliseconds.
    waited_ms: AtomicU64,
}

impl WaitClock {
    /// Count the time until the returned guard drops as waiting for the client.
    pub fn wait(&self) -> WaitGuard<'_> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        WaitGuard {
            clock: self,
            since: Instant::now(),
        }
    }

    /// True while an ask is in progress.
    pub fn is_waiting(&self) -> bool {
        self.waiting.load(Ordering::SeqCst) > 0
    }

    /// Time spent in finished waits.
    pub fn waited(&self) -> Duration {
        Duration::from_millis(self.waited_ms.load(Ordering::SeqCst))
    }

    /// Resolve when `limit` of time not spent waiting for the client has passed since `start`.
    pub async fn expire(&self, start: Instant, limit: Duration) {
        loop {
            let due = start + limit + self.waited();
            tokio::time::sleep_until(due).await;
            if !self.is_waiting() && Instant::now() >= start + limit + self.waited() {
                return;
            }
            if self.is_waiting() {
                // Checked again when the wait may be over; a wait's own bound ends it.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// An ask in progress (see [`WaitClock::wait`]).
pub struct WaitGuard<'a> {
    clock: &'a WaitClock,
    since: Instant,
}

impl Drop for WaitGuard<'_> {
    fn drop(&mut self) {
        let ms = u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.clock.waited_ms.fetch_add(ms, Ordering::SeqCst);
        self.clock.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real time, small: an expiry can only come late under load, never early, so the
    /// assertion holds on a busy machine too.
    #[tokio::test]
    async fn time_spent_waiting_for_the_client_extends_the_limit() {
        let clock = WaitClock::default();
        let start = Instant::now();
        {
            let _wait = clock.wait();
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        let waited = clock.waited();
        assert!(waited >= Duration::from_millis(300), "{waited:?}");
        // 200 ms of work allowed; 300 ms went to waiting, so not expired until 500 ms.
        tokio::time::timeout(
            Duration::from_secs(10),
            clock.expire(start, Duration::from_millis(200)),
        )
        .await
        .expect("expired");
        let elapsed = start.elapsed();
        assert!(
            elapsed >= Duration::from_millis(200) + waited,
            "expired after {elapsed:?}, before 200 ms of work plus {waited:?} waiting"
        );
    }
}
