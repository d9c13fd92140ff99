//! The on-disk shape of `warden.toml`. Every struct denies unknown keys, so a typo is an
//! error with its line number instead of a silently ignored grant. Spans are kept on every
//! value that a later check can reject, so that error can point at the line too.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// The whole manifest.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// Server-wide settings.
    #[serde(default)]
    pub server: ServerSection,
    /// Session recordings: what is recorded, where, and how much is kept.
    #[serde(default)]
    pub audit: super::audit::AuditSection,
    /// The admin listener: metrics and health probes.
    #[serde(default)]
    pub admin: AdminSection,
    /// OpenTelemetry export.
    #[serde(default)]
    pub telemetry: TelemetrySection,
    /// SSH hosts that grants may name, e.g. `[ssh.hosts.web1]`.
    #[serde(default)]
    pub ssh: SshSection,
    /// Remote desktops that grants may name, e.g. `[rdp.hosts.win1]`.
    #[serde(default)]
    pub rdp: RdpSection,
    /// Host-side browser provider settings.
    #[serde(default)]
    pub browser: BrowserSection,
    /// The capture profile: `capture_page`, `get_cookies` and `login_then_capture` run there.
    #[serde(default)]
    pub capture: CaptureSection,
    /// The web search backend of `browse_search`.
    #[serde(default)]
    pub search: SearchSection,
    /// The public keys whose signatures admit `oci://` plugins: `[trust.keys]`.
    #[serde(default)]
    pub trust: TrustSection,
    /// OCI registries by `HOST[:PORT]`: credentials, plain HTTP, and leave to be in private
    /// network space. Example: `[registries."registry.internal:5000"]`.
    #[serde(default)]
    pub registries: BTreeMap<String, Spanned<RegistrySpec>>,
    /// Secrets the host adds to plugins' HTTP requests: `[credentials.NAME]`.
    #[serde(default)]
    pub credentials: BTreeMap<String, Spanned<super::credentials::CredentialSpec>>,
    /// The plugins to load, in order: `[[plugin]]`.
    #[serde(default)]
    pub plugin: Vec<PluginEntry>,
    /// What each client may use: `[roles.NAME]`, given to clients with `role = "NAME"`.
    #[serde(default)]
    pub roles: BTreeMap<String, Spanned<RoleSpec>>,
}

/// `[trust]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustSection {
    /// Name = path of an ECDSA P-256 public key in PEM (a cosign `.pub`), relative to the
    /// manifest. A plugin with `verify = true` loads only with a valid signature by one of
    /// them. Example: `release = "keys/release.pub"`.
    #[serde(default)]
    pub keys: BTreeMap<String, Spanned<String>>,
    /// Name = a keyless signer (cosign without a key): the certificate's identity and issuer,
    /// and the sigstore trust root that certifies it. Example:
    /// `[trust.identities.release] identity = "https://github.com/acme/tools/.github/workflows/release.yml@refs/heads/main"`,
    /// `issuer = "https://token.actions.githubusercontent.com"`, `trust_root = "trusted_root.json"`.
    #[serde(default)]
    pub identities: BTreeMap<String, Spanned<IdentitySpec>>,
}

/// `[trust.identities.NAME]`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentitySpec {
    /// The signer's e-mail or URI as its certificate names it, matched exactly.
    pub identity: String,
    /// The OpenID issuer that vouched for it, matched exactly.
    pub issuer: String,
    /// A sigstore `trusted_root.json` (relative to the manifest): the certificate
    /// authorities and transparency logs to trust.
    pub trust_root: String,
}

/// `[registries."HOST[:PORT]"]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistrySpec {
    /// Environment variable holding a bearer token. Example: `token_env = "GHCR_TOKEN"`.
    pub token_env: Option<String>,
    /// User for basic authentication, with the password in `password_env`.
    pub username: Option<String>,
    /// Environment variable holding the basic-authentication password.
    pub password_env: Option<String>,
    /// Speak plain HTTP instead of HTTPS (a registry on this machine or a lab network).
    /// Default: false.
    #[serde(default)]
    pub plain_http: bool,
    /// The registry's token service when it is on another host: the one realm besides the
    /// registry's own origin that may receive `username`/`password_env` to issue a token.
    /// Example: `token_realm = "https://auth.example.com/token"`.
    pub token_realm: Option<String>,
}

