//! The filtering forward proxy a browser context sends every connection through. It speaks
//! the two forms a browser uses with an HTTP proxy: `CONNECT host:port` (TLS, and WebSocket
//! tunnels) and absolute-form requests (`GET http://host:port/path`, plain HTTP). Each one is
//! decided by [`super::policy::decide`] and, when allowed, connected to the address that was
//! checked; a refusal is a `403` whose body says why, and an aggregated audit line.

use super::failures::Failure;
use super::policy::{Purpose, Refusal, Target};
use super::shared::Shared;
use super::upstream::{self, Upstream};
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

type Body = BoxBody<Bytes, hyper::Error>;

/// The first byte of a TLS record carrying a handshake: tells a TLS tunnel from a plain one.
const TLS_HANDSHAKE: u8 = 0x16;

/// Headers that concern one hop only and are not forwarded.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Accept connections until the task is aborted (the guard is dropped).
pub async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::debug!("network guard accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        if !shared.listen.admits(peer.ip()) {
            // Not the browser it serves: another host on the network, closed unanswered.
            tracing::warn!(%peer, "network guard: refused a connection from an address it does not serve");
            continue;
        }
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { handle(shared, req).await }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .preserve_header_case(true)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await;
            if let Err(e) = served {
                tracing::trace!("network guard connection ended: {e}");
            }
        });
    }
}

fn text(status: StatusCode, message: String) -> Response<Body> {
    let mut response = Response::new(
        Full::new(Bytes::from(message))
            .map_err(|n| match n {})
            .boxed(),
    );
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A refused request that gets no answer: the connection is closed, so the page sees a
/// network error (a `403` would reach a `no-cors` fetch as a successful opaque response).
#[derive(Debug, thiserror::Error)]
#[error("refused by Warden's network guard")]
struct Dropped;

/// Is a request of this kind a navigation (of a tab or a frame)?
fn is_document(kind: &str) -> bool {
    matches!(kind, "document" | "iframe" | "frame")
}

/// Refuse a request: a document (a tab or frame navigation) refused by the grants gets a
/// `403` page saying why; anything else (a name that does not resolve, a sub-resource) a
/// network error, whose reason the navigation reads from the guard's failures.
fn refused(
    shared: &Shared,
    target: &Target,
    refusal: &Refusal,
    kind: &str,
) -> Result<Response<Body>, Dropped> {
    shared.deny_log.record(refusal, kind);
    shared
        .failures
        .record(&target.host, target.port, refusal.failure.clone());
    if !is_document(kind) || !matches!(refusal.failure, Failure::Refused(_)) {
        return Err(Dropped);
    }
    Ok(text(
        StatusCode::FORBIDDEN,
        format!(
            "Warden's network guard refused this request to {}: {}\n",
            refusal.origin, refusal.reason
        ),
    ))
}

/// What a browser request is for, as far as the proxy can tell: `Sec-Fetch-Dest` (image,
/// script, iframe, empty for fetch/XHR/beacon, ...), or `websocket`.
fn kind_of<B>(req: &Request<B>) -> String {
    let h = req.headers();
    if h.get(header::UPGRADE)
        .is_some_and(|u| u.as_bytes().eq_ignore_ascii_case(b"websocket"))
    {
        return "websocket".into();
    }
    match h.get("sec-fetch-dest").and_then(|v| v.to_str().ok()) {
        Some("empty") => "fetch/xhr/beacon".into(),
        Some(dest) if !dest.is_empty() => dest.to_string(),
        _ => "http".into(),
    }
}

/// Does the browser send this request ahead of a navigation (speculation rules, `<link
/// rel=prefetch>`: `Sec-Purpose: prefetch`, maybe `;prerender`)?
fn fetched_ahead<B>(req: &Request<B>) -> bool {
    req.headers()
        .get("sec-purpose")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("prefetch"))
}

async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Result<Response<Body>, Dropped> {
    if req.method() == Method::CONNECT {
        return Ok(tunnel(shared, req).await);
    }
    forward(shared, req).await
}

