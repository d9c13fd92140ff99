//! The manifest as a whole: [`Manifest`], read from a file or the built-in default, parsed
//! strictly and validated section by section (each section's file checks its own part), and
//! the small top-level sections (`[server]`, `[admin]`, `[telemetry]`).

use super::browser::{BrowserConfig, BrowserNames};
use super::dirs::{cache_dir, state_dir};
use super::error::{Diagnostic, ManifestError};
use super::hosts::{RdpHostConfig, SshHostConfig};
use super::owned::{OwnedPaths, Reach};
use super::plugin::PluginConfig;
use super::plugin_grants::PluginScope;
use super::schema::ManifestFile;
use super::server_http::HttpConfig;
use super::validate::Validator;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The manifest used when a command is given none: every first-party plugin; the browser may
/// load public `https` sites and `http_get` may fetch public hosts on port 443 (private
/// networks stay closed), and nothing else is granted. The browser lists its groups for
/// ordinary browsing and offers the rest; the terminal and SFTP tools are not listed (their
/// grants are missing), which the start-up log and `warden check` say with the grant to add.
pub const DEFAULT_MANIFEST: &str = r#"# Built-in default manifest: the public web over https for the browser and http_get
# (no cookies, no script, no secrets, no uploads; private networks stay closed because no
# grant names them), and nothing on this machine: no terminal, no files.
[[plugin]]
name = "browser"
source = "builtin:browser"
tools = { groups = ["core", "forms"], offer = ["pages", "sessions", "network", "emulation", "flows"] }
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

/// `[server] quick_start` when unset: below it Cranelift compiles a component in well under
/// a second, and a baseline tier would save little.
pub const DEFAULT_QUICK_START: u64 = 1 << 20;

/// A loaded, validated manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// How errors name the file.
    pub file_name: String,
    pub audit_log: PathBuf,
    /// `[audit]`: which sessions are recorded, where, and how much is kept.
    pub recording: super::audit::RecordingPolicy,
    pub cache_dir: PathBuf,
    pub http: HttpConfig,
    /// `[admin] listen`: metrics and health probes, off when `None`.
    pub admin_listen: Option<std::net::SocketAddr>,
    /// `[telemetry] otlp_endpoint`: traces, off when `None`.
    pub otlp_endpoint: Option<url::Url>,
    /// `[server] replica`: this process's name among replicas (see [`crate::replica`]).
    pub replica: Option<String>,
    /// `[server] quick_start`: components at least this large, in no cache, start on
    /// baseline code (the runtime's `tiers.rs`); `None`: off.
    pub quick_start: Option<u64>,
    pub ssh_hosts: BTreeMap<String, SshHostConfig>,
    pub rdp_hosts: BTreeMap<String, RdpHostConfig>,
    pub browser: BrowserConfig,
    /// `[trust]` and `[registries]`: how `oci://` plugins are pulled and checked.
    pub distribution: crate::distribution::Distribution,
    pub plugins: Vec<PluginConfig>,
    /// `[roles]`: what each client may use.
    pub roles: super::roles::Roles,
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
                Self::parse_at(
                    &text,
                    &path.display().to_string(),
                    &base,
                    Some(path),
                    builtins,
                )
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
        Self::parse_at(text, file_name, base, None, builtins)
    }

    /// [`Self::parse`] for the manifest read from `file`, which no grant may reach.
    fn parse_at(
        text: &str,
        file_name: &str,
        base: &Path,
        file: Option<&Path>,
        builtins: &[&str],
    ) -> Result<Self, ManifestError> {
        let mut v = Validator {
            text,
            file_name,
            base,
            diagnostics: Vec::new(),
            owned: OwnedPaths::default(),
            owned_files: Arc::default(),
        };
        if let Some(file) = file {
            v.owned.add(file, "the manifest", Reach::Secret);
        }
        let parsed: ManifestFile = match toml::from_str(text) {
            Ok(f) => f,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                v.error(span, e.message().trim_end().to_string());
                return Err(ManifestError::Invalid(v.diagnostics));
            }
        };
        let manifest = v.validate(parsed, builtins);
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