/// `[server]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// Append-only JSONL audit log. Example: `audit_log = "warden-audit.jsonl"`.
    /// Default: `$XDG_STATE_HOME/warden/audit.jsonl` (`~/.local/state/warden/audit.jsonl`).
    pub audit_log: Option<Spanned<String>>,
    /// Where compiled components are cached. Example: `cache_dir = ".warden-cache"`.
    /// `$WARDEN_CACHE_DIR` overrides it; default `$XDG_CACHE_HOME/warden` (`~/.cache/warden`).
    pub cache_dir: Option<Spanned<String>>,
    /// This process's name among replicas behind a load balancer: every session and task
    /// handle it mints starts with `NAME.`. Example: `replica = "r1"`. Default: none.
    /// `--replica NAME` overrides it; read at start (a reload keeps the first name).
    pub replica: Option<Spanned<String>>,
    /// The streamable HTTP transport (`warden serve --http ADDR`).
    #[serde(default)]
    pub http: HttpSection,
    /// The role of the local operator: stdio, and HTTP without tokens. Example:
    /// `local_role = "admin"`. Default: everything.
    pub local_role: Option<Spanned<String>>,
    /// A component at least this large, found in no cache, serves its first calls on
    /// baseline machine code while the optimized code compiles in the background; `"off"`:
    /// every component is compiled optimized before its first call. Default: `"1MiB"`.
    pub quick_start: Option<Spanned<String>>,
}

/// `[admin]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminSection {
    /// Serve `/metrics`, `/healthz` and `/readyz` here (never the MCP address).
    /// Example: `listen = "127.0.0.1:9464"`. Default: off. `--admin ADDR` overrides it.
    pub listen: Option<Spanned<String>>,
}

/// `[search]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSection {
    /// A SearXNG-compatible JSON search endpoint (`GET {endpoint}?q=...&format=json`).
    /// Example: `endpoint = "https://searx.example.org/search"`. Default: no web search. A
    /// plugin searches only if the endpoint's origin is in its `grants.browser.origins`.
    pub endpoint: Option<Spanned<String>>,
    /// Results per page, 1-50 (1-20 for `brave`). Default: 10.
    pub max_results: Option<Spanned<i64>>,
    /// The backend's API: `"searxng"` (default) or `"brave"` (the Brave Search API, which
    /// needs `key_env`; `endpoint` then defaults to its public URL).
    pub provider: Option<Spanned<String>>,
    /// Environment variable holding the provider's API key, read at each search by the host;
    /// no plugin, page or audit line sees it. Example: `key_env = "BRAVE_SEARCH_KEY"`.
    pub key_env: Option<Spanned<String>>,
}

/// `[telemetry]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySection {
    /// OTLP/HTTP collector to export traces to (JSON encoding, `POST {endpoint}/v1/traces`).
    /// Example: `otlp_endpoint = "http://127.0.0.1:4318"`. Default: no traces.
    pub otlp_endpoint: Option<Spanned<String>>,
}

/// `[server.http]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSection {
    /// `Host` header values accepted, against DNS rebinding. Example: `allowed_hosts = ["warden.internal"]`.
    /// Default: `localhost`, `127.0.0.1`, `::1` and the address Warden binds.
    pub allowed_hosts: Option<Vec<String>>,
    /// Browser origins that may call Warden. Example: `allowed_origins = ["https://app.example.com"]`.
    /// Default: none, so a request that carries an `Origin` header is refused with 403.
    #[serde(default)]
    pub allowed_origins: Vec<Spanned<String>>,
    /// Largest request body. Default `"64MiB"` (room for a base64 `sftp_write` of 48 MiB).
    pub max_body: Option<Spanned<String>>,
    /// Named clients and their bearer tokens; the name goes into the audit log.
    /// Example: `[server.http.clients.alice]` with `token_env = "WARDEN_TOKEN_ALICE"`.
    #[serde(default)]
    pub clients: BTreeMap<String, Spanned<HttpClient>>,
    /// Bearer tokens from an external OAuth authorization server (JWTs checked against its
    /// JWKS), beside the static tokens of `clients`. Example: `[server.http.oauth]` with
    /// `issuer`, `jwks_url` and `resource`. Default: off.
    pub oauth: Option<Spanned<OAuthSection>>,
}