/// `CONNECT host:port`: TLS (https, wss) or a plain tunnel (ws). The tunnel is decided for
/// the schemes the grants allow on that host and port; the first byte the browser sends
/// shows which one it is, and a tunnel carrying the other is closed unread.
async fn tunnel(shared: Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let Some(authority) = req.uri().authority().cloned() else {
        return text(StatusCode::BAD_REQUEST, "CONNECT needs host:port\n".into());
    };
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = authority.port_u16().unwrap_or(443);
    // Taken before the owners are read: a change of owners after it ends this tunnel.
    let end = shared.tunnel_end();
    let owners = shared.owners.owners();
    let tls = Target {
        scheme: "https",
        host: host.clone(),
        port,
    };
    let plain = Target {
        scheme: "http",
        host: host.clone(),
        port,
    };
    // A tunnel does not say what it carries: it is decided as a request (`resource_origins`
    // included); the documents in it are held to the navigation grant by the origin guard.
    let as_tls = shared.decide(&owners, &tls, Purpose::Resource).await;
    let as_plain = shared.decide(&owners, &plain, Purpose::Resource).await;
    let addrs = match (&as_tls, &as_plain) {
        (Ok(a), _) | (_, Ok(a)) => a.clone(),
        (Err(refusal), Err(_)) => {
            // A CONNECT names only host:port: https, wss and ws all tunnel this way.
            let refusal = Refusal {
                origin: authority.to_string(),
                ..refusal.clone()
            };
            shared.failures.record(&host, port, refusal.failure.clone());
            shared
                .deny_log
                .record(&refusal, "tunnel (https, wss or ws)");
            let refusal = &refusal;
            return text(
                StatusCode::FORBIDDEN,
                format!(
                    "Warden's network guard refused {}: {}\n",
                    refusal.origin, refusal.reason
                ),
            );
        }
    };
    let server = match upstream::connect(shared.upstream_for(&tls.host, &addrs), &addrs).await {
        Ok((s, _)) => s,
        Err(e) => {
            let failure = Failure::connect(authority.to_string(), &addrs, &e);
            shared.failures.record(&host, port, failure);
            return text(
                StatusCode::BAD_GATEWAY,
                format!("Warden's network guard could not connect to {authority}: {e}\n"),
            );
        }
    };
    tokio::spawn(async move {
        let upgraded = match hyper::upgrade::on(req).await {
            Ok(u) => u,
            Err(e) => {
                tracing::debug!("CONNECT upgrade failed: {e}");
                return;
            }
        };
        let mut client = TokioIo::new(upgraded);
        let mut first = [0u8; 1];
        match client.read(&mut first).await {
            Ok(1) => {}
            _ => return,
        }
        let refusal = if first[0] == TLS_HANDSHAKE {
            as_tls.err()
        } else {
            as_plain.err()
        };
        if let Some(refusal) = refusal {
            let kind = if first[0] == TLS_HANDSHAKE {
                "tls tunnel"
            } else {
                "plain tunnel (ws)"
            };
            shared.deny_log.record(&refusal, kind);
            return;
        }
        let mut server = server;
        if server.write_all(&first).await.is_err() {
            return;
        }
        tokio::select! {
            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
            () = end.cancelled() => {}
        }
    });
    Response::new(Empty::new().map_err(|n| match n {}).boxed())
}

/// An absolute-form request (`GET http://host:port/path`): plain HTTP, or a ws upgrade.
async fn forward(shared: Arc<Shared>, req: Request<Incoming>) -> Result<Response<Body>, Dropped> {
    let dest = kind_of(&req);
    // A document (a navigation, or a response fetched ahead of one) needs the navigation
    // grant, whatever path brought it here.
    let purpose = if is_document(&dest) {
        Purpose::Document
    } else {
        Purpose::Resource
    };
    let kind = if fetched_ahead(&req) {
        format!("{dest}, fetched ahead of a navigation")
    } else {
        dest
    };
    let uri = req.uri().clone();
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority().cloned()) else {
        return Ok(text(
            StatusCode::BAD_REQUEST,
            "this is Warden's network guard, a proxy: send absolute-form requests or CONNECT\n"
                .into(),
        ));
    };
    let scheme = match scheme {
        "http" => "http",
        // A browser sends https only through CONNECT; anything else is not for us.
        other => {
            return Ok(text(
                StatusCode::BAD_REQUEST,
                format!("scheme {other} is not proxied here\n"),
            ));
        }
    };
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let target = Target {
        scheme,
        host,
        port: authority.port_u16().unwrap_or(80),
    };
    let end = shared.tunnel_end();
    let owners = shared.owners.owners();
    let addrs = match shared.decide(&owners, &target, purpose).await {
        Ok(a) => a,
        Err(refusal) => return refused(&shared, &target, &refusal, &kind),
    };
    relay(&shared, req, &kind, &target, &addrs, &authority, end).await
}

