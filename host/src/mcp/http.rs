//! MCP over streamable HTTP (`warden serve --http ADDR`): rmcp's streamable HTTP service
//! mounted at `/mcp` in axum, behind
//! - `Host` checks (DNS rebinding) and `Origin` checks (403 for an origin not allowed; the
//!   server's own loopback origin is allowed), both done by rmcp from `[server.http]`;
//! - bearer tokens of named clients, required whenever Warden binds a non-loopback address;
//!   the client's name is attached to each request and written to the audit log;
//! - or, with `[server.http.oauth]`, JWTs from an external authorization server, mapped to
//!   the same named clients (see `oauth/`); the protected resource metadata is served
//!   without a token, and refused tokens are written to the audit log (never the token);
//! - per-client limits (`max_concurrent`, `rate`; see `limits.rs`), after the token check;
//! - an MCP session answers only the client that opened it (`session_owners.rs`);
//! - a request body limit (`[server.http] max_body`), and a limit on what its parsed form
//!   may take in memory (`message_weight.rs`);
//! - no request Warden makes for a plugin reaches it (`crate::net::forbidden`), so a plugin
//!   granted loopback cannot call tools as another client.

use super::WardenServer;
pub use super::identity::ClientIdentity;
use super::oauth::{OAuth, OAuthError, Refusal};
use crate::audit::{self, Outcome, Record};
use crate::manifest::{HttpConfig, SecretSource};
use crate::net::forbidden::{Registration, Service};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::sync::Arc;

/// Path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The HTTP transport could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "refusing to serve {0} without a bearer token: it is reachable from other machines. Set WARDEN_HTTP_TOKEN, add [server.http.clients.NAME] with token_env, or [server.http.oauth] in the manifest"
    )]
    TokenRequired(SocketAddr),
    #[error(transparent)]
    OAuth(#[from] OAuthError),
    #[error("server.http.clients.{client}.token_env: the environment variable {var} is not set")]
    MissingTokenVar { client: String, var: String },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("HTTP server failed: {0}")]
    Serve(std::io::Error),
}

/// sha256 digests of the accepted tokens, with their client names. Comparing digests keeps
/// the comparison's timing independent of how much of a guessed token is right.
struct Tokens(Vec<([u8; 32], Arc<str>)>);

impl Tokens {
    fn resolve(config: &HttpConfig) -> Result<Self, HttpError> {
        let mut tokens = Vec::new();
        for (name, source) in &config.clients {
            let token = match source {
                SecretSource::Literal(t) => t.clone(),
                SecretSource::Env(var) => {
                    std::env::var(var).map_err(|_| HttpError::MissingTokenVar {
                        client: name.clone(),
                        var: var.clone(),
                    })?
                }
            };
            tokens.push((
                Sha256::digest(token.as_bytes()).into(),
                Arc::from(name.as_str()),
            ));
        }
        if let Ok(token) = std::env::var("WARDEN_HTTP_TOKEN")
            && !token.is_empty()
        {
            tokens.push((
                Sha256::digest(token.as_bytes()).into(),
                Arc::from("WARDEN_HTTP_TOKEN"),
            ));
        }
        Ok(Self(tokens))
    }

    fn client(&self, presented: &str) -> Option<Arc<str>> {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        self.0
            .iter()
            .find(|(d, _)| *d == digest)
            .map(|(_, name)| name.clone())
    }
}

/// Everything the token check needs.
struct Auth {
    tokens: Tokens,
    oauth: Option<Arc<OAuth>>,
    /// The audit log is the served manifest's, read when a token is refused (a reload may
    /// name another).
    server: WardenServer,
}

impl Auth {
    fn required(&self) -> bool {
        !self.tokens.0.is_empty() || self.oauth.is_some()
    }

    /// 401 (no or bad token) or 403 (a valid token without the right), with the challenge
    /// RFC 6750 §3 describes; with OAuth it points the client at the resource metadata.
    fn refuse(&self, refusal: Option<&Refusal>) -> Response {
        let (status, body) = match refusal {
            None => (
                StatusCode::UNAUTHORIZED,
                "a valid bearer token is required (Authorization: Bearer TOKEN)\n".to_string(),
            ),
            Some(r @ Refusal::Invalid(_)) => (
                StatusCode::UNAUTHORIZED,
                format!("bearer token refused: {r}\n"),
            ),
            Some(r @ Refusal::Insufficient { .. }) => (
                StatusCode::FORBIDDEN,
                format!("bearer token refused: {r}\n"),
            ),
        };
        let challenge = match (&self.oauth, refusal) {
            (Some(oauth), _) => oauth.challenge(refusal),
            (None, None) => "Bearer realm=\"warden\"".to_string(),
            (None, Some(_)) => "Bearer realm=\"warden\", error=\"invalid_token\"".to_string(),
        };
        let mut response = (status, body).into_response();
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        // Refused before its body was read: hyper drops the connection then, so the client
        // is told not to send another request on it.
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    }

    /// One audit line per refused token: why, never the token itself.
    fn audit_refusal(&self, refusal: &Refusal) {
        let reason = refusal.to_string();
        self.server.registry().services().audit.write(&Record {
            ts: audit::now(),
            event: "auth_refused",
            decision: "denied",
            outcome: Outcome::Denied,
            capability: Some(if self.oauth.is_some() {
                "http.bearer_oauth"
            } else {
                "http.bearer"
            }),
            reason: Some(&reason),
            session: Some("http"),
            ..Record::default()
        });
    }
}