/// `[server.http.oauth]`: Warden as an OAuth 2.1 resource server (MCP authorization).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthSection {
    /// The authorization server's issuer identifier; a token's `iss` must equal it, and the
    /// protected resource metadata names it. Example: `issuer = "https://idp.example.com/realms/ops"`.
    pub issuer: Option<Spanned<String>>,
    /// Where the issuer publishes its signing keys (https; http only on loopback). Example:
    /// `jwks_url = "https://idp.example.com/realms/ops/protocol/openid-connect/certs"`.
    pub jwks_url: Option<Spanned<String>>,
    /// The canonical URL of this MCP endpoint, as clients reach it. Example:
    /// `resource = "https://warden.example.com/mcp"`.
    pub resource: Option<Spanned<String>>,
    /// The `aud` value a token must carry. Default: `resource` (RFC 8707 audience binding).
    pub audience: Option<Spanned<String>>,
    /// Scopes published in the metadata. Example: `scopes_supported = ["mcp:tools"]`. Default: none.
    #[serde(default)]
    pub scopes_supported: Vec<Spanned<String>>,
    /// Scopes every token must carry (403 `insufficient_scope` otherwise). Example:
    /// `required_scopes = ["mcp:tools"]`. Default: none.
    #[serde(default)]
    pub required_scopes: Vec<Spanned<String>>,
    /// The client a valid token is named when no `[server.http.oauth.clients.NAME]` matches
    /// it. Example: `default_client = "oauth"`. Default: none, so such a token is refused (403).
    pub default_client: Option<Spanned<String>>,
    /// Least time between two fetches of the JWKS (a token with an unknown `kid` asks for one).
    /// Example: `jwks_min_refresh = "30s"`. Default `"30s"`.
    pub jwks_min_refresh: Option<Spanned<String>>,
    /// Which tokens are which named client. Example: `[server.http.oauth.clients.ci]` with
    /// `client_id = "ci-runner"`.
    #[serde(default)]
    pub clients: BTreeMap<String, Spanned<OAuthClient>>,
}

/// `[server.http.oauth.clients.NAME]`: the claims that make a token this client's. Every key
/// that is set must match.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthClient {
    /// The token's `sub`. Example: `subject = "2f1c9a..."`.
    pub subject: Option<String>,
    /// The token's `client_id` (RFC 9068), or `azp` when it has none. Example: `client_id = "cursor"`.
    pub client_id: Option<String>,
    /// A scope the token must carry. Example: `scope = "mcp:admin"`.
    pub scope: Option<String>,
    /// As for `[server.http.clients.NAME]`. Example: `max_concurrent = 8`.
    pub max_concurrent: Option<Spanned<i64>>,
    /// As for `[server.http.clients.NAME]`. Example: `rate = "20/s"`.
    pub rate: Option<Spanned<String>>,
    /// As for `[server.http.clients.NAME]`. Example: `role = "ci"`.
    pub role: Option<Spanned<String>>,
}

/// `[server.http.clients.NAME]`: one client's bearer token.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpClient {
    /// Environment variable holding the token (preferred). Example: `token_env = "WARDEN_TOKEN_ALICE"`.
    pub token_env: Option<String>,
    /// The token itself. Example: `token = "4f1c..."` (keep the manifest private).
    pub token: Option<String>,
    /// Requests this client may have in flight at once (a tool call holds one until its
    /// result is sent); more are answered 429. Example: `max_concurrent = 8`. Default: no limit.
    pub max_concurrent: Option<Spanned<i64>>,
    /// Requests per second or minute, with bursts up to that count; more are answered 429
    /// with Retry-After. Example: `rate = "20/s"` or `rate = "600/min"`. Default: no limit.
    pub rate: Option<Spanned<String>>,
    /// The `[roles.NAME]` this client has. Example: `role = "ops"`. Default: everything while
    /// no role is defined; nothing once one is.
    pub role: Option<Spanned<String>>,
}

/// `[ssh]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SshSection {
    /// Named hosts. Example: `[ssh.hosts.web1]` with `address = "127.0.0.1:2222"`.
    #[serde(default)]
    pub hosts: BTreeMap<String, Spanned<SshHost>>,
}

