//! `[credentials.NAME]` put into a plugin's request after the plugin handed it over: the
//! value read where the manifest says (an environment variable, a file) or, for `oauth2`, an
//! access token the host fetched from the token endpoint, kept until it expires and fetched
//! again then. A header of the same name the plugin set is replaced, never merged, so the
//! server sees the host's credential only. Every value a credential's tokens have had stays
//! in its scrub set while it may still be valid ([`Tokens::known`]): a server may echo the
//! token it was sent before the last refresh, which still works until it expires. Nothing here writes a value into an error, a log
//! line or an audit line: errors name where the value should be, never what it is.

use crate::manifest::credentials::{Credential, CredentialKind, OAuth2, OAuthFlow};
use crate::net::{self, pinned};
use base64::Engine as _;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// Largest token endpoint answer read.
const MAX_TOKEN_RESPONSE: usize = 64 * 1024;
/// Time for the token endpoint to answer.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(15);
/// A token is fetched again this long before the endpoint said it expires.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);
/// How long a token without `expires_in` is kept.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
/// A past access token stays in the scrub set this long after the endpoint said it expires
/// (clocks differ, servers accept a token a little late).
const VALID_GRACE: Duration = Duration::from_secs(120);
/// How long a past value of unknown lifetime (a token without `expires_in`, a rotated
/// refresh token) stays in the scrub set.
const UNKNOWN_KEPT: Duration = Duration::from_secs(24 * 3600);
/// Past values kept per credential at most, the oldest dropped first: memory stays bounded
/// whatever an endpoint's lifetimes.
const KEPT_MAX: usize = 256;

/// A credential could not be added: the request is not sent.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// The value is not where the manifest says (the message names where; never a value).
    #[error(
        "credential \"{name}\" is not available: {why}; fix it for the warden process, or fix [credentials.{name}]"
    )]
    Unavailable { name: String, why: String },
    /// The token endpoint did not give a token.
    #[error("credential \"{name}\": no access token from {endpoint}: {why}")]
    Token {
        name: String,
        endpoint: String,
        why: String,
    },
}

/// What a credential put into a request, for the scrubber: every secret a server could echo.
#[derive(Debug, Default)]
pub struct Applied {
    pub secrets: Vec<String>,
}

/// Add `credential` to the request: its headers and URL, before it is sent.
pub async fn apply(
    credential: &Credential,
    tokens: &Tokens,
    headers: &mut http::HeaderMap,
    url: &mut Url,
) -> Result<Applied, CredentialError> {
    let unavailable = |why: String| CredentialError::Unavailable {
        name: credential.name.clone(),
        why,
    };
    let mut applied = Applied::default();
    let header = |value: &str| {
        http::HeaderValue::from_str(value).map_err(|_| {
            unavailable("the value holds characters a header cannot carry".to_string())
        })
    };
    match &credential.kind {
        CredentialKind::Bearer => {
            let value = credential.source.read().map_err(unavailable)?;
            let mut v = header(&format!("Bearer {value}"))?;
            v.set_sensitive(true);
            headers.insert(http::header::AUTHORIZATION, v);
            applied.secrets.push(value);
        }
        CredentialKind::Basic { user } => {
            let password = credential.source.read().map_err(unavailable)?;
            let pair =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            let mut v = header(&format!("Basic {pair}"))?;
            v.set_sensitive(true);
            headers.insert(http::header::AUTHORIZATION, v);
            applied.secrets.push(pair);
            applied.secrets.push(password);
        }
        CredentialKind::Header { name } => {
            let value = credential.source.read().map_err(unavailable)?;
            let name = http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| unavailable(format!("\"{name}\" is not a header name")))?;
            let mut v = header(&value)?;
            v.set_sensitive(true);
            headers.remove(&name);
            headers.insert(name, v);
            applied.secrets.push(value);
        }
        CredentialKind::Query { param } => {
            let value = credential.source.read().map_err(unavailable)?;
            // The plugin's own parameter of that name is dropped: one value, the host's.
            let kept: Vec<(String, String)> = url
                .query_pairs()
                .filter(|(k, _)| k != param)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            url.query_pairs_mut()
                .clear()
                .extend_pairs(kept)
                .append_pair(param, &value);
            applied.secrets.push(value);
        }
        CredentialKind::OAuth2(oauth) => {
            let token = tokens.get(credential, oauth).await?;
            let mut v = header(&format!("Bearer {}", token.access))?;
            v.set_sensitive(true);
            headers.insert(http::header::AUTHORIZATION, v);
            applied.secrets.extend(token.secrets());
            applied.secrets.extend(tokens.known(&credential.name));
        }
    }
    Ok(applied)
}

