//! Grants compiled into allow-sets. Built once when the manifest loads and consulted by
//! the capability providers on every call: the manifest is never trusted "at load only".

use super::files::FileGrant;
use super::http::{self, HttpGrant};
use crate::net::pattern_host;
use std::path::PathBuf;
use url::Url;

pub use super::denied::{Denied, Fix, Owner};
pub use super::glob::GlobList;
pub use super::grant_kinds::Members;
pub use super::grant_kinds::{
    BrowserGrant, Caps, CaptureGrant, DEFAULT_BROWSER_SESSIONS, DEFAULT_BROWSER_TABS,
    DEFAULT_CAPTURE_TABS, DEFAULT_MAX_BODY, Defined, RdpGrant, SecretFrame, SecretGrant, SftpGrant,
    TerminalGrant,
};
pub use super::values::{host_port, size_text};

/// Everything one plugin was granted.
#[derive(Debug, Default)]
pub struct Grants {
    pub plugin: String,
    /// What the manifest defines that grants name, so a refusal suggests only grants that load.
    pub defined: Defined,
    /// How many browser sessions and tabs the plugin may hold (`limits.browser_*`).
    pub caps: Caps,
    pub capture: Option<CaptureGrant>,
    pub browser: Option<BrowserGrant>,
    /// `grants.http`: standard `wasi:http` requests.
    pub http: Option<HttpGrant>,
    pub terminal: Option<TerminalGrant>,
    pub sftp: Option<SftpGrant>,
    pub rdp: Option<RdpGrant>,
    /// `grants.files`: directories served as `wasi:filesystem` preopens.
    pub files: Vec<FileGrant>,
    /// `grants.env`: the plugin's whole environment, name and value.
    pub env: Vec<(String, String)>,
    /// Set when these are a role's narrowing of the plugin's grants: refusals under the
    /// kinds it narrowed name the role's key.
    pub narrowed_by: Option<NarrowedBy>,
}

/// The role whose `narrow.PLUGIN` made a [`Grants`], and the kinds it wrote (`browser`, ...).
#[derive(Debug, Clone, Default)]
pub struct NarrowedBy {
    pub role: String,
    pub kinds: Vec<&'static str>,
}

impl Grants {
    /// May this plugin send `method` to `url`? Returns its `grants.http` and the origin
    /// patterns that matched (for the private-network rule).
    pub fn check_http_request(
        &self,
        method: &str,
        url: &Url,
    ) -> Result<(&HttpGrant, Vec<&str>), Denied> {
        http::check_request(
            self.http.as_ref(),
            self.owner("grants.http.origins"),
            method,
            url,
        )
    }

    /// One line saying what was granted, for the start-up log.
    pub fn summary(&self) -> String {
        let parts = self.summary_parts();
        if parts.is_empty() {
            "nothing (only the sandbox and context services)".to_string()
        } else {
            parts.join("; ")
        }
    }

    /// Each grant the plugin has, in the manifest's words, for the start-up log and `warden
    /// check`: names of credentials and environment variables, never their values.
    pub fn summary_parts(&self) -> Vec<String> {
        let list = |l: &GlobList| format!("{:?}", l.patterns());
        let mut parts = Vec::new();
        if let Some(c) = &self.capture {
            parts.push(format!(
                "capture.http_hosts = {}{}, capture.max_body = {}, capture.origins = {}, capture.cookies = {}, capture.http_only_cookies = {}",
                list(&c.http_hosts),
                if c.http_hosts.patterns().is_empty() { " (http_get reaches no host)" } else { "" },
                c.max_body,
                list(&c.origins),
                c.cookies,
                c.http_only_cookies
            ));
        }
        if let Some(b) = &self.browser {
            let secrets: Vec<String> = b
                .secrets
                .iter()
                .map(|s| format!("{} -> {}", s.name, list(&s.origins)))
                .collect();
            parts.push(format!(
                "browser.origins = {}, browser.cookies = {}, browser.eval_js = {}, browser.upload_dirs = {:?}, browser.download_dir = {:?}, browser.secrets = {:?}, browser.profiles = {:?}, limits.browser_sessions = {}, limits.browser_tabs = {}",
                list(&b.origins), b.cookies, b.eval_js, b.upload_dirs, b.download_dir, secrets, b.profiles,
                self.caps.browser_sessions, self.caps.browser_tabs
            ));
        }
        if let Some(h) = &self.http {
            parts.push(h.summary());
        }
        if !self.files.is_empty() {
            let dirs: Vec<String> = self.files.iter().map(|f| f.summary()).collect();
            parts.push(format!("files = [{}]", dirs.join(", ")));
        }
        if !self.env.is_empty() {
            let names: Vec<&str> = self.env.iter().map(|(n, _)| n.as_str()).collect();
            parts.push(format!("env = {names:?} (values not shown)"));
        }
        if let Some(t) = &self.terminal {
            parts.push(format!(
                "terminal.local = {}, terminal.ssh_hosts = {:?}{}, terminal.read_only = {}",
                t.local,
                t.ssh_hosts,
                members_text("terminal", &t.members),
                t.read_only
            ));
        }
        if let Some(s) = &self.sftp {
            parts.push(format!(
                "sftp.hosts = {:?}{}, sftp.roots = {:?}, sftp.write = {}",
                s.hosts,
                members_text("sftp", &s.members),
                s.roots,
                s.write
            ));
        }
        if let Some(r) = &self.rdp {
            parts.push(format!(
                "rdp.hosts = {:?}, rdp.read_only = {}",
                r.hosts, r.read_only
            ));
        }
        parts
    }

