//! SSH connections to the manifest's host aliases: one connection per alias, shared by its
//! terminal sessions and its SFTP subsystem, verified against known_hosts, authenticated with
//! the host's identity file or agent, kept alive, and reopened when it has dropped.
//!
//! A host with `via` is reached through its chain of jump hosts (`ssh -J`): the first hop's
//! own pooled connection, then each next hop over a `direct-tcpip` channel of the one before
//! (no local port is opened), each verified and authenticated with its own alias's settings.
//!
//! Nothing here reaches a plugin except the alias and the wording of errors, which never
//! carry key material, passphrases, file paths or addresses (those go to the host log).
//! Logging in is `ssh_auth.rs`; the errors are `ssh_error.rs`.

use super::fleet::{self, FleetError};
use super::known_hosts::{KeyCheck, KnownHosts};
use super::ssh_auth::authenticate;
pub use super::ssh_error::SshError;
use crate::manifest::{SshAddress, SshHostConfig, SshName, SshNameError};
use russh::client::{self, Handle};
use russh::keys::PublicKeyOrCertificate;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Idle time after which a keep-alive is sent; three unanswered ones close the connection.
const KEEPALIVE: Duration = Duration::from_secs(15);
/// Connecting and authenticating must finish within this.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Verdict of the host key check, kept so the refusal can be explained.
#[derive(Debug, Clone)]
enum KeyVerdict {
    Unknown(String),
    Changed(String, usize),
    Revoked(String),
    /// A host certificate that cannot vouch for the host: why.
    Certificate(String),
}

/// The russh client handler: only checks the server's key, against the alias's
/// `known_hosts` (read before connecting: `known_hosts.rs`).
pub struct Verifier {
    alias: String,
    host: String,
    port: u16,
    known_hosts: Arc<KnownHosts>,
    verdict: Arc<Mutex<Option<KeyVerdict>>>,
}

impl client::Handler for Verifier {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        server_public_key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let key = match server_public_key {
            PublicKeyOrCertificate::PublicKey { key, .. } => key.key_data().clone(),
            PublicKeyOrCertificate::Certificate(cert) => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                return Ok(
                    match self
                        .known_hosts
                        .check_certificate(&self.host, self.port, cert, now)
                    {
                        Ok(()) => true,
                        Err(why) => {
                            tracing::warn!(alias = %self.alias, "ssh host certificate refused: {why}");
                            self.record(KeyVerdict::Certificate(why));
                            false
                        }
                    },
                );
            }
        };
        let fingerprint = russh::keys::PublicKey::from(key.clone())
            .fingerprint(russh::keys::HashAlg::Sha256)
            .to_string();
        match self.known_hosts.check_key(&self.host, self.port, &key) {
            KeyCheck::Known => Ok(true),
            KeyCheck::Unknown => {
                tracing::warn!(alias = %self.alias, %fingerprint, "unknown ssh host key refused");
                self.record(KeyVerdict::Unknown(fingerprint));
                Ok(false)
            }
            KeyCheck::Changed { line } => {
                tracing::warn!(alias = %self.alias, %fingerprint, line, "CHANGED ssh host key refused");
                self.record(KeyVerdict::Changed(fingerprint, line));
                Ok(false)
            }
            KeyCheck::Revoked => {
                tracing::warn!(alias = %self.alias, %fingerprint, "REVOKED ssh host key refused");
                self.record(KeyVerdict::Revoked(fingerprint));
                Ok(false)
            }
        }
    }
}

impl Verifier {
    fn record(&self, verdict: KeyVerdict) {
        if let Ok(mut v) = self.verdict.lock() {
            *v = Some(verdict);
        }
    }
}

/// One authenticated connection, holding the connection of the hop it runs through (so the
/// chain stays up while it is in use).
pub struct Connection {
    handle: Handle<Verifier>,
    _through: Option<Arc<Connection>>,
}

impl std::ops::Deref for Connection {
    type Target = Handle<Verifier>;
    fn deref(&self) -> &Handle<Verifier> {
        &self.handle
    }
}

impl std::ops::DerefMut for Connection {
    fn deref_mut(&mut self) -> &mut Handle<Verifier> {
        &mut self.handle
    }
}

/// One alias's connection; its lock also serializes (re)connecting to that alias.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Connection>>>>;

/// Slots a pool keeps before it drops the idle ones: a plugin may name any member of a pattern
/// host, so the names it tries must not pile up connections or memory.
pub const MAX_POOLED: usize = 64;

