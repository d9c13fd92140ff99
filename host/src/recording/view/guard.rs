//! What every request to the viewer must show, checked before any route runs: a `Host`
//! that names loopback (a page of another site that rebinds its name to 127.0.0.1 sends its
//! own name), and the token printed at start, in the query of the first load and in a
//! cookie afterwards (another local user's process can reach the port, not the token). Every
//! answer, refusals too, carries the headers that keep recorded bytes inert in the browser.

use super::viewer::Viewer;
use axum::extract::{Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, COOKIE, HOST, LOCATION, REFERRER_POLICY,
    SET_COOKIE, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;
use std::sync::Arc;

/// Scripts and styles only from the viewer itself, images only from data: URLs (recorded
/// frames), no frames, forms, plugins or other origins.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The host part of a `Host` header, when it names loopback: `localhost`, 127.0.0.0/8 or
/// `[::1]`, with or without a port.
fn loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or("", |(ip, _)| ip),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The cookie's name carries the port: two viewers on one machine keep their own.
fn cookie_name(host: &str) -> String {
    let port = host.rsplit_once(':').map_or("", |(_, p)| p);
    format!(
        "warden_view_{}",
        port.trim_matches(|c: char| !c.is_ascii_digit())
    )
}

fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v)
}

fn refuse(status: StatusCode, why: &'static str) -> Response {
    (status, [(CONTENT_TYPE, "text/plain; charset=utf-8")], why).into_response()
}

/// The guard: refuse, or let the request through; add the headers to whatever is answered.
pub async fn check(State(viewer): State<Arc<Viewer>>, request: Request, next: Next) -> Response {
    let mut response = admit(&viewer, request, next).await;
    let headers = response.headers_mut();
    for (name, value) in [
        (CONTENT_SECURITY_POLICY, CSP),
        (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (REFERRER_POLICY, "no-referrer"),
        (X_FRAME_OPTIONS, "DENY"),
        (CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    response
}

async fn admit(viewer: &Viewer, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("")
        .to_string();
    if !loopback_host(&host) {
        tracing::warn!(host = %host, path = %request.uri().path(), "viewer refused a request: Host is not a loopback name");
        return refuse(
            StatusCode::FORBIDDEN,
            "refused: the Host header must name this machine's loopback (127.0.0.1, [::1] or localhost)\n",
        );
    }
    let name = cookie_name(&host);
    if cookie(request.headers(), &name).is_some_and(|c| viewer.token.matches(c)) {
        return next.run(request).await;
    }
    if let Some(token) = query_token(request.uri().query())
        && viewer.token.matches(token)
    {
        // The first load: the token moves to a cookie and out of the address bar (and of
        // the history, and of any Referer).
        let set = format!("{name}={}; Path=/; HttpOnly; SameSite=Strict", token);
        let mut response = (StatusCode::SEE_OTHER, [(LOCATION, "/")]).into_response();
        if let Ok(value) = HeaderValue::from_str(&set) {
            response.headers_mut().insert(SET_COOKIE, value);
        }
        return response;
    }
    tracing::warn!(path = %request.uri().path(), "viewer refused a request without the token");
    refuse(
        StatusCode::FORBIDDEN,
        "refused: open the URL `warden audit view` printed (it carries the token)\n",
    )
}

#[cfg(test)]
mod tests {
    use super::super::token::Token;
    use super::*;

    #[test]
    fn only_loopback_names_pass() {
        for ok in [
            "127.0.0.1:8080",
            "localhost:1",
            "LOCALHOST",
            "[::1]:9",
            "127.9.9.9",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.example:8080",
            "127.0.0.1.evil.example",
            "[::2]:9",
            "0.0.0.0:80",
            "localhost.evil:80",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn the_token_must_match_whole() {
        let t = Token::random();
        assert!(t.matches(t.as_str()));
        assert!(!t.matches(&t.as_str()[1..]));
        assert!(!t.matches(""));
        assert_eq!(query_token(Some("a=1&token=xyz")), Some("xyz"));
    }
}
