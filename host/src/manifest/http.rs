//! `grants.http`: the outgoing HTTP requests a plugin may make through standard
//! `wasi:http/outgoing-handler`: which origins, which methods, how large a body each way,
//! how long, how many at once, and which `[credentials.NAME]` the host adds to them. Checked
//! by the host on every request (`capabilities/http`).

use super::credentials::Credential;
use super::denied::{Denied, Fix, Owner};
use super::glob::GlobList;
use super::validate::Validator;
use super::values::size_text;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use toml::Spanned;
use url::Url;

/// Default `grants.http.methods`: reading only.
pub const DEFAULT_METHODS: &[&str] = &["GET", "HEAD"];
/// Default `grants.http.max_request_body`.
pub const DEFAULT_MAX_REQUEST_BODY: u64 = 1024 * 1024;
/// Default `grants.http.max_response_body`.
pub const DEFAULT_MAX_RESPONSE_BODY: u64 = 8 * 1024 * 1024;
/// Default `grants.http.timeout`: the whole request, first byte to last.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default `grants.http.connect_timeout`.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default `grants.http.concurrency`.
pub const DEFAULT_CONCURRENCY: usize = 16;

/// Methods a grant can name.
const METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/// `grants.http` as written.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpGrantSpec {
    /// Origin globs requests may go to. Private networks stay closed unless a pattern names
    /// them literally. Example: `origins = ["https://api.example.com", "http://127.0.0.1:*"]`.
    #[serde(default)]
    pub origins: Vec<Spanned<String>>,
    /// Methods allowed. Default `["GET", "HEAD"]`. Example: `methods = ["GET", "POST"]`.
    pub methods: Option<Vec<Spanned<String>>>,
    /// Cap on one request body. Default `"1MiB"`.
    pub max_request_body: Option<Spanned<String>>,
    /// Cap on one response body. Default `"8MiB"`.
    pub max_response_body: Option<Spanned<String>>,
    /// Time for a whole request, response body included. Default `"30s"`.
    pub timeout: Option<Spanned<String>>,
    /// Time to connect (TLS handshake included). Default `"10s"`.
    pub connect_timeout: Option<Spanned<String>>,
    /// Requests the plugin may have in flight at once. Default 16.
    pub concurrency: Option<Spanned<i64>>,
    /// `[credentials.NAME]` the host adds to matching requests. Example: `credentials = ["github"]`.
    #[serde(default)]
    pub credentials: Vec<Spanned<String>>,
}

/// `grants.http`, validated.
#[derive(Debug)]
pub struct HttpGrant {
    pub origins: GlobList,
    /// Upper case.
    pub methods: Vec<String>,
    pub max_request_body: u64,
    pub max_response_body: u64,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub concurrency: usize,
    pub credentials: Vec<Arc<Credential>>,
}

impl HttpGrant {
    /// The granted credential bound to `url`'s origin, if any (the first in grant order).
    pub fn credential_for(&self, url: &Url) -> Option<&Arc<Credential>> {
        self.credentials
            .iter()
            .find(|c| !origin_patterns(&c.origins, url).is_empty())
    }

    /// One line for the start-up log and `warden check`: credential names and how the host
    /// adds each, never a value.
    pub fn summary(&self) -> String {
        let names: Vec<&str> = self.credentials.iter().map(|c| c.name.as_str()).collect();
        let added: Vec<String> = self
            .credentials
            .iter()
            .map(|c| format!("{} as {}", c.name, c.kind.describe()))
            .collect();
        format!(
            "http.origins = {:?}, http.methods = {:?}, http.credentials = {:?}{}, http.max_request_body = \"{}\", http.max_response_body = \"{}\", http.timeout = \"{}\", http.connect_timeout = \"{}\", http.concurrency = {}",
            self.origins.patterns(),
            self.methods,
            names,
            if added.is_empty() {
                String::new()
            } else {
                format!(" (added by the host: {})", added.join(", "))
            },
            size_text(self.max_request_body),
            size_text(self.max_response_body),
            humantime::format_duration(self.timeout),
            humantime::format_duration(self.connect_timeout),
            self.concurrency,
        )
    }
}

/// `url`'s origin, as grant patterns match it: `scheme://host:port` with the port always
/// written, and without it for the scheme's default port.
fn origin_patterns<'a>(list: &'a GlobList, url: &Url) -> Vec<&'a str> {
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return Vec::new();
    };
    let host = host.to_ascii_lowercase();
    let mut found = list.matching(&format!("{}://{host}:{port}", url.scheme()));
    if url.port().is_none() {
        for p in list.matching(&format!("{}://{host}", url.scheme())) {
            if !found.contains(&p) {
                found.push(p);
            }
        }
    }
    found
}