/// An access token and what it took to get it.
#[derive(Clone)]
struct Token {
    access: String,
    /// The refresh token in use (the endpoint may hand out a new one with each token).
    refresh: Option<String>,
    client_secret: String,
    /// When it is fetched again: [`EXPIRY_MARGIN`] before the endpoint said it expires.
    expires: Instant,
    /// Until when a server may still accept it.
    valid_until: Instant,
}

impl Token {
    fn secrets(&self) -> Vec<String> {
        let mut out = vec![self.access.clone(), self.client_secret.clone()];
        out.extend(self.refresh.clone());
        out
    }
}

/// Access tokens per credential, fetched on first use and again when they expire; one fetch
/// at a time per credential, so a burst of requests waits for one token.
#[derive(Default)]
pub struct Tokens {
    slots: std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Token>>>>>,
    /// Every value each credential's tokens have had (by credential name), with the time
    /// until which it may be valid.
    held: std::sync::Mutex<HashMap<String, Vec<(String, Instant)>>>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens(<redacted>)")
    }
}

impl Tokens {
    async fn get(&self, credential: &Credential, oauth: &OAuth2) -> Result<Token, CredentialError> {
        // Keyed by everything that makes a token: a reload that changes the endpoint, the
        // client or the flow starts afresh.
        let key = format!(
            "{}\n{}\n{}\n{:?}\n{:?}",
            credential.name, oauth.token_url, oauth.client_id, oauth.flow, oauth.scopes
        );
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots.entry(key).or_default().clone()
        };
        let mut held = slot.lock().await;
        if let Some(token) = held.as_ref().filter(|t| t.expires > Instant::now()) {
            return Ok(token.clone());
        }
        let previous_refresh = held.as_ref().and_then(|t| t.refresh.clone());
        let token = fetch(credential, oauth, previous_refresh).await?;
        self.keep(&credential.name, &token);
        *held = Some(token.clone());
        Ok(token)
    }

    /// Put a fresh token's values in its credential's scrub set, until they may no longer
    /// be valid.
    fn keep(&self, name: &str, token: &Token) {
        let now = Instant::now();
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let values = held.entry(name.to_string()).or_default();
        values.retain(|(_, until)| *until > now);
        let mut add =
            |value: &str, until: Instant| match values.iter_mut().find(|(v, _)| v == value) {
                Some(kept) => kept.1 = kept.1.max(until),
                None => values.push((value.to_string(), until)),
            };
        add(&token.access, token.valid_until);
        if let Some(refresh) = &token.refresh {
            add(refresh, now + UNKNOWN_KEPT);
        }
        if values.len() > KEPT_MAX {
            let extra = values.len() - KEPT_MAX;
            values.drain(..extra);
        }
    }

    /// Every value the tokens of credential `name` have had that may still be valid: the
    /// current one, and those a refresh replaced but a server still accepts. Fetches nothing.
    pub fn known(&self, name: &str) -> Vec<String> {
        let now = Instant::now();
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let Some(values) = held.get_mut(name) else {
            return Vec::new();
        };
        values.retain(|(_, until)| *until > now);
        values.iter().map(|(v, _)| v.clone()).collect()
    }
}