/// Before a new slot is added to a full pool: drop every slot whose value is absent or held by
/// the pool alone (no session, subsystem or later hop uses it; the next use reconnects).
pub fn prune_idle<T>(slots: &mut HashMap<String, Arc<tokio::sync::Mutex<Option<Arc<T>>>>>) {
    if slots.len() < MAX_POOLED {
        return;
    }
    slots.retain(|_, slot| {
        Arc::strong_count(slot) > 1
            || match slot.try_lock() {
                // Being (re)connected right now.
                Err(_) => true,
                Ok(held) => held.as_ref().is_some_and(|v| Arc::strong_count(v) > 1),
            }
    });
}

/// The connections of all aliases; lives in `HostServices`, so it outlives plugin instances.
pub struct SshPool {
    hosts: BTreeMap<String, SshHostConfig>,
    conns: Mutex<HashMap<String, Slot>>,
}

impl std::fmt::Debug for SshPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SshPool")
            .field("aliases", &self.hosts.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl SshPool {
    pub fn new(hosts: BTreeMap<String, SshHostConfig>) -> Self {
        Self {
            hosts,
            conns: Mutex::default(),
        }
    }

    /// The manifest's settings of `alias`.
    pub fn config(&self, alias: &str) -> Option<&SshHostConfig> {
        self.hosts.get(alias)
    }

    /// Open connections (for the metrics); one being made right now is not counted.
    pub fn open_count(&self) -> usize {
        let conns = self.conns.lock().unwrap_or_else(|p| p.into_inner());
        conns
            .values()
            .filter(|slot| {
                slot.try_lock()
                    .is_ok_and(|c| c.as_ref().is_some_and(|c| !c.is_closed()))
            })
            .count()
    }

    /// What `name` (as a plugin gave it) stands for: an alias, or a pattern host's member.
    pub fn name(&self, name: &str) -> Result<SshName, SshNameError> {
        crate::manifest::ssh_name(&self.hosts, name)
    }

    /// The key `name`'s connection is pooled under (a member's name in lowercase).
    pub fn key(&self, name: &str) -> String {
        self.name(name)
            .map_or_else(|_| name.to_string(), |n| n.key().to_string())
    }

    /// The live connection to `name` (an alias, or a pattern host's member), made (or remade,
    /// after a drop) on demand.
    pub async fn connection(&self, name: &str) -> Result<Arc<Connection>, SshError> {
        let named = self.name(name)?;
        let config = self
            .hosts
            .get(&named.alias)
            .ok_or_else(|| SshError::UnknownAlias(named.alias.clone()))?;
        let slot = {
            let mut conns = self.conns.lock().unwrap_or_else(|p| p.into_inner());
            if !conns.contains_key(named.key()) {
                prune_idle(&mut conns);
            }
            conns.entry(named.key().to_string()).or_default().clone()
        };
        let mut slot = slot.lock().await;
        if let Some(conn) = slot.as_ref()
            && !conn.is_closed()
        {
            return Ok(conn.clone());
        }
        let conn = Arc::new(self.connect_through(&named, config).await?);
        *slot = Some(conn.clone());
        Ok(conn)
    }

    /// Connect to `named` through its `via` chain: the first hop's pooled connection, then
    /// each next hop over the one before. An error from a hop is wrapped to name it.
    async fn connect_through(
        &self,
        named: &SshName,
        config: &SshHostConfig,
    ) -> Result<Connection, SshError> {
        let name = named.key();
        let Some((first, rest)) = config.via.split_first() else {
            return timed(name, connect(named, config, Route::Direct)).await;
        };
        let hop_failed = |hop: &str, e: SshError| SshError::Hop {
            alias: name.to_string(),
            hop: hop.to_string(),
            source: Box::new(e),
        };
        // Boxed: `connection` awaits this very function (for the first hop, which has no via).
        let mut through = Box::pin(self.connection(first))
            .await
            .map_err(|e| hop_failed(first, e))?;
        let mut previous = first.as_str();
        for hop in rest {
            let hop_config = self
                .hosts
                .get(hop)
                .ok_or_else(|| hop_failed(hop, SshError::UnknownAlias(hop.clone())))?;
            let route = Route::Through(through.clone(), previous.to_string());
            let hop_name = SshName {
                alias: hop.clone(),
                member: None,
            };
            through = Arc::new(
                timed(hop, connect(&hop_name, hop_config, route))
                    .await
                    .map_err(|e| hop_failed(hop, e))?,
            );
            previous = hop;
        }
        let route = Route::Through(through, previous.to_string());
        match timed(name, connect(named, config, route)).await {
            // The last hop would not forward: that hop is the one to fix.
            Err(e @ SshError::Forward { .. }) => Err(hop_failed(previous, e)),
            other => other,
        }
    }

    /// Forget a connection that failed mid-use, so the next call reconnects.
    pub async fn discard(&self, alias: &str, conn: &Arc<Connection>) {
        let key = self.key(alias);
        let slot = {
            let conns = self.conns.lock().unwrap_or_else(|p| p.into_inner());
            conns.get(&key).cloned()
        };
        if let Some(slot) = slot {
            let mut slot = slot.lock().await;
            if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
                *slot = None;
            }
        }
    }
}

