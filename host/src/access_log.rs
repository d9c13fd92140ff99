//! One debug line per HTTP request a listener of Warden receives (target `warden::access`,
//! off unless `RUST_LOG` asks for it, e.g. `RUST_LOG=info,warden::access=debug`): which
//! listener, the method, the path (never the query: it may carry a token) and the
//! `User-Agent`, both cut short. It answers "who reached this listener" from the outside,
//! which the audit log (tool calls, not connections) cannot.

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;

/// The longest path or agent written.
const MAX_FIELD: usize = 200;

/// The middleware; its state names the listener (`mcp`, `admin`).
pub async fn log(State(listener): State<&'static str>, request: Request, next: Next) -> Response {
    if tracing::enabled!(target: "warden::access", tracing::Level::DEBUG) {
        let agent = request
            .headers()
            .get(header::USER_AGENT)
            .map(|v| cut(&String::from_utf8_lossy(v.as_bytes())))
            .unwrap_or_default();
        // Debug-formatted: a control character in what a client sent is escaped.
        tracing::debug!(
            target: "warden::access",
            listener,
            method = %request.method(),
            path = ?cut(request.uri().path()),
            agent = ?agent,
            "request received"
        );
    }
    next.run(request).await
}

fn cut(text: &str) -> String {
    text.chars().take(MAX_FIELD).collect()
}
