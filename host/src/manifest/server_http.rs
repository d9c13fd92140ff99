//! `[server.http]`: the streamable HTTP transport's allowed hosts and origins, body limit,
//! and named clients with their tokens and limits (`[server.http.oauth]` is `oauth.rs`).

use super::client_limits::ClientLimits;
use super::oauth::OAuthConfig;
use super::schema;
use super::secret::SecretSource;
use super::validate::{Validator, valid_name};
use std::collections::BTreeMap;

/// `[server.http]`, validated.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub allowed_hosts: Option<Vec<String>>,
    pub allowed_origins: Vec<String>,
    pub max_body: u64,
    pub clients: Vec<(String, SecretSource)>,
    /// `max_concurrent` and `rate` of the named clients that set either.
    pub limits: BTreeMap<String, ClientLimits>,
    /// `[server.http.oauth]`: tokens from an external authorization server.
    pub oauth: Option<OAuthConfig>,
}

/// Default `[server.http] max_body`.
pub const DEFAULT_HTTP_MAX_BODY: u64 = 64 * 1024 * 1024;

impl Validator<'_> {
    pub(super) fn http(&mut self, spec: &schema::HttpSection) -> HttpConfig {
        for origin in &spec.allowed_origins {
            let o = origin.get_ref();
            if o != "null" && (!o.contains("://") || o.ends_with('/')) {
                self.error(
                    origin.span(),
                    format!("server.http.allowed_origins: \"{o}\" must be an origin like \"https://app.example.com\" (scheme, host, optional port; no path)"),
                );
            }
        }
        let mut clients = Vec::new();
        let mut limits = BTreeMap::new();
        for (name, client) in &spec.clients {
            let span = client.span();
            let client = client.get_ref();
            self.client_limits(
                &format!("server.http.clients.{name}"),
                name,
                client.max_concurrent.as_ref(),
                client.rate.as_ref(),
                &mut limits,
            );
            if !valid_name(name) {
                self.error(span.clone(), format!("server.http.clients: client name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"));
            }
            match (&client.token_env, &client.token) {
                (Some(var), None) => clients.push((name.clone(), SecretSource::Env(var.clone()))),
                (None, Some(token)) if token.len() >= 16 => clients.push((name.clone(), SecretSource::Literal(token.clone()))),
                (None, Some(_)) => self.error(span, format!("server.http.clients.{name}.token is shorter than 16 characters; use a long random token")),
                _ => self.error(span, format!("server.http.clients.{name}: set exactly one of token_env (preferred) or token")),
            }
        }
        let oauth = spec
            .oauth
            .as_ref()
            .and_then(|o| self.oauth(o, &spec.clients, &mut limits));
        HttpConfig {
            allowed_hosts: spec.allowed_hosts.clone(),
            allowed_origins: spec
                .allowed_origins
                .iter()
                .map(|o| o.get_ref().clone())
                .collect(),
            max_body: self.size(
                "server.http.max_body",
                spec.max_body.as_ref(),
                DEFAULT_HTTP_MAX_BODY,
            ),
            clients,
            oauth,
            limits,
        }
    }
}
