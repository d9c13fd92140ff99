//! `[server.http.oauth]`: the checks made when the manifest loads, so a typo in an issuer,
//! an http JWKS URL or a client rule is an error with its line, not a refused token later.

use super::client_limits::ClientLimits;
use super::schema::{HttpClient, OAuthSection};
use super::validate::{Validator, valid_name};
use std::collections::BTreeMap;
use std::time::Duration;
use toml::Spanned;
use url::Url;

/// `[server.http.oauth]`, validated.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    pub issuer: String,
    pub jwks_url: url::Url,
    /// As written (the metadata and the default audience use it verbatim).
    pub resource: String,
    pub resource_url: url::Url,
    pub audience: String,
    pub scopes_supported: Vec<String>,
    pub required_scopes: Vec<String>,
    /// In name order: the first that matches a token names it.
    pub clients: Vec<OAuthClientRule>,
    pub default_client: Option<String>,
    pub jwks_min_refresh: Duration,
}

/// `[server.http.oauth.clients.NAME]`: a token is this client's when every set field matches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthClientRule {
    pub name: String,
    pub subject: Option<String>,
    pub client_id: Option<String>,
    pub scope: Option<String>,
}

/// Default `[server.http.oauth] jwks_min_refresh`.
pub const DEFAULT_JWKS_MIN_REFRESH: Duration = Duration::from_secs(30);

