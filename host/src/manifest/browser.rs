//! `[browser]`, `[browser.secrets.NAME]`, `[browser.profiles.NAME]` and `[capture]
//! profile_dir`: how the browser provider runs Chromium (launched, or remote endpoints), the
//! secrets only the host types into pages, and the profiles sessions may run in.

use super::emulation;
use super::glob::GlobList;
use super::owned::Reach;
use super::schema::{self, BrowserSection};
use super::search::SearchConfig;
use super::secret::SecretSource;
use super::validate::{Validator, valid_name};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

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
    /// `[browser] run_as`: who a launched browser runs as when Warden is root (the default
    /// user when `None`, see `browser_sandbox.rs`).
    pub run_as: Option<super::browser_sandbox::RunAs>,
    /// `[browser] sandbox = false`: the admin's explicit opt-out of Chromium's sandbox.
    pub unsandboxed: bool,
    /// `[browser.secrets]`: only the host reads them, when it types one into a page.
    pub secrets: BTreeMap<String, SecretSource>,
    /// `[capture] profile_dir`: the persistent profile of the capture browser.
    pub capture_profile: PathBuf,
    /// `[browser.profiles]`, by name.
    pub profiles: BTreeMap<String, BrowserProfile>,
    /// `[search]`: the web search backend, when the manifest names one.
    pub search: Option<SearchConfig>,
}

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

/// What `[browser.secrets]` and `[browser.profiles]` define, which a plugin's
/// `grants.browser` may name.
#[derive(Debug, Default)]
pub(super) struct BrowserNames {
    /// Names under `[browser.secrets]`.
    pub(super) secrets: Vec<String>,
    /// The origins each `[browser.secrets.NAME]` is bound to.
    pub(super) secret_origins: BTreeMap<String, GlobList>,
    /// Names under `[browser.profiles]`.
    pub(super) profiles: Vec<String>,
}

impl Validator<'_> {
    /// `[browser]` with its secrets and profiles; `capture_profile` is the capture browser's
    /// user-data-dir, which no profile may share.
    pub(super) fn browser(
        &mut self,
        section: BrowserSection,
        capture_profile: PathBuf,
        search: &schema::SearchSection,
        names: &mut BrowserNames,
    ) -> BrowserConfig {
        let mut secrets = BTreeMap::new();
        for (name, spec) in section.secrets {
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
            names.secret_origins.insert(name.clone(), origins);
            names.secrets.push(name);
        }
        let mut profiles = BTreeMap::new();
        let mut persistent = Vec::new();
        for (name, spec) in section.profiles {
            let span = spec.span();
            if !valid_name(&name) {
                self.error(
                    span.clone(),
                    format!("browser.profiles: name \"{name}\" must match [a-zA-Z0-9_-]{{1,32}}"),
                );
            }
            let spec = spec.into_inner();
            let dir = spec.user_data_dir.as_deref().map(|d| {
                self.resolve_owned(
                    d,
                    &format!("browser.profiles.{name}'s user_data_dir"),
                    Reach::Secret,
                )
            });
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
            names.profiles.push(name);
        }
        let endpoints = self.browser_endpoints(section.endpoint, section.endpoints);
        let guard_address = self.guard_address(section.guard_address, !endpoints.is_empty());
        let (run_as, sandbox) =
            self.browser_sandbox(section.run_as, section.sandbox, !endpoints.is_empty());
        self.check_user_data_dirs(&persistent, &capture_profile, !endpoints.is_empty());
        let search = self.search(search);
        BrowserConfig {
            search,
            profiles,
            executable: section
                .executable
                .map(|p| self.resolve_owned(&p, "the browser's executable", Reach::Integrity)),
            endpoints,
            guard_address,
            headless: section.headless.unwrap_or(true),
            static_pages: section.static_pages.unwrap_or(true),
            args: section.args,
            run_as,
            unsandboxed: !sandbox,
            secrets,
            capture_profile,
        }
    }

    /// `[browser] endpoint` or `endpoints` (not both), each a DevTools WebSocket or HTTP URL.
    pub(super) fn browser_endpoints(
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

    /// `[browser] guard_address`: an IP address of this machine (one a browser can connect
    /// to, so not `0.0.0.0`), for a fleet only.
    pub(super) fn guard_address(
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
    pub(super) fn check_user_data_dirs(
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

    /// `[browser.secrets.NAME] origins`: required, and only http(s) origins, since a secret
    /// typed into any other kind of document (`data:`, `blob:`, `file:`) goes to content
    /// the plugin may have written.
    pub(super) fn secret_origins_of(
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
}

/// Why a `[browser.profiles.NAME]` is refused (the text follows the profile's key).
#[derive(Debug, thiserror::Error)]
enum ProfileError {
    #[error(
        "proxy \"{proxy}\" is not a URL ({source}); write it like \"http://proxy.internal:3128\" or \"socks5://127.0.0.1:1080\""
    )]
    ProxyNotUrl {
        proxy: String,
        source: url::ParseError,
    },
    #[error(
        "proxy scheme \"{0}\" is not supported; use http, socks4 or socks5 (Warden's network guard chains to it)"
    )]
    ProxyScheme(String),
    #[error(
        "proxy credentials in the URL are not supported (Chromium ignores them); use a proxy that authorizes by address"
    )]
    ProxyCredentials,
    #[error("proxy \"{0}\" must be scheme://host[:port] with nothing after it")]
    ProxyNotOrigin(String),
    #[error("proxy_bypass needs proxy")]
    BypassWithoutProxy,
    #[error(
        "proxy_bypass entry \"{0}\" must be one host pattern (no spaces, commas or semicolons)"
    )]
    BypassEntry(String),
    /// The emulation values Chromium would refuse (`emulation.rs` says which).
    #[error("{0}")]
    Emulation(String),
}

/// Check a profile: a proxy URL Chromium can use, and emulation values it accepts.
fn browser_profile(spec: schema::ProfileSpec) -> Result<BrowserProfile, ProfileError> {
    if let Some(proxy) = &spec.proxy {
        let url = url::Url::parse(proxy).map_err(|source| ProfileError::ProxyNotUrl {
            proxy: proxy.clone(),
            source,
        })?;
        // The browser's network guard chains to this proxy itself (guard/upstream.rs), and
        // speaks plain HTTP CONNECT or SOCKS to it.
        if !matches!(url.scheme(), "http" | "socks4" | "socks5") {
            return Err(ProfileError::ProxyScheme(url.scheme().to_string()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ProfileError::ProxyCredentials);
        }
        if url.host_str().is_none_or(str::is_empty) || url.path().len() > 1 || url.query().is_some()
        {
            return Err(ProfileError::ProxyNotOrigin(proxy.clone()));
        }
    } else if !spec.proxy_bypass.is_empty() {
        return Err(ProfileError::BypassWithoutProxy);
    }
    if let Some(rule) = spec
        .proxy_bypass
        .iter()
        .find(|r| r.is_empty() || r.contains([',', ';', ' ']))
    {
        return Err(ProfileError::BypassEntry(rule.clone()));
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
    emulation.validate().map_err(ProfileError::Emulation)?;
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