/// Ask the token endpoint for an access token. The endpoint is a destination like any other:
/// resolved and checked by the private-network rule (only the address the manifest writes
/// literally opens private space), over the pinned client, its answer bounded.
async fn fetch(
    credential: &Credential,
    oauth: &OAuth2,
    refresh: Option<String>,
) -> Result<Token, CredentialError> {
    let name = credential.name.clone();
    let endpoint = oauth.token_url.origin().ascii_serialization() + oauth.token_url.path();
    let failed = |why: String| CredentialError::Token {
        name: name.clone(),
        endpoint: endpoint.clone(),
        why,
    };
    let client_secret = credential
        .source
        .read()
        .map_err(|why| CredentialError::Unavailable {
            name: name.clone(),
            why,
        })?;
    // Built before the first await: the serializer is not `Send`.
    let body = {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        match oauth.flow {
            OAuthFlow::ClientCredentials => {
                form.append_pair("grant_type", "client_credentials");
            }
            OAuthFlow::RefreshToken => {
                let refresh = match refresh {
                    Some(r) => r,
                    None => oauth
                        .refresh_token
                        .as_ref()
                        .ok_or_else(|| failed("no refresh_token is configured".into()))?
                        .read()
                        .map_err(|why| CredentialError::Unavailable {
                            name: name.clone(),
                            why,
                        })?,
                };
                form.append_pair("grant_type", "refresh_token");
                form.append_pair("refresh_token", &refresh);
            }
        }
        if !oauth.scopes.is_empty() {
            form.append_pair("scope", &oauth.scopes.join(" "));
        }
        form.finish()
    };
    let pattern = oauth.token_url.origin().ascii_serialization();
    let matched = [pattern.as_str()];
    let scheme = if oauth.token_url.scheme() == "https" {
        "https"
    } else {
        "http"
    };
    let client = pinned::client(
        &oauth.token_url,
        pinned::Pinning {
            key: net::Key {
                name: "credentials token_url",
                scheme: Some(scheme),
            },
            matched: &matched,
            user_agent: concat!("warden/", env!("CARGO_PKG_VERSION")),
            resolve_within: TOKEN_TIMEOUT,
            connect_timeout: Some(TOKEN_TIMEOUT),
            timeout: Some(TOKEN_TIMEOUT),
        },
    )
    .await
    .map_err(|e| failed(e.to_string()))?;
    let response = client
        .post(oauth.token_url.clone())
        .basic_auth(&oauth.client_id, Some(&client_secret))
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(http::header::ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| failed(crate::net::chain::request_error(&e)))?;
    let status = response.status();
    let mut response = response;
    let mut raw = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        failed(format!(
            "reading the answer failed: {}",
            crate::net::chain::request_error(&e)
        ))
    })? {
        if raw.len() + chunk.len() > MAX_TOKEN_RESPONSE {
            return Err(failed(format!(
                "the answer is over {MAX_TOKEN_RESPONSE} bytes"
            )));
        }
        raw.extend_from_slice(&chunk);
    }
    // The body is not quoted in any message: a token endpoint's error may echo a secret.
    if !status.is_success() {
        return Err(failed(format!("it answered HTTP {}", status.as_u16())));
    }
    let answer: serde_json::Value =
        serde_json::from_slice(&raw).map_err(|_| failed("the answer is not JSON".into()))?;
    let access = answer
        .get("access_token")
        .and_then(|v| v.as_str())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| failed("the answer has no access_token".into()))?
        .to_string();
    let said = answer
        .get("expires_in")
        .and_then(serde_json::Value::as_u64)
        .map(Duration::from_secs);
    let lifetime = said.unwrap_or(DEFAULT_LIFETIME);
    let now = Instant::now();
    let valid_until = match said {
        Some(life) => now + life.min(UNKNOWN_KEPT) + VALID_GRACE,
        None => now + UNKNOWN_KEPT,
    };
    let refresh = match oauth.flow {
        OAuthFlow::RefreshToken => answer
            .get("refresh_token")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .or_else(|| oauth.refresh_token.as_ref().and_then(|s| s.read().ok())),
        OAuthFlow::ClientCredentials => None,
    };
    tracing::info!(credential = %name, endpoint = %endpoint, "access token fetched, kept for {}s", lifetime.as_secs());
    Ok(Token {
        access,
        refresh,
        client_secret,
        expires: now + lifetime.saturating_sub(EXPIRY_MARGIN),
        valid_until,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::credentials::ValueSource;
    use crate::manifest::grants::GlobList;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A token endpoint on loopback that checks the client's credentials and counts calls.
    async fn token_endpoint(calls: Arc<AtomicUsize>) -> std::net::SocketAddr {
        let handler = move |headers: axum::http::HeaderMap, body: String| {
            let calls = calls.clone();
            async move {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                let basic =
                    base64::engine::general_purpose::STANDARD.encode("warden:s3cret-client");
                let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
                if auth != Some(&format!("Basic {basic}"))
                    || !body.contains("grant_type=client_credentials")
                {
                    return (
                        axum::http::StatusCode::UNAUTHORIZED,
                        "{\"error\":\"invalid_client\"}".to_string(),
                    );
                }
                (
                    axum::http::StatusCode::OK,
                    format!("{{\"access_token\":\"at-{n}\",\"expires_in\":3600}}"),
                )
            }
        };
        let router = axum::Router::new().route("/token", axum::routing::post(handler));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let addr = listener.local_addr().expect("an address");
        tokio::spawn(async move { axum::serve(listener, router).await });
        addr
    }

    #[tokio::test]
    async fn client_credentials_are_fetched_once_kept_and_sent_as_bearer() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let calls = Arc::new(AtomicUsize::new(0));
        let addr = token_endpoint(calls.clone()).await;
        let dir = tempfile::tempdir().expect("a directory");
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "s3cret-client\n").expect("written");
        let credential = Credential {
            name: "crm".into(),
            kind: CredentialKind::OAuth2(OAuth2 {
                flow: OAuthFlow::ClientCredentials,
                token_url: Url::parse(&format!("http://{addr}/token")).expect("url"),
                client_id: "warden".into(),
                refresh_token: None,
                scopes: vec!["read".into()],
            }),
            source: ValueSource::File(secret),
            origins: GlobList::new(&["https://api.crm.test".into()]).expect("globs"),
        };
        let tokens = Tokens::default();
        for _ in 0..3 {
            let mut headers = http::HeaderMap::new();
            headers.insert(
                http::header::AUTHORIZATION,
                http::HeaderValue::from_static("Bearer plugin"),
            );
            let mut url = Url::parse("https://api.crm.test/v1").expect("url");
            let applied = apply(&credential, &tokens, &mut headers, &mut url)
                .await
                .expect("applied");
            assert_eq!(
                headers.get_all(http::header::AUTHORIZATION).iter().count(),
                1
            );
            assert_eq!(headers[http::header::AUTHORIZATION], "Bearer at-1");
            assert!(applied.secrets.contains(&"at-1".to_string()));
            assert!(applied.secrets.contains(&"s3cret-client".to_string()));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1, "the token is kept");
        // A refresh: the token before it stays in the scrub set while it may be valid.
        {
            let slots = tokens.slots.lock().expect("slots");
            for slot in slots.values() {
                if let Some(t) = slot.try_lock().expect("free").as_mut() {
                    t.expires = Instant::now();
                }
            }
        }
        let mut headers = http::HeaderMap::new();
        let mut url = Url::parse("https://api.crm.test/v1").expect("url");
        let applied = apply(&credential, &tokens, &mut headers, &mut url)
            .await
            .expect("applied");
        assert_eq!(headers[http::header::AUTHORIZATION], "Bearer at-2");
        assert!(
            applied.secrets.contains(&"at-1".to_string()),
            "the past token is kept"
        );
        assert_eq!(
            tokens.known("crm"),
            vec!["at-1".to_string(), "at-2".to_string()]
        );

        // A wrong secret: no token, and no secret in the message.
        std::fs::write(
            match &credential.source {
                ValueSource::File(p) => p,
                ValueSource::Env(_) => unreachable!(),
            },
            "wrong-secret",
        )
        .expect("written");
        let fresh = Tokens::default();
        let mut headers = http::HeaderMap::new();
        let mut url = Url::parse("https://api.crm.test/v1").expect("url");
        let err = apply(&credential, &fresh, &mut headers, &mut url)
            .await
            .expect_err("refused");
        let text = err.to_string();
        assert!(text.contains("answered HTTP 401"), "{text}");
        assert!(
            !text.contains("wrong-secret") && !text.contains("invalid_client"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_query_credential_replaces_the_plugins_parameter() {
        let dir = tempfile::tempdir().expect("a directory");
        let key = dir.path().join("key");
        std::fs::write(&key, "k3y-value").expect("written");
        let credential = Credential {
            name: "weather".into(),
            kind: CredentialKind::Query {
                param: "appid".into(),
            },
            source: ValueSource::File(key),
            origins: GlobList::new(&["https://api.weather.test".into()]).expect("globs"),
        };
        let mut headers = http::HeaderMap::new();
        let mut url = Url::parse("https://api.weather.test/v1?q=Berlin&appid=mine").expect("url");
        apply(&credential, &Tokens::default(), &mut headers, &mut url)
            .await
            .expect("applied");
        assert_eq!(url.query(), Some("q=Berlin&appid=k3y-value"));
    }
}
