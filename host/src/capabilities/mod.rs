//! Capability providers: one folder per WIT package. Each has its own host bindings, its own
//! context (grants, audit scope, provider: see [`view`]) and implements the generated `Host`
//! traits on a [`View`] of that context; it checks the plugin's grants on every call, audits
//! refusals and turns them into the package's `access-denied` error value (never a trap).
//! Nothing here knows the runtime: the runtime links each interface with a projection of its
//! store onto the capability's context.

pub mod browser;
pub mod capture;
pub mod conversation;
pub mod errors;
pub mod http;
pub mod rdp;
pub mod resource_events;
pub mod sftp;
pub mod terminal;
pub mod view;

pub use view::{Base, HasView, View};

use crate::audit::{AuditLog, GuestScope};
use crate::manifest::grants::Grants;
use crate::manifest::{BrowserConfig, Manifest, RdpHostConfig, SshHostConfig};
use browser::BrowserCtx;
use capture::CaptureCtx;
use conversation::Owner;
use rdp::RdpCtx;
use sftp::SftpCtx;
use std::collections::BTreeMap;
use std::sync::Arc;
use terminal::TerminalCtx;
use view::Project;
use wasmtime::component::Linker;

/// Every capability's context for one plugin instance.
pub struct Contexts {
    pub browser: BrowserCtx,
    pub terminal: TerminalCtx,
    pub sftp: SftpCtx,
    pub rdp: RdpCtx,
    pub capture: CaptureCtx,
    /// Standard `wasi:http` (linked by the runtime with wasmtime-wasi-http, not a projection).
    pub http: http::HttpCtx,
}

/// How the store hands each capability its view.
pub struct Projections<T> {
    pub browser: Project<T, BrowserCtx>,
    pub terminal: Project<T, TerminalCtx>,
    pub sftp: Project<T, SftpCtx>,
    pub rdp: Project<T, RdpCtx>,
    pub capture: Project<T, CaptureCtx>,
}

/// Link every capability interface, each to its own context.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: &Projections<T>,
) -> wasmtime::Result<()> {
    errors::add_to_linker(linker, get.browser)?;
    browser::add_to_linker(linker, get.browser)?;
    terminal::add_to_linker(linker, get.terminal)?;
    sftp::add_to_linker(linker, get.sftp)?;
    rdp::add_to_linker(linker, get.rdp)?;
    capture::add_to_linker(linker, get.capture)
}

/// Shared, privileged services the providers use on behalf of plugins. They outlive plugin
/// instances: a restarted instance finds its sessions and connections again.
#[derive(Debug)]
pub struct HostServices {
    pub audit: Arc<AuditLog>,
    /// The browser, started on first use and shared by the plugins (each in its own contexts).
    pub browser: Arc<browser::BrowserProvider>,
    /// The capture browser on the persistent `[capture] profile_dir`, started on first capture.
    pub capture_browser: Arc<browser::BrowserProvider>,
    /// SSH connections, one per host alias, shared by terminal sessions and SFTP.
    pub ssh: Arc<terminal::ssh::SshPool>,
    /// Terminal sessions, per plugin (shared with the next services after a reload).
    pub sessions: Arc<terminal::table::SessionTable>,
    /// SFTP subsystems, one per host alias, on the `ssh` connections.
    pub sftp: Arc<sftp::client::SftpPool>,
    /// `[rdp.hosts]` of the manifest.
    pub rdp_hosts: Arc<BTreeMap<String, RdpHostConfig>>,
    /// Remote desktop sessions, per plugin (shared with the next services after a reload).
    pub desktops: Arc<rdp::table::DesktopTable>,
    /// Changes of plugin resources, for subscribed clients (kept across reloads).
    pub resource_events: Arc<resource_events::ResourceEvents>,
    /// What plugins keep between calls, per conversation (kept across reloads).
    pub state: Arc<crate::plugin_state::StateStore>,
    /// `wasi:http` requests in flight and OAuth tokens (kept across reloads).
    pub http: Arc<http::HttpServices>,
    /// Session recordings (`[audit] record`); none when nothing is recorded.
    pub recordings: Option<Arc<crate::recording::Recordings>>,
}