/// A URL Warden fetches or names must be https, or http to this machine (tests, a local IdP).
fn secure_or_loopback(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

impl Validator<'_> {
    /// A required key of `[server.http.oauth]`, or an error at the table.
    fn oauth_required<'s>(
        &mut self,
        value: Option<&'s Spanned<String>>,
        key: &str,
        example: &str,
        table: &std::ops::Range<usize>,
    ) -> Option<&'s Spanned<String>> {
        if value.is_none() {
            self.error(
                table.clone(),
                format!("server.http.oauth.{key} is missing; write it like {key} = \"{example}\""),
            );
        }
        value
    }

    /// An absolute https URL (or http on loopback) for `key`.
    fn oauth_url(&mut self, key: &str, value: &Spanned<String>) -> Option<Url> {
        let text = value.get_ref().trim();
        match Url::parse(text) {
            Ok(url) if url.host().is_some() && secure_or_loopback(&url) => Some(url),
            Ok(url) if url.host().is_some() && url.scheme() == "http" => {
                self.error(value.span(), format!("server.http.oauth.{key}: \"{text}\" must use https (http is accepted only for a loopback host such as 127.0.0.1)"));
                None
            }
            _ => {
                self.error(
                    value.span(),
                    format!("server.http.oauth.{key}: \"{text}\" is not an absolute https URL"),
                );
                None
            }
        }
    }

    fn oauth_scopes(&mut self, key: &str, scopes: &[Spanned<String>]) -> Vec<String> {
        let mut out = Vec::new();
        for scope in scopes {
            let s = scope.get_ref();
            // RFC 6749 §3.3: scope tokens are printable ASCII without space, `"` or `\`.
            if s.is_empty()
                || !s
                    .bytes()
                    .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
            {
                self.error(scope.span(), format!("server.http.oauth.{key}: \"{s}\" is not a scope (printable ASCII, no spaces or quotes)"));
            } else {
                out.push(s.clone());
            }
        }
        out
    }

    /// Validate `[server.http.oauth]`; client limits go into `limits` beside the static
    /// clients' (a name may not be both: its limits and identity would be ambiguous).
    pub(super) fn oauth(
        &mut self,
        spec: &Spanned<OAuthSection>,
        static_clients: &BTreeMap<String, Spanned<HttpClient>>,
        limits: &mut BTreeMap<String, ClientLimits>,
    ) -> Option<OAuthConfig> {
        let table = spec.span();
        let spec = spec.get_ref();
        let errors_before = self.diagnostics.len();

        let issuer = self.oauth_required(
            spec.issuer.as_ref(),
            "issuer",
            "https://idp.example.com/realms/ops",
            &table,
        );
        let issuer = issuer.and_then(|i| {
            self.oauth_url("issuer", i)
                .map(|_| i.get_ref().trim().to_string())
        });
        let jwks_url = self
            .oauth_required(
                spec.jwks_url.as_ref(),
                "jwks_url",
                "https://idp.example.com/realms/ops/protocol/openid-connect/certs",
                &table,
            )
            .and_then(|u| self.oauth_url("jwks_url", u));
        let resource = self.oauth_required(
            spec.resource.as_ref(),
            "resource",
            "https://warden.example.com/mcp",
            &table,
        );
        let resource_url = resource.and_then(|r| {
            let url = self.oauth_url("resource", r)?;
            if url.fragment().is_some() || url.query().is_some() {
                self.error(r.span(), format!("server.http.oauth.resource: \"{}\" must have no query or fragment (RFC 8707 resource indicator)", r.get_ref()));
                return None;
            }
            Some(url)
        });
        let resource = resource.map(|r| r.get_ref().trim().to_string());
        let audience = match &spec.audience {
            Some(a) if a.get_ref().trim().is_empty() => {
                self.error(
                    a.span(),
                    "server.http.oauth.audience is empty; remove it to use resource".into(),
                );
                None
            }
            Some(a) => Some(a.get_ref().trim().to_string()),
            None => resource.clone(),
        };

        let scopes_supported = self.oauth_scopes("scopes_supported", &spec.scopes_supported);
        let required_scopes = self.oauth_scopes("required_scopes", &spec.required_scopes);
        if !scopes_supported.is_empty() {
            for scope in &spec.required_scopes {
                if !scopes_supported.contains(scope.get_ref()) {
                    self.error(scope.span(), format!("server.http.oauth.required_scopes: \"{}\" is not in scopes_supported; a client could not learn to ask for it", scope.get_ref()));
                }
            }
        }
        let jwks_min_refresh = self.duration(
            "server.http.oauth.jwks_min_refresh",
            spec.jwks_min_refresh.as_ref(),
            DEFAULT_JWKS_MIN_REFRESH,
        );

        let default_client = spec.default_client.as_ref().and_then(|d| {
            if spec.clients.contains_key(d.get_ref()) {
                Some(d.get_ref().clone())
            } else {
                self.error(d.span(), format!("server.http.oauth.default_client: \"{}\" is not a client; add [server.http.oauth.clients.{}]", d.get_ref(), d.get_ref()));
                None
            }
        });
        let mut clients = Vec::new();
        for (name, client) in &spec.clients {
            let span = client.span();
            let client = client.get_ref();
            let key = format!("server.http.oauth.clients.{name}");
            if !valid_name(name) {
                self.error(span.clone(), format!("server.http.oauth.clients: client name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"));
            }
            if static_clients.contains_key(name) {
                self.error(span.clone(), format!("{key}: \"{name}\" is also a static-token client ([server.http.clients.{name}]); give the OAuth client another name"));
            }
            let rule = OAuthClientRule {
                name: name.clone(),
                subject: client.subject.clone(),
                client_id: client.client_id.clone(),
                scope: client.scope.clone(),
            };
            let empty = rule.subject.is_none() && rule.client_id.is_none() && rule.scope.is_none();
            if empty && default_client.as_deref() != Some(name.as_str()) {
                self.error(span.clone(), format!("{key}: set subject, client_id or scope (what a token must carry to be this client), or name it in default_client"));
            }
            self.client_limits(
                &key,
                name,
                client.max_concurrent.as_ref(),
                client.rate.as_ref(),
                limits,
            );
            clients.push(rule);
        }

        if self.diagnostics.len() != errors_before {
            return None;
        }
        Some(OAuthConfig {
            issuer: issuer?,
            jwks_url: jwks_url?,
            resource: resource?,
            resource_url: resource_url?,
            audience: audience?,
            scopes_supported,
            required_scopes,
            clients,
            default_client,
            jwks_min_refresh,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::secure_or_loopback;
    use url::Url;

    #[test]
    fn only_https_or_loopback_http_is_fetched() {
        let ok = |u: &str| secure_or_loopback(&Url::parse(u).expect("url"));
        assert!(ok("https://idp.example.com/jwks"));
        assert!(ok("http://127.0.0.1:8080/jwks"));
        assert!(ok("http://[::1]:8080/jwks"));
        assert!(ok("http://localhost/jwks"));
        assert!(!ok("http://idp.example.com/jwks"));
        assert!(!ok("http://10.0.0.1/jwks"));
        assert!(!ok("file:///etc/jwks"));
    }
}
