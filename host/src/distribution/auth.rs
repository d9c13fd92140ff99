//! Answering a registry's `401`: a `WWW-Authenticate` challenge names HTTP Basic, or a token
//! realm (`Bearer realm="…",service="…",scope="…"`) to ask for a token with.
//!
//! The realm is a new destination, checked as every other ([`super::destination`]). It gets
//! the registry's Basic credentials only when it is the registry's own origin or the
//! `token_realm` the admin named for the registry; any other realm is asked for an anonymous
//! token (what a public registry's realm grants for public repositories), so a registry
//! cannot send the password to a host of its choice. The token the realm issues is the
//! registry's credential from then on: presented to the registry's origin only, and
//! scrubbed like the password.

use super::connection::{Access, Connection, Credentials};
use super::destination::{self, Hop, Origin};
use super::error::FetchError;
use crate::net::body::{self, BodyError};
use base64::Engine as _;
use reqwest::header::HeaderValue;
use url::Url;

/// The largest token answer Warden reads (a JWT is a few KiB).
pub const MAX_TOKEN_ANSWER: u64 = 64 * 1024;

/// What a `401` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    Basic,
    Bearer(Bearer),
}

/// A token realm's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bearer {
    pub realm: String,
    pub service: Option<String>,
    pub scope: Option<String>,
}

/// The first challenge Warden can answer among `headers` (each a `WWW-Authenticate` value):
/// a token realm before Basic.
pub fn parse(headers: &[String]) -> Option<Challenge> {
    let parsed: Vec<Challenge> = headers.iter().filter_map(|h| one(h)).collect();
    parsed
        .iter()
        .find(|c| matches!(c, Challenge::Bearer(_)))
        .or_else(|| parsed.first())
        .cloned()
}

/// One challenge: a scheme and its `key=value` or `key="quoted"` parameters.
fn one(header: &str) -> Option<Challenge> {
    let header = header.trim();
    let (scheme, rest) = header.split_once(' ').unwrap_or((header, ""));
    if scheme.eq_ignore_ascii_case("basic") {
        return Some(Challenge::Basic);
    }
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let mut bearer = Bearer {
        realm: String::new(),
        service: None,
        scope: None,
    };
    for (key, value) in params(rest) {
        match key.to_ascii_lowercase().as_str() {
            "realm" => bearer.realm = value,
            "service" => bearer.service = Some(value),
            "scope" => bearer.scope = Some(value),
            _ => {}
        }
    }
    (!bearer.realm.is_empty()).then_some(Challenge::Bearer(bearer))
}

/// `key=value` pairs separated by commas; a quoted value may hold commas and `\"`.
fn params(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            break;
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.peek().copied() {
                if c == ',' {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        out.push((key.trim().to_string(), value.trim().to_string()));
    }
    out
}

/// `Basic base64(user:password)`.
pub fn basic(user: &str, password: &str) -> Result<HeaderValue, FetchError> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    let mut value = HeaderValue::from_str(&format!("Basic {encoded}"))
        .map_err(|_| FetchError::BadCredentials)?;
    value.set_sensitive(true);
    Ok(value)
}