/// The token after `Bearer ` (the scheme is case-insensitive, RFC 7235 §2.1).
fn bearer(request: &Request) -> Option<&str> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

async fn authenticate(State(auth): State<Arc<Auth>>, mut request: Request, next: Next) -> Response {
    if !auth.required() {
        return next.run(request).await;
    }
    let Some(presented) = bearer(&request).map(str::to_owned) else {
        return auth.refuse(None);
    };
    let client = match (auth.tokens.client(&presented), &auth.oauth) {
        (Some(client), _) => Ok(client),
        (None, Some(oauth)) => oauth.authorize(&presented).await,
        (None, None) => Err(Refusal::Invalid("the token is not one of this server's")),
    };
    match client {
        Ok(client) => {
            request.extensions_mut().insert(ClientIdentity(client));
            next.run(request).await
        }
        Err(refusal) => {
            auth.audit_refusal(&refusal);
            auth.refuse(Some(&refusal))
        }
    }
}

/// `GET /.well-known/oauth-protected-resource[/path]`: public, so any origin may read it.
async fn resource_metadata(State(oauth): State<Arc<OAuth>>) -> Response {
    let mut response = oauth.metadata().to_string().into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=3600"),
    );
    response
}

/// Serve MCP on `addr` until the process is stopped.
pub async fn serve(
    server: WardenServer,
    addr: SocketAddr,
    config: &HttpConfig,
) -> Result<(), HttpError> {
    let tokens = Tokens::resolve(config)?;
    let oauth = match &config.oauth {
        Some(o) => Some(Arc::new(OAuth::new(o.clone())?)),
        None => None,
    };
    if !addr.ip().is_loopback() && tokens.0.is_empty() && oauth.is_none() {
        return Err(HttpError::TokenRequired(addr));
    }
    let auth_server = server.clone();
    let mut hosts = config
        .allowed_hosts
        .clone()
        .unwrap_or_else(|| vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]);
    if !addr.ip().is_unspecified() {
        hosts.push(addr.ip().to_string());
    }
    // A page served by this very server's loopback address is local, not a rebinding attack.
    let mut origins = config.allowed_origins.clone();
    if addr.ip().is_loopback() {
        let port = addr.port();
        origins.extend([
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ]);
    }
    let rmcp_config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(usize::try_from(config.max_body).unwrap_or(usize::MAX));
    let tasks_glue = (
        server.clone(),
        usize::try_from(config.max_body).unwrap_or(usize::MAX),
    );
    let sessions = Arc::new(LocalSessionManager::default());
    let owners = Arc::new(super::session_owners::SessionOwners::new(
        sessions.clone(),
        server.clone(),
    ));
    // Each MCP session its own log level; everything else of the server is shared.
    let service =
        StreamableHttpService::new(move || Ok(server.for_session()), sessions, rmcp_config);
    let mut auth_mode = match tokens.0.len() {
        // Say it where the admin reads it: without tokens every request is the one local
        // client, so stateless callers share plugin state, kept values and browser sessions.
        0 if oauth.is_none() => "no token required: loopback only; every request is the one local client, so all callers share plugin state and browser sessions (see docs/src/deploy.md)".to_string(),
        n => format!("{n} client token(s)"),
    };
    if let Some(oauth) = &oauth {
        auth_mode.push_str(&format!(", OAuth tokens from {}", oauth.issuer()));
    }
    let limits = Arc::new(super::limits::Limits::new(&config.limits));
    let auth = Arc::new(Auth {
        tokens,
        oauth: oauth.clone(),
        server: auth_server,
    });
    // The last layer runs first: the token check names the client, then its limits apply,
    // then the session it names must be its own.
    let mut router = axum::Router::new()
        .nest_service(MCP_PATH, service)
        // 2025-11-25 tasks: the JSON rmcp's types cannot carry (session_tasks::wire).
        .layer(middleware::from_fn_with_state(
            tasks_glue.clone(),
            super::session_tasks::wire::http,
        ))
        // Weighed before anything parses it (message_weight).
        .layer(middleware::from_fn_with_state(
            tasks_glue.clone(),
            super::message_weight::http,
        ))
        .layer(middleware::from_fn_with_state(
            owners,
            super::session_owners::bind,
        ))
        .layer(middleware::from_fn_with_state(
            limits,
            super::limits::enforce,
        ))
        .layer(middleware::from_fn_with_state(auth, authenticate))
        .layer(middleware::from_fn_with_state(
            "mcp",
            crate::access_log::log,
        ));
    // Added after the layers: the metadata is read before the client has a token.
    if let Some(oauth) = oauth {
        for path in oauth.metadata_paths() {
            router = router.route(
                &path,
                axum::routing::get(resource_metadata).with_state(oauth.clone()),
            );
        }
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, source })?;
    let local = listener.local_addr().map_err(HttpError::Serve)?;
    // No request made for a plugin reaches this endpoint while it listens: a plugin would
    // call tools as whichever client the endpoint takes it for.
    let _listening = Registration::listening(local, Service::Mcp);
    tracing::info!("serving MCP at http://{local}{MCP_PATH} ({auth_mode})");
    // No Nagle: a response's headers and its first SSE event are separate small writes, and
    // with Nagle the second waits for the client's delayed ACK (~40 ms per call).
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY not set: {e}");
        }
    });
    axum::serve(listener, router)
        .await
        .map_err(HttpError::Serve)
}
