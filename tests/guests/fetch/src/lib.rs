//! A fetch component in the style of components built for other MCP hosts (Wassette's
//! `fetch`): one plain exported function, its own world, the network through standard
//! `wasi:http/outgoing-handler` (the `wasip2` crate's bindings), no Warden SDK. It follows
//! redirects itself, as such components do, and reads its user agent from the environment.

// The exports wit-bindgen generates are `unsafe extern "C"` functions.
#![allow(unsafe_code)]

wit_bindgen::generate!({ world: "fetch", path: "wit" });

use wasip2::http::outgoing_handler;
use wasip2::http::types::{ErrorCode, Fields, IncomingBody, Method, OutgoingRequest, Scheme};
use wasip2::io::streams::StreamError;

/// Redirects followed at most.
const MAX_REDIRECTS: usize = 5;
/// Response bytes kept at most.
const MAX_BODY: usize = 1 << 20;

struct Fetch;

/// `https://host:port/path?query` as (scheme, authority, path with query).
fn split(url: &str) -> Result<(Scheme, String, String), String> {
    let (scheme, rest) = if let Some(rest) = url.strip_prefix("https://") {
        (Scheme::Https, rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        (Scheme::Http, rest)
    } else {
        return Err(format!(
            "invalid URL {url:?}: only http and https are fetched"
        ));
    };
    let rest = rest.split('#').next().unwrap_or(rest);
    let cut = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(cut);
    if authority.is_empty() {
        return Err(format!("invalid URL {url:?}: no host"));
    }
    let path = match path {
        "" => "/".to_string(),
        p if p.starts_with('?') => format!("/{p}"),
        p => p.to_string(),
    };
    Ok((scheme, authority.to_string(), path))
}

struct Answer {
    status: u16,
    location: Option<String>,
    body: Vec<u8>,
}

fn get(url: &str) -> Result<Answer, String> {
    let (scheme, authority, path) = split(url)?;
    let headers = Fields::new();
    let agent = std::env::var("FETCH_USER_AGENT").unwrap_or_else(|_| "fetch-fixture/0.1".into());
    headers
        .append("user-agent", agent.as_bytes())
        .map_err(|e| format!("bad user agent: {e:?}"))?;
    let request = OutgoingRequest::new(headers);
    request
        .set_method(&Method::Get)
        .and_then(|()| request.set_scheme(Some(&scheme)))
        .and_then(|()| request.set_authority(Some(&authority)))
        .and_then(|()| request.set_path_with_query(Some(&path)))
        .map_err(|()| format!("invalid URL {url:?}"))?;
    let refused = |e: ErrorCode| format!("Network error: {e:?}");
    let pending = outgoing_handler::handle(request, None).map_err(refused)?;
    pending.subscribe().block();
    let response = pending
        .get()
        .ok_or("the response never came")?
        .map_err(|()| "the response was taken twice")?
        .map_err(refused)?;
    let status = response.status();
    let location = response
        .headers()
        .get("location")
        .first()
        .map(|v| String::from_utf8_lossy(v).into_owned());
    let incoming = response.consume().map_err(|()| "no body")?;
    let stream = incoming.stream().map_err(|()| "no body stream")?;
    let mut body = Vec::new();
    loop {
        match stream.blocking_read(64 * 1024) {
            Ok(chunk) => {
                body.extend_from_slice(&chunk);
                if body.len() > MAX_BODY {
                    return Err(format!("the response is over {MAX_BODY} bytes"));
                }
            }
            Err(StreamError::Closed) => break,
            Err(StreamError::LastOperationFailed(e)) => {
                return Err(format!("reading the body failed: {}", e.to_debug_string()));
            }
        }
    }
    drop(stream);
    drop(IncomingBody::finish(incoming));
    Ok(Answer {
        status,
        location,
        body,
    })
}

/// `location` as an absolute URL, relative to `base`.
fn resolve(base: &str, location: &str) -> Result<String, String> {
    if location.starts_with("http://") || location.starts_with("https://") {
        return Ok(location.to_string());
    }
    if location.starts_with('/') {
        let (scheme, authority, _) = split(base)?;
        let scheme = if matches!(scheme, Scheme::Https) {
            "https"
        } else {
            "http"
        };
        return Ok(format!("{scheme}://{authority}{location}"));
    }
    Err(format!("unsupported redirect location {location:?}"))
}

impl Guest for Fetch {
    fn fetch(url: String) -> Result<String, String> {
        let mut url = url;
        for _ in 0..=MAX_REDIRECTS {
            let answer = get(&url)?;
            if (300..400).contains(&answer.status)
                && let Some(location) = &answer.location
            {
                url = resolve(&url, location)?;
                continue;
            }
            let text = String::from_utf8_lossy(&answer.body).into_owned();
            if !(200..300).contains(&answer.status) {
                return Err(format!("HTTP {} response: {text}", answer.status));
            }
            return Ok(text);
        }
        Err(format!("Redirect limit of {MAX_REDIRECTS} exceeded"))
    }
}

export!(Fetch);
