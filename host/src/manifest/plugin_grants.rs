//! A `[[plugin]]`'s `grants` table: each grant kind checked against what the manifest defines
//! (hosts, secrets, profiles, credentials) and compiled into the plugin's [`Grants`].

use super::browser::BrowserNames;
use super::credentials::Credential;
use super::grants::{
    self, BrowserGrant, Caps, CaptureGrant, Defined, GlobList, Grants, RdpGrant, SecretGrant,
    SftpGrant, TerminalGrant,
};
use super::hosts::{RdpHostConfig, SshHostConfig};
use super::schema::GrantsSpec;
use super::validate::Validator;
use std::collections::BTreeMap;
use std::sync::Arc;
use toml::Spanned;

/// Default `grants.browser.download_max`: the largest download a session saves.
pub const DEFAULT_DOWNLOAD_MAX: u64 = 100 * 1024 * 1024;

/// What the rest of the manifest defines, which a plugin's grants may name.
pub(super) struct PluginScope<'a> {
    /// The names `builtin:NAME` may use.
    pub(super) builtins: &'a [&'a str],
    pub(super) ssh_hosts: &'a BTreeMap<String, SshHostConfig>,
    pub(super) rdp_hosts: &'a BTreeMap<String, RdpHostConfig>,
    pub(super) distribution: &'a crate::distribution::Distribution,
    /// `[browser.secrets]` and `[browser.profiles]`.
    pub(super) browser: &'a BrowserNames,
    /// `[credentials]`, which `grants.http.credentials` may name.
    pub(super) credentials: &'a BTreeMap<String, Arc<Credential>>,
}

impl Validator<'_> {
    pub(super) fn grants(
        &mut self,
        plugin: &str,
        spec: GrantsSpec,
        scope: &PluginScope<'_>,
    ) -> Grants {
        let (ssh_hosts, rdp_hosts) = (scope.ssh_hosts, scope.rdp_hosts);
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
                secrets: self.secret_grants(&b.secrets, scope.browser),
                profiles: self.profile_grants(&b.profiles, scope.browser),
                owned: self.owned_files.clone(),
            }
        });
        let http = spec.http.map(|h| self.http_grant(h, scope.credentials));
        let terminal = spec.terminal.map(|t| {
            let aliases = self.aliases("grants.terminal.ssh_hosts", &t.ssh_hosts, ssh_hosts);
            TerminalGrant {
                local: t.local,
                members: self.members("terminal", "ssh_hosts", &t.members, &aliases, ssh_hosts),
                ssh_hosts: aliases,
                read_only: t.read_only,
            }
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
            let hosts = self.aliases("grants.sftp.hosts", &s.hosts, ssh_hosts);
            SftpGrant {
                members: self.members("sftp", "hosts", &s.members, &hosts, ssh_hosts),
                hosts,
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
        let files = self.file_grants(&spec.files);
        let env = self.env_grant(spec.env);
        Grants {
            plugin: plugin.to_string(),
            defined: Defined {
                secrets: scope.browser.secrets.clone(),
                profiles: scope.browser.profiles.clone(),
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
            files,
            env,
            narrowed_by: None,
        }
    }

    pub(super) fn origins(&mut self, key: &str, origins: &[Spanned<String>]) -> GlobList {
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

    pub(super) fn secret_grants(
        &mut self,
        names: &[Spanned<String>],
        defined: &BrowserNames,
    ) -> Vec<SecretGrant> {
        let mut grants = Vec::new();
        for n in names {
            if !defined.secrets.contains(n.get_ref()) {
                self.error(
                    n.span(),
                    format!("grants.browser.secrets: unknown secret \"{}\"; define it under [browser.secrets] (e.g. {} = {{ env = \"{}\", origins = [\"https://login.example.com\"] }})", n.get_ref(), n.get_ref(), n.get_ref()),
                );
            }
            grants.push(SecretGrant {
                name: n.get_ref().clone(),
                origins: defined
                    .secret_origins
                    .get(n.get_ref())
                    .cloned()
                    .unwrap_or_else(GlobList::empty),
            });
        }
        grants
    }

    pub(super) fn profile_grants(
        &mut self,
        names: &[Spanned<String>],
        defined: &BrowserNames,
    ) -> Vec<String> {
        for n in names {
            if !defined.profiles.contains(n.get_ref()) {
                self.error(
                    n.span(),
                    format!("grants.browser.profiles: unknown profile \"{}\"; define it as [browser.profiles.{}]", n.get_ref(), n.get_ref()),
                );
            }
        }
        names.iter().map(|n| n.get_ref().clone()).collect()
    }

    pub(super) fn aliases(
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
