//! `[credentials.NAME]`: secrets the host adds to a plugin's outgoing HTTP requests, so the
//! plugin never holds them. Each is read from an environment variable or a file when a
//! request needs it (never written inline in the manifest), has a kind (how it goes into the
//! request) and is bound to origins: only a request to one of them gets it, whatever the
//! plugin's grant allows.

use super::glob::GlobList;
use super::owned::Reach;
use super::validate::{Validator, valid_name};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use toml::Spanned;
use url::Url;

/// `[credentials.NAME]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialSpec {
    /// How the value goes into a request: `bearer`, `basic`, `header`, `query` or `oauth2`.
    /// Example: `kind = "bearer"`.
    pub kind: Spanned<String>,
    /// The environment variable of the warden process holding the value (for `basic` the
    /// password, for `oauth2` the client secret). Example: `env = "GITHUB_TOKEN"`.
    pub env: Option<Spanned<String>>,
    /// A file holding the value (surrounding whitespace is trimmed), relative to the manifest.
    /// Example: `file = "/run/secrets/github"`.
    pub file: Option<Spanned<String>>,
    /// Refused: a credential is never written into the manifest. Kept to say so.
    pub value: Option<Spanned<toml::Value>>,
    /// Origins whose requests get the credential. Example: `origins = ["https://api.github.com"]`.
    #[serde(default)]
    pub origins: Vec<Spanned<String>>,
    /// `basic`: the user name. Example: `user = "deploy"`.
    pub user: Option<Spanned<String>>,
    /// `header`: the header the value is sent in. Example: `header = "X-Api-Key"`.
    pub header: Option<Spanned<String>>,
    /// `query`: the query parameter the value is sent in. Example: `param = "api_key"`.
    pub param: Option<Spanned<String>>,
    /// `oauth2`: `client_credentials` or `refresh_token`. Example: `flow = "client_credentials"`.
    pub flow: Option<Spanned<String>>,
    /// `oauth2`: the token endpoint. Example: `token_url = "https://auth.example.com/oauth/token"`.
    pub token_url: Option<Spanned<String>>,
    /// `oauth2`: the client id. Example: `client_id = "warden"`.
    pub client_id: Option<Spanned<String>>,
    /// `oauth2` with `flow = "refresh_token"`: where the refresh token is.
    /// Example: `refresh_token = { env = "CRM_REFRESH_TOKEN" }`.
    pub refresh_token: Option<Spanned<SourceSpec>>,
    /// `oauth2`: scopes asked for. Example: `scopes = ["read", "write"]`.
    #[serde(default)]
    pub scopes: Vec<String>,
}

/// `{ env = "VAR" }` or `{ file = "path" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    pub env: Option<String>,
    pub file: Option<String>,
}

/// Where a credential's value is read from, when a request needs it.
#[derive(Clone, PartialEq, Eq)]
pub enum ValueSource {
    Env(String),
    File(PathBuf),
}

impl ValueSource {
    /// The value, or a message that names what to set (never the value).
    pub fn read(&self) -> Result<String, String> {
        match self {
            Self::Env(var) => match std::env::var(var) {
                Ok(v) if !v.trim().is_empty() => Ok(v.trim().to_string()),
                _ => Err(format!(
                    "environment variable {var} is not set for the warden process"
                )),
            },
            Self::File(path) => match std::fs::read_to_string(path) {
                Ok(v) if !v.trim().is_empty() => Ok(v.trim().to_string()),
                Ok(_) => Err(format!("{} is empty", path.display())),
                Err(e) => Err(format!("cannot read {}: {e}", path.display())),
            },
        }
    }
}

/// Names where the value is, never the value.
impl fmt::Debug for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Env(var) => write!(f, "env {var}"),
            Self::File(path) => write!(f, "file {}", path.display()),
        }
    }
}

/// How a credential goes into a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialKind {
    /// `Authorization: Bearer VALUE`.
    Bearer,
    /// `Authorization: Basic base64(user:VALUE)`.
    Basic { user: String },
    /// `NAME: VALUE`, the header name lowercased.
    Header { name: String },
    /// `?PARAM=VALUE` added to the URL.
    Query { param: String },
    /// `Authorization: Bearer TOKEN`, the token fetched by the host from `token_url`.
    OAuth2(OAuth2),
}

impl CredentialKind {
    /// How the host adds it, for `warden check`: never the value, nor the basic user.
    pub fn describe(&self) -> String {
        match self {
            Self::Bearer => "bearer".into(),
            Self::Basic { .. } => "basic".into(),
            Self::Header { name } => format!("header {name}"),
            Self::Query { param } => format!("query parameter {param}"),
            Self::OAuth2(o) => match o.flow {
                OAuthFlow::ClientCredentials => "oauth2 client-credentials".into(),
                OAuthFlow::RefreshToken => "oauth2 refresh-token".into(),
            },
        }
    }
}

