//! A fleet of remote browsers (`[browser] endpoints`): every plugin session gets a DevTools
//! connection of its own to the least-loaded healthy member, and keeps it until it closes.
//! Members are checked in the background; one that stops answering takes no new sessions,
//! and the sessions it held are reported lost (naming it) rather than silently moved.
//!
//! An endpoint is either a browser's DevTools WebSocket (`ws://host:port/devtools/browser/ID`)
//! or its HTTP address (`http://host:port`), resolved through `/json/version` on every
//! connection, so a member that restarts (and gets a new browser id) is found again.
//!
//! A member is a server Warden does not control: its `/json/version` answer is read to at
//! most [`MAX_VERSION_ANSWER`] within [`CONNECT_TIMEOUT`], no redirect is followed, and an
//! endpoint is named in logs, audit lines and messages as [`shown`] (no user, password or
//! query: a hosted browser's token often rides there).

use crate::net::body::{self, BodyError};
use crate::net::chain::error_chain;
pub(super) use crate::net::shown::shown;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use url::Url;

use super::cdp::Cdp;

/// How often every member is checked.
const HEALTH_INTERVAL: Duration = Duration::from_secs(5);
/// How long a check, or connecting a new session to a member, may take.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest `/json/version` answer read (a browser's is under 1 KiB).
const MAX_VERSION_ANSWER: u64 = 64 * 1024;

/// The remote browsers sessions are spread over.
pub(super) struct Fleet {
    members: Vec<Member>,
    /// Whether the background checks run (started on first use, inside the runtime).
    checking: AtomicBool,
}

struct Member {
    endpoint: String,
    /// The endpoint as messages name it.
    shown: String,
    health: Mutex<Health>,
}

#[derive(Clone, Debug, Default)]
struct Health {
    /// Why the last check or connection failed; `None`: healthy (or not checked yet).
    down: Option<String>,
}

impl Fleet {
    pub(super) fn new(endpoints: &[String]) -> Arc<Self> {
        Arc::new(Self {
            members: endpoints
                .iter()
                .map(|e| Member {
                    endpoint: e.clone(),
                    shown: shown(e),
                    health: Mutex::default(),
                })
                .collect(),
            checking: AtomicBool::new(false),
        })
    }

    pub(super) fn endpoint(&self, member: usize) -> &str {
        self.members.get(member).map_or("", |m| m.endpoint.as_str())
    }

    /// The endpoint of `member` as logs, audit lines and messages name it.
    pub(super) fn shown(&self, member: usize) -> &str {
        self.members.get(member).map_or("", |m| m.shown.as_str())
    }

    /// Members in the order a new session tries them: healthy ones first, each group least
    /// loaded first (`load(i)`: sessions on member `i`), then by position. Members marked
    /// down come last rather than never: their mark may be older than their recovery.
    pub(super) fn candidates(&self, load: impl Fn(usize) -> usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.members.len()).collect();
        order.sort_by_key(|&i| (!self.healthy(i), load(i), i));
        order
    }

    fn healthy(&self, member: usize) -> bool {
        self.members
            .get(member)
            .is_some_and(|m| lock(&m.health).down.is_none())
    }

    /// Record the outcome of a check or a connection attempt.
    pub(super) fn mark(&self, member: usize, outcome: Result<(), String>) {
        let Some(m) = self.members.get(member) else {
            return;
        };
        let mut health = lock(&m.health);
        match (&health.down, &outcome) {
            (None, Err(why)) => {
                tracing::warn!(endpoint = m.shown, "remote browser is down: {why}")
            }
            (Some(_), Ok(())) => tracing::info!(endpoint = m.shown, "remote browser is back"),
            _ => {}
        }
        health.down = outcome.err();
    }

    /// (healthy, down) members, for the metrics.
    pub(super) fn health(&self) -> (usize, usize) {
        let healthy = (0..self.members.len()).filter(|&i| self.healthy(i)).count();
        (healthy, self.members.len() - healthy)
    }

    /// Start the background checks once; they stop when the fleet is dropped (a manifest
    /// reload that changes `[browser]` builds a new one).
    pub(super) fn start_checks(self: &Arc<Self>) {
        if self.checking.swap(true, Ordering::AcqRel) {
            return;
        }
        let weak = Arc::downgrade(self);
        tokio::spawn(check_loop(weak));
    }
}

async fn check_loop(fleet: Weak<Fleet>) {
    loop {
        let Some(f) = fleet.upgrade() else { return };
        let checks = f.members.iter().map(|m| check(&m.endpoint));
        let outcomes = futures::future::join_all(checks).await;
        for (i, outcome) in outcomes.into_iter().enumerate() {
            f.mark(i, outcome);
        }
        drop(f);
        tokio::time::sleep(HEALTH_INTERVAL).await;
    }
}