/// A token from the realm `bearer` names, as the header that presents it to the registry.
pub async fn token(conn: &Connection, bearer: &Bearer) -> Result<HeaderValue, FetchError> {
    let url = Url::parse(&bearer.realm).map_err(|_| {
        conn.registry_error(&format!(
            "its token realm \"{}\" is not a URL",
            bearer.realm
        ))
    })?;
    conn.no_credential_in(&url)?;
    let Some(origin) = Origin::of(&url) else {
        return Err(conn.registry_error(&format!("its token realm {url} is not an http(s) URL")));
    };
    if origin.scheme == "http" && conn.origin.scheme == "https" {
        return Err(conn.registry_error(&format!(
            "its token realm {origin} is plain HTTP while the registry speaks HTTPS; Warden sends nothing to it"
        )));
    }
    let own = origin == conn.origin;
    let named_realm = conn
        .token_realm
        .as_ref()
        .and_then(Origin::of)
        .is_some_and(|r| r == origin);
    let client = if own {
        conn.client.clone()
    } else {
        destination::connect(
            &conn.registry,
            &origin,
            Hop::Realm,
            &conn.named,
            &conn.scrubber(),
        )
        .await?
    };
    let scope = bearer.scope.clone().unwrap_or_else(|| {
        let actions = match conn.access {
            Access::Pull => "pull",
            Access::Push => "pull,push",
        };
        format!("repository:{}:{actions}", conn.repository)
    });
    let mut ask = url;
    {
        let mut query = ask.query_pairs_mut();
        if let Some(service) = &bearer.service {
            query.append_pair("service", service);
        }
        query.append_pair("scope", &scope);
    }
    let mut request = client.get(ask);
    let sends_credentials = own || named_realm;
    if sends_credentials && let Credentials::Basic { user, password } = &conn.credentials {
        request = request.header(reqwest::header::AUTHORIZATION, basic(user, password)?);
    }
    let mut resp = request.send().await.map_err(|e| conn.transport_error(&e))?;
    if !resp.status().is_success() {
        let text = conn.error_text(&mut resp).await;
        let hint = match (&conn.credentials, sends_credentials) {
            (Credentials::Basic { .. }, false) => format!(
                "; the realm {origin} is not the registry's own host, so it was asked anonymously: if it is the registry's token service, set token_realm = \"{}\" under [registries.\"{}\"]",
                bearer.realm, conn.registry
            ),
            _ => String::new(),
        };
        return Err(FetchError::Unauthorized {
            registry: conn.registry.clone(),
            message: conn.said(&format!("the token realm answered {text}{hint}")),
        });
    }
    let deadline = tokio::time::Instant::now() + conn.deadlines.floor;
    let answer = match body::read(&mut resp, MAX_TOKEN_ANSWER, deadline).await {
        Ok(answer) => answer,
        Err(BodyError::Over { .. }) => {
            return Err(FetchError::Oversized {
                what: "the token realm's answer".into(),
                max: MAX_TOKEN_ANSWER,
            });
        }
        Err(BodyError::Transfer(e)) => return Err(conn.transport_error(&e)),
        Err(BodyError::Deadline) => {
            return Err(conn.registry_error("the token realm's answer did not arrive in time"));
        }
    };
    #[derive(serde::Deserialize)]
    struct Answer {
        token: Option<String>,
        access_token: Option<String>,
    }
    let token = serde_json::from_slice::<Answer>(&answer)
        .ok()
        .and_then(|a| a.token.or(a.access_token))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| FetchError::Unauthorized {
            registry: conn.registry.clone(),
            message: conn.said("the token realm's answer holds no token"),
        })?;
    conn.learned(&token);
    let mut value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
        conn.registry_error("the token realm issued a token that is not a header value")
    })?;
    value.set_sensitive(true);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_parse_and_a_realm_comes_before_basic() {
        let bearer = r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:a/b:pull,push""#;
        assert_eq!(
            parse(&[r#"Basic realm="x""#.into(), bearer.into()]),
            Some(Challenge::Bearer(Bearer {
                realm: "https://auth.docker.io/token".into(),
                service: Some("registry.docker.io".into()),
                scope: Some("repository:a/b:pull,push".into()),
            }))
        );
        assert_eq!(
            parse(&[r#"basic realm="Registry Realm""#.into()]),
            Some(Challenge::Basic)
        );
        assert_eq!(
            parse(&[r#"Bearer realm=http://127.0.0.2:9/t, service=x"#.into()]),
            Some(Challenge::Bearer(Bearer {
                realm: "http://127.0.0.2:9/t".into(),
                service: Some("x".into()),
                scope: None,
            }))
        );
        assert!(parse(&[r#"Bearer realm="a\"b""#.into()]).is_some());
        assert_eq!(parse(&["Bearer service=x".into()]), None);
        assert_eq!(parse(&["Negotiate".into()]), None);
    }
}