/// An OAuth 2 flow the host runs to get an access token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuth2 {
    pub flow: OAuthFlow,
    pub token_url: Url,
    pub client_id: String,
    pub refresh_token: Option<ValueSource>,
    pub scopes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthFlow {
    ClientCredentials,
    RefreshToken,
}

/// A validated `[credentials.NAME]`.
#[derive(Debug)]
pub struct Credential {
    pub name: String,
    pub kind: CredentialKind,
    /// The value (`basic`: the password; `oauth2`: the client secret).
    pub source: ValueSource,
    pub origins: GlobList,
}

/// Request headers a credential may not be sent in: they steer the connection or the body.
const NOT_A_CREDENTIAL_HEADER: &[&str] = &[
    "host",
    "connection",
    "content-length",
    "content-type",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "keep-alive",
    "cookie",
];

impl Validator<'_> {
    /// Every `[credentials.NAME]`, validated; a broken one is an error at its line.
    pub(super) fn credentials(
        &mut self,
        specs: BTreeMap<String, Spanned<CredentialSpec>>,
    ) -> BTreeMap<String, Arc<Credential>> {
        let mut out = BTreeMap::new();
        for (name, spec) in specs {
            let span = spec.span();
            let spec = spec.into_inner();
            if !valid_name(&name) {
                self.error(
                    span.clone(),
                    format!("credentials: name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"),
                );
            }
            if let Some(v) = &spec.value {
                self.error(
                    v.span(),
                    format!("credentials.{name}.value: a credential is never written into the manifest; put it in an environment variable (env = \"VAR\") or a file (file = \"/run/secrets/{name}\")"),
                );
            }
            let source = self.value_source(
                &format!("credentials.{name}"),
                span.clone(),
                spec.env.as_ref().map(|e| e.get_ref().as_str()),
                spec.file.as_ref().map(|f| f.get_ref().as_str()),
            );
            let origins = self.credential_origins(&name, span.clone(), &spec.origins);
            let kind = self.credential_kind(&name, span, &spec);
            if let (Some(kind), Some(source)) = (kind, source) {
                out.insert(
                    name.clone(),
                    Arc::new(Credential {
                        name,
                        kind,
                        source,
                        origins,
                    }),
                );
            }
        }
        out
    }

    fn value_source(
        &mut self,
        key: &str,
        span: std::ops::Range<usize>,
        env: Option<&str>,
        file: Option<&str>,
    ) -> Option<ValueSource> {
        match (env, file) {
            (Some(var), None) if !var.trim().is_empty() => {
                Some(ValueSource::Env(var.trim().to_string()))
            }
            (None, Some(path)) if !path.trim().is_empty() => Some(ValueSource::File(
                self.resolve_owned(path.trim(), &format!("{key}'s file"), Reach::Secret),
            )),
            _ => {
                self.error(
                    span,
                    format!("{key}: set exactly one of env = \"VAR\" or file = \"PATH\" (where the host reads the value; never the value itself)"),
                );
                None
            }
        }
    }

    /// Required, http(s), and naming a host: a credential bound to `https://*` would go to
    /// every server the plugin may call.
    fn credential_origins(
        &mut self,
        name: &str,
        span: std::ops::Range<usize>,
        origins: &[Spanned<String>],
    ) -> GlobList {
        let key = format!("credentials.{name}.origins");
        if origins.is_empty() {
            self.error(
                span,
                format!("{key} is missing or empty: bind the credential to the origins it is sent to, e.g. origins = [\"https://api.example.com\"]"),
            );
        }
        for o in origins {
            let text = o.get_ref();
            let Some((scheme, rest)) = text.split_once("://") else {
                self.error(o.span(), format!("{key}: \"{text}\" must be an http(s) origin like \"https://api.example.com\""));
                continue;
            };
            if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
                self.error(
                    o.span(),
                    format!("{key}: \"{text}\" must use http or https"),
                );
            } else if rest.is_empty()
                || rest.starts_with('*') && rest.trim_start_matches(['*', '.', ':']).is_empty()
                || rest.contains('/')
            {
                self.error(o.span(), format!("{key}: \"{text}\" must name a host (a glob such as \"https://*.example.com\" is fine; \"*\" alone and paths are not)"));
            }
        }
        self.globs(&key, origins)
    }

    fn credential_kind(
        &mut self,
        name: &str,
        span: std::ops::Range<usize>,
        spec: &CredentialSpec,
    ) -> Option<CredentialKind> {
        let key = format!("credentials.{name}");
        let kind = spec.kind.get_ref().trim().to_ascii_lowercase();
        // Keys that belong to another kind are errors, so a typo in `kind` is not silent.
        let used: &[(&str, bool)] = &[
            ("user", spec.user.is_some()),
            ("header", spec.header.is_some()),
            ("param", spec.param.is_some()),
            ("flow", spec.flow.is_some()),
            ("token_url", spec.token_url.is_some()),
            ("client_id", spec.client_id.is_some()),
            ("refresh_token", spec.refresh_token.is_some()),
            ("scopes", !spec.scopes.is_empty()),
        ];
        let allowed: &[&str] = match kind.as_str() {
            "bearer" => &[],
            "basic" => &["user"],
            "header" => &["header"],
            "query" => &["param"],
            "oauth2" => &["flow", "token_url", "client_id", "refresh_token", "scopes"],
            other => {
                self.error(
                    spec.kind.span(),
                    format!("{key}.kind: \"{other}\" is not a kind; write one of \"bearer\", \"basic\", \"header\", \"query\", \"oauth2\""),
                );
                return None;
            }
        };
        for (k, set) in used {
            if *set && !allowed.contains(k) {
                self.error(
                    span.clone(),
                    format!("{key}.{k} does not apply to kind = \"{kind}\"; remove it or change the kind"),
                );
            }
        }
        let required = |v: &Option<Spanned<String>>| {
            v.as_ref()
                .map(|s| s.get_ref().trim().to_string())
                .filter(|s| !s.is_empty())
        };
        match kind.as_str() {
            "bearer" => Some(CredentialKind::Bearer),
            "basic" => match required(&spec.user) {
                Some(user) if !user.contains(':') => Some(CredentialKind::Basic { user }),
                Some(_) => {
                    self.error(span, format!("{key}.user must not contain ':' (it separates user and password in Basic authentication)"));
                    None
                }
                None => {
                    self.error(span, format!("{key}.user is missing: kind = \"basic\" sends user and password; write user = \"NAME\""));
                    None
                }
            },
            "header" => {
                let Some(header) = required(&spec.header) else {
                    self.error(span, format!("{key}.header is missing: kind = \"header\" sends the value in a header; write header = \"X-Api-Key\""));
                    return None;
                };
                let lower = header.to_ascii_lowercase();
                if http::HeaderName::from_bytes(lower.as_bytes()).is_err()
                    || NOT_A_CREDENTIAL_HEADER.contains(&lower.as_str())
                    || lower.starts_with("proxy-")
                {
                    self.error(span, format!("{key}.header: \"{header}\" is not a header a credential can be sent in; name one such as \"X-Api-Key\" or \"Authorization\""));
                    return None;
                }
                Some(CredentialKind::Header { name: lower })
            }
            "query" => {
                let Some(param) = required(&spec.param) else {
                    self.error(span, format!("{key}.param is missing: kind = \"query\" sends the value as a query parameter; write param = \"api_key\""));
                    return None;
                };
                Some(CredentialKind::Query { param })
            }
            _ => self.oauth2(&key, span, spec).map(CredentialKind::OAuth2),
        }
    }

    fn oauth2(
        &mut self,
        key: &str,
        span: std::ops::Range<usize>,
        spec: &CredentialSpec,
    ) -> Option<OAuth2> {
        let flow = match spec.flow.as_ref().map(|f| f.get_ref().trim()) {
            Some("client_credentials") => OAuthFlow::ClientCredentials,
            Some("refresh_token") => OAuthFlow::RefreshToken,
            _ => {
                self.error(span, format!("{key}.flow: write flow = \"client_credentials\" or flow = \"refresh_token\""));
                return None;
            }
        };
        let token_url = match spec.token_url.as_ref() {
            Some(u) => match Url::parse(u.get_ref().trim()) {
                Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => url,
                _ => {
                    self.error(
                        u.span(),
                        format!(
                            "{key}.token_url: \"{}\" is not an absolute http(s) URL",
                            u.get_ref()
                        ),
                    );
                    return None;
                }
            },
            None => {
                self.error(span, format!("{key}.token_url is missing: the host fetches the access token there; write token_url = \"https://auth.example.com/oauth/token\""));
                return None;
            }
        };
        let Some(client_id) = spec
            .client_id
            .as_ref()
            .map(|c| c.get_ref().trim().to_string())
            .filter(|c| !c.is_empty())
        else {
            self.error(
                span,
                format!("{key}.client_id is missing; write client_id = \"...\""),
            );
            return None;
        };
        let refresh_token = match (flow, &spec.refresh_token) {
            (OAuthFlow::RefreshToken, Some(r)) => {
                let (env, file) = (r.get_ref().env.clone(), r.get_ref().file.clone());
                Some(self.value_source(
                    &format!("{key}.refresh_token"),
                    r.span(),
                    env.as_deref(),
                    file.as_deref(),
                )?)
            }
            (OAuthFlow::RefreshToken, None) => {
                self.error(span, format!("{key}.refresh_token is missing: flow = \"refresh_token\" needs it; write refresh_token = {{ env = \"VAR\" }}"));
                return None;
            }
            (OAuthFlow::ClientCredentials, Some(r)) => {
                self.error(
                    r.span(),
                    format!("{key}.refresh_token applies to flow = \"refresh_token\" only"),
                );
                return None;
            }
            (OAuthFlow::ClientCredentials, None) => None,
        };
        Some(OAuth2 {
            flow,
            token_url,
            client_id,
            refresh_token,
            scopes: spec.scopes.clone(),
        })
    }
}