    /// Whose rule `grant` (`grants.KIND.KEY`) is in these grants: the role's, when a role
    /// narrowed that kind, else the plugin's.
    pub fn owner(&self, grant: &str) -> Owner<'_> {
        let kind = grant
            .trim_start_matches("grants.")
            .split('.')
            .next()
            .unwrap_or_default();
        match &self.narrowed_by {
            Some(n) if n.kinds.contains(&kind) => Owner::Role {
                role: &n.role,
                plugin: &self.plugin,
            },
            _ => Owner::Plugin(&self.plugin),
        }
    }

    fn denied(&self, grant: &'static str, target: String, fix: Fix) -> Denied {
        Denied::fixable(self.owner(grant), grant, target, fix)
    }

    /// Does this plugin hold secrets? Then it is never granted script (`eval_js`): script in
    /// a page reads a field the host filled, so the two together are a load error.
    fn holds_secrets(&self) -> bool {
        self.browser.as_ref().is_some_and(|b| !b.secrets.is_empty())
    }

    /// A refusal that `grants.browser.eval_js` would lift, unless the plugin holds secrets.
    pub(crate) fn needs_script(&self, target: String) -> Denied {
        const KEY: &str = "grants.browser.eval_js";
        if self.holds_secrets() {
            return Denied::unfixable(
                KEY,
                target.clone(),
                format!(
                    "{target} needs grants.browser.eval_js, and plugin '{}' cannot have it: it holds secrets (grants.browser.secrets), and script in a page reads a field the host filled, so the two are never granted together; give script to a plugin without secrets",
                    self.plugin
                ),
            );
        }
        self.denied(KEY, target, Fix::enable(KEY))
    }

    /// A refusal that adding `name` to the list `grant` would lift, when the manifest defines
    /// `name` under `table` (a grant of an undefined name does not load).
    fn denied_name(
        &self,
        grant: &'static str,
        target: String,
        name: &str,
        table: &str,
        defined: &[String],
    ) -> Denied {
        if defined.iter().any(|d| d == name) {
            return self.denied(grant, target, Fix::add(grant, name));
        }
        Denied::unfixable(
            grant,
            target.clone(),
            format!(
                "{} does not allow {target}, and the manifest defines no [{table}.{name}]; define it there, then add \"{name}\" to {grant} of plugin '{}'",
                grant.trim_start_matches("grants."),
                self.plugin
            ),
        )
    }

    /// May the host fetch `url` for this plugin? Checked for the first URL and every redirect.
    pub fn check_http(&self, url: &Url) -> Result<(), Denied> {
        const KEY: &str = "grants.capture.http_hosts";
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Denied::unfixable(
                KEY,
                url.scheme().to_string(),
                format!(
                    "only http and https URLs can be fetched, not {}:",
                    url.scheme()
                ),
            ));
        }
        let Some(target) = host_port(url) else {
            return Err(Denied::unfixable(
                KEY,
                url.to_string(),
                format!("{url} has no host to check against {KEY}"),
            ));
        };
        let allowed = self.capture.as_ref().is_some_and(|c| {
            c.http_hosts.is_match(&target)
                // A pattern without a port means "the scheme's default port".
                || (url.port().is_none() && c.http_hosts.is_match(url.host_str().unwrap_or("")))
        });
        if allowed {
            Ok(())
        } else {
            // Suggest a domain glob only for names: "*.2.3" for an IP address would be wrong.
            // A glob without a port matches only the default port, so it keeps the URL's.
            let mut values = vec![target.clone()];
            if let Some(url::Host::Domain(d)) = url.host()
                && d.matches('.').count() >= 2
            {
                let parent = d.split_once('.').map_or(d, |(_, rest)| rest);
                values.push(match url.port() {
                    Some(port) => format!("*.{parent}:{port}"),
                    None => format!("*.{parent}"),
                });
            }
            let fix = Fix::Add {
                key: KEY.into(),
                values,
            };
            Err(self.denied(KEY, target, fix))
        }
    }

    /// Cap on one HTTP body for this plugin.
    pub fn max_body(&self) -> u64 {
        self.capture
            .as_ref()
            .map_or(DEFAULT_MAX_BODY, |c| c.max_body)
    }

    /// May this plugin open a browser page at all?
    pub fn check_browser(&self) -> Result<(), Denied> {
        match &self.browser {
            Some(b) if !b.origins.patterns().is_empty() => Ok(()),
            _ => Err(Denied::unfixable(
                "grants.browser.origins",
                "the browser".into(),
                format!(
                    "plugin '{}' may visit no origin, so it opens no page; add the origins it may visit to grants.browser.origins in the manifest",
                    self.plugin
                ),
            )),
        }
    }

    /// May this plugin's pages load `url` (a top-level or frame navigation)?
    pub fn check_browser_origin(&self, url: &Url) -> Result<(), Denied> {
        const KEY: &str = "grants.browser.origins";
        // Pages that carry no origin of their own stay inside the browser.
        if matches!(url.scheme(), "about" | "data" | "blob" | "javascript") {
            return Ok(());
        }
        let allowed = self
            .browser
            .as_ref()
            .is_some_and(|b| !Self::origin_matches(&[&b.origins], url).is_empty());
        if allowed {
            Ok(())
        } else {
            Err(self.origin_denied(KEY, url))
        }
    }

    /// The refusal of `url`'s origin under the origin list `key`: add the origin, when it
    /// is one a grant can name (`http`/`https` with a host); a `file:` or other opaque
    /// origin serializes as `null`, which no origin list takes.
    fn origin_denied(&self, key: &'static str, url: &Url) -> Denied {
        match grantable_origin(url) {
            Some(origin) => self.denied(key, format!("origin {origin}"), Fix::add(key, origin)),
            None => Denied::unfixable(
                key,
                format!("a {}: URL", url.scheme()),
                format!(
                    "{}: pages have no origin a grant can name (only http and https origins can be granted), so {key} cannot allow them",
                    url.scheme()
                ),
            ),
        }
    }

    /// The patterns of `lists` that match `url`'s origin (with and without its default port).
    fn origin_matches<'a>(lists: &[&'a GlobList], url: &Url) -> Vec<&'a str> {
        let Some(origin) = grantable_origin(url) else {
            return Vec::new();
        };
        let with_port = match (url.host_str(), url.port_or_known_default()) {
            (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
            _ => origin.clone(),
        };
        let mut found: Vec<&str> = Vec::new();
        for list in lists {
            for p in list
                .matching(&origin)
                .into_iter()
                .chain(list.matching(&with_port))
            {
                if !found.contains(&p) {
                    found.push(p);
                }
            }
        }
        found
    }

    /// May a page of this plugin's browser sessions make any request (a document or a
    /// sub-resource) to `url`'s origin? Checked by the network guard against
    /// `grants.browser.origins` and `grants.browser.resource_origins`. Returns the patterns
    /// that matched, for the private-network rule ([`crate::net::admit`]).
    pub fn check_browser_request(&self, url: &Url) -> Result<Vec<&str>, Denied> {
        const KEY: &str = "grants.browser.resource_origins";
        let matched = self.browser.as_ref().map_or_else(Vec::new, |b| {
            Self::origin_matches(&[&b.origins, &b.resource_origins], url)
        });
        if matched.is_empty() {
            let mut denied = self.origin_denied(KEY, url);
            if denied.fix.is_some() {
                denied.message.push_str(
                    " (or to grants.browser.origins, if the plugin may also open its pages)",
                );
            }
            Err(denied)
        } else {
            Ok(matched)
        }
    }

    /// The capture browser's counterpart of [`Grants::check_browser_request`]: every
    /// request of a capture tab is checked against `grants.capture.origins`.
    pub fn check_capture_request(&self, url: &Url) -> Result<Vec<&str>, Denied> {
        const KEY: &str = "grants.capture.origins";
        let matched = self
            .capture
            .as_ref()
            .map_or_else(Vec::new, |c| Self::origin_matches(&[&c.origins], url));
        if matched.is_empty() {
            Err(self.origin_denied(KEY, url))
        } else {
            Ok(matched)
        }
    }

    /// The `grants.capture.http_hosts` patterns that allow `url` (see [`Grants::check_http`]),
    /// for the private-network rule.
    pub fn http_matches(&self, url: &Url) -> Vec<&str> {
        let (Some(c), Some(target)) = (self.capture.as_ref(), host_port(url)) else {
            return Vec::new();
        };
        let mut found = c.http_hosts.matching(&target);
        if url.port().is_none() {
            found.extend(c.http_hosts.matching(url.host_str().unwrap_or("")));
        }
        found
    }

    /// May the capture browser load `url` for this plugin (a capture, or any navigation of
    /// its capture tab)? Checked against `grants.capture.origins`.
    pub fn check_capture_origin(&self, url: &Url) -> Result<(), Denied> {
        const KEY: &str = "grants.capture.origins";
        if matches!(url.scheme(), "about" | "data" | "blob" | "javascript") {
            return Ok(());
        }
        let allowed = self
            .capture
            .as_ref()
            .is_some_and(|c| !Self::origin_matches(&[&c.origins], url).is_empty());
        if allowed {
            Ok(())
        } else {
            Err(self.origin_denied(KEY, url))
        }
    }

    /// May this plugin read the capture profile's cookies of `url`'s origin (and httpOnly
    /// ones when `http_only`)? The origin must be granted too.
    pub fn check_capture_cookies(&self, url: &Url, http_only: bool) -> Result<(), Denied> {
        self.check_capture_origin(url)?;
        self.check_cookie_flags(http_only)
    }

    /// May this plugin read the capture profile's cookies for `domain` (and httpOnly ones when
    /// `http_only`)? Cookies carry no scheme or port, so the rule is on hosts: `domain` must
    /// match the host part of a `capture.origins` pattern (`https://*.example.com` covers
    /// `app.example.com`; `http://127.0.0.1:*` covers `127.0.0.1`).
    pub fn check_capture_cookie_domain(&self, domain: &str, http_only: bool) -> Result<(), Denied> {
        const KEY: &str = "grants.capture.origins";
        let domain = domain.trim().trim_start_matches('.').to_ascii_lowercase();
        let covered = self.capture.as_ref().is_some_and(|c| {
            let hosts: Vec<String> = c
                .origins
                .patterns()
                .iter()
                .map(|p| pattern_host(p))
                .collect();
            GlobList::new(&hosts).is_ok_and(|h| h.is_match(&domain))
        });
        if !covered {
            let mut denied = self.denied(
                KEY,
                format!("cookies of {domain}"),
                Fix::add(KEY, format!("https://{domain}")),
            );
            denied
                .message
                .push_str(&format!(" (any origin on {domain} covers its cookies)"));
            return Err(denied);
        }
        self.check_cookie_flags(http_only)
    }

    fn check_cookie_flags(&self, http_only: bool) -> Result<(), Denied> {
        let c = self.capture.as_ref();
        if !c.is_some_and(|c| c.cookies) {
            return Err(self.denied(
                "grants.capture.cookies",
                "reading cookies".into(),
                Fix::enable("grants.capture.cookies"),
            ));
        }
        if http_only && !c.is_some_and(|c| c.http_only_cookies) {
            return Err(self.denied(
                "grants.capture.http_only_cookies",
                "reading httpOnly cookies".into(),
                Fix::enable("grants.capture.http_only_cookies"),
            ));
        }
        Ok(())
    }

    /// May this plugin run JavaScript in its pages?
    pub fn check_eval_js(&self) -> Result<(), Denied> {
        if self.browser.as_ref().is_some_and(|b| b.eval_js) {
            Ok(())
        } else {
            Err(self.needs_script("JavaScript evaluation".into()))
        }
    }

    /// May this plugin answer its pages' requests with bodies it wrote (`browse_route` mock)?
    /// A mocked document or script runs in the origin of the URL it answers, with that
    /// origin's cookies and storage: it is JavaScript evaluation by another name, so it needs
    /// `eval_js` (which the manifest never grants together with secrets).
    pub fn check_mock_route(&self) -> Result<(), Denied> {
        if self.browser.as_ref().is_some_and(|b| b.eval_js) {
            Ok(())
        } else {
            Err(self.needs_script(
                "mocked responses (a mocked body runs in the page's origin like evaluated JavaScript; blocking routes need no more than the browser grant)".into(),
            ))
        }
    }

    /// May this plugin read and change its pages' cookies?
    pub fn check_browser_cookies(&self) -> Result<(), Denied> {
        if self.browser.as_ref().is_some_and(|b| b.cookies) {
            Ok(())
        } else {
            Err(self.denied(
                "grants.browser.cookies",
                "cookies".into(),
                Fix::enable("grants.browser.cookies"),
            ))
        }
    }

    /// May this plugin open a session with browser profile `name`?
    pub fn check_browser_profile(&self, name: &str) -> Result<(), Denied> {
        if self
            .browser
            .as_ref()
            .is_some_and(|b| b.profiles.iter().any(|p| p == name))
        {
            Ok(())
        } else {
            Err(self.denied_name(
                "grants.browser.profiles",
                format!("browser profile '{name}'"),
                name,
                "browser.profiles",
                &self.defined.profiles,
            ))
        }
    }

    /// May this plugin have the host type secret `name`? Returns its grant (with the origins
    /// it is bound to).
    pub fn check_secret(&self, name: &str) -> Result<&SecretGrant, Denied> {
        self.browser
            .as_ref()
            .and_then(|b| b.secrets.iter().find(|s| s.name == name))
            .ok_or_else(|| {
                const KEY: &str = "grants.browser.secrets";
                let target = format!("secret '{name}'");
                if self.browser.as_ref().is_some_and(|b| b.eval_js) {
                    return Denied::unfixable(
                        KEY,
                        target,
                        format!(
                            "browser.secrets does not allow secret '{name}', and plugin '{}' cannot have it: it runs script in its pages (grants.browser.eval_js), which reads a field the host filled, so the two are never granted together; give the secret to a plugin without eval_js",
                            self.plugin
                        ),
                    );
                }
                self.denied_name(KEY, target, name, "browser.secrets", &self.defined.secrets)
            })
    }

    /// May secret `name` be typed into a field of `chain` (the field's frame first, then its
    /// parent frames up to the tab's top frame), in a session that `mocked` (has or had a
    /// mock route) or not? The field's frame must have a real http(s) origin bound to the
    /// secret, no frame of the chain may be a document whose content the plugin could have
    /// written (`data:`, `blob:`, `about:`, `file:`, opaque origins), and no mock may ever
    /// have answered in the session. Returns the field's origin.
    pub fn check_secret_frames(
        &self,
        name: &str,
        chain: &[SecretFrame],
        mocked: bool,
    ) -> Result<String, Denied> {
        const KEY: &str = "browser.secrets.origins";
        let grant = self.check_secret(name)?;
        if mocked {
            return Err(Denied::unfixable(
                KEY,
                format!("secret '{name}'"),
                format!(
                    "secret '{name}' was not typed: this session has or had a mocked route (browse_route mock), so its pages may hold content the plugin wrote; type secrets in a session that never mocked (browse_session create)"
                ),
            ));
        }
        let Some(field) = chain.first().cloned() else {
            return Err(Denied::unfixable(
                KEY,
                format!("secret '{name}'"),
                format!(
                    "the frame of that field is gone, so secret '{name}' was not typed; take a new snapshot"
                ),
            ));
        };
        let mut field_origin = String::new();
        for (i, frame) in chain.iter().enumerate() {
            let origin = real_origin(frame).map_err(|why| {
                let which = if i == 0 {
                    "the field's frame".to_string()
                } else {
                    "a frame around the field".to_string()
                };
                Denied::unfixable(
                    KEY,
                    format!("secret '{name}' into {}", short(&frame.url)),
                    format!(
                        "secret '{name}' was not typed: {which} ({}) {why}; a secret is only typed into pages of the http(s) origins [browser.secrets.{name}] origins binds it to, never into documents a plugin can write itself",
                        short(&frame.url)
                    ),
                )
            })?;
            if i == 0
                && !grant.origins.is_match(&origin)
                && !grant.origins.is_match(&with_port(&origin, &field.url))
            {
                return Err(Denied {
                    grant: KEY,
                    target: format!("secret '{name}' into {origin}"),
                    message: format!(
                        "secret '{name}' is bound to {:?}, not to {origin}; if the admin means it to be typed there, add \"{origin}\" to origins of [browser.secrets.{name}] in the manifest",
                        grant.origins.patterns()
                    ),
                    fix: Some(Fix::add(format!("browser.secrets.{name}.origins"), origin)),
                });
            }
            if i == 0 {
                field_origin = origin;
            }
        }
        Ok(field_origin)
    }

    /// May this plugin upload `path` from the host? The path is resolved (symlinks and `..`
    /// included) and must lie under a granted upload directory; returns the resolved path.
    pub fn check_upload(&self, path: &str) -> Result<PathBuf, Denied> {
        const KEY: &str = "grants.browser.upload_dirs";
        let resolved = std::fs::canonicalize(path).map_err(|e| {
            Denied::unfixable(KEY, path.to_string(), format!("cannot upload {path}: {e}"))
        })?;
        let allowed = self.browser.as_ref().is_some_and(|b| {
            b.upload_dirs
                .iter()
                .filter_map(|d| std::fs::canonicalize(d).ok())
                .any(|d| resolved.starts_with(d))
        });
        let owned = self
            .browser
            .as_ref()
            .is_some_and(|b| std::fs::metadata(&resolved).is_ok_and(|meta| b.owned.holds(&meta)));
        if allowed && owned {
            Err(Denied::unfixable(
                KEY,
                path.to_string(),
                format!(
                    "{path} is one of Warden's own files (a hard link to its manifest, a credential, a key or the audit log); no grant changes this"
                ),
            ))
        } else if allowed && resolved.is_file() {
            Ok(resolved)
        } else if allowed {
            Err(Denied::unfixable(
                KEY,
                path.to_string(),
                format!("{path} is not a file"),
            ))
        } else {
            let dir = resolved.parent().unwrap_or(&resolved).display().to_string();
            Err(self.denied(KEY, format!("upload of {path}"), Fix::add(KEY, dir)))
        }
    }

    /// May this plugin open a local PTY?
    pub fn check_terminal_local(&self) -> Result<(), Denied> {
        if self.terminal.as_ref().is_some_and(|t| t.local) {
            Ok(())
        } else {
            Err(self.denied(
                "grants.terminal.local",
                "a local terminal".into(),
                Fix::enable("grants.terminal.local"),
            ))
        }
    }

    /// May this plugin open an SSH session to `alias` (for a pattern host, to its `member`)?
    pub fn check_terminal_ssh(&self, alias: &str, member: Option<&str>) -> Result<(), Denied> {
        let Some(t) = self
            .terminal
            .as_ref()
            .filter(|t| t.ssh_hosts.iter().any(|h| h == alias))
        else {
            return Err(self.denied_name(
                "grants.terminal.ssh_hosts",
                format!("ssh host '{alias}'"),
                alias,
                "ssh.hosts",
                &self.defined.ssh_hosts,
            ));
        };
        self.check_member("grants.terminal.members", &t.members, alias, member)
    }

    /// A pattern host's `member` against the member globs `members` names for `alias` (none
    /// named: the whole fleet). Refused with the member to add to `grant.ALIAS`.
    fn check_member(
        &self,
        grant: &'static str,
        members: &Members,
        alias: &str,
        member: Option<&str>,
    ) -> Result<(), Denied> {
        match member {
            Some(m) if !members.admit(alias, m) => Err(self.denied(
                grant,
                format!("member '{m}' of ssh host '{alias}'"),
                Fix::add(format!("{grant}.{alias}"), m),
            )),
            _ => Ok(()),
        }
    }

    /// May this plugin send input to its terminal sessions? (`terminal.read_only` refuses.)
    pub fn check_terminal_write(&self) -> Result<(), Denied> {
        if self.terminal.as_ref().is_some_and(|t| !t.read_only) {
            Ok(())
        } else {
            Err(self.denied(
                "grants.terminal.read_only",
                "writing to a terminal".into(),
                Fix::Set {
                    key: "grants.terminal.read_only",
                    value: false,
                },
            ))
        }
    }

    /// May this plugin open a remote desktop session to `alias`?
    pub fn check_rdp_host(&self, alias: &str) -> Result<(), Denied> {
        if self
            .rdp
            .as_ref()
            .is_some_and(|r| r.hosts.iter().any(|h| h == alias))
        {
            Ok(())
        } else {
            Err(self.denied_name(
                "grants.rdp.hosts",
                format!("rdp host '{alias}'"),
                alias,
                "rdp.hosts",
                &self.defined.rdp_hosts,
            ))
        }
    }

    /// May this plugin send pointer and keyboard input to its desktops? (`rdp.read_only` refuses.)
    pub fn check_rdp_input(&self) -> Result<(), Denied> {
        if self.rdp.as_ref().is_some_and(|r| !r.read_only) {
            Ok(())
        } else {
            Err(self.denied(
                "grants.rdp.read_only",
                "input to a remote desktop".into(),
                Fix::Set {
                    key: "grants.rdp.read_only",
                    value: false,
                },
            ))
        }
    }

    /// May this plugin create, change or remove files over SFTP?
    pub fn check_sftp_write(&self) -> Result<(), Denied> {
        if self.sftp.as_ref().is_some_and(|s| s.write) {
            Ok(())
        } else {
            Err(self.denied(
                "grants.sftp.write",
                "changing files over sftp".into(),
                Fix::enable("grants.sftp.write"),
            ))
        }
    }

    /// The remote directories SFTP paths must stay under.
    pub fn sftp_roots(&self) -> &[String] {
        self.sftp.as_ref().map_or(&[], |s| s.roots.as_slice())
    }

    /// May this plugin use SFTP on `alias` (for a pattern host, on its `member`)?
    pub fn check_sftp_host(&self, alias: &str, member: Option<&str>) -> Result<(), Denied> {
        let Some(s) = self
            .sftp
            .as_ref()
            .filter(|s| s.hosts.iter().any(|h| h == alias))
        else {
            return Err(self.denied_name(
                "grants.sftp.hosts",
                format!("sftp host '{alias}'"),
                alias,
                "ssh.hosts",
                &self.defined.ssh_hosts,
            ));
        };
        self.check_member("grants.sftp.members", &s.members, alias, member)
    }
}

