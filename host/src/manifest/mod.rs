//! The admin's manifest (`warden.toml`): parsed strictly, validated with `file:line` in every
//! error, and turned into per-plugin [`Grants`] that the capability providers check on each call.

pub mod credentials;
mod denied;
mod distribution;
pub mod emulation;
#[cfg(test)]
mod fix_tests;
pub mod grants;
pub mod http;
mod oauth;
mod schema;
mod settings;

use grants::{
    BrowserGrant, Caps, CaptureGrant, Defined, GlobList, Grants, RdpGrant, SecretGrant, SftpGrant,
    TerminalGrant,
};
use schema::{GrantsSpec, ManifestFile, PluginEntry, SecretSpec};
pub use settings::Settings;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use toml::Spanned;

/// The manifest used when a command is given none: every first-party plugin; the browser may
/// load public `https` sites and `http_get` may fetch public hosts on port 443 (private
/// networks stay closed), and nothing else is granted. The terminal and SFTP tools are listed,
/// and each of their calls is refused naming the grant to add.
pub const DEFAULT_MANIFEST: &str = r#"# Built-in default manifest: the public web over https for the browser and http_get
# (no cookies, no script, no secrets, no uploads; private networks stay closed because no
# grant names them), and nothing on this machine: no terminal, no files.
[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = { origins = ["https://*"] }

[[plugin]]
name = "terminal"
source = "builtin:terminal"

[[plugin]]
name = "sftp"
source = "builtin:sftp"

[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = { http_hosts = ["*:443"] }
"#;

/// Name shown in errors for the built-in manifest.
pub const DEFAULT_MANIFEST_NAME: &str = "<built-in default manifest>";

/// Default per-plugin limits.
pub const DEFAULT_MEMORY: u64 = 128 * 1024 * 1024;
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_OUTPUT: u64 = 1024 * 1024;
/// How long a call waits for one of the plugin's `limits.concurrency` places.
pub const DEFAULT_QUEUE_TIMEOUT: Duration = Duration::from_secs(30);
/// What a plugin may keep per conversation in `warden:plugin/state`.
pub const DEFAULT_STATE: u64 = 4 * 1024 * 1024;
/// The most `limits.concurrency` can be: each call in flight holds an instance, and the
/// pooling allocator reserves address space for every one the manifests allow.
pub const MAX_CONCURRENCY: usize = 1024;

/// Calls of one plugin in flight at once unless `limits.concurrency` says otherwise: four per
/// core, at least 8 and at most 64. Calls mostly wait (on a page, a shell, a client's answer)
/// rather than compute, so more calls than cores keep everyone moving; each holds an
/// instance of up to `limits.memory`, so the bound is also a memory bound.
pub fn default_concurrency() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    (cores * 4).clamp(8, 64)
}
/// Default `grants.browser.download_max`: the largest download a session saves.
pub const DEFAULT_DOWNLOAD_MAX: u64 = 100 * 1024 * 1024;

/// A manifest that failed to load.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read manifest {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// One or more problems, each `file:line:col: message`.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Diagnostic>),
}

/// One problem at one place in the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// Where a plugin's component comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginSource {
    /// Embedded first-party plugin: `builtin:NAME`.
    Builtin(String),
    /// Implemented in the host itself (benchmark baseline): `native:NAME`.
    Native(String),
    /// A `.wasm` component on disk.
    Path(PathBuf),
    /// A component in an OCI registry: `oci://...`.
    Oci(crate::distribution::OciSource),
}

impl fmt::Display for PluginSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Builtin(n) => write!(f, "builtin:{n}"),
            Self::Native(n) => write!(f, "native:{n}"),
            Self::Path(p) => write!(f, "{}", p.display()),
            Self::Oci(o) => write!(f, "{}", o.reference),
        }
    }
}

/// Which of a plugin's tools are served.
#[derive(Debug, Clone)]
pub struct ToolFilter {
    allow: Option<GlobList>,
    deny: GlobList,
}

impl ToolFilter {
    pub fn allows(&self, tool: &str) -> bool {
        self.allow.as_ref().is_none_or(|a| a.is_match(tool)) && !self.deny.is_match(tool)
    }

    /// The globs (of `allow`, then `deny`) that match none of `tools`: a typo, or a tool the
    /// plugin does not have.
    pub fn unmatched<'a>(&'a self, tools: &[&str]) -> Vec<&'a str> {
        self.allow
            .iter()
            .chain(std::iter::once(&self.deny))
            .flat_map(|list| {
                list.patterns()
                    .iter()
                    .filter(|p| !tools.iter().any(|t| list.matching(t).contains(&p.as_str())))
            })
            .map(String::as_str)
            .collect()
    }
}

/// `remember_approval`: an approval also covers later calls of the same tool from the same
/// client session within `window`, with the same value of argument `per` if set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RememberApproval {
    pub window: Duration,
    pub per: Option<String>,
}

/// The longest `remember_approval.for`.
const MAX_APPROVAL_MEMORY: Duration = Duration::from_secs(24 * 3600);

/// Per-plugin resource limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub memory: u64,
    pub call_timeout: Duration,
    pub output: u64,
    /// Calls in flight at once; each runs in an instance of its own.
    pub concurrency: usize,
    /// How long a call over `concurrency` waits for a place before `limit-reached`.
    pub queue_timeout: Duration,
    /// Bytes of `warden:plugin/state` per conversation.
    pub state: u64,
}

/// One validated `[[plugin]]`.
#[derive(Debug, Clone)]
pub struct PluginConfig {
    pub name: String,
    pub source: PluginSource,
    pub tool_prefix: String,
    pub tools: ToolFilter,
    /// Tools (the plugin's own names) that need the user's approval for each call.
    pub require_approval: GlobList,
    /// How long an approval also covers later calls (`remember_approval`); `None`: never.
    pub remember_approval: Option<RememberApproval>,
    pub limits: Limits,
    pub grants: Arc<Grants>,
    /// `[plugin.settings]`, as the plugin reads them through `wasi:config/store`.
    pub settings: Settings,
    /// Line of the plugin's `name` key, for errors found after load (tool collisions).
    pub line: usize,
}

/// One validated `[ssh.hosts.NAME]`. Lives only in the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshHostConfig {
    pub address: String,
    pub user: String,
    pub identity_file: Option<PathBuf>,
    /// Decrypts `identity_file`; resolved when connecting, never shown.
    pub identity_passphrase: Option<SecretSource>,
    pub agent: bool,
    pub known_hosts: Option<PathBuf>,
}

