//! Per-call budgets for what a plugin sends out through `warden:plugin/context`: log lines
//! and progress. A plugin that loops on `log` or `progress` must not flood the host log or
//! the client; past a budget the rest of the call's events are dropped, with one note.

use std::time::{Duration, Instant};

/// Bytes of `context.log` messages passed on per call (the guest's stdout/stderr have a
/// budget of the same size).
pub const LOG_BYTES: usize = 64 * 1024;
/// Log messages passed on per call.
pub const LOG_MESSAGES: u32 = 1_000;
/// Longest single log message; longer ones are cut.
pub const LOG_MESSAGE_MAX: usize = 4 * 1024;
/// Progress notifications passed on per call.
pub const PROGRESS_EVENTS: u32 = 1_000;
/// Notifications to the client per call and second (log and progress together), after a
/// burst of [`BURST`]: a token bucket, so a steady trickle always gets through.
pub const RATE_PER_SECOND: f64 = 50.0;
pub const BURST: f64 = 100.0;

/// What to do with one event.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Pass it on (to the host log, and to the client when `notify`).
    Pass {
        notify: bool,
    },
    /// Drop it, and say once that the rest of this kind is dropped.
    DropFirst,
    Drop,
}

/// The budgets of the call in progress.
#[derive(Debug)]
pub struct EventBudget {
    log_bytes: usize,
    log_messages: u32,
    progress: u32,
    tokens: f64,
    refilled: Instant,
    log_noted: bool,
    progress_noted: bool,
    rate_noted: bool,
}

impl Default for EventBudget {
    fn default() -> Self {
        Self {
            log_bytes: 0,
            log_messages: 0,
            progress: 0,
            tokens: BURST,
            refilled: Instant::now(),
            log_noted: false,
            progress_noted: false,
            rate_noted: false,
        }
    }
}

impl EventBudget {
    /// One log message of `len` bytes.
    pub fn log(&mut self, len: usize) -> Verdict {
        self.log_messages += 1;
        self.log_bytes = self.log_bytes.saturating_add(len.min(LOG_MESSAGE_MAX));
        if self.log_messages > LOG_MESSAGES || self.log_bytes > LOG_BYTES {
            return once(&mut self.log_noted);
        }
        Verdict::Pass {
            notify: self.take_token(),
        }
    }

    /// One progress notification; the last one (`done >= total`) is never rate-limited, so
    /// a client sees the end.
    pub fn progress(&mut self, last: bool) -> Verdict {
        self.progress += 1;
        if self.progress > PROGRESS_EVENTS && !last {
            return once(&mut self.progress_noted);
        }
        if last || self.take_token() {
            return Verdict::Pass { notify: true };
        }
        once(&mut self.rate_noted)
    }

    fn take_token(&mut self) -> bool {
        let now = Instant::now();
        let elapsed = now
            .duration_since(self.refilled)
            .min(Duration::from_secs(10));
        self.refilled = now;
        self.tokens = (self.tokens + elapsed.as_secs_f64() * RATE_PER_SECOND).min(BURST);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn once(noted: &mut bool) -> Verdict {
    if *noted {
        Verdict::Drop
    } else {
        *noted = true;
        Verdict::DropFirst
    }
}

/// `message` cut to [`LOG_MESSAGE_MAX`] bytes at a character boundary.
pub fn cut(mut message: String) -> String {
    if message.len() > LOG_MESSAGE_MAX {
        let mut at = LOG_MESSAGE_MAX;
        while !message.is_char_boundary(at) {
            at -= 1;
        }
        message.truncate(at);
        message.push_str(" [cut]");
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_flood_is_cut_at_the_budget_with_one_note() {
        let mut b = EventBudget::default();
        let verdicts: Vec<Verdict> = (0..5_000).map(|_| b.log(10)).collect();
        let passed = verdicts
            .iter()
            .filter(|v| matches!(v, Verdict::Pass { .. }))
            .count();
        assert_eq!(passed, LOG_MESSAGES as usize);
        assert_eq!(
            verdicts
                .iter()
                .filter(|v| **v == Verdict::DropFirst)
                .count(),
            1
        );
        // Notifications to the client within the same instant: the burst only.
        let notified = verdicts
            .iter()
            .filter(|v| **v == Verdict::Pass { notify: true })
            .count();
        assert!(notified <= BURST as usize + 5, "{notified}");
    }

    #[test]
    fn big_messages_spend_the_byte_budget() {
        let mut b = EventBudget::default();
        let passed = (0..100)
            .filter(|_| matches!(b.log(LOG_MESSAGE_MAX), Verdict::Pass { .. }))
            .count();
        assert_eq!(passed, LOG_BYTES / LOG_MESSAGE_MAX);
    }

    #[test]
    fn the_last_progress_always_passes() {
        let mut b = EventBudget::default();
        for _ in 0..10_000 {
            b.progress(false);
        }
        assert_eq!(b.progress(true), Verdict::Pass { notify: true });
    }

    #[test]
    fn cut_keeps_utf8_whole() {
        let long = "é".repeat(LOG_MESSAGE_MAX);
        let cut = cut(long);
        assert!(cut.len() <= LOG_MESSAGE_MAX + 6);
        assert!(cut.ends_with(" [cut]"));
    }
}