/// `, KIND.members.ALIAS = [...]` for each fleet whose members a grant narrows.
fn members_text(kind: &str, members: &Members) -> String {
    members
        .iter()
        .map(|(alias, globs)| format!(", {kind}.members.{alias} = {:?}", globs.patterns()))
        .collect()
}

/// `url`'s origin as an origin grant names it, when it has one: `http`, `https` (and their
/// WebSocket twins) with a host. Every other origin is opaque (`null`).
fn grantable_origin(url: &Url) -> Option<String> {
    (matches!(url.scheme(), "http" | "https" | "ws" | "wss") && url.host().is_some())
        .then(|| url.origin().ascii_serialization())
}

/// The origin of a frame whose content a server sent: http(s), and the security origin the
/// browser gave the document is the origin of its URL (a sandboxed frame's is opaque).
fn real_origin(frame: &SecretFrame) -> Result<String, &'static str> {
    let url = Url::parse(&frame.url).map_err(|_| "has no URL the browser could name")?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("is not an http(s) page");
    }
    let origin = url.origin().ascii_serialization();
    let security = frame.security_origin.trim_end_matches('/');
    if security != origin && security != with_port(&origin, &frame.url) {
        return Err("has an opaque or different security origin (a sandboxed frame)");
    }
    Ok(origin)
}

/// `origin` with its port spelled out, as origin globs such as `http://127.0.0.1:*` match.
fn with_port(origin: &str, url: &str) -> String {
    match Url::parse(url) {
        Ok(u) => match (u.host_str(), u.port_or_known_default()) {
            (Some(host), Some(port)) => format!("{}://{host}:{port}", u.scheme()),
            _ => origin.to_string(),
        },
        Err(_) => origin.to_string(),
    }
}

/// A URL cut for a message: `data:` pages can be long and are the plugin's own text.
fn short(url: &str) -> String {
    let mut s: String = url.chars().take(60).collect();
    if s.len() < url.len() {
        s.push('…');
    }
    s
}

#[cfg(test)]
#[path = "grants_tests.rs"]
mod tests;