/// `scheme://host[:port]` of `url`, as a grant names it.
pub fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// May `plugin`, granted `grant`, send `method` to `url`? Its `grants.http` and the origin
/// patterns that matched (for the private-network rule); `Grants::check_http_request`.
pub(super) fn check_request<'g>(
    grant: Option<&'g HttpGrant>,
    owner: Owner<'_>,
    method: &str,
    url: &Url,
) -> Result<(&'g HttpGrant, Vec<&'g str>), Denied> {
    const ORIGINS: &str = "grants.http.origins";
    const METHODS_KEY: &str = "grants.http.methods";
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(Denied::unfixable(
            ORIGINS,
            url.scheme().to_string(),
            format!(
                "only http and https URLs with a host can be requested, not {}:",
                url.scheme()
            ),
        ));
    }
    let origin = origin_of(url);
    let Some(grant) = grant else {
        return Err(Denied::fixable(
            owner,
            ORIGINS,
            format!("{method} {origin}"),
            Fix::add(ORIGINS, origin),
        ));
    };
    let matched = origin_patterns(&grant.origins, url);
    if matched.is_empty() {
        return Err(Denied::fixable(
            owner,
            ORIGINS,
            format!("{method} {origin}"),
            Fix::add(ORIGINS, origin),
        ));
    }
    if !grant.methods.iter().any(|m| m == method) {
        if !METHODS.contains(&method) {
            return Err(Denied::unfixable(
                METHODS_KEY,
                format!("{method} {origin}"),
                format!(
                    "the method {method} cannot be granted; grants.http.methods may name {}",
                    METHODS.join(", ")
                ),
            ));
        }
        return Err(Denied::fixable(
            owner,
            METHODS_KEY,
            format!("{method} {origin}"),
            Fix::add(METHODS_KEY, method),
        ));
    }
    Ok((grant, matched))
}

impl Validator<'_> {
    /// `grants.http` of one plugin; `credentials` are the manifest's `[credentials]`.
    pub(super) fn http_grant(
        &mut self,
        spec: HttpGrantSpec,
        credentials: &BTreeMap<String, Arc<Credential>>,
    ) -> HttpGrant {
        let origins = self.origins("grants.http.origins", &spec.origins);
        let methods = match &spec.methods {
            None => DEFAULT_METHODS.iter().map(|m| (*m).to_string()).collect(),
            Some(list) => {
                let mut out: Vec<String> = Vec::new();
                for m in list {
                    let upper = m.get_ref().trim().to_ascii_uppercase();
                    if !METHODS.contains(&upper.as_str()) {
                        self.error(
                            m.span(),
                            format!("grants.http.methods: \"{}\" is not a method a grant can name; write some of {}", m.get_ref(), METHODS.join(", ")),
                        );
                    } else if !out.contains(&upper) {
                        out.push(upper);
                    }
                }
                out
            }
        };
        let timeout = self.duration(
            "grants.http.timeout",
            spec.timeout.as_ref(),
            DEFAULT_TIMEOUT,
        );
        let connect_timeout = self
            .duration(
                "grants.http.connect_timeout",
                spec.connect_timeout.as_ref(),
                DEFAULT_CONNECT_TIMEOUT,
            )
            .min(timeout);
        let mut granted = Vec::new();
        for name in &spec.credentials {
            match credentials.get(name.get_ref()) {
                Some(c) => granted.push(c.clone()),
                None => {
                    let defined = if credentials.is_empty() {
                        "the manifest defines none".to_string()
                    } else {
                        format!(
                            "defined: {}",
                            credentials.keys().cloned().collect::<Vec<_>>().join(", ")
                        )
                    };
                    self.error(
                        name.span(),
                        format!("grants.http.credentials: unknown credential \"{}\" ({defined}); define it as [credentials.{}] with kind, env or file, and origins", name.get_ref(), name.get_ref()),
                    );
                }
            }
        }
        HttpGrant {
            origins,
            methods,
            max_request_body: self.size(
                "grants.http.max_request_body",
                spec.max_request_body.as_ref(),
                DEFAULT_MAX_REQUEST_BODY,
            ),
            max_response_body: self.size(
                "grants.http.max_response_body",
                spec.max_response_body.as_ref(),
                DEFAULT_MAX_RESPONSE_BODY,
            ),
            timeout,
            connect_timeout,
            concurrency: self.count(
                "grants.http.concurrency",
                spec.concurrency.as_ref(),
                DEFAULT_CONCURRENCY,
            ),
            credentials: granted,
        }
    }
}
