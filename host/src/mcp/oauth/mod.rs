//! Warden as an OAuth 2.1 resource server (MCP authorization, `[server.http.oauth]`):
//! - the protected resource metadata (RFC 9728) that tells a client which authorization
//!   server to get a token from, and the `WWW-Authenticate` challenges that point to it;
//! - bearer JWTs from that server: signature against its JWKS (`jws.rs`, `jwks.rs`), then
//!   `iss`, `aud` (RFC 8707: a token for another resource is refused, never passed on),
//!   `exp`/`nbf`, the required scopes, and the mapping of the token to a named client.

mod jwks;
mod jws;

use crate::manifest::{OAuthClientRule, OAuthConfig};
use jwks::{JwksCache, Lookup};
use jws::{Jws, JwsError};
use serde::Deserialize;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Clock skew tolerated on `exp` and `nbf`.
const LEEWAY: Duration = Duration::from_secs(30);

/// Where RFC 9728 puts the metadata: this prefix, then the resource's path.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Why a bearer token is refused. The texts go into `error_description` and the audit log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// 401 `invalid_token`.
    #[error("{0}")]
    Invalid(&'static str),
    /// 403 `insufficient_scope`: the token is valid, but not for this.
    #[error("{reason}")]
    Insufficient { reason: String },
}

impl From<JwsError> for Refusal {
    fn from(e: JwsError) -> Self {
        Self::Invalid(match e {
            JwsError::Malformed => "the token is not a signed JWT",
            JwsError::Algorithm => "the token's algorithm is not the signing key's",
            JwsError::Critical => "the token has critical header parameters",
            JwsError::Signature => "the token's signature does not verify",
        })
    }
}

/// The configured resource server: built once when serving starts.
pub struct OAuth {
    config: OAuthConfig,
    keys: JwksCache,
    metadata_url: String,
    metadata: String,
}

/// The OAuth settings could not be put to use.
#[derive(Debug, thiserror::Error)]
#[error("server.http.oauth: cannot build the HTTP client for jwks_url: {0}")]
pub struct OAuthError(#[from] reqwest::Error);

/// `aud`: one string or an array (RFC 7519 §4.1.3).
#[derive(Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

/// `scp`: an array (Okta, Entra) or a space-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scp {
    Text(String),
    List(Vec<String>),
}

#[derive(Deserialize)]
struct Claims {
    iss: Option<String>,
    aud: Option<Audience>,
    exp: Option<f64>,
    nbf: Option<f64>,
    sub: Option<String>,
    /// RFC 8693 / RFC 9068: space-separated.
    scope: Option<String>,
    scp: Option<Scp>,
    client_id: Option<String>,
    azp: Option<String>,
}

