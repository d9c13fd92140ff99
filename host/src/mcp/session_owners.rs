//! An MCP session belongs to the client that opened it. rmcp's session manager knows a session
//! only by its id, so on its own a request with any valid token and another client's
//! `Mcp-Session-Id` would be served inside that session (its browser tabs, subscriptions,
//! tasks, log level), and a `DELETE` of the id would end it. This layer, which runs after the
//! token check, is the one place every HTTP request passes with both the client's identity and
//! the session id it names:
//!
//! - the answer that creates a session (its `Mcp-Session-Id` header) records the client;
//! - a request that names a session of another client (any method, either wire) is refused as
//!   if the session did not exist (404, the answer for an unknown session), so the refusal
//!   does not tell that it exists, and an audit line says who tried;
//! - a request that names its own session passes with [`BoundSession`], which is what the MCP
//!   layer trusts to put a call in that session's conversation; a header without it (an
//!   unknown id on the stateless wire) is ignored.
//!
//! A server without tokens has one client, so every session is its own.

use super::identity::{BoundSession, ClientIdentity};
use crate::audit::{self, Outcome, Record};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// The header that names a session (case-insensitive in HTTP).
const SESSION_HEADER: &str = "mcp-session-id";

/// Sessions recorded between two sweeps of the ones that ended.
const SWEEP_EVERY: usize = 64;

/// Who opened each live session of this server.
pub struct SessionOwners {
    sessions: Arc<LocalSessionManager>,
    owners: Mutex<Owners>,
    audit: super::WardenServer,
}

#[derive(Default)]
struct Owners {
    /// Session id -> the client's name (`None`: a server without tokens).
    by_session: HashMap<Arc<str>, Option<Arc<str>>>,
    /// Sessions recorded since the last sweep.
    since_sweep: usize,
}

/// Whether a request may use the session it names.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// No session named, or one this server does not know (rmcp answers those itself).
    Unbound,
    /// The client's own session.
    Own,
    /// Another client's session.
    Foreign,
}

impl Owners {
    fn judge(&self, id: &str, client: Option<&Arc<str>>) -> Verdict {
        match self.by_session.get(id) {
            None => Verdict::Unbound,
            Some(owner) if owner.as_ref() == client => Verdict::Own,
            Some(_) => Verdict::Foreign,
        }
    }

    /// Record a session's client; true when it is time to sweep the ones that ended.
    fn record(&mut self, id: Arc<str>, client: Option<Arc<str>>) -> bool {
        self.by_session.insert(id, client);
        self.since_sweep += 1;
        self.since_sweep >= SWEEP_EVERY
    }

    fn sweep(&mut self, live: &HashSet<Arc<str>>) {
        self.by_session.retain(|id, _| live.contains(id));
        self.since_sweep = 0;
    }
}

impl SessionOwners {
    pub fn new(sessions: Arc<LocalSessionManager>, server: super::WardenServer) -> Self {
        Self {
            sessions,
            owners: Mutex::default(),
            audit: server,
        }
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, Owners> {
        self.owners.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Record the client of a session just created; now and then forget sessions that ended
    /// (closed by their client or by the idle timeout), so the table holds live ones.
    async fn record(&self, id: Arc<str>, client: Option<Arc<str>>) {
        if self.owners().record(id, client) {
            let live: HashSet<Arc<str>> = self
                .sessions
                .sessions
                .read()
                .await
                .keys()
                .cloned()
                .collect();
            self.owners().sweep(&live);
        }
    }

    fn audit_refusal(&self, client: Option<&str>, method: &Method, id: &str) {
        let reason = format!(
            "{method} named an MCP session another client opened; answered as an unknown session"
        );
        let session = format!("http session {}", &audit::digest(id.as_bytes())[..12]);
        self.audit.registry().services().audit.write(&Record {
            ts: audit::now(),
            event: "session_refused",
            decision: "denied",
            outcome: Outcome::Denied,
            capability: Some("http.session"),
            reason: Some(&reason),
            client,
            session: Some(&session),
            ..Record::default()
        });
    }
}

fn session_id(headers: &HeaderMap) -> Option<Arc<str>> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(Arc::from)
}

/// The 404 rmcp gives a session it does not know.
fn unknown_session() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// The axum layer: see the module docs.
pub async fn bind(
    State(owners): State<Arc<SessionOwners>>,
    mut request: Request,
    next: Next,
) -> Response {
    let client = request
        .extensions()
        .get::<ClientIdentity>()
        .map(|c| c.0.clone());
    let method = request.method().clone();
    let Some(id) = session_id(request.headers()) else {
        let response = next.run(request).await;
        if let Some(created) = session_id(response.headers()) {
            owners.record(created, client).await;
        }
        return response;
    };
    let verdict = owners.owners().judge(&id, client.as_ref());
    match verdict {
        Verdict::Foreign => {
            owners.audit_refusal(client.as_deref(), &method, &id);
            return unknown_session();
        }
        Verdict::Own => {
            request.extensions_mut().insert(BoundSession(id.clone()));
        }
        Verdict::Unbound => {}
    }
    let response = next.run(request).await;
    if method == Method::DELETE && response.status().is_success() {
        owners.owners().by_session.remove(&id);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_answers_only_the_client_that_opened_it() {
        let mut owners = Owners::default();
        let (alice, bob): (Arc<str>, Arc<str>) = ("alice".into(), "bob".into());
        owners.record("s1".into(), Some(alice.clone()));
        assert_eq!(owners.judge("s1", Some(&alice)), Verdict::Own);
        assert_eq!(owners.judge("s1", Some(&bob)), Verdict::Foreign);
        assert_eq!(owners.judge("s1", None), Verdict::Foreign);
        assert_eq!(owners.judge("s2", Some(&bob)), Verdict::Unbound);
    }

    #[test]
    fn without_tokens_every_session_is_the_one_clients() {
        let mut owners = Owners::default();
        owners.record("s1".into(), None);
        assert_eq!(owners.judge("s1", None), Verdict::Own);
    }

    #[test]
    fn a_sweep_keeps_only_live_sessions() {
        let mut owners = Owners::default();
        let due = (0..SWEEP_EVERY)
            .map(|i| owners.record(format!("s{i}").into(), None))
            .last();
        assert_eq!(due, Some(true));
        owners.sweep(&HashSet::from([Arc::from("s3")]));
        assert_eq!(owners.judge("s3", None), Verdict::Own);
        assert_eq!(owners.judge("s4", None), Verdict::Unbound);
        assert!(!owners.record("s9".into(), None));
    }
}
