//! Telling the user that a login waits for them. `login_then_capture` and `ensure_login` wait
//! for a human to log in in the capture browser; instead of waiting silently until the
//! timeout, the host tells the user where, through the call's client (the runtime supplies
//! how, per call).

use futures::future::BoxFuture;

/// What the user said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Told {
    /// They say they have logged in: check now.
    Done,
    /// They will not log in: stop waiting.
    Refused,
}

pub trait HandOff: Send + Sync {
    /// Tell the user `message`. Resolves when the user answers; never resolves when nobody
    /// can answer (the client can only be told, or not even that), so the caller keeps
    /// waiting for the login itself.
    fn tell(&self, message: String) -> BoxFuture<'static, Told>;
}