/// One validated `[rdp.hosts.NAME]`. Lives only in the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RdpHostConfig {
    pub address: String,
    pub user: String,
    pub domain: Option<String>,
    /// Resolved when connecting, never shown.
    pub password: SecretSource,
    /// Lowercase hex, 64 digits; `None`: every certificate is refused (its fingerprint shown).
    pub cert_sha256: Option<String>,
    /// Offer RemoteFX (else the server sends bitmap updates).
    pub remotefx: bool,
}

/// `[browser]` provider settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BrowserConfig {
    pub executable: Option<PathBuf>,
    /// `[browser] endpoints` (or `endpoint`): remote browsers, one connection per session;
    /// empty: Warden launches Chromium itself.
    pub endpoints: Vec<String>,
    /// `[browser] guard_address`: where fleet sessions' network guards listen (loopback when
    /// `None`).
    pub guard_address: Option<std::net::IpAddr>,
    pub headless: bool,
    /// `[browser] static_pages`: the no-JavaScript fast path (`capabilities/browser/static_page`).
    pub static_pages: bool,
    pub args: Vec<String>,
    /// `[browser.secrets]`: only the host reads them, when it types one into a page.
    pub secrets: BTreeMap<String, SecretSource>,
    /// `[capture] profile_dir`: the persistent profile of the capture browser.
    pub capture_profile: PathBuf,
    /// `[browser.profiles]`, by name.
    pub profiles: BTreeMap<String, BrowserProfile>,
    /// `[search]`: the web search backend, when the manifest names one.
    pub search: Option<SearchConfig>,
}

/// `[search]`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    pub endpoint: url::Url,
    pub max_results: u32,
    pub provider: SearchProvider,
}

/// The API a `[search]` backend speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchProvider {
    /// SearXNG's JSON API (or anything that speaks it).
    Searxng,
    /// The Brave Search API, with its key read from this environment variable.
    Brave { key_env: String },
}

/// The Brave Search API's web endpoint.
pub const BRAVE_ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";

/// A `[browser.profiles.NAME]`, validated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BrowserProfile {
    pub proxy: Option<String>,
    pub proxy_bypass: Vec<String>,
    pub locale: Option<String>,
    pub timezone: Option<String>,
    pub user_agent: Option<String>,
    /// width, height, device scale, mobile.
    pub viewport: Option<(u32, u32, f64, bool)>,
    /// A persistent user-data-dir: the profile's sessions run in a browser of their own on it.
    pub user_data_dir: Option<PathBuf>,
}

/// Where a secret (a client's bearer token, a password for a page) comes from. Resolved when
/// it is used, so a deployment that never uses it does not need the variable set.
#[derive(Clone, PartialEq, Eq)]
pub enum SecretSource {
    Env(String),
    Literal(String),
}

impl SecretSource {
    /// The value, or a message that names what to set. Never part of a message itself.
    pub fn resolve(&self) -> Result<String, String> {
        match self {
            Self::Literal(v) => Ok(v.clone()),
            Self::Env(var) => match std::env::var(var) {
                Ok(v) if !v.is_empty() => Ok(v),
                _ => Err(format!(
                    "environment variable {var} is not set for the warden process"
                )),
            },
        }
    }
}

/// Never prints a literal token, so a logged manifest cannot leak one.
impl fmt::Debug for SecretSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Env(var) => f.debug_tuple("Env").field(var).finish(),
            Self::Literal(_) => f.write_str("Literal(<redacted>)"),
        }
    }
}

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

/// Per-client limits of `[server.http.clients.NAME]`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClientLimits {
    pub max_concurrent: Option<usize>,
    pub rate: Option<Rate>,
}

/// `rate = "N/s"`: `count` requests per `per`, in bursts of up to `count`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub count: u32,
    pub per: Duration,
}

impl Rate {
    fn parse(text: &str) -> Option<Self> {
        let (count, unit) = text.trim().split_once('/')?;
        let count = count.trim().parse::<u32>().ok().filter(|n| *n > 0)?;
        let per = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return None,
        };
        Some(Self { count, per })
    }
}

/// Default `[server.http] max_body`.
pub const DEFAULT_HTTP_MAX_BODY: u64 = 64 * 1024 * 1024;

/// A loaded, validated manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// How errors name the file.
    pub file_name: String,
    pub audit_log: PathBuf,
    pub cache_dir: PathBuf,
    pub http: HttpConfig,
    /// `[admin] listen`: metrics and health probes, off when `None`.
    pub admin_listen: Option<std::net::SocketAddr>,
    /// `[telemetry] otlp_endpoint`: traces, off when `None`.
    pub otlp_endpoint: Option<url::Url>,
    /// `[server] replica`: this process's name among replicas (see [`crate::replica`]).
    pub replica: Option<String>,
    pub ssh_hosts: BTreeMap<String, SshHostConfig>,
    pub rdp_hosts: BTreeMap<String, RdpHostConfig>,
    pub browser: BrowserConfig,
    /// `[trust]` and `[registries]`: how `oci://` plugins are pulled and checked.
    pub distribution: crate::distribution::Distribution,
    pub plugins: Vec<PluginConfig>,
}

impl Manifest {
    /// Load `path`, or the built-in default when `None`. `builtins` are the names
    /// `builtin:NAME` may use.
    pub fn load(path: Option<&Path>, builtins: &[&str]) -> Result<Self, ManifestError> {
        match path {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read {
                    path: path.to_path_buf(),
                    source,
                })?;
                let base = path
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| PathBuf::from("."));
                Self::parse(&text, &path.display().to_string(), &base, builtins)
            }
            None => Self::parse(
                DEFAULT_MANIFEST,
                DEFAULT_MANIFEST_NAME,
                Path::new("."),
                builtins,
            ),
        }
    }

    /// Parse and validate manifest text. `file_name` appears in errors; relative paths
    /// resolve against `base`.
    pub fn parse(
        text: &str,
        file_name: &str,
        base: &Path,
        builtins: &[&str],
    ) -> Result<Self, ManifestError> {
        let mut v = Validator {
            text,
            file_name,
            base,
            diagnostics: Vec::new(),
            secret_names: Vec::new(),
            secret_origins: BTreeMap::new(),
            profile_names: Vec::new(),
            credentials: BTreeMap::new(),
        };
        let file: ManifestFile = match toml::from_str(text) {
            Ok(f) => f,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                v.error(span, e.message().trim_end().to_string());
                return Err(ManifestError::Invalid(v.diagnostics));
            }
        };
        let manifest = v.validate(file, builtins);
        if v.diagnostics.is_empty() {
            Ok(manifest)
        } else {
            Err(ManifestError::Invalid(v.diagnostics))
        }
    }

    /// An error at `line` of this manifest (for problems found after load).
    pub fn diagnostic(&self, line: usize, message: String) -> Diagnostic {
        Diagnostic {
            file: self.file_name.clone(),
            line,
            column: 1,
            message,
        }
    }
}