impl Validator<'_> {
    pub(super) fn validate(&mut self, file: ManifestFile, builtins: &[&str]) -> Manifest {
        let audit_log = match &file.server.audit_log {
            Some(p) => self.resolve(p.get_ref()),
            None => state_dir().join("audit.jsonl"),
        };
        let cache_dir = match (&file.server.cache_dir, std::env::var_os("WARDEN_CACHE_DIR")) {
            (_, Some(env)) if !env.is_empty() => PathBuf::from(env),
            (Some(p), _) => self.resolve(p.get_ref()),
            _ => cache_dir(),
        };

        let recording = self.audit(file.audit, &audit_log);
        let http = self.http(&file.server.http);
        let ssh_hosts = self.ssh_hosts(file.ssh.hosts);
        let rdp_hosts = self.rdp_hosts(file.rdp.hosts);

        let capture_profile = match &file.capture.profile_dir {
            Some(dir) => self.resolve(dir),
            None => audit_log.parent().map_or_else(
                || PathBuf::from("capture-profile"),
                |d| d.join("capture-profile"),
            ),
        };
        let mut names = BrowserNames::default();
        let browser = self.browser(file.browser, capture_profile, &file.search, &mut names);

        let distribution = self.distribution(file.trust, file.registries);
        let credentials = self.credentials(file.credentials);
        let state = state_dir();
        self.own_fixed(&[
            (&state, "Warden's state directory", Reach::Secret),
            (&audit_log, "the audit log", Reach::Secret),
            (&recording.dir, "the recordings", Reach::Secret),
            (
                &browser.capture_profile,
                "the capture profile",
                Reach::Secret,
            ),
            (&cache_dir, "the compiled-component cache", Reach::Integrity),
        ]);
        self.owned_files = Arc::new(self.owned.secret_files());
        let scope = PluginScope {
            builtins,
            ssh_hosts: &ssh_hosts,
            rdp_hosts: &rdp_hosts,
            distribution: &distribution,
            browser: &names,
            credentials: &credentials,
        };
        // Each plugin's grants as written: a role's narrowing is merged with them.
        let grant_specs: BTreeMap<String, super::schema::GrantsSpec> = file
            .plugin
            .iter()
            .map(|p| (p.name.get_ref().clone(), p.grants.clone()))
            .collect();
        let mut plugins: Vec<PluginConfig> = Vec::new();
        for entry in file.plugin {
            if let Some(p) = self.plugin(entry, &scope) {
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
        self.unreached_owned(&plugins);
        let roles = self.roles(file.roles, &plugins, &grant_specs, &scope);
        let roles = self.client_roles(&file.server, roles);
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
        let quick_start = match &file.server.quick_start {
            None => Some(DEFAULT_QUICK_START),
            Some(v) if v.get_ref().trim() == "off" => None,
            Some(v) => match v.get_ref().trim().parse::<bytesize::ByteSize>() {
                Ok(size) => Some(size.as_u64()),
                Err(_) => {
                    self.error(
                        v.span(),
                        format!(
                            "server.quick_start: \"{}\" is neither a size nor \"off\"; write it like \"4MiB\", or \"off\" to compile every component optimized before its first call",
                            v.get_ref()
                        ),
                    );
                    None
                }
            },
        };
        Manifest {
            file_name: self.file_name.to_string(),
            audit_log,
            recording,
            cache_dir,
            http,
            admin_listen,
            otlp_endpoint,
            replica,
            quick_start,
            ssh_hosts,
            rdp_hosts,
            browser,
            distribution,
            plugins,
            roles,
        }
    }

    /// Who has which role: static and OAuth clients by name, the local operator by
    /// `[server] local_role`.
    fn client_roles(
        &mut self,
        server: &super::schema::ServerSection,
        roles: BTreeMap<String, Arc<super::roles::Role>>,
    ) -> super::roles::Roles {
        let mut clients = BTreeMap::new();
        for (name, client) in &server.http.clients {
            let key = format!("server.http.clients.{name}.role");
            if let Some(role) = self.client_role(&key, client.get_ref().role.as_ref(), &roles) {
                clients.insert(name.clone(), role);
            }
        }
        if let Some(oauth) = &server.http.oauth {
            for (name, client) in &oauth.get_ref().clients {
                let key = format!("server.http.oauth.clients.{name}.role");
                if let Some(role) = self.client_role(&key, client.get_ref().role.as_ref(), &roles) {
                    clients.insert(name.clone(), role);
                }
            }
        }
        let local = self.client_role("server.local_role", server.local_role.as_ref(), &roles);
        super::roles::Roles {
            roles,
            clients,
            local,
        }
    }
}