impl HostServices {
    /// `previous`: the services of the manifest this one replaces, whose browsers are taken
    /// over when the `[browser]` settings are the same (see [`HostServices::take_over_browsers`]).
    pub fn new(
        audit: Arc<AuditLog>,
        browser: BrowserConfig,
        ssh_hosts: BTreeMap<String, SshHostConfig>,
        rdp_hosts: BTreeMap<String, RdpHostConfig>,
        recording: &crate::manifest::RecordingPolicy,
        previous: Option<&HostServices>,
    ) -> Self {
        let recordings = crate::recording::Recordings::start(
            recording,
            audit.clone(),
            previous.and_then(|p| p.recordings.as_deref()),
        );
        let ssh = Arc::new(terminal::ssh::SshPool::new(ssh_hosts));
        let (browser, capture_browser) = match previous {
            Some(p) if p.browser.config() == &browser => {
                (p.browser.clone(), p.capture_browser.clone())
            }
            _ => {
                let (browser, capture) = (
                    Arc::new(browser::BrowserProvider::new(browser.clone())),
                    Arc::new(browser::BrowserProvider::capture(browser)),
                );
                browser.audit_to(audit.clone());
                capture.audit_to(audit.clone());
                (browser, capture)
            }
        };
        Self {
            audit,
            capture_browser,
            browser,
            sftp: Arc::new(sftp::client::SftpPool::new(ssh.clone())),
            ssh,
            sessions: Arc::default(),
            rdp_hosts: Arc::new(rdp_hosts),
            desktops: previous.map(|p| p.desktops.clone()).unwrap_or_default(),
            resource_events: previous
                .map(|p| p.resource_events.clone())
                .unwrap_or_default(),
            state: previous.map(|p| p.state.clone()).unwrap_or_default(),
            http: previous.map(|p| p.http.clone()).unwrap_or_default(),
            recordings,
        }
    }

    /// After a manifest reload, once this replaces `previous`: browsers taken over (same
    /// `[browser]` settings) keep the sessions the new manifest still allows, under the new
    /// grants, and close the rest; otherwise the previous browsers are closed cleanly, so
    /// their persistent profiles are written out and free for the new ones.
    pub async fn take_over_browsers(&self, previous: &HostServices, manifest: &Manifest) {
        if Arc::ptr_eq(&self.browser, &previous.browser) {
            let policy = |s: &HostServices| s.recordings.as_ref().map(|r| r.policy().clone());
            if policy(self) != policy(previous) {
                self.browser.end_recordings();
            }
            let (kept, closed) = self.browser.adopt(manifest).await;
            if kept + closed > 0 {
                tracing::info!(
                    "manifest reload: {kept} browser sessions kept, {closed} closed (their plugin lost its browser or profile grant)"
                );
            }
        } else {
            tracing::info!("manifest reload: [browser] settings changed; closing the browsers");
            futures::future::join(
                previous.browser.shutdown(),
                previous.capture_browser.shutdown(),
            )
            .await;
        }
    }

    /// Before Warden exits: close the browsers cleanly (persistent profiles written out)
    /// and the terminal sessions.
    pub async fn shutdown(&self) {
        futures::future::join4(
            self.browser.shutdown(),
            self.capture_browser.shutdown(),
            self.sessions.close_all(),
            self.desktops.close_all(),
        )
        .await;
        // What the sessions printed last, to the kernel before Warden exits.
        if let Some(r) = &self.recordings {
            let r = r.clone();
            let _ = tokio::task::spawn_blocking(move || r.sync(std::time::Duration::from_secs(2)))
                .await;
        }
    }