impl Claims {
    fn scopes(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .scope
            .as_deref()
            .map(|s| s.split_whitespace().collect())
            .unwrap_or_default();
        match &self.scp {
            Some(Scp::Text(s)) => out.extend(s.split_whitespace()),
            Some(Scp::List(l)) => out.extend(l.iter().map(String::as_str)),
            None => {}
        }
        out
    }
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl OAuth {
    pub fn new(config: OAuthConfig) -> Result<Self, OAuthError> {
        let keys = JwksCache::new(config.jwks_url.clone(), config.jwks_min_refresh)?;
        let url = &config.resource_url;
        let path = url.path().trim_end_matches('/');
        let metadata_url = format!(
            "{}://{}{WELL_KNOWN}{path}",
            url.scheme(),
            &url[url::Position::BeforeHost..url::Position::AfterPort]
        );
        let mut metadata = serde_json::json!({
            "resource": config.resource,
            "authorization_servers": [config.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": "Warden",
        });
        if !config.scopes_supported.is_empty() {
            metadata["scopes_supported"] = config.scopes_supported.clone().into();
        }
        Ok(Self {
            metadata: metadata.to_string(),
            metadata_url,
            keys,
            config,
        })
    }

    /// The paths the metadata is served at: the RFC 9728 §3.1 form for the resource's path,
    /// and the bare well-known path that clients fall back to.
    pub fn metadata_paths(&self) -> Vec<String> {
        let path = self.config.resource_url.path().trim_end_matches('/');
        let mut paths = vec![WELL_KNOWN.to_string()];
        if !path.is_empty() {
            paths.push(format!("{WELL_KNOWN}{path}"));
        }
        paths
    }

    /// The metadata document (JSON).
    pub fn metadata(&self) -> &str {
        &self.metadata
    }

    /// The `WWW-Authenticate` value for a refusal (`None`: no token was presented).
    pub fn challenge(&self, refusal: Option<&Refusal>) -> String {
        let mut params = Vec::new();
        match refusal {
            Some(Refusal::Invalid(why)) => {
                params.push("error=\"invalid_token\"".to_string());
                params.push(format!("error_description=\"{why}\""));
            }
            Some(Refusal::Insufficient { reason }) => {
                params.push("error=\"insufficient_scope\"".to_string());
                params.push(format!(
                    "error_description=\"{}\"",
                    reason.replace(['"', '\\'], "'")
                ));
            }
            None => {}
        }
        params.push(format!("resource_metadata=\"{}\"", self.metadata_url));
        if !self.config.required_scopes.is_empty() {
            params.push(format!(
                "scope=\"{}\"",
                self.config.required_scopes.join(" ")
            ));
        }
        format!("Bearer {}", params.join(", "))
    }

    pub fn issuer(&self) -> &str {
        &self.config.issuer
    }

    /// The named client a bearer token authenticates, or why it is refused.
    pub async fn authorize(&self, token: &str) -> Result<Arc<str>, Refusal> {
        let jws = Jws::parse(token)?;
        let key = match self.keys.key(jws.kid.as_deref()).await {
            Lookup::Found(key) => key,
            Lookup::Unknown => {
                return Err(Refusal::Invalid(
                    "the token's signing key (kid) is not in the issuer's JWKS",
                ));
            }
            Lookup::Ambiguous => {
                return Err(Refusal::Invalid(
                    "the token names no signing key (kid) and the JWKS has several",
                ));
            }
            Lookup::Unavailable => {
                return Err(Refusal::Invalid(
                    "the token's signing key (kid) is not among the issuer's keys Warden holds: the issuer's JWKS could not be fetched (the server log says why)",
                ));
            }
        };
        let payload = jws.verify(&key)?;
        let claims: Claims = serde_json::from_slice(&payload)
            .map_err(|_| Refusal::Invalid("the token's claims are not a JWT claims set"))?;
        self.check(&claims, now())
    }

    /// The claims checks, after the signature verified.
    fn check(&self, claims: &Claims, now: f64) -> Result<Arc<str>, Refusal> {
        let leeway = LEEWAY.as_secs_f64();
        if claims.iss.as_deref() != Some(self.config.issuer.as_str()) {
            return Err(Refusal::Invalid("the token is from another issuer"));
        }
        let audience = self.config.audience.as_str();
        let for_us = match &claims.aud {
            Some(Audience::One(a)) => a == audience,
            Some(Audience::Many(list)) => list.iter().any(|a| a == audience),
            None => false,
        };
        if !for_us {
            return Err(Refusal::Invalid(
                "the token's audience is not this resource",
            ));
        }
        match claims.exp {
            None => return Err(Refusal::Invalid("the token has no expiry (exp)")),
            Some(exp) if exp + leeway <= now => {
                return Err(Refusal::Invalid("the token has expired"));
            }
            Some(_) => {}
        }
        if claims.nbf.is_some_and(|nbf| nbf - leeway > now) {
            return Err(Refusal::Invalid("the token is not valid yet (nbf)"));
        }
        let scopes = claims.scopes();
        let missing: Vec<&str> = self
            .config
            .required_scopes
            .iter()
            .map(String::as_str)
            .filter(|s| !scopes.contains(s))
            .collect();
        if !missing.is_empty() {
            return Err(Refusal::Insufficient {
                reason: format!("the token lacks the scope(s) {}", missing.join(" ")),
            });
        }
        let client_id = claims.client_id.as_deref().or(claims.azp.as_deref());
        let matches = |rule: &OAuthClientRule| {
            let set = rule.subject.is_some() || rule.client_id.is_some() || rule.scope.is_some();
            set && rule
                .subject
                .as_deref()
                .is_none_or(|s| claims.sub.as_deref() == Some(s))
                && rule
                    .client_id
                    .as_deref()
                    .is_none_or(|c| client_id == Some(c))
                && rule.scope.as_deref().is_none_or(|s| scopes.contains(&s))
        };
        match self.config.clients.iter().find(|r| matches(r)) {
            Some(rule) => Ok(Arc::from(rule.name.as_str())),
            None => match &self.config.default_client {
                Some(name) => Ok(Arc::from(name.as_str())),
                None => Err(Refusal::Insufficient {
                    reason: "the token is valid but names no client of this server ([server.http.oauth.clients])".into(),
                }),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config() -> OAuthConfig {
        let resource = "https://warden.example.com/mcp".to_string();
        OAuthConfig {
            issuer: "https://idp.example.com".into(),
            jwks_url: url::Url::parse("https://idp.example.com/jwks").expect("url"),
            resource_url: url::Url::parse(&resource).expect("url"),
            audience: resource.clone(),
            resource,
            scopes_supported: vec!["mcp".into(), "admin".into()],
            required_scopes: vec!["mcp".into()],
            clients: vec![
                OAuthClientRule {
                    name: "admins".into(),
                    scope: Some("admin".into()),
                    ..Default::default()
                },
                OAuthClientRule {
                    name: "ci".into(),
                    client_id: Some("ci-runner".into()),
                    ..Default::default()
                },
            ],
            default_client: None,
            jwks_min_refresh: Duration::from_secs(30),
        }
    }

    fn claims(extra: serde_json::Value) -> Claims {
        let mut c = json!({
            "iss": "https://idp.example.com",
            "aud": ["https://other.example.com", "https://warden.example.com/mcp"],
            "exp": 2000.0, "nbf": 1000, "sub": "u1", "scope": "mcp", "client_id": "ci-runner",
        });
        for (k, v) in extra.as_object().expect("object") {
            c[k] = v.clone();
        }
        serde_json::from_value(c).expect("claims")
    }

    #[test]
    fn claims_are_checked_and_mapped_to_a_client() {
        let oauth = OAuth::new(config()).expect("oauth");
        let ok = |extra, now| oauth.check(&claims(extra), now);
        assert_eq!(ok(json!({}), 1500.0).as_deref(), Ok("ci"));
        assert_eq!(
            ok(json!({"scope": "mcp admin"}), 1500.0).as_deref(),
            Ok("admins")
        );
        assert_eq!(
            ok(json!({"scope": null, "scp": ["mcp"]}), 1500.0).as_deref(),
            Ok("ci")
        );
        assert_eq!(
            ok(json!({"client_id": null, "azp": "ci-runner"}), 1500.0).as_deref(),
            Ok("ci")
        );
        // Leeway on both ends.
        assert!(ok(json!({}), 2000.0 + 29.0).is_ok());
        assert!(ok(json!({}), 1000.0 - 29.0).is_ok());

        let refused = |extra, now| match ok(extra, now) {
            Err(Refusal::Invalid(why)) => why.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(refused(json!({}), 2031.0).contains("expired"));
        assert!(refused(json!({}), 969.0).contains("not valid yet"));
        assert!(refused(json!({"exp": null}), 1500.0).contains("no expiry"));
        assert!(refused(json!({"iss": "https://evil.example.com"}), 1500.0).contains("issuer"));
        assert!(refused(json!({"aud": "https://other.example.com"}), 1500.0).contains("audience"));
        assert!(refused(json!({"aud": null}), 1500.0).contains("audience"));

        match ok(json!({"scope": "admin"}), 1500.0) {
            Err(Refusal::Insufficient { reason }) => assert!(reason.contains("mcp"), "{reason}"),
            other => panic!("{other:?}"),
        }
        match ok(json!({"client_id": "someone"}), 1500.0) {
            Err(Refusal::Insufficient { reason }) => assert!(reason.contains("no client")),
            other => panic!("{other:?}"),
        }
        let mut with_default = config();
        with_default.default_client = Some("anyone".into());
        let oauth = OAuth::new(with_default).expect("oauth");
        assert_eq!(
            oauth
                .check(&claims(json!({"client_id": "someone"})), 1500.0)
                .as_deref(),
            Ok("anyone")
        );
    }

    #[test]
    fn metadata_and_challenges_point_at_each_other() {
        let oauth = OAuth::new(config()).expect("oauth");
        assert_eq!(
            oauth.metadata_paths(),
            [WELL_KNOWN, "/.well-known/oauth-protected-resource/mcp"]
        );
        let doc: serde_json::Value = serde_json::from_str(oauth.metadata()).expect("json");
        assert_eq!(doc["resource"], "https://warden.example.com/mcp");
        assert_eq!(
            doc["authorization_servers"],
            json!(["https://idp.example.com"])
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        assert_eq!(
            oauth.challenge(None),
            "Bearer resource_metadata=\"https://warden.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\""
        );
        let expired = oauth.challenge(Some(&Refusal::Invalid("the token has expired")));
        assert!(expired.starts_with("Bearer error=\"invalid_token\", error_description=\"the token has expired\", resource_metadata="));
    }

    #[tokio::test]
    async fn a_valid_es256_token_is_authorized_end_to_end() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // A JWKS server on loopback, so the fetch path runs too.
        let (pair, jwk) = jws::tests::es256("k1");
        let body = json!({"keys": [jwk]}).to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            while let Ok((mut s, _)) = listener.accept().await {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(reply.as_bytes()).await;
            }
        });
        let mut config = config();
        config.jwks_url = url::Url::parse(&format!("http://{addr}/jwks")).expect("url");
        let oauth = OAuth::new(config).expect("oauth");
        let claims = json!({
            "iss": "https://idp.example.com", "aud": "https://warden.example.com/mcp",
            "exp": now() + 60.0, "scope": "mcp", "client_id": "ci-runner",
        });
        let token = jws::tests::sign_es256(&pair, &json!({"alg": "ES256", "kid": "k1"}), &claims);
        assert_eq!(oauth.authorize(&token).await.as_deref(), Ok("ci"));
        let unknown = jws::tests::sign_es256(&pair, &json!({"alg": "ES256", "kid": "k2"}), &claims);
        assert!(
            matches!(oauth.authorize(&unknown).await, Err(Refusal::Invalid(w)) if w.contains("kid"))
        );
    }
}