/// `[ssh.hosts.NAME]`: everything needed to reach a host. Plugins only ever see `NAME`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SshHost {
    /// `host:port` of the one machine this alias names. Example: `address = "127.0.0.1:2222"`.
    pub address: Option<Spanned<String>>,
    /// Instead of `address`: a regular expression for the names of many machines (a fleet);
    /// the plugin names the machine. Example: `pattern = 'web-[0-9]+\.prod\.internal'`.
    pub pattern: Option<Spanned<String>>,
    /// The port of a `pattern`'s machines. Example: `port = 2222`. Default: 22.
    pub port: Option<Spanned<i64>>,
    /// The addresses and networks a `pattern`'s names may resolve to. Example:
    /// `allow = ["10.20.0.0/16"]`. Default: public addresses only.
    #[serde(default)]
    pub allow: Vec<Spanned<String>>,
    /// Remote user. Example: `user = "deploy"`.
    pub user: String,
    /// Private key file. Example: `identity_file = "keys/id_ed25519"`.
    pub identity_file: Option<String>,
    /// Passphrase of an encrypted `identity_file`, from the environment (preferred) or the
    /// file; only the host reads it. Example: `identity_passphrase = { env = "WEB1_KEY_PASS" }`.
    pub identity_passphrase: Option<Spanned<SecretSpec>>,
    /// Use the SSH agent at `$SSH_AUTH_SOCK`. Example: `agent = true`.
    #[serde(default)]
    pub agent: bool,
    /// known_hosts file used to verify the host key. Example: `known_hosts = "keys/known_hosts"`.
    pub known_hosts: Option<String>,
    /// OpenSSH user certificate of `identity_file`'s key, signed by a CA the server trusts.
    /// Example: `certificate = "keys/id_ed25519-cert.pub"`.
    pub certificate: Option<Spanned<String>>,
    /// The hosts to go through first, in order (`ssh -J a,b`), each another alias of
    /// `[ssh.hosts]` without a `via` of its own. Example: `via = ["bastion"]`.
    #[serde(default)]
    pub via: Vec<Spanned<String>>,
}

/// `[rdp]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdpSection {
    /// Named desktops. Example: `[rdp.hosts.win1]` with `address = "10.0.0.5:3389"`.
    #[serde(default)]
    pub hosts: BTreeMap<String, Spanned<RdpHost>>,
}

/// `[rdp.hosts.NAME]`: everything needed to log on to a remote desktop. Plugins only ever
/// see `NAME`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdpHost {
    /// `host:port`. Example: `address = "10.0.0.5:3389"`.
    pub address: Spanned<String>,
    /// User to log on as. Example: `user = "Administrator"`.
    pub user: String,
    /// Windows domain of the user, if any. Example: `domain = "CORP"`.
    pub domain: Option<String>,
    /// The password, from the environment (preferred) or the file; only the host reads it.
    /// Example: `password = { env = "WIN1_PASSWORD" }`.
    pub password: Spanned<SecretSpec>,
    /// SHA-256 fingerprint of the server's TLS certificate (hex, colons allowed). A server
    /// that presents another certificate is refused. Example: `cert_sha256 = "3f:a9:..."`.
    pub cert_sha256: Option<Spanned<String>>,
    /// Offer the RemoteFX codec (default true). Off: the server sends bitmap updates, which
    /// are lossless but larger. Example: `remotefx = false`.
    pub remotefx: Option<bool>,
}

/// `[browser]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserSection {
    /// Chromium binary. Example: `executable = "/usr/bin/chromium"`.
    pub executable: Option<String>,
    /// Attach to a running browser instead. Example: `endpoint = "ws://127.0.0.1:9222/devtools/browser/ID"`
    /// or `endpoint = "http://127.0.0.1:9222"`. Short for `endpoints = [ENDPOINT]`.
    pub endpoint: Option<Spanned<String>>,
    /// A fleet of remote browsers: every session gets a connection of its own to the
    /// least-loaded healthy one. Example: `endpoints = ["http://10.0.0.5:9222", "http://10.0.0.6:9222"]`.
    pub endpoints: Option<Spanned<Vec<Spanned<String>>>>,
    /// An address of this machine the fleet's browsers reach Warden at: each session's
    /// network guard listens there (default 127.0.0.1) and serves only its member. Example:
    /// `guard_address = "10.0.0.2"`.
    pub guard_address: Option<Spanned<String>>,
    /// Run without a window. Example: `headless = true` (the default).
    pub headless: Option<bool>,
    /// Read pages that run no script in the host, without a browser tab (the no-JavaScript
    /// fast path; see docs/src/browser.md). Example: `static_pages = false` (default true).
    pub static_pages: Option<bool>,
    /// Extra Chromium flags. Example: `args = ["--lang=de-DE"]`.
    #[serde(default)]
    pub args: Vec<String>,
    /// When Warden runs as root: the unprivileged user the browser Warden launches runs as, a
    /// name from /etc/passwd or `"UID:GID"` (never 0). Default: the user `warden-browser` if
    /// it exists, else uid and gid 61000. Example: `run_as = "chromium"`.
    pub run_as: Option<Spanned<String>>,
    /// Chromium's own sandbox (default true). `false` launches it with `--no-sandbox` (logged,
    /// audited, shown by `warden check`), for hosts without unprivileged user namespaces.
    /// Example: `sandbox = false`.
    pub sandbox: Option<Spanned<bool>>,
    /// Secrets the host can type into pages for plugins granted them by name
    /// (`grants.browser.secrets`), each bound to the origins whose fields it may go into.
    /// Example: `[browser.secrets] APP_PASSWORD = { env = "APP_PASSWORD", origins = ["https://app.example.com"] }`.
    #[serde(default)]
    pub secrets: BTreeMap<String, Spanned<BrowserSecretSpec>>,
    /// Session profiles plugins granted them by name (`grants.browser.profiles`) may open
    /// sessions with. Example: `[browser.profiles.de] locale = "de-DE", proxy = "http://proxy:3128"`.
    #[serde(default)]
    pub profiles: BTreeMap<String, Spanned<ProfileSpec>>,
}