/// A member is healthy when its DevTools endpoint takes a connection and answers
/// `Browser.getVersion` within [`CONNECT_TIMEOUT`].
async fn check(endpoint: &str) -> Result<(), String> {
    let probe = async {
        let ws = resolve(endpoint).await?;
        let (cdp, _events) = Cdp::connect(&ws)
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        cdp.call_raw(None, "Browser.getVersion", serde_json::json!({}))
            .await
            .map_err(|e| format!("does not answer: {e}"))?;
        Ok(())
    };
    tokio::time::timeout(CONNECT_TIMEOUT, probe)
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "did not answer within {} s",
                CONNECT_TIMEOUT.as_secs()
            ))
        })
}

/// The DevTools WebSocket URL of an endpoint: a `ws(s)://` one as it is; for `http(s)://`,
/// the browser's own from `/json/version`, reached at the endpoint's host and port (the
/// browser names itself by the address it was asked at, which a proxy may rewrite).
pub(super) async fn resolve(endpoint: &str) -> Result<String, String> {
    let url = Url::parse(endpoint).map_err(|e| format!("the endpoint is not a URL: {e}"))?;
    let ws_scheme = match url.scheme() {
        "ws" | "wss" => return Ok(endpoint.to_string()),
        "http" => "ws",
        "https" => "wss",
        other => return Err(format!("\"{other}\" is not a DevTools endpoint scheme")),
    };
    let at = url
        .join("/json/version")
        .map_err(|e| format!("cannot build /json/version: {e}"))?;
    let version = shown(at.as_str());
    let deadline = tokio::time::Instant::now() + CONNECT_TIMEOUT;
    // The browser answers itself: a redirect would lead the host somewhere else.
    let client = reqwest::Client::builder()
        .timeout(CONNECT_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
    let mut response = client.get(at).send().await.map_err(|e| {
        format!(
            "{version} did not answer: {}",
            error_chain(&e.without_url())
        )
    })?;
    if !response.status().is_success() {
        return Err(format!(
            "{version} answered HTTP {} (a DevTools endpoint answers 200)",
            response.status()
        ));
    }
    let body = body::read(&mut response, MAX_VERSION_ANSWER, deadline)
        .await
        .map_err(|e| match e {
            BodyError::Over { max } => {
                format!("{version} answered more than {max} bytes: not a DevTools endpoint")
            }
            BodyError::Deadline => format!(
                "{version} did not finish its answer within {} s",
                CONNECT_TIMEOUT.as_secs()
            ),
            BodyError::Transfer(e) => {
                format!(
                    "{version} did not answer: {}",
                    error_chain(&e.without_url())
                )
            }
        })?;
    let answer: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| format!("{version} answered something else than JSON: {e}"))?;
    let said = answer["webSocketDebuggerUrl"]
        .as_str()
        .ok_or_else(|| format!("{version} names no webSocketDebuggerUrl"))?;
    let said = Url::parse(said).map_err(|e| format!("{version}: bad webSocketDebuggerUrl: {e}"))?;
    let mut ws = url.clone();
    ws.set_scheme(ws_scheme)
        .map_err(|()| format!("cannot make a {ws_scheme} URL of {endpoint}"))?;
    ws.set_path(said.path());
    ws.set_query(None);
    Ok(ws.to_string())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_sessions_go_to_the_least_loaded_healthy_member() {
        let fleet = Fleet::new(&["ws://a".into(), "ws://b".into(), "ws://c".into()]);
        let loads = [2, 1, 1];
        assert_eq!(fleet.candidates(|i| loads[i]), vec![1, 2, 0]);
        fleet.mark(1, Err("refused".into()));
        assert_eq!(fleet.candidates(|i| loads[i]), vec![2, 0, 1]);
        assert_eq!(fleet.health(), (2, 1));
        fleet.mark(1, Ok(()));
        assert_eq!(fleet.candidates(|i| loads[i]), vec![1, 2, 0]);
        assert_eq!(fleet.health(), (3, 0));
    }

    #[tokio::test]
    async fn a_websocket_endpoint_is_used_as_it_is_and_other_schemes_are_refused() {
        let ws = "ws://127.0.0.1:9222/devtools/browser/x";
        assert_eq!(resolve(ws).await.as_deref(), Ok(ws));
        assert!(resolve("ftp://127.0.0.1/").await.is_err());
    }
}