/// Send an allowed request on to the address that was checked, and its answer back.
async fn relay(
    shared: &Shared,
    mut req: Request<Incoming>,
    kind: &str,
    target: &Target,
    addrs: &[std::net::SocketAddr],
    authority: &hyper::http::uri::Authority,
    end: tokio_util::sync::CancellationToken,
) -> Result<Response<Body>, Dropped> {
    let uri = req.uri().clone();
    let via = shared.upstream_for(&target.host, addrs);
    let (stream, checked) = match upstream::connect_plain(via, addrs).await {
        Ok(connected) => connected,
        Err(e) => {
            let failure = Failure::connect(authority.to_string(), addrs, &e);
            shared.failures.record(&target.host, target.port, failure);
            // A navigation fails (and reads why from the failures); a sub-resource gets
            // the reason as its answer.
            if is_document(kind) {
                return Err(Dropped);
            }
            return Ok(text(
                StatusCode::BAD_GATEWAY,
                format!("Warden's network guard could not connect to {authority}: {e}\n"),
            ));
        }
    };
    let upgrade = kind == "websocket";
    // Forward in origin form to the checked address, or in absolute form naming that address
    // to an upstream HTTP proxy; the Host header keeps the name the page asked for.
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_string();
    let out_uri: Option<Uri> = match via {
        Some(Upstream::Http(_)) => format!("http://{checked}{path}").parse().ok(),
        _ => path.parse().ok(),
    };
    let Some(out_uri) = out_uri else {
        return Ok(text(
            StatusCode::BAD_REQUEST,
            format!("cannot forward {uri}\n"),
        ));
    };
    let client_upgrade = upgrade.then(|| hyper::upgrade::on(&mut req));
    let (mut parts, body) = req.into_parts();
    parts.uri = out_uri;
    parts.version = hyper::Version::HTTP_11;
    let connection_upgrade = upgrade.then(|| {
        (
            parts.headers.get(header::UPGRADE).cloned(),
            parts.headers.get(header::CONNECTION).cloned(),
        )
    });
    for name in HOP_BY_HOP {
        parts.headers.remove(*name);
    }
    if let Some((up, conn)) = connection_upgrade {
        if let Some(up) = up {
            parts.headers.insert(header::UPGRADE, up);
        }
        if let Some(conn) = conn {
            parts.headers.insert(header::CONNECTION, conn);
        }
    }
    if !parts.headers.contains_key(header::HOST)
        && let Ok(host) = HeaderValue::from_str(authority.as_str())
    {
        parts.headers.insert(header::HOST, host);
    }
    let (mut sender, conn) = match hyper::client::conn::http1::Builder::new()
        .preserve_header_case(true)
        .handshake::<_, Incoming>(TokioIo::new(stream))
        .await
    {
        Ok(pair) => pair,
        Err(e) => {
            return Ok(text(StatusCode::BAD_GATEWAY, format!("{authority}: {e}\n")));
        }
    };
    tokio::spawn(async move {
        if let Err(e) = conn.with_upgrades().await {
            tracing::trace!("forwarded connection ended: {e}");
        }
    });
    let mut response = match sender.send_request(Request::from_parts(parts, body)).await {
        Ok(r) => r,
        Err(e) => {
            return Ok(text(
                StatusCode::BAD_GATEWAY,
                format!("{authority} did not answer: {e}\n"),
            ));
        }
    };
    if response.status() == StatusCode::SWITCHING_PROTOCOLS
        && let Some(client_upgrade) = client_upgrade
    {
        let server_upgrade = hyper::upgrade::on(&mut response);
        tokio::spawn(async move {
            if let (Ok(c), Ok(s)) = (client_upgrade.await, server_upgrade.await) {
                let (mut c, mut s) = (TokioIo::new(c), TokioIo::new(s));
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut c, &mut s) => {}
                    () = end.cancelled() => {}
                }
            }
        });
        let (parts, _) = response.into_parts();
        return Ok(Response::from_parts(
            parts,
            Empty::new().map_err(|n| match n {}).boxed(),
        ));
    }
    let (mut parts, body) = response.into_parts();
    for name in HOP_BY_HOP {
        parts.headers.remove(*name);
    }
    Ok(Response::from_parts(parts, body.boxed()))
}