/// `[browser.profiles.NAME]`: how a session opened with this profile reaches the web and
/// what it presents itself as.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// Proxy for the session's requests. Example: `proxy = "socks5://127.0.0.1:1080"`.
    pub proxy: Option<String>,
    /// Hosts that bypass the proxy (Chromium's bypass rules). Example: `proxy_bypass = ["*.internal"]`.
    #[serde(default)]
    pub proxy_bypass: Vec<String>,
    /// Example: `locale = "de-DE"`.
    pub locale: Option<String>,
    /// Example: `timezone = "Europe/Berlin"`.
    pub timezone: Option<String>,
    /// Example: `user_agent = "Mozilla/5.0 ..."`.
    pub user_agent: Option<String>,
    /// Example: `viewport = { width = 1280, height = 800 }`.
    pub viewport: Option<ViewportSpec>,
    /// A persistent Chromium user-data-dir, relative to the manifest: the cookies, storage and
    /// logins of a session with this profile outlive the session and Warden. Such a session
    /// runs in a Chromium of its own, one session at a time. Example: `user_data_dir = "profiles/crm"`.
    pub user_data_dir: Option<String>,
}

/// A profile's viewport.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewportSpec {
    pub width: u32,
    pub height: u32,
    /// Device pixel ratio. Default 1.
    pub device_scale: Option<f64>,
    /// Default `false`.
    #[serde(default)]
    pub mobile: bool,
}

/// `[capture]`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSection {
    /// Persistent Chromium user-data-dir of the capture browser (its cookies and logins
    /// survive restarts), relative to the manifest. Example: `profile_dir = "capture-profile"`.
    /// Default: `capture-profile` next to the audit log (the state directory by default).
    pub profile_dir: Option<String>,
}

/// Where a `[browser.secrets]` value comes from: the environment (preferred) or the file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretSpec {
    /// Read from this environment variable each time it is used.
    pub env: Option<String>,
    /// The value itself (keep the manifest private when you use this).
    pub value: Option<String>,
}

/// `[browser.secrets.NAME]`: where the value comes from and where it may be typed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserSecretSpec {
    /// Read from this environment variable each time it is used.
    pub env: Option<String>,
    /// The value itself (keep the manifest private when you use this).
    pub value: Option<String>,
    /// Required: the http(s) origin globs whose fields the host may type the secret into.
    /// Example: `origins = ["https://login.example.com"]`.
    pub origins: Option<Vec<Spanned<String>>>,
}

