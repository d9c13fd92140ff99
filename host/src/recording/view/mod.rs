//! `warden audit view`: a page on loopback that lists the session recordings and plays one
//! beside the audit lines that name it, in time.
//!
//! | file | job |
//! |---|---|
//! | `guard.rs` | what every request must show: a loopback `Host`, the start-up token (query once, then a cookie); the headers every answer carries (a strict Content-Security-Policy) |
//! | `viewer.rs` | what one viewer serves: its directories, its token, the recordings it last listed |
//! | `token.rs` | the start-up token, compared in constant time |
//! | `api.rs` | the sessions, a recording (streamed, only a file the catalog found) and its audit lines |
//! | `assets/` | the page: `index.html`, `view.css`, `vt.js` (a small terminal renderer), `view.js` (the players); every recorded byte is shown as text, never parsed as HTML |

mod api;
mod guard;
mod token;
mod viewer;

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use std::net::SocketAddr;
use std::sync::Arc;

pub use token::Token;
pub use viewer::Viewer;

/// `--listen` names an address the viewer refuses.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    #[error(
        "--listen {0}: the viewer serves recordings only on a loopback address (127.0.0.1:PORT or [::1]:PORT); to look from another machine, forward a port over SSH (ssh -L 8080:127.0.0.1:8080 host)"
    )]
    NotLoopback(SocketAddr),
    #[error(
        "--listen {0}: not an address; write it like 127.0.0.1:8080 (or 127.0.0.1:0 for any free port)"
    )]
    Unparsable(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// `value` as a loopback address to listen on (`localhost:PORT` is 127.0.0.1:PORT).
pub fn listen_addr(value: &str) -> Result<SocketAddr, ListenError> {
    let addr = match value.strip_prefix("localhost:") {
        Some(port) => port
            .parse::<u16>()
            .ok()
            .map(|p| SocketAddr::from(([127, 0, 0, 1], p))),
        None => value.parse::<SocketAddr>().ok(),
    }
    .ok_or_else(|| ListenError::Unparsable(value.to_string()))?;
    if !addr.ip().is_loopback() {
        return Err(ListenError::NotLoopback(addr));
    }
    Ok(addr)
}

impl Viewer {
    /// The page and its API, every route behind the guard.
    pub fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .route("/", get(|| asset("text/html; charset=utf-8", INDEX)))
            .route("/view.css", get(|| asset("text/css; charset=utf-8", CSS)))
            .route(
                "/vt.js",
                get(|| asset("text/javascript; charset=utf-8", VT)),
            )
            .route(
                "/view.js",
                get(|| asset("text/javascript; charset=utf-8", JS)),
            )
            .route("/api/sessions", get(api::sessions))
            .route("/api/recording/{id}", get(api::recording))
            .route("/api/audit/{id}", get(api::audit))
            .with_state(self.clone())
            .layer(axum::middleware::from_fn_with_state(
                self.clone(),
                guard::check,
            ))
    }

    /// Listen on `addr` (loopback, checked by `listen_addr`) and return the listener and the
    /// URL to open, token included.
    pub async fn bind(
        &self,
        addr: SocketAddr,
    ) -> Result<(tokio::net::TcpListener, String), ListenError> {
        if !addr.ip().is_loopback() {
            return Err(ListenError::NotLoopback(addr));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ListenError::Bind { addr, source })?;
        let local = listener
            .local_addr()
            .map_err(|source| ListenError::Bind { addr, source })?;
        let url = format!("http://{local}/?token={}", self.token.as_str());
        Ok((listener, url))
    }
}

const INDEX: &[u8] = include_bytes!("assets/index.html");
const CSS: &[u8] = include_bytes!("assets/view.css");
const VT: &[u8] = include_bytes!("assets/vt.js");
const JS: &[u8] = include_bytes!("assets/view.js");

async fn asset(kind: &'static str, body: &'static [u8]) -> impl IntoResponse {
    ([(CONTENT_TYPE, kind)], body)
}
