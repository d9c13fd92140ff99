//! The admin listener (`[admin] listen` or `warden serve --admin ADDR`; off by default): a
//! separate address from MCP, for the operations side.
//! - `GET /metrics`: Prometheus metrics (OpenMetrics text, see `metrics.rs`);
//! - `GET /healthz`: liveness, 200 while the process serves HTTP at all;
//! - `GET /readyz`: readiness, 200 only once every plugin is loaded, 503 before that and
//!   while shutting down (a load balancer stops sending new requests).
//!
//! It carries no MCP, no tokens and no tool arguments; it needs no authentication of its
//! own, so bind it to loopback or a private network (see docs/src/deploy.md). No request
//! Warden makes for a plugin reaches it (`crate::net::forbidden`).

use crate::mcp::WardenServer;
use crate::net::forbidden::{Registration, Service};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// What the probes report on.
#[derive(Default)]
pub struct Admin {
    /// Set once every plugin is loaded.
    server: OnceLock<WardenServer>,
    draining: AtomicBool,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("ready", &self.is_ready())
            .finish_non_exhaustive()
    }
}

impl Admin {
    /// Every plugin is loaded: report ready and count `server`'s sessions.
    pub fn serving(&self, server: WardenServer) {
        let _ = self.server.set(server);
    }

    /// Shutting down: report not ready from now on.
    pub fn draining(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    fn is_ready(&self) -> bool {
        self.server.get().is_some() && !self.draining.load(Ordering::Relaxed)
    }
}

/// The admin listener could not start.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error(
        "the admin listener {0} is the MCP address too; give [admin] listen (or --admin) an address of its own, so metrics and probes never share the MCP port"
    )]
    SameAsMcp(SocketAddr),
    #[error("cannot listen on {addr} for the admin listener ([admin] listen or --admin): {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Bind `addr` and serve the admin endpoints in the background. Binding happens before
/// plugins load, so liveness answers during a slow start while readiness says "not yet".
pub async fn start(addr: SocketAddr, mcp: Option<SocketAddr>) -> Result<Arc<Admin>, AdminError> {
    if let Some(mcp) = mcp
        && mcp.port() == addr.port()
        && (mcp.ip() == addr.ip() || mcp.ip().is_unspecified() || addr.ip().is_unspecified())
    {
        return Err(AdminError::SameAsMcp(addr));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| AdminError::Bind { addr, source })?;
    let admin = Arc::new(Admin::default());
    let router = axum::Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .with_state(admin.clone())
        .layer(axum::middleware::from_fn_with_state(
            "admin",
            crate::access_log::log,
        ));
    let local = listener.local_addr().unwrap_or(addr);
    tracing::info!("admin listener at http://{local} (/metrics, /healthz, /readyz)");
    // No request made for a plugin reaches it while it listens.
    let listening = Registration::listening(local, Service::Admin);
    tokio::spawn(async move {
        let _listening = listening;
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!("admin listener failed: {e}");
        }
    });
    Ok(admin)
}

async fn metrics(State(admin): State<Arc<Admin>>) -> Response {
    let census = match admin.server.get() {
        Some(server) => {
            let registry = server.registry();
            let mut census = registry.services().census().await;
            census.plugin_calls = registry.plugin_calls();
            census
        }
        None => crate::metrics::Census::default(),
    };
    let text = crate::metrics::render(census, admin.is_ready());
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

async fn healthz() -> &'static str {
    "ok\n"
}

async fn readyz(State(admin): State<Arc<Admin>>) -> Response {
    if admin.is_ready() {
        (StatusCode::OK, "ready\n").into_response()
    } else if admin.draining.load(Ordering::Relaxed) {
        (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "loading plugins\n").into_response()
    }
}
