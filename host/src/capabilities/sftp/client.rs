//! One SFTP subsystem per host alias, opened on the alias's shared SSH connection (see
//! `terminal::ssh`) and reopened when that connection has dropped.

use crate::capabilities::terminal::ssh::{Connection, SshError, SshPool, prune_idle};
use russh_sftp::client::SftpSession;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Requests kept in flight per transfer: enough to fill the pipe on a fast link.
const IN_FLIGHT: usize = 64;

/// An SFTP subsystem and the connection it runs on.
pub struct Remote {
    pub sftp: SftpSession,
    conn: Arc<Connection>,
    /// Roots as the server resolves them (`None`: the root does not exist there).
    pub roots: tokio::sync::Mutex<HashMap<String, Option<String>>>,
}

impl Remote {
    /// The connection under the subsystem has dropped.
    pub fn is_broken(&self) -> bool {
        self.conn.is_closed()
    }
}

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Remote>>>>;

/// The SFTP subsystems of all aliases.
pub struct SftpPool {
    ssh: Arc<SshPool>,
    slots: Mutex<HashMap<String, Slot>>,
}

impl std::fmt::Debug for SftpPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SftpPool").finish_non_exhaustive()
    }
}

/// Why no SFTP subsystem could be had.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Ssh(#[from] SshError),
    #[error("ssh host '{0}' refused the sftp subsystem: {1}")]
    Subsystem(String, String),
}

impl SftpPool {
    pub fn new(ssh: Arc<SshPool>) -> Self {
        Self {
            ssh,
            slots: Mutex::default(),
        }
    }

    /// Open SFTP subsystems (for the metrics); one being opened right now is not counted.
    pub fn open_count(&self) -> usize {
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        slots
            .values()
            .filter(|slot| {
                slot.try_lock()
                    .is_ok_and(|r| r.as_ref().is_some_and(|r| !r.conn.is_closed()))
            })
            .count()
    }

    /// The connections the subsystems run on.
    pub fn ssh(&self) -> &SshPool {
        &self.ssh
    }

    /// The live subsystem of `alias`.
    pub async fn remote(&self, alias: &str) -> Result<Arc<Remote>, OpenError> {
        let key = self.ssh.key(alias);
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            if !slots.contains_key(&key) {
                prune_idle(&mut slots);
            }
            slots.entry(key).or_default().clone()
        };
        let mut slot = slot.lock().await;
        if let Some(remote) = slot.as_ref()
            && !remote.conn.is_closed()
        {
            return Ok(remote.clone());
        }
        let conn = self.ssh.connection(alias).await?;
        let remote = Arc::new(open(alias, conn).await?);
        *slot = Some(remote.clone());
        Ok(remote)
    }

    /// Forget `remote` after a transport failure, so the next call reopens it.
    pub async fn discard(&self, alias: &str, remote: &Arc<Remote>) {
        let key = self.ssh.key(alias);
        let slot = {
            let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots.get(&key).cloned()
        };
        if let Some(slot) = slot {
            let mut slot = slot.lock().await;
            if slot.as_ref().is_some_and(|r| Arc::ptr_eq(r, remote)) {
                let _ = remote.sftp.close().await;
                *slot = None;
            }
        }
        if remote.conn.is_closed() {
            self.ssh.discard(alias, &remote.conn).await;
        }
    }
}

async fn open(alias: &str, conn: Arc<Connection>) -> Result<Remote, OpenError> {
    let refused =
        |e: &dyn std::fmt::Display| OpenError::Subsystem(alias.to_string(), e.to_string());
    let channel = conn.channel_open_session().await.map_err(|e| refused(&e))?;
    channel
        .request_subsystem(true, "sftp")
        .await
        .map_err(|e| refused(&e))?;
    let config = russh_sftp::client::Config {
        max_concurrent_reads: IN_FLIGHT,
        max_concurrent_writes: IN_FLIGHT,
        ..russh_sftp::client::Config::default()
    };
    let sftp = SftpSession::new_with_config(channel.into_stream(), config)
        .await
        .map_err(|e| refused(&e))?;
    Ok(Remote {
        sftp,
        conn,
        roots: tokio::sync::Mutex::default(),
    })
}
