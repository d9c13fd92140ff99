//! MCP over streamable HTTP (`warden serve --http ADDR`): rmcp's streamable HTTP service
//! mounted at `/mcp` in axum, behind
//! - `Host` checks (DNS rebinding) and `Origin` checks (403 for an origin not allowed; the
//!   server's own loopback origin is allowed), both done by rmcp from `[server.http]`;
//! - bearer tokens of named clients, required whenever Warden binds a non-loopback address;
//!   the client's name is attached to each request and written to the audit log;
//! - per-client limits (`max_concurrent`, `rate`; see `limits.rs`), after the token check;
//! - a request body limit (`[server.http] max_body`).

use super::WardenServer;
use crate::manifest::{HttpConfig, SecretSource};
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

/// The name of the client that made a request, set by the token check.
#[derive(Debug, Clone)]
pub struct ClientIdentity(pub Arc<str>);

/// The HTTP transport could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "refusing to serve {0} without a bearer token: it is reachable from other machines. Set WARDEN_HTTP_TOKEN, or add [server.http.clients.NAME] with token_env in the manifest"
    )]
    TokenRequired(SocketAddr),
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

async fn authenticate(
    State(tokens): State<Arc<Tokens>>,
    mut request: Request,
    next: Next,
) -> Response {
    if tokens.0.is_empty() {
        return next.run(request).await;
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match presented.and_then(|t| tokens.client(t.trim())) {
        Some(client) => {
            request.extensions_mut().insert(ClientIdentity(client));
            next.run(request).await
        }
        None => {
            let mut response = (
                StatusCode::UNAUTHORIZED,
                "a valid bearer token is required (Authorization: Bearer TOKEN)\n",
            )
                .into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"warden\""),
            );
            response
        }
    }
}

/// Serve MCP on `addr` until the process is stopped.
pub async fn serve(
    server: WardenServer,
    addr: SocketAddr,
    config: &HttpConfig,
) -> Result<(), HttpError> {
    let tokens = Tokens::resolve(config)?;
    if !addr.ip().is_loopback() && tokens.0.is_empty() {
        return Err(HttpError::TokenRequired(addr));
    }
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
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        rmcp_config,
    );
    let clients = tokens.0.len();
    let limits = Arc::new(super::limits::Limits::new(&config.limits));
    // The last layer runs first: the token check names the client, then its limits apply.
    let router = axum::Router::new()
        .nest_service(MCP_PATH, service)
        // 2025-11-25 tasks: the JSON rmcp's types cannot carry (session_tasks::wire).
        .layer(middleware::from_fn_with_state(
            tasks_glue,
            super::session_tasks::wire::http,
        ))
        .layer(middleware::from_fn_with_state(
            limits,
            super::limits::enforce,
        ))
        .layer(middleware::from_fn_with_state(
            Arc::new(tokens),
            authenticate,
        ));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, source })?;
    let local = listener.local_addr().map_err(HttpError::Serve)?;
    tracing::info!(
        "serving MCP at http://{local}{MCP_PATH} ({})",
        if clients == 0 {
            "no token required: loopback only".to_string()
        } else {
            format!("{clients} client token(s)")
        }
    );
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