/// How a connection reaches its host: over TCP, or over a channel of the hop before (named).
enum Route {
    Direct,
    Through(Arc<Connection>, String),
}

async fn timed(
    alias: &str,
    connecting: impl std::future::Future<Output = Result<Connection, SshError>>,
) -> Result<Connection, SshError> {
    tokio::time::timeout(CONNECT_TIMEOUT, connecting)
        .await
        .map_err(|_| SshError::Timeout(alias.to_string()))?
}

/// Where a connection goes: the name its host key is checked under, and for a pattern
/// host's member the admitted addresses (the name is not looked up again).
struct Endpoint {
    host: String,
    port: u16,
    addrs: Option<Vec<std::net::SocketAddr>>,
}

async fn endpoint(named: &SshName, config: &SshHostConfig) -> Result<Endpoint, SshError> {
    let alias = named.key();
    match (&config.address, &named.member) {
        (SshAddress::Pattern(pattern), Some(member)) => {
            let addrs = fleet::admitted(&named.alias, member, pattern)
                .await
                .inspect_err(|e| {
                    if let FleetError::Outside { seen, .. } = e {
                        tracing::warn!(alias = %named.alias, host = %member, ?seen, "ssh host pattern: no allowed address");
                    }
                })?;
            Ok(Endpoint {
                host: member.clone(),
                port: pattern.port,
                addrs: Some(addrs),
            })
        }
        (SshAddress::Fixed(address), None) => address
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h.trim_matches(['[', ']']), p.parse::<u16>().ok()?)))
            .map(|(host, port)| Endpoint {
                host: host.to_string(),
                port,
                addrs: None,
            })
            .ok_or_else(|| SshError::Connect {
                alias: alias.to_string(),
                detail: "its address in the manifest is not host:port".into(),
            }),
        _ => Err(SshError::UnknownAlias(alias.to_string())),
    }
}