/// One `[[plugin]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginEntry {
    /// Unique name, `[a-z0-9_-]{1,32}`. Example: `name = "capture"`.
    pub name: Spanned<String>,
    /// `builtin:NAME` for a first-party plugin, a path to a `.wasm` component (relative to
    /// the manifest), or `oci://REGISTRY/REPO:TAG@sha256:DIGEST`. Example:
    /// `source = "builtin:capture"`.
    pub source: Spanned<String>,
    /// For `oci://` sources: load only with a valid signature by a key in `[trust.keys]`.
    /// Default: true for `oci://` sources. Example: `verify = false` (a lab registry).
    pub verify: Option<Spanned<bool>>,
    /// For `oci://` sources: accept a tag without `@sha256:DIGEST`; it is resolved at every
    /// start and the digest it named is logged and audited. Default: false.
    pub allow_unpinned: Option<Spanned<bool>>,
    /// Prepended to each of this plugin's tool names, so one plugin can be loaded twice.
    /// Example: `tool_prefix = "staging_"`.
    pub tool_prefix: Option<Spanned<String>>,
    /// Which of the plugin's tools are served. Examples: `tools = ["browse_navigate",
    /// "browse_snap*"]`, `tools = { deny = ["browse_eval_js"] }`, `tools = { groups =
    /// ["core", "forms"], offer = ["flows"] }`.
    #[serde(default)]
    pub tools: ToolFilterSpec,
    /// Tools (globs over the plugin's own tool names) that run only after the user approves
    /// each call through the MCP client (elicitation); refused when the client cannot ask.
    /// Example: `require_approval = ["terminal_execute", "sftp_remove"]`.
    #[serde(default)]
    pub require_approval: Vec<Spanned<String>>,
    /// How long a user's approval also covers later calls of the same tool from the same
    /// client session, optionally only with the same value of one argument. Default: every
    /// call is asked. Example: `remember_approval = { for = "10m", per = "session_id" }`.
    pub remember_approval: Option<RememberApprovalSpec>,
    /// Resource limits. Example: `limits = { memory = "128MiB", call_timeout = "60s" }`.
    #[serde(default)]
    pub limits: LimitsSpec,
    /// What the plugin may touch. Nothing is granted unless it is listed here.
    #[serde(default)]
    pub grants: GrantsSpec,
    /// The plugin's own configuration, read through `wasi:config/store` (no grant needed; not
    /// for credentials): a string as written, other values as JSON. Example:
    /// `[plugin.settings]` then `greeting = "Hello"`.
    pub settings: Option<Spanned<toml::Table>>,
}

/// `remember_approval = { for = "10m", per = "session_id" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RememberApprovalSpec {
    /// How long an approval counts, at most 24 hours. Example: `for = "10m"`.
    #[serde(rename = "for")]
    pub window: Spanned<String>,
    /// Only for later calls whose argument of this name has the same value (a session id,
    /// a host alias). Example: `per = "session_id"`.
    pub per: Option<Spanned<String>>,
}

/// Globs over the plugin's own tool names: `tools = ["browse_navigate", "browse_snap*"]`
/// (serve only these), or `tools = { allow = [...], deny = [...], groups = [...], offer =
/// [...] }`.
#[derive(Debug, Default)]
pub struct ToolFilterSpec {
    /// Serve only these. Default: all. Example: `allow = ["browse_*"]`.
    pub allow: Option<Vec<Spanned<String>>>,
    /// Never serve these (wins over `allow`). Example: `deny = ["browse_eval_js"]`.
    pub deny: Vec<Spanned<String>>,
    /// The plugin's tool groups to list (`warden check` names them). Default: all.
    /// Example: `groups = ["core", "forms"]`.
    pub groups: Option<Vec<Spanned<String>>>,
    /// Groups a client may turn on for itself while it runs (the `tool_groups` tool); needs
    /// `groups`. Example: `offer = ["flows", "network"]`.
    pub offer: Vec<Spanned<String>>,
}