    /// After a manifest reload: take over the terminal sessions of `previous` that the new
    /// manifest still allows (the same plugin, a grant that still covers the session's
    /// target, and for SSH the alias's `[ssh.hosts]` settings unchanged) and close the rest,
    /// so a reload that leaves a plugin's hosts alone does not drop its shells.
    pub async fn adopt_sessions(&self, previous: &HostServices, manifest: &Manifest) {
        let (kept, closed) = self
            .sessions
            .adopt(&previous.sessions, |plugin, session| {
                let Some(config) = manifest.plugins.iter().find(|p| p.name == plugin) else {
                    return false;
                };
                match session.ssh_alias() {
                    None => config.grants.check_terminal_local().is_ok(),
                    Some(name) => {
                        // The host's settings and those of every hop it goes through. A
                        // pattern host's member must still belong to the same entry.
                        let same = |alias: &str| {
                            previous.ssh.config(alias).is_some()
                                && previous.ssh.config(alias) == manifest.ssh_hosts.get(alias)
                        };
                        let (Ok(before), Ok(now)) = (
                            previous.ssh.name(name),
                            crate::manifest::ssh_name(&manifest.ssh_hosts, name),
                        ) else {
                            return false;
                        };
                        let alias = now.alias.as_str();
                        before == now
                            && config
                                .grants
                                .check_terminal_ssh(alias, now.member.as_deref())
                                .is_ok()
                            && same(alias)
                            && manifest
                                .ssh_hosts
                                .get(alias)
                                .is_some_and(|c| c.via.iter().all(|hop| same(hop)))
                    }
                }
            })
            .await;
        if kept + closed > 0 {
            tracing::info!(
                "manifest reload: {kept} terminal sessions kept, {closed} closed (their plugin, grant or host settings changed)"
            );
        }
        // Remote desktops: the same rule, against grants.rdp.hosts and [rdp.hosts].
        let (kept, closed) =
            self.desktops
                .retain(|plugin, desktop| {
                    manifest.plugins.iter().any(|p| {
                        p.name == plugin && p.grants.check_rdp_host(&desktop.alias).is_ok()
                    }) && manifest.rdp_hosts.get(&desktop.alias) == Some(&desktop.host)
                })
                .await;
        if kept + closed > 0 {
            tracing::info!(
                "manifest reload: {kept} remote desktop sessions kept, {closed} closed (their plugin, grant or host settings changed)"
            );
        }
        // What plugins kept: only for the plugins still served.
        self.state
            .retain_plugins(|name| manifest.plugins.iter().any(|p| p.name == name));
    }
}

impl HostServices {
    /// Open sessions and connections, for the metrics.
    pub async fn census(&self) -> crate::metrics::Census {
        let ((browsers, browser_sessions), (captures, _)) =
            futures::future::join(self.browser.census(), self.capture_browser.census()).await;
        let (terminal_sessions, ssh_sessions) = self.sessions.census();
        let (fleet_healthy, fleet_down) = self.browser.fleet_health();
        crate::metrics::Census {
            state_bytes: self.state.census().1,
            plugin_calls: Vec::new(),
            fleet_healthy,
            fleet_down,
            browser_sessions,
            browser_connections: browsers + captures,
            terminal_sessions,
            ssh_sessions,
            sftp_sessions: self.sftp.open_count(),
            ssh_connections: self.ssh.open_count(),
        }
    }

    /// The capability contexts of one plugin instance: each gets the plugin's grants, the
    /// audit scope and only the providers it uses.
    pub fn contexts(&self, grants: &Arc<Grants>, scope: &GuestScope) -> Contexts {
        let base = Base {
            grants: grants.clone(),
            scope: scope.clone(),
        };
        Contexts {
            browser: BrowserCtx {
                base: base.clone(),
                browser: self.browser.clone(),
                conversation: Default::default(),
                leased: Vec::new(),
                recordings: self.recordings.clone(),
            },
            terminal: TerminalCtx {
                base: base.clone(),
                sessions: self.sessions.clone(),
                ssh: self.ssh.clone(),
                events: self.resource_events.clone(),
                owner: Owner::default(),
                recordings: self.recordings.clone(),
            },
            sftp: SftpCtx {
                base: base.clone(),
                sftp: self.sftp.clone(),
                sessions: self.sessions.clone(),
                owner: Owner::default(),
            },
            rdp: RdpCtx {
                base: base.clone(),
                hosts: self.rdp_hosts.clone(),
                desktops: self.desktops.clone(),
                owner: Owner::default(),
                recordings: self.recordings.clone(),
            },
            capture: CaptureCtx {
                base,
                capture_browser: self.capture_browser.clone(),
                handoff: None,
            },
            http: http::HttpCtx::new(grants, scope, &self.http),
        }
    }
}