struct Validator<'a> {
    text: &'a str,
    file_name: &'a str,
    base: &'a Path,
    diagnostics: Vec<Diagnostic>,
    /// Names under `[browser.secrets]`, which `grants.browser.secrets` may name.
    secret_names: Vec<String>,
    /// The origins each `[browser.secrets.NAME]` is bound to.
    secret_origins: BTreeMap<String, GlobList>,
    /// Names under `[browser.profiles]`, which `grants.browser.profiles` may name.
    profile_names: Vec<String>,
    /// `[credentials]`, which `grants.http.credentials` may name.
    credentials: BTreeMap<String, Arc<credentials::Credential>>,
}

impl Validator<'_> {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = self.text.get(..offset).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let column = before
            .rfind('\n')
            .map_or(before.len(), |i| before.len() - i - 1)
            + 1;
        (line, column)
    }

    fn error(&mut self, span: Range<usize>, message: String) {
        let (line, column) = self.line_col(span.start);
        self.diagnostics.push(Diagnostic {
            file: self.file_name.to_string(),
            line,
            column,
            message,
        });
    }

    fn resolve(&self, path: &str) -> PathBuf {
        let path = expand_home(path);
        if path.is_absolute() {
            path
        } else {
            self.base.join(path)
        }
    }

    fn globs(&mut self, key: &str, patterns: &[Spanned<String>]) -> GlobList {
        let mut good = Vec::new();
        for p in patterns {
            match GlobList::new(std::slice::from_ref(p.get_ref())) {
                Ok(_) => good.push(p.get_ref().clone()),
                Err(e) => self.error(
                    p.span(),
                    format!("{key}: bad glob \"{}\": {}", p.get_ref(), glob_reason(&e)),
                ),
            }
        }
        GlobList::new(&good).unwrap_or_else(|_| GlobList::empty())
    }

    fn size(&mut self, key: &str, value: Option<&Spanned<String>>, default: u64) -> u64 {
        let Some(value) = value else { return default };
        match value.get_ref().trim().parse::<bytesize::ByteSize>() {
            Ok(size) if size.as_u64() > 0 => size.as_u64(),
            _ => {
                self.error(
                    value.span(),
                    format!(
                        "{key}: \"{}\" is not a size; write it like \"128MiB\" or \"512KiB\"",
                        value.get_ref()
                    ),
                );
                default
            }
        }
    }

    fn count(&mut self, key: &str, value: Option<&Spanned<i64>>, default: usize) -> usize {
        let Some(value) = value else { return default };
        match usize::try_from(*value.get_ref()) {
            Ok(n) if (1..=10_000).contains(&n) => n,
            _ => {
                self.error(
                    value.span(),
                    format!(
                        "{key}: {} is not a count; write a number from 1 to 10000",
                        value.get_ref()
                    ),
                );
                default
            }
        }
    }

    fn duration(
        &mut self,
        key: &str,
        value: Option<&Spanned<String>>,
        default: Duration,
    ) -> Duration {
        let Some(value) = value else { return default };
        match humantime::parse_duration(value.get_ref().trim()) {
            Ok(d) if !d.is_zero() => d,
            _ => {
                self.error(
                    value.span(),
                    format!(
                        "{key}: \"{}\" is not a duration; write it like \"60s\" or \"2m\"",
                        value.get_ref()
                    ),
                );
                default
            }
        }
    }

    fn validate(&mut self, file: ManifestFile, builtins: &[&str]) -> Manifest {
        let audit_log = match &file.server.audit_log {
            Some(p) => self.resolve(p.get_ref()),
            None => state_dir().join("audit.jsonl"),
        };
        let cache_dir = match (&file.server.cache_dir, std::env::var_os("WARDEN_CACHE_DIR")) {
            (_, Some(env)) if !env.is_empty() => PathBuf::from(env),
            (Some(p), _) => self.resolve(p.get_ref()),
            _ => cache_dir(),
        };

        let http = self.http(&file.server.http);

        let mut ssh_hosts = BTreeMap::new();
        for (alias, host) in file.ssh.hosts {
            let span = host.span();
            let host = host.into_inner();
            self.remote_host("ssh", &alias, span.clone(), &host.address, "");
            if host.identity_file.is_none() && !host.agent {
                self.error(span.clone(), format!("ssh.hosts.{alias}: set identity_file or agent = true so the host can authenticate"));
            }
            let identity_passphrase = host.identity_passphrase.and_then(|spec| {
                let span = spec.span();
                let spec = spec.into_inner();
                if host.identity_file.is_none() {
                    self.error(span.clone(), format!("ssh.hosts.{alias}.identity_passphrase: it decrypts identity_file, which is not set"));
                }
                match (spec.env, spec.value) {
                    (Some(var), None) => Some(SecretSource::Env(var)),
                    (None, Some(value)) => Some(SecretSource::Literal(value)),
                    _ => {
                        self.error(span, format!("ssh.hosts.{alias}.identity_passphrase: set exactly one of env (preferred) or value"));
                        None
                    }
                }
            });
            ssh_hosts.insert(
                alias,
                SshHostConfig {
                    address: host.address.into_inner(),
                    user: host.user,
                    identity_file: host.identity_file.map(|p| self.resolve(&p)),
                    identity_passphrase,
                    agent: host.agent,
                    known_hosts: host.known_hosts.map(|p| self.resolve(&p)),
                },
            );
        }

        let rdp_hosts = self.rdp_hosts(file.rdp.hosts);

        let mut secrets = BTreeMap::new();
        for (name, spec) in file.browser.secrets {
            let span = spec.span();
            let spec = spec.into_inner();
            if !valid_name(&name) {
                self.error(
                    span.clone(),
                    format!("browser.secrets: name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"),
                );
            }
            match (spec.env, spec.value) {
                (Some(var), None) => {
                    secrets.insert(name.clone(), SecretSource::Env(var));
                }
                (None, Some(value)) => {
                    secrets.insert(name.clone(), SecretSource::Literal(value));
                }
                _ => self.error(
                    span.clone(),
                    format!("browser.secrets.{name}: set exactly one of env (preferred) or value"),
                ),
            }
            let origins = self.secret_origins_of(&name, span, spec.origins.as_deref());
            self.secret_origins.insert(name.clone(), origins);
            self.secret_names.push(name);
        }
        let mut profiles = BTreeMap::new();
        let mut persistent = Vec::new();
        for (name, spec) in file.browser.profiles {
            let span = spec.span();
            if !valid_name(&name) {
                self.error(
                    span.clone(),
                    format!("browser.profiles: name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"),
                );
            }
            let spec = spec.into_inner();
            let dir = spec.user_data_dir.as_deref().map(|d| self.resolve(d));
            match browser_profile(spec) {
                Ok(mut profile) => {
                    if let Some(dir) = &dir {
                        persistent.push((name.clone(), dir.clone(), span));
                    }
                    profile.user_data_dir = dir;
                    profiles.insert(name.clone(), profile);
                }
                Err(why) => self.error(span, format!("browser.profiles.{name}: {why}")),
            }
            self.profile_names.push(name);
        }
        let capture_profile = match &file.capture.profile_dir {
            Some(dir) => self.resolve(dir),
            None => audit_log.parent().map_or_else(
                || PathBuf::from("capture-profile"),
                |d| d.join("capture-profile"),
            ),
        };
        let endpoints = self.browser_endpoints(file.browser.endpoint, file.browser.endpoints);
        let guard_address = self.guard_address(file.browser.guard_address, !endpoints.is_empty());
        self.check_user_data_dirs(&persistent, &capture_profile, !endpoints.is_empty());
        let search = self.search(&file.search);
        let browser = BrowserConfig {
            search,
            profiles,
            executable: file.browser.executable.map(|p| self.resolve(&p)),
            endpoints,
            guard_address,
            headless: file.browser.headless.unwrap_or(true),
            static_pages: file.browser.static_pages.unwrap_or(true),
            args: file.browser.args,
            secrets,
            capture_profile,
        };

        let distribution = self.distribution(file.trust, file.registries);
        self.credentials = self.credentials(file.credentials);
        let mut plugins: Vec<PluginConfig> = Vec::new();
        for entry in file.plugin {
            if let Some(p) = self.plugin(entry, builtins, &ssh_hosts, &rdp_hosts, &distribution) {
                if let Some(first) = plugins.iter().find(|q| q.name == p.name) {
                    let (line, col) = (p.line, 1);
                    self.diagnostics.push(Diagnostic {
                        file: self.file_name.to_string(),
                        line,
                        column: col,
                        message: format!(
                            "duplicate plugin name \"{}\" (first defined at line {}); give each [[plugin]] its own name",
                            p.name, first.line
                        ),
                    });
                } else {
                    plugins.push(p);
                }
            }
        }
        if plugins.is_empty() && self.diagnostics.is_empty() {
            self.error(0..0, "no [[plugin]] is defined; add at least one, e.g. [[plugin]] name = \"capture\" source = \"builtin:capture\"".into());
        }

        let admin_listen = file.admin.listen.as_ref().and_then(|l| {
            let addr = l.get_ref().trim().parse::<std::net::SocketAddr>().ok();
            if addr.is_none() {
                self.error(
                    l.span(),
                    format!(
                        "admin.listen: \"{}\" is not an address; write it like \"127.0.0.1:9464\"",
                        l.get_ref()
                    ),
                );
            }
            addr
        });
        let otlp_endpoint = file.telemetry.otlp_endpoint.as_ref().and_then(|e| {
            let url = url::Url::parse(e.get_ref().trim())
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
            if url.is_none() {
                self.error(e.span(), format!("telemetry.otlp_endpoint: \"{}\" is not an http(s) URL; write it like \"http://127.0.0.1:4318\"", e.get_ref()));
            }
            url
        });
        let replica = file.server.replica.as_ref().and_then(|r| {
            let name = r.get_ref().trim().to_string();
            match crate::replica::check(&name) {
                Ok(()) => Some(name),
                Err(e) => {
                    self.error(r.span(), format!("server.replica: {e}"));
                    None
                }
            }
        });
        Manifest {
            file_name: self.file_name.to_string(),
            audit_log,
            cache_dir,
            http,
            admin_listen,
            otlp_endpoint,
            replica,
            ssh_hosts,
            rdp_hosts,
            browser,
            distribution,
            plugins,
        }
    }

    /// A `[ssh.hosts]` or `[rdp.hosts]` entry's alias and `host:port` address; `hint` ends the
    /// address error.
    fn remote_host(
        &mut self,
        kind: &str,
        alias: &str,
        span: std::ops::Range<usize>,
        address: &Spanned<String>,
        hint: &str,
    ) {
        if !valid_name(alias) {
            self.error(
                span,
                format!("{kind} host alias \"{alias}\" must match [a-zA-Z0-9_-]{{1,32}}"),
            );
        }
        if address
            .get_ref()
            .rsplit_once(':')
            .is_none_or(|(h, p)| h.is_empty() || p.parse::<u16>().is_err())
        {
            self.error(
                address.span(),
                format!(
                    "{kind}.hosts.{alias}.address: \"{}\" must be host:port{hint}",
                    address.get_ref()
                ),
            );
        }
    }

    /// `[rdp.hosts]`: aliases, `host:port` addresses, one password source, and a well-formed
    /// certificate fingerprint.
    fn rdp_hosts(
        &mut self,
        hosts: BTreeMap<String, Spanned<schema::RdpHost>>,
    ) -> BTreeMap<String, RdpHostConfig> {
        let mut out = BTreeMap::new();
        for (alias, host) in hosts {
            let span = host.span();
            let host = host.into_inner();
            self.remote_host(
                "rdp",
                &alias,
                span.clone(),
                &host.address,
                " (RDP's port is usually 3389)",
            );
            let password_span = host.password.span();
            let password = match host.password.into_inner() {
                SecretSpec {
                    env: Some(var),
                    value: None,
                } => SecretSource::Env(var),
                SecretSpec {
                    env: None,
                    value: Some(value),
                } => SecretSource::Literal(value),
                _ => {
                    self.error(password_span, format!("rdp.hosts.{alias}.password: set exactly one of env (preferred) or value"));
                    SecretSource::Literal(String::new())
                }
            };
            let cert_sha256 = host.cert_sha256.and_then(|pin| {
                let normalized = normalize_fingerprint(pin.get_ref());
                if normalized.is_none() {
                    self.error(pin.span(), format!("rdp.hosts.{alias}.cert_sha256: \"{}\" is not a SHA-256 fingerprint (64 hex digits, colons allowed); connect once without it to see the server's", pin.get_ref()));
                }
                normalized
            });
            out.insert(
                alias,
                RdpHostConfig {
                    address: host.address.into_inner(),
                    user: host.user,
                    domain: host.domain,
                    password,
                    cert_sha256,
                    remotefx: host.remotefx.unwrap_or(true),
                },
            );
        }
        out
    }

    /// `[browser] endpoint` or `endpoints` (not both), each a DevTools WebSocket or HTTP URL.
    fn browser_endpoints(
        &mut self,
        one: Option<Spanned<String>>,
        many: Option<Spanned<Vec<Spanned<String>>>>,
    ) -> Vec<String> {
        let list = match (one, many) {
            (Some(_), Some(many)) => {
                self.error(
                    many.span(),
                    "browser: endpoint and endpoints both name remote browsers; keep endpoints (a list of one is fine)".into(),
                );
                return Vec::new();
            }
            (Some(one), None) => vec![one],
            (None, Some(many)) => {
                if many.get_ref().is_empty() {
                    self.error(
                        many.span(),
                        "browser.endpoints is empty; name at least one remote browser, or remove the key to let Warden launch Chromium".into(),
                    );
                }
                many.into_inner()
            }
            (None, None) => return Vec::new(),
        };
        let mut endpoints: Vec<String> = Vec::new();
        for e in list {
            let scheme = url::Url::parse(e.get_ref()).map(|u| u.scheme().to_string());
            match scheme.as_deref() {
                Ok("ws" | "wss" | "http" | "https") => {}
                _ => {
                    self.error(
                        e.span(),
                        format!("browser.endpoints: \"{}\" is not a DevTools endpoint; write \"http://HOST:PORT\" (the browser's --remote-debugging-port) or its \"ws://HOST:PORT/devtools/browser/ID\"", e.get_ref()),
                    );
                    continue;
                }
            }
            if endpoints.contains(e.get_ref()) {
                self.error(
                    e.span(),
                    format!("browser.endpoints names \"{}\" twice", e.get_ref()),
                );
                continue;
            }
            endpoints.push(e.into_inner());
        }
        endpoints
    }

    /// `[search]`: an http(s) endpoint without a query (Warden adds its own), and a result
    /// count in range.
    fn search(&mut self, section: &schema::SearchSection) -> Option<SearchConfig> {
        let provider = match section.provider.as_ref().map(|p| (p, p.get_ref().as_str())) {
            None | Some((_, "searxng")) => {
                if let Some(k) = &section.key_env {
                    self.error(k.span(), "search.key_env: the searxng provider takes no key; remove it, or set provider = \"brave\"".into());
                }
                SearchProvider::Searxng
            }
            Some((p, "brave")) => match &section.key_env {
                Some(k) if !k.get_ref().trim().is_empty() => SearchProvider::Brave {
                    key_env: k.get_ref().trim().to_string(),
                },
                _ => {
                    self.error(p.span(), "search.provider = \"brave\" needs key_env: the environment variable that holds the API key, e.g. key_env = \"BRAVE_SEARCH_KEY\"".into());
                    SearchProvider::Searxng
                }
            },
            Some((p, other)) => {
                self.error(p.span(), format!("search.provider: \"{other}\" is not a provider Warden speaks; use \"searxng\" or \"brave\""));
                SearchProvider::Searxng
            }
        };
        let most = if matches!(provider, SearchProvider::Brave { .. }) {
            20
        } else {
            50
        };
        let max_results = match &section.max_results {
            None => 10,
            Some(n) => match u32::try_from(*n.get_ref()) {
                Ok(v) if (1..=most).contains(&v) => v,
                _ => {
                    self.error(
                        n.span(),
                        format!(
                            "search.max_results: {} is not between 1 and {most}",
                            n.get_ref()
                        ),
                    );
                    10
                }
            },
        };
        let endpoint = match (&section.endpoint, &provider) {
            (Some(e), _) => Some((e.get_ref().trim().to_string(), e.span())),
            (None, SearchProvider::Brave { .. }) => Some((BRAVE_ENDPOINT.to_string(), 0..0)),
            (None, SearchProvider::Searxng) => None,
        };
        let Some((endpoint, span)) = endpoint else {
            if let Some(n) = &section.max_results {
                self.error(
                    n.span(),
                    "search.max_results needs search.endpoint: the search backend to ask".into(),
                );
            }
            return None;
        };
        let url = url::Url::parse(&endpoint).ok().filter(|u| {
            matches!(u.scheme(), "http" | "https") && u.host().is_some() && u.query().is_none()
        });
        if url.is_none() {
            self.error(
                span,
                format!(
                    "search.endpoint: \"{endpoint}\" is not an http(s) URL without a query; write it like \"https://searx.example.org/search\""
                ),
            );
        }
        Some(SearchConfig {
            endpoint: url?,
            max_results,
            provider,
        })
    }

    /// `[browser] guard_address`: an IP address of this machine (one a browser can connect
    /// to, so not `0.0.0.0`), for a fleet only.
    fn guard_address(
        &mut self,
        address: Option<Spanned<String>>,
        fleet: bool,
    ) -> Option<std::net::IpAddr> {
        let address = address?;
        let span = address.span();
        if !fleet {
            self.error(
                span,
                "browser.guard_address is where remote browsers reach Warden's network guards; it needs [browser] endpoints (a browser Warden launches uses loopback)".into(),
            );
            return None;
        }
        match address.get_ref().parse::<std::net::IpAddr>() {
            Ok(ip) if !ip.is_unspecified() => Some(ip),
            _ => {
                self.error(
                    span,
                    format!(
                        "browser.guard_address: \"{}\" is not an address the browsers can connect to; write an IP address of this machine, such as \"10.0.0.2\"",
                        address.get_ref()
                    ),
                );
                None
            }
        }
    }

    /// A user-data-dir belongs to one Chromium process: no two profiles, and not the capture
    /// browser, may share one; and a remote browser cannot be started on one.
    fn check_user_data_dirs(
        &mut self,
        persistent: &[(String, PathBuf, Range<usize>)],
        capture_profile: &Path,
        remote: bool,
    ) {
        for (i, (name, dir, span)) in persistent.iter().enumerate() {
            if remote {
                self.error(
                    span.clone(),
                    format!("browser.profiles.{name}.user_data_dir needs a browser Warden starts itself; a remote [browser] endpoint keeps its own profile: remove one of the two"),
                );
            } else if same_dir(dir, capture_profile) {
                self.error(
                    span.clone(),
                    format!("browser.profiles.{name}.user_data_dir is the capture browser's profile ([capture] profile_dir); a user-data-dir serves one browser: give the profile a directory of its own"),
                );
            } else if let Some((other, _, _)) =
                persistent[..i].iter().find(|(_, d, _)| same_dir(d, dir))
            {
                self.error(
                    span.clone(),
                    format!("browser.profiles.{name}.user_data_dir is also the user_data_dir of profile \"{other}\"; a user-data-dir serves one browser: give each profile a directory of its own"),
                );
            }
        }
    }

    fn http(&mut self, spec: &schema::HttpSection) -> HttpConfig {
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

    /// `max_concurrent` and `rate` of one named client (`key` is its table), into `limits`.
    fn client_limits(
        &mut self,
        key: &str,
        name: &str,
        max_concurrent: Option<&Spanned<i64>>,
        rate: Option<&Spanned<String>>,
        limits: &mut BTreeMap<String, ClientLimits>,
    ) {
        let max_concurrent =
            max_concurrent.map(|n| self.count(&format!("{key}.max_concurrent"), Some(n), 1));
        let rate = rate.and_then(|r| {
            let rate = Rate::parse(r.get_ref());
            if rate.is_none() {
                self.error(
                    r.span(),
                    format!(
                        "{key}.rate: \"{}\" is not a rate; write it like \"20/s\" or \"600/min\"",
                        r.get_ref()
                    ),
                );
            }
            rate
        });
        if max_concurrent.is_some() || rate.is_some() {
            limits.insert(
                name.to_string(),
                ClientLimits {
                    max_concurrent,
                    rate,
                },
            );
        }
    }

    fn plugin(
        &mut self,
        entry: PluginEntry,
        builtins: &[&str],
        ssh_hosts: &BTreeMap<String, SshHostConfig>,
        rdp_hosts: &BTreeMap<String, RdpHostConfig>,
        distribution: &crate::distribution::Distribution,
    ) -> Option<PluginConfig> {
        let errors_before = self.diagnostics.len();
        let name = entry.name.get_ref().clone();
        let (line, _) = self.line_col(entry.name.span().start);
        if !valid_plugin_name(&name) {
            self.error(
                entry.name.span(),
                format!("plugin name \"{name}\" must match [a-z0-9_-]{{1,32}}"),
            );
        }

        let raw = entry.source.get_ref();
        let source = if let Some(b) = raw.strip_prefix("builtin:") {
            if !builtins.contains(&b) {
                self.error(
                    entry.source.span(),
                    format!(
                        "unknown plugin source \"{raw}\"; built-in plugins are: {}",
                        builtins
                            .iter()
                            .map(|b| format!("builtin:{b}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            PluginSource::Builtin(b.to_string())
        } else if raw.starts_with("oci://") {
            self.oci_source(&entry, distribution)
        } else if let Some(n) = raw.strip_prefix("native:") {
            if n != "echo" {
                self.error(
                    entry.source.span(),
                    format!("unknown plugin source \"{raw}\"; the only native plugin is native:echo (a benchmark baseline)"),
                );
            }
            PluginSource::Native(n.to_string())
        } else {
            let path = self.resolve(raw);
            if !path.is_file() {
                self.error(
                    entry.source.span(),
                    format!(
                        "unknown plugin source \"{raw}\": no file at {}; use builtin:NAME or a path to a .wasm component",
                        path.display()
                    ),
                );
            }
            PluginSource::Path(path)
        };
        if !matches!(source, PluginSource::Oci(_)) {
            self.oci_only(&entry);
        }

        let tool_prefix = match &entry.tool_prefix {
            Some(p)
                if !p
                    .get_ref()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                self.error(
                    p.span(),
                    format!("tool_prefix \"{}\" may only use [a-zA-Z0-9_-]", p.get_ref()),
                );
                String::new()
            }
            Some(p) => p.get_ref().clone(),
            None => String::new(),
        };

        let tools = ToolFilter {
            allow: entry
                .tools
                .allow
                .as_ref()
                .map(|a| self.globs("tools.allow", a)),
            deny: self.globs("tools.deny", &entry.tools.deny),
        };
        let require_approval = self.globs("require_approval", &entry.require_approval);
        let remember_approval = entry.remember_approval.as_ref().and_then(|spec| {
            let window = self.duration("remember_approval.for", Some(&spec.window), Duration::ZERO);
            if window.is_zero() {
                return None; // already reported: not a duration
            }
            if window > MAX_APPROVAL_MEMORY {
                self.error(
                    spec.window.span(),
                    "remember_approval.for is at most 24h (for example \"10m\")".to_string(),
                );
                return None;
            }
            if entry.require_approval.is_empty() {
                self.error(
                    spec.window.span(),
                    "remember_approval needs require_approval: it says how long an approval counts, and no tool of this plugin asks for one".to_string(),
                );
                return None;
            }
            Some(RememberApproval {
                window,
                per: spec.per.as_ref().map(|p| p.get_ref().clone()),
            })
        });

        let limits = Limits {
            memory: self.size(
                "limits.memory",
                entry.limits.memory.as_ref(),
                DEFAULT_MEMORY,
            ),
            call_timeout: self.duration(
                "limits.call_timeout",
                entry.limits.call_timeout.as_ref(),
                DEFAULT_CALL_TIMEOUT,
            ),
            output: self.size(
                "limits.output",
                entry.limits.output.as_ref(),
                DEFAULT_OUTPUT,
            ),
            concurrency: match entry.limits.concurrency.as_ref() {
                Some(n) if usize::try_from(*n.get_ref()).is_ok_and(|n| n > MAX_CONCURRENCY) => {
                    self.error(
                        n.span(),
                        format!(
                            "limits.concurrency: {} is more than {MAX_CONCURRENCY} calls at once; each holds an instance of the plugin: write a number from 1 to {MAX_CONCURRENCY}",
                            n.get_ref()
                        ),
                    );
                    MAX_CONCURRENCY
                }
                n => self.count("limits.concurrency", n, default_concurrency()),
            },
            queue_timeout: self.duration(
                "limits.queue_timeout",
                entry.limits.queue_timeout.as_ref(),
                DEFAULT_QUEUE_TIMEOUT,
            ),
            state: self.size("limits.state", entry.limits.state.as_ref(), DEFAULT_STATE),
        };
        let caps = Caps {
            browser_sessions: self.count(
                "limits.browser_sessions",
                entry.limits.browser_sessions.as_ref(),
                grants::DEFAULT_BROWSER_SESSIONS,
            ),
            browser_tabs: self.count(
                "limits.browser_tabs",
                entry.limits.browser_tabs.as_ref(),
                grants::DEFAULT_BROWSER_TABS,
            ),
            capture_tabs: self.count(
                "limits.capture_tabs",
                entry.limits.capture_tabs.as_ref(),
                grants::DEFAULT_CAPTURE_TABS,
            ),
        };

        let settings = self.settings(entry.settings);
        let mut grants = self.grants(&name, entry.grants, ssh_hosts, rdp_hosts);
        grants.caps = caps;
        (self.diagnostics.len() == errors_before).then(|| PluginConfig {
            name,
            source,
            tool_prefix,
            tools,
            require_approval,
            remember_approval,
            limits,
            grants: Arc::new(grants),
            settings,
            line,
        })
    }

    fn grants(
        &mut self,
        plugin: &str,
        spec: GrantsSpec,
        ssh_hosts: &BTreeMap<String, SshHostConfig>,
        rdp_hosts: &BTreeMap<String, RdpHostConfig>,
    ) -> Grants {
        let capture = spec.capture.map(|c| {
            for h in &c.http_hosts {
                if h.get_ref().contains("://") || h.get_ref().contains('/') {
                    self.error(
                        h.span(),
                        format!(
                            "grants.capture.http_hosts: \"{}\" must be host[:port] (like \"127.0.0.1:*\" or \"*.example.com\"), not a URL",
                            h.get_ref()
                        ),
                    );
                }
            }
            CaptureGrant {
                http_hosts: self.globs("grants.capture.http_hosts", &c.http_hosts),
                max_body: self.size("grants.capture.max_body", c.max_body.as_ref(), grants::DEFAULT_MAX_BODY),
                origins: self.origins("grants.capture.origins", &c.origins),
                cookies: c.cookies,
                http_only_cookies: c.http_only_cookies,
            }
        });
        let browser = spec.browser.map(|b| {
            if b.eval_js
                && let Some(first) = b.secrets.first()
            {
                self.error(
                    first.span(),
                    format!("grants.browser: plugin \"{plugin}\" is granted both eval_js and secrets; a plugin that can run JavaScript in a page (or mock its responses) can read a secret the host types into it, so the two are never granted together: remove eval_js, or give the secrets to a plugin without it"),
                );
            }
            BrowserGrant {
                origins: self.origins("grants.browser.origins", &b.origins),
                resource_origins: self.origins(
                    "grants.browser.resource_origins",
                    &b.resource_origins,
                ),
                cookies: b.cookies,
                eval_js: b.eval_js,
                upload_dirs: b
                    .upload_dirs
                    .iter()
                    .map(|d| self.resolve(d.get_ref()))
                    .collect(),
                download_dir: b.download_dir.as_ref().map(|d| self.resolve(d.get_ref())),
                download_max: self.size(
                    "grants.browser.download_max",
                    b.download_max.as_ref(),
                    DEFAULT_DOWNLOAD_MAX,
                ),
                secrets: self.secret_grants(&b.secrets),
                profiles: self.profile_grants(&b.profiles),
            }
        });
        let credentials = std::mem::take(&mut self.credentials);
        let http = spec.http.map(|h| self.http_grant(h, &credentials));
        self.credentials = credentials;
        let terminal = spec.terminal.map(|t| TerminalGrant {
            local: t.local,
            ssh_hosts: self.aliases("grants.terminal.ssh_hosts", &t.ssh_hosts, ssh_hosts),
            read_only: t.read_only,
        });
        let sftp = spec.sftp.map(|s| {
            for root in &s.roots {
                if !root.get_ref().starts_with('/') {
                    self.error(
                        root.span(),
                        format!(
                            "grants.sftp.roots: \"{}\" must be an absolute remote path",
                            root.get_ref()
                        ),
                    );
                }
            }
            SftpGrant {
                hosts: self.aliases("grants.sftp.hosts", &s.hosts, ssh_hosts),
                roots: s.roots.iter().map(|r| r.get_ref().clone()).collect(),
                write: s.write,
            }
        });
        let rdp = spec.rdp.map(|r| {
            for a in &r.hosts {
                if !rdp_hosts.contains_key(a.get_ref()) {
                    let hint = if rdp_hosts.is_empty() {
                        "no [rdp.hosts.NAME] is defined".to_string()
                    } else {
                        format!(
                            "defined desktops: {}",
                            rdp_hosts.keys().cloned().collect::<Vec<_>>().join(", ")
                        )
                    };
                    self.error(
                        a.span(),
                        format!("grants.rdp.hosts: unknown RDP host alias \"{}\" ({hint}); define it under [rdp.hosts.{}]", a.get_ref(), a.get_ref()),
                    );
                }
            }
            RdpGrant {
                hosts: r.hosts.iter().map(|a| a.get_ref().clone()).collect(),
                read_only: r.read_only,
            }
        });
        Grants {
            plugin: plugin.to_string(),
            defined: Defined {
                secrets: self.secret_names.clone(),
                profiles: self.profile_names.clone(),
                ssh_hosts: ssh_hosts.keys().cloned().collect(),
                rdp_hosts: rdp_hosts.keys().cloned().collect(),
            },
            caps: Caps::default(),
            capture,
            browser,
            http,
            terminal,
            sftp,
            rdp,
        }
    }

    fn origins(&mut self, key: &str, origins: &[Spanned<String>]) -> GlobList {
        for o in origins {
            if !o.get_ref().contains("://") {
                self.error(
                    o.span(),
                    format!("{key}: \"{}\" must be an origin glob with a scheme, like \"https://*.example.com\"", o.get_ref()),
                );
            }
        }
        self.globs(key, origins)
    }

    fn secret_grants(&mut self, names: &[Spanned<String>]) -> Vec<SecretGrant> {
        let mut grants = Vec::new();
        for n in names {
            if !self.secret_names.contains(n.get_ref()) {
                self.error(
                    n.span(),
                    format!("grants.browser.secrets: unknown secret \"{}\"; define it under [browser.secrets] (e.g. {} = {{ env = \"{}\", origins = [\"https://login.example.com\"] }})", n.get_ref(), n.get_ref(), n.get_ref()),
                );
            }
            grants.push(SecretGrant {
                name: n.get_ref().clone(),
                origins: self
                    .secret_origins
                    .get(n.get_ref())
                    .cloned()
                    .unwrap_or_else(GlobList::empty),
            });
        }
        grants
    }

    /// `[browser.secrets.NAME] origins`: required, and only http(s) origins, since a secret
    /// typed into any other kind of document (`data:`, `blob:`, `file:`) goes to content
    /// the plugin may have written.
    fn secret_origins_of(
        &mut self,
        name: &str,
        span: Range<usize>,
        origins: Option<&[Spanned<String>]>,
    ) -> GlobList {
        let key = format!("browser.secrets.{name}.origins");
        let Some(origins) = origins else {
            self.error(
                span,
                format!("{key} is missing: bind the secret to the origins whose login fields it may be typed into, e.g. origins = [\"https://login.example.com\"]"),
            );
            return GlobList::empty();
        };
        if origins.is_empty() {
            self.error(
                span,
                format!(
                    "{key} is empty: name at least one http(s) origin the secret may be typed into"
                ),
            );
        }
        for o in origins {
            let text = o.get_ref();
            let Some((scheme, rest)) = text.split_once("://") else {
                self.error(o.span(), format!("{key}: \"{text}\" must be an http(s) origin like \"https://login.example.com\""));
                continue;
            };
            if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
                self.error(o.span(), format!("{key}: \"{text}\" must use http or https; a secret is never typed into {scheme}: documents"));
            } else if rest.is_empty()
                || rest.starts_with('*') && rest.trim_start_matches(['*', '.']).is_empty()
                || rest.contains('/')
            {
                self.error(o.span(), format!("{key}: \"{text}\" must name a host (a glob such as \"https://*.example.com\" is fine; \"*\" alone and paths are not)"));
            }
        }
        self.globs(&key, origins)
    }

    fn profile_grants(&mut self, names: &[Spanned<String>]) -> Vec<String> {
        for n in names {
            if !self.profile_names.contains(n.get_ref()) {
                self.error(
                    n.span(),
                    format!("grants.browser.profiles: unknown profile \"{}\"; define it as [browser.profiles.{}]", n.get_ref(), n.get_ref()),
                );
            }
        }
        names.iter().map(|n| n.get_ref().clone()).collect()
    }

    fn aliases(
        &mut self,
        key: &str,
        aliases: &[Spanned<String>],
        known: &BTreeMap<String, SshHostConfig>,
    ) -> Vec<String> {
        for a in aliases {
            if !known.contains_key(a.get_ref()) {
                let hint = if known.is_empty() {
                    "no [ssh.hosts.NAME] is defined".to_string()
                } else {
                    format!(
                        "defined hosts: {}",
                        known.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                };
                self.error(
                    a.span(),
                    format!("{key}: unknown SSH host alias \"{}\" ({hint}); define it under [ssh.hosts.{}]", a.get_ref(), a.get_ref()),
                );
            }
        }
        aliases.iter().map(|a| a.get_ref().clone()).collect()
    }
}

/// A SHA-256 fingerprint as lowercase hex without separators, or `None` when `text` is not one.
pub fn normalize_fingerprint(text: &str) -> Option<String> {
    let hex: String = text
        .chars()
        .filter(|c| *c != ':' && !c.is_whitespace())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (hex.len() == 64 && hex.chars().all(|c| c.is_ascii_hexdigit())).then_some(hex)
}

fn glob_reason(e: &globset::Error) -> String {
    // globset's Display repeats the pattern; keep only the reason.
    e.kind().to_string()
}

/// Check a profile: a proxy URL Chromium can use, and emulation values it accepts.
fn browser_profile(spec: schema::ProfileSpec) -> Result<BrowserProfile, String> {
    if let Some(proxy) = &spec.proxy {
        let url = url::Url::parse(proxy).map_err(|e| {
            format!("proxy \"{proxy}\" is not a URL ({e}); write it like \"http://proxy.internal:3128\" or \"socks5://127.0.0.1:1080\"")
        })?;
        // The browser's network guard chains to this proxy itself (guard/upstream.rs), and
        // speaks plain HTTP CONNECT or SOCKS to it.
        if !matches!(url.scheme(), "http" | "socks4" | "socks5") {
            return Err(format!(
                "proxy scheme \"{}\" is not supported; use http, socks4 or socks5 (Warden's network guard chains to it)",
                url.scheme()
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("proxy credentials in the URL are not supported (Chromium ignores them); use a proxy that authorizes by address".into());
        }
        if url.host_str().is_none_or(str::is_empty) || url.path().len() > 1 || url.query().is_some()
        {
            return Err(format!(
                "proxy \"{proxy}\" must be scheme://host[:port] with nothing after it"
            ));
        }
    } else if !spec.proxy_bypass.is_empty() {
        return Err("proxy_bypass needs proxy".into());
    }
    if let Some(rule) = spec
        .proxy_bypass
        .iter()
        .find(|r| r.is_empty() || r.contains([',', ';', ' ']))
    {
        return Err(format!(
            "proxy_bypass entry \"{rule}\" must be one host pattern (no spaces, commas or semicolons)"
        ));
    }
    let viewport = spec
        .viewport
        .map(|v| (v.width, v.height, v.device_scale.unwrap_or(1.0), v.mobile));
    let emulation = emulation::Emulation {
        viewport: viewport.map(
            |(width, height, device_scale, mobile)| emulation::Viewport {
                width,
                height,
                device_scale,
                mobile,
            },
        ),
        user_agent: spec.user_agent.clone(),
        locale: spec.locale.clone(),
        timezone: spec.timezone.clone(),
        ..Default::default()
    };
    emulation.validate()?;
    Ok(BrowserProfile {
        proxy: spec.proxy,
        proxy_bypass: spec.proxy_bypass,
        locale: spec.locale,
        timezone: spec.timezone,
        user_agent: spec.user_agent,
        viewport,
        user_data_dir: None,
    })
}

/// Whether two paths name one directory: by their real paths when both exist, else as written.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => normalize(a) == normalize(b),
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn valid_plugin_name(s: &str) -> bool {
    valid_name(s) && !s.chars().any(|c| c.is_ascii_uppercase())
}

fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

fn xdg_dir(var: &str, fallback: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => expand_home(fallback),
    }
}

/// `$XDG_STATE_HOME/warden`.
pub fn state_dir() -> PathBuf {
    xdg_dir("XDG_STATE_HOME", "~/.local/state").join("warden")
}

/// `$XDG_CACHE_HOME/warden`.
pub fn cache_dir() -> PathBuf {
    xdg_dir("XDG_CACHE_HOME", "~/.cache").join("warden")
}

#[cfg(test)]
mod http_tests;
#[cfg(test)]
mod tests;