impl<'de> Deserialize<'de> for ToolFilterSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // By hand rather than an untagged enum: `Spanned` needs toml's own deserializer,
        // which an untagged enum's buffering would hide.
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ToolFilterSpec;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    r#"a list of tool-name globs (tools = ["browse_*"]) or a table (tools = { allow = [...], deny = [...], groups = [...], offer = [...] })"#,
                )
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut allow = Vec::new();
                while let Some(glob) = seq.next_element::<Spanned<String>>()? {
                    allow.push(glob);
                }
                Ok(ToolFilterSpec {
                    allow: Some(allow),
                    ..ToolFilterSpec::default()
                })
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut spec = ToolFilterSpec::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "allow" => spec.allow = Some(map.next_value()?),
                        "deny" => spec.deny = map.next_value()?,
                        "groups" => spec.groups = Some(map.next_value()?),
                        "offer" => spec.offer = map.next_value()?,
                        other => {
                            return Err(serde::de::Error::unknown_field(
                                other,
                                &["allow", "deny", "groups", "offer"],
                            ));
                        }
                    }
                }
                Ok(spec)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// `limits = { ... }`
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// Linear memory cap. Default `"128MiB"`.
    pub memory: Option<Spanned<String>>,
    /// Wall-clock time per call. Default `"60s"`.
    pub call_timeout: Option<Spanned<String>>,
    /// Cap on the size of one tool result. Default `"1MiB"`.
    pub output: Option<Spanned<String>>,
    /// Calls of this plugin in flight at once, from every client together, shared fairly
    /// among them (a client below its share may start on a lent place, up to twice this
    /// many); each runs in an instance of its own. Default: 4 per core, at least 8 and at
    /// most 64. Example: `concurrency = 32`.
    pub concurrency: Option<Spanned<i64>>,
    /// How long a call waits in its client's line for a place before it fails with "limit
    /// reached". Default `"30s"`.
    pub queue_timeout: Option<Spanned<String>>,
    /// What the plugin may keep per conversation in `warden:plugin/state`. Default `"4MiB"`.
    pub state: Option<Spanned<String>>,
    /// Browser sessions (isolated contexts) the plugin may have open at once. Default 8.
    pub browser_sessions: Option<Spanned<i64>>,
    /// Browser tabs the plugin may have open at once, across its sessions, popups the pages
    /// open included. Default 32.
    pub browser_tabs: Option<Spanned<i64>>,
    /// Tabs one capture request may have open: its own and the popups its page opens. Default 4.
    pub capture_tabs: Option<Spanned<i64>>,
}

/// `grants.*`: one table per capability.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantsSpec {
    pub capture: Option<CaptureGrantSpec>,
    pub browser: Option<BrowserGrantSpec>,
    pub http: Option<super::http::HttpGrantSpec>,
    pub terminal: Option<TerminalGrantSpec>,
    pub sftp: Option<SftpGrantSpec>,
    pub rdp: Option<RdpGrantSpec>,
    /// Host directories the plugin sees as `wasi:filesystem` preopens.
    #[serde(default)]
    pub files: Vec<super::files::FileGrantSpec>,
    /// Environment variables the plugin reads through `wasi:cli/environment`.
    pub env: Option<super::env::EnvGrantSpec>,
}

/// `grants.capture`
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureGrantSpec {
    /// `host[:port]` globs the host may fetch for the plugin. Without a port, only the
    /// scheme's default port matches. Example: `http_hosts = ["127.0.0.1:*", "*.example.com"]`.
    #[serde(default)]
    pub http_hosts: Vec<Spanned<String>>,
    /// Cap on one response body. Default `"4MiB"`.
    pub max_body: Option<Spanned<String>>,
    /// Origins whose pages may be captured in the capture profile. Example: `origins = ["https://*.example.com"]`.
    #[serde(default)]
    pub origins: Vec<Spanned<String>>,
    /// May read cookies of granted origins. Default `false`.
    #[serde(default)]
    pub cookies: bool,
    /// May read httpOnly cookies too. Default `false`.
    #[serde(default)]
    pub http_only_cookies: bool,
}

/// `grants.browser`
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserGrantSpec {
    /// Origin globs every navigation must match. Example: `origins = ["http://127.0.0.1:*"]`.
    #[serde(default)]
    pub origins: Vec<Spanned<String>>,
    /// Origin globs pages may load sub-resources from (scripts, styles, images, fonts, fetch,
    /// WebSocket) without navigating to them; the navigation origins are always included.
    /// Default: none beyond `origins`. Private networks stay closed unless a pattern names
    /// them literally. Example: `resource_origins = ["https://*"]`.
    #[serde(default)]
    pub resource_origins: Vec<Spanned<String>>,
    /// May read and set cookies and storage. Default `false`.
    #[serde(default)]
    pub cookies: bool,
    /// May evaluate JavaScript in pages. Default `false`.
    #[serde(default)]
    pub eval_js: bool,
    /// Directories files may be uploaded from. Example: `upload_dirs = ["/srv/uploads"]`.
    #[serde(default)]
    pub upload_dirs: Vec<Spanned<String>>,
    /// Where the pages of this plugin's sessions save downloads, each session under
    /// `DIR/PLUGIN/SESSION/`. Without it downloads are refused. Example:
    /// `download_dir = "/srv/downloads"`.
    pub download_dir: Option<Spanned<String>>,
    /// Largest download saved; a larger one is cancelled. Default `"100MiB"`.
    pub download_max: Option<Spanned<String>>,
    /// Names of secrets the host may type into pages. Example: `secrets = ["APP_PASSWORD"]`.
    #[serde(default)]
    pub secrets: Vec<Spanned<String>>,
    /// Names under `[browser.profiles]` sessions may be opened with. Example: `profiles = ["de"]`.
    #[serde(default)]
    pub profiles: Vec<Spanned<String>>,
}