async fn connect(
    named: &SshName,
    config: &SshHostConfig,
    route: Route,
) -> Result<Connection, SshError> {
    let alias = named.key();
    let Endpoint { host, port, addrs } = endpoint(named, config).await?;
    let host = host.as_str();
    let known_hosts = Arc::new(read_known_hosts(alias, config)?);
    let mut preferred = russh::Preferred::default();
    // A host an authority vouches for is asked for its certificate first (a server without
    // one still shows its plain key, checked against the plain lines).
    if known_hosts.has_authority(host, port) {
        preferred.host_key_certificates = preferred.key.clone();
    }
    let ssh_config = Arc::new(client::Config {
        keepalive_interval: Some(KEEPALIVE),
        keepalive_max: 3,
        nodelay: true,
        preferred,
        ..client::Config::default()
    });
    let verdict = Arc::new(Mutex::new(None));
    let verifier = Verifier {
        alias: alias.to_string(),
        host: host.to_string(),
        port,
        known_hosts,
        verdict: verdict.clone(),
    };
    let (connected, through) = match route {
        Route::Direct => (
            match &addrs {
                Some(addrs) => client::connect(ssh_config, &addrs[..], verifier).await,
                None => client::connect(ssh_config, (host, port), verifier).await,
            },
            None,
        ),
        Route::Through(hop, hop_alias) => {
            // The hop is asked for the admitted address, not the name (it would resolve it
            // again, perhaps elsewhere).
            let to = addrs
                .as_ref()
                .and_then(|a| a.first())
                .map_or_else(|| host.to_string(), |a| a.ip().to_string());
            let channel = hop
                .channel_open_direct_tcpip(to, u32::from(port), "127.0.0.1", 0)
                .await
                .map_err(|e| {
                    tracing::warn!(alias, hop = %hop_alias, "direct-tcpip refused: {e}");
                    SshError::Forward {
                        hop: hop_alias.clone(),
                        next: alias.to_string(),
                        detail: forward_detail(&e),
                    }
                })?;
            (
                client::connect_stream(ssh_config, channel.into_stream(), verifier).await,
                Some(hop),
            )
        }
    };
    let mut handle = match connected {
        Ok(h) => h,
        Err(e) => {
            let verdict = verdict.lock().ok().and_then(|mut v| v.take());
            return Err(match verdict {
                Some(KeyVerdict::Unknown(fingerprint)) => SshError::UnknownHostKey {
                    alias: alias.to_string(),
                    fingerprint,
                },
                Some(KeyVerdict::Changed(fingerprint, line)) => SshError::HostKeyChanged {
                    alias: alias.to_string(),
                    fingerprint,
                    line,
                },
                Some(KeyVerdict::Revoked(fingerprint)) => SshError::HostKeyRevoked {
                    alias: alias.to_string(),
                    fingerprint,
                },
                Some(KeyVerdict::Certificate(why)) => SshError::HostCertificate {
                    alias: alias.to_string(),
                    why,
                },
                None => {
                    tracing::warn!(alias, "ssh connect failed: {e}");
                    SshError::Connect {
                        alias: alias.to_string(),
                        detail: connect_detail(&e),
                    }
                }
            });
        }
    };
    authenticate(alias, config, &mut handle).await?;
    tracing::info!(alias, via = ?config.via, "ssh connection established");
    Ok(Connection {
        handle,
        _through: through,
    })
}

/// Why a hop would not open a channel to the next, without addresses.
fn forward_detail(e: &russh::Error) -> String {
    match e {
        russh::Error::ChannelOpenFailure(reason) => match reason {
            russh::ChannelOpenFailure::AdministrativelyProhibited => {
                "forwarding is prohibited there".into()
            }
            russh::ChannelOpenFailure::ConnectFailed => "it could not connect to it".into(),
            _ => "the channel was refused".into(),
        },
        _ => connect_detail(e),
    }
}

/// The alias's `known_hosts` file (default `~/.ssh/known_hosts`); one that exists but
/// cannot be read fails the connection (a missing one knows no host).
fn read_known_hosts(alias: &str, config: &SshHostConfig) -> Result<KnownHosts, SshError> {
    let path = match &config.known_hosts {
        Some(path) => path.clone(),
        None => std::env::home_dir()
            .map(|home| home.join(".ssh").join("known_hosts"))
            .ok_or_else(|| SshError::Credentials(alias.to_string()))?,
    };
    KnownHosts::read(&path).map_err(|e| {
        tracing::error!(alias, file = %path.display(), "cannot read known_hosts: {e}");
        SshError::Credentials(alias.to_string())
    })
}

/// A short reason for a failed connection that does not reveal the address.
fn connect_detail(e: &russh::Error) -> String {
    match e {
        russh::Error::IO(io) => io.kind().to_string(),
        russh::Error::Disconnect | russh::Error::HUP => "the server closed the connection".into(),
        _ => "the SSH handshake failed (see the host log)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_pool_drops_only_what_nothing_else_holds() {
        type Slots = HashMap<String, Arc<tokio::sync::Mutex<Option<Arc<u8>>>>>;
        let slot = |v: Option<Arc<u8>>| Arc::new(tokio::sync::Mutex::new(v));
        let mut slots: Slots = HashMap::new();
        let held = Arc::new(1u8);
        slots.insert("empty".into(), slot(None));
        slots.insert("held".into(), slot(Some(held.clone())));
        for i in 0..MAX_POOLED {
            slots.insert(format!("idle{i}"), slot(Some(Arc::new(0))));
        }
        let connecting = slot(None);
        slots.insert("connecting".into(), connecting.clone());
        prune_idle(&mut slots);
        let mut kept: Vec<&String> = slots.keys().collect();
        kept.sort();
        assert_eq!(kept, ["connecting", "held"]);
        // Below the bound nothing is dropped.
        slots.insert("idle".into(), slot(None));
        prune_idle(&mut slots);
        assert_eq!(slots.len(), 3);
    }
}