/// `grants.terminal`
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerminalGrantSpec {
    /// May open PTYs on the host. Default `false`.
    #[serde(default)]
    pub local: bool,
    /// Host aliases from `[ssh.hosts]`. Example: `ssh_hosts = ["web1"]`.
    #[serde(default)]
    pub ssh_hosts: Vec<Spanned<String>>,
    /// Per pattern host of `ssh_hosts`, the member name globs sessions may reach.
    /// Example: `members.web = ["web-*.staging.internal"]`.
    #[serde(default)]
    pub members: BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
    /// Sessions may be read but not written to. Default `false`.
    #[serde(default)]
    pub read_only: bool,
}

/// `grants.rdp`
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdpGrantSpec {
    /// Desktop aliases from `[rdp.hosts]`. Example: `hosts = ["win1"]`.
    #[serde(default)]
    pub hosts: Vec<Spanned<String>>,
    /// Screenshots only: pointer and keyboard input is refused. Default `false`.
    #[serde(default)]
    pub read_only: bool,
}

/// `grants.sftp`
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SftpGrantSpec {
    /// Host aliases from `[ssh.hosts]`. Example: `hosts = ["web1"]`.
    #[serde(default)]
    pub hosts: Vec<Spanned<String>>,
    /// Per pattern host of `hosts`, the member name globs SFTP may reach.
    /// Example: `members.web = ["web-*.staging.internal"]`.
    #[serde(default)]
    pub members: BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
    /// Absolute remote directories every path must stay under. Example: `roots = ["/srv/app"]`.
    #[serde(default)]
    pub roots: Vec<Spanned<String>>,
    /// May create, change and remove files. Default `false`.
    #[serde(default)]
    pub write: bool,
}

/// `[roles.NAME]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleSpec {
    /// Whole plugins: every tool, prompt, resource and completion they serve.
    /// Example: `plugins = ["ops"]`.
    #[serde(default)]
    pub plugins: Vec<Spanned<String>>,
    /// Tool groups, as `plugin/group`. Example: `groups = ["browser/core"]`.
    #[serde(default)]
    pub groups: Vec<Spanned<String>>,
    /// Tools by public name (globs). Example: `tools = ["sftp_read", "sftp_list"]`.
    #[serde(default)]
    pub tools: Vec<Spanned<String>>,
    /// Prompts by public name (globs). Example: `prompts = ["ops_*"]`.
    #[serde(default)]
    pub prompts: Vec<Spanned<String>>,
    /// Tools (public names, globs) that need the user's approval for each call made by this
    /// role's clients, beside the plugin's own `require_approval`.
    /// Example: `require_approval = ["terminal_execute"]`.
    #[serde(default)]
    pub require_approval: Vec<Spanned<String>>,
    /// Narrower grants of a plugin for this role's clients: `narrow.PLUGIN.KIND` has the
    /// shape of `grants.KIND` and must be within the plugin's.
    /// Example: `narrow.browser.browser = { origins = ["https://staging.example.com"] }`.
    #[serde(default)]
    pub narrow: BTreeMap<String, Spanned<NarrowSpec>>,
}

/// `narrow.PLUGIN`: the grant kinds a role narrows, each in the shape of `grants.KIND`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NarrowSpec {
    pub browser: Option<Spanned<BrowserGrantSpec>>,
    pub http: Option<Spanned<super::http::HttpGrantSpec>>,
    pub terminal: Option<Spanned<TerminalGrantSpec>>,
    pub sftp: Option<Spanned<SftpGrantSpec>>,
    pub rdp: Option<Spanned<RdpGrantSpec>>,
    pub capture: Option<Spanned<CaptureGrantSpec>>,
    /// The plugin's directories this role keeps (same `host` and `guest`), read-only or
    /// with a smaller quota if it likes; `[]` keeps none.
    pub files: Option<Spanned<Vec<super::files::FileGrantSpec>>>,
}
