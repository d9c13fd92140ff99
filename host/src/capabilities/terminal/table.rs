//! The sessions of every plugin, kept by the host so they outlive a plugin instance (a trap
//! or timeout replaces the instance, not the sessions). Each plugin sees only its own, and
//! of those only the ones its caller's client opened (`Session::owner`): two users of one
//! server never reach each other's shells, whatever ids they pass.

use super::channel::{self, ShellInput};
use super::pty::{self, Pty};
use super::session::OutputLog;
use super::ssh::{Connection, SshPool};
use crate::capabilities::conversation::Owner;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Open sessions per plugin and client; beyond this, `open` asks the agent to close one (of
/// its own: a client's limit is never reached by another's sessions).
pub const MAX_SESSIONS: usize = 16;

/// How input reaches the session.
enum Input {
    Ssh {
        channel: ShellInput,
        /// Keeps the shared connection alive while the session is open.
        _conn: Arc<Connection>,
    },
    Pty(Pty),
}

/// One terminal session.
pub struct Session {
    pub id: String,
    /// `local` or `ssh:ALIAS`.
    pub target: String,
    pub log: Arc<OutputLog>,
    /// The client whose calls opened it, the only one that reaches it.
    pub owner: Owner,
    input: Input,
    closed: AtomicBool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// The alias of an SSH session.
    pub fn ssh_alias(&self) -> Option<&str> {
        self.target.strip_prefix("ssh:")
    }

    pub async fn write(&self, data: Vec<u8>) -> Result<(), String> {
        if self.closed.load(Ordering::Relaxed) || self.log.ended() {
            return Err(format!(
                "session {} has ended; open a new one with terminal_open",
                self.id
            ));
        }
        // Recorded as sent, before the echo it causes can be read.
        if let Some(r) = self.log.recorder() {
            r.input(&data);
        }
        match &self.input {
            Input::Ssh { channel, .. } => channel
                .data_bytes(data)
                .await
                .map_err(|e| format!("cannot write to session {}: {e}", self.id)),
            Input::Pty(pty) => pty.write(data).await,
        }
    }

    pub async fn resize(&self, cols: u16, rows: u16) -> Result<(), String> {
        self.log.resize(cols, rows);
        if let Some(r) = self.log.recorder() {
            r.resize(cols, rows);
        }
        match &self.input {
            Input::Ssh { channel, .. } => channel
                .window_change(cols.into(), rows.into(), 0, 0)
                .await
                .map_err(|e| format!("cannot resize session {}: {e}", self.id)),
            Input::Pty(pty) => pty.resize(cols, rows),
        }
    }

    /// Hang up and release the channel or PTY (idempotent).
    pub async fn close(&self) {
        if self.closed.swap(true, Ordering::Relaxed) {
            return;
        }
        match &self.input {
            Input::Ssh { channel, .. } => {
                // EOF then CLOSE: sshd frees the session slot (MaxSessions) once both
                // sides have closed; the reader task sees the end and stops.
                let _ = channel.eof().await;
                let _ = channel.close().await;
            }
            Input::Pty(pty) => pty.close(),
        }
    }
}

/// Every plugin's sessions.
/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(
        "you already have {MAX_SESSIONS} open terminal sessions in this plugin; close one with terminal_close first"
    )]
    Limit,
    /// Refused by the manifest's rules (a pattern host's name outside what it allows).
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
}

#[derive(Default)]
pub struct SessionTable {
    by_plugin: Mutex<HashMap<String, Vec<Arc<Session>>>>,
    /// A manifest reload handed this table's sessions to its successor. A call still
    /// running on the previous manifest may open a session after that: it would be in no
    /// table anyone reads, its shell alive until Warden exits, so it is closed instead.
    retired: AtomicBool,
}

impl std::fmt::Debug for SessionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionTable").finish_non_exhaustive()
    }
}

impl SessionTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Arc<Session>>>> {
        self.by_plugin.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// (local, ssh) sessions still running, for the metrics.
    pub fn census(&self) -> (usize, usize) {
        let map = self.lock();
        let live = map.values().flatten().filter(|s| !s.log.ended());
        live.fold((0, 0), |(local, ssh), s| match s.ssh_alias() {
            None => (local + 1, ssh),
            Some(_) => (local, ssh + 1),
        })
    }

    /// Open a local PTY session for `plugin`.
    pub async fn open_local(
        &self,
        plugin: &str,
        owner: &Owner,
        log: OutputLog,
    ) -> Result<Arc<Session>, OpenError> {
        self.make_room(plugin, owner).await?;
        let (cols, rows) = log.size();
        let log = Arc::new(log);
        let pty = pty::spawn(cols, rows, log.clone()).map_err(OpenError::Failed)?;
        self.insert(plugin, owner, "local".into(), log, Input::Pty(pty))
            .await
    }

    /// Open an SSH shell session to `alias` for `plugin`, on the alias's shared connection.
    pub async fn open_ssh(
        &self,
        pool: &SshPool,
        plugin: &str,
        owner: &Owner,
        alias: &str,
        log: OutputLog,
    ) -> Result<Arc<Session>, OpenError> {
        self.make_room(plugin, owner).await?;
        let (cols, rows) = log.size();
        let log = Arc::new(log);
        let mut retried = false;
        let (conn, channel) = loop {
            let conn = pool.connection(alias).await.map_err(|e| {
                if e.is_refusal() {
                    OpenError::Refused(e.to_string())
                } else {
                    OpenError::Failed(e.to_string())
                }
            })?;
            match channel::open_shell(&conn, cols, rows, log.clone()).await {
                Ok(channel) => break (conn, channel),
                // A connection that died since its last use: reconnect once.
                Err(e) if !retried => {
                    tracing::info!(alias, "ssh channel failed ({e}); reconnecting");
                    pool.discard(alias, &conn).await;
                    retried = true;
                }
                Err(e) => {
                    return Err(OpenError::Failed(format!(
                        "ssh host '{alias}' refused a shell session: {e}; if it limits sessions (MaxSessions), close one with terminal_close"
                    )));
                }
            }
        };
        self.insert(
            plugin,
            owner,
            format!("ssh:{alias}"),
            log,
            Input::Ssh {
                channel,
                _conn: conn,
            },
        )
        .await
    }

    /// Drop `owner`'s ended sessions beyond need; refuse when it still has too many live ones.
    async fn make_room(&self, plugin: &str, owner: &Owner) -> Result<(), OpenError> {
        let ended: Vec<Arc<Session>> = {
            let mut map = self.lock();
            let list = map.entry(plugin.to_string()).or_default();
            let held = list.iter().filter(|s| &s.owner == owner).count();
            if held < MAX_SESSIONS {
                return Ok(());
            }
            let (gone, kept): (Vec<_>, Vec<_>) = list
                .drain(..)
                .partition(|s| &s.owner == owner && s.log.ended());
            *list = kept;
            if held - gone.len() >= MAX_SESSIONS {
                list.extend(gone);
                crate::metrics::limit_hit("terminal_sessions", plugin);
                return Err(OpenError::Limit);
            }
            gone
        };
        for s in ended {
            s.close().await;
        }
        Ok(())
    }

    async fn insert(
        &self,
        plugin: &str,
        owner: &Owner,
        target: String,
        log: Arc<OutputLog>,
        input: Input,
    ) -> Result<Arc<Session>, OpenError> {
        let kind = if target == "local" { "local" } else { "ssh" };
        let (session, kept) = self.insert_now(plugin, owner, kind, target, log, input);
        if !kept {
            session.close().await;
            return Err(OpenError::Failed(
                "the manifest was reloaded while this session opened; open it again".into(),
            ));
        }
        // Named now: the recording's file is the session's id.
        if let Some(r) = session.log.recorder() {
            r.start(&session.id);
        }
        Ok(session)
    }

    fn insert_now(
        &self,
        plugin: &str,
        owner: &Owner,
        kind: &str,
        target: String,
        log: Arc<OutputLog>,
        input: Input,
    ) -> (Arc<Session>, bool) {
        let mut map = self.lock();
        // Unique across plugins, so another plugin (sftp) can name a session by its id.
        let id = loop {
            let id = crate::replica::handle(format!(
                "{kind}-{:06x}",
                rand::random::<u32>() & 0x00ff_ffff
            ));
            if !map.values().flatten().any(|s| s.id == id) {
                break id;
            }
        };
        let list = map.entry(plugin.to_string()).or_default();
        let session = Arc::new(Session {
            id,
            target,
            log,
            owner: owner.clone(),
            input,
            closed: AtomicBool::new(false),
        });
        // Checked under the lock that `adopt` sets it under: kept here means adopted there.
        if self.retired.load(Ordering::SeqCst) {
            return (session, false);
        }
        list.push(session.clone());
        (session, true)
    }

    /// `plugin`'s session `id`, if `owner` opened it.
    pub fn get(&self, plugin: &str, owner: &Owner, id: &str) -> Option<Arc<Session>> {
        self.lock()
            .get(plugin)
            .and_then(|l| l.iter().find(|s| s.id == id && &s.owner == owner).cloned())
    }

    /// The session `id` of whichever plugin opened it (ids are unique across plugins), if
    /// `owner` opened it.
    pub fn find(&self, owner: &Owner, id: &str) -> Option<Arc<Session>> {
        self.lock()
            .values()
            .flatten()
            .find(|s| s.id == id && &s.owner == owner)
            .cloned()
    }

    /// `plugin`'s sessions that `owner` opened, oldest first.
    pub fn list(&self, plugin: &str, owner: &Owner) -> Vec<Arc<Session>> {
        self.lock()
            .get(plugin)
            .map(|l| l.iter().filter(|s| &s.owner == owner).cloned().collect())
            .unwrap_or_default()
    }

    /// Take over the live sessions of `previous` for which `keep(plugin, session)` holds
    /// (a manifest reload); close the others. Returns (kept, closed).
    pub async fn adopt(
        &self,
        previous: &SessionTable,
        keep: impl Fn(&str, &Session) -> bool,
    ) -> (usize, usize) {
        // Taken under the lock that inserts hold, after which no insert stays: see `retired`.
        let all: Vec<(String, Vec<Arc<Session>>)> = {
            let mut map = previous.lock();
            previous.retired.store(true, Ordering::SeqCst);
            map.drain().collect()
        };
        let mut closed = Vec::new();
        let mut kept = 0;
        {
            let mut map = self.lock();
            for (plugin, list) in all {
                for session in list {
                    if !session.log.ended() && keep(&plugin, &session) {
                        map.entry(plugin.clone()).or_default().push(session);
                        kept += 1;
                    } else {
                        closed.push(session);
                    }
                }
            }
        }
        for session in &closed {
            session.close().await;
        }
        (kept, closed.len())
    }

    /// Close and forget every session (Warden is exiting): SSH channels get EOF and CLOSE,
    /// local shells their hang-up.
    pub async fn close_all(&self) {
        let all: Vec<Arc<Session>> = self.lock().drain().flat_map(|(_, l)| l).collect();
        futures::future::join_all(all.iter().map(|s| s.close())).await;
    }

    /// Close and forget `plugin`'s session `id`, if `owner` opened it.
    pub async fn close(&self, plugin: &str, owner: &Owner, id: &str) -> bool {
        let session = {
            let mut map = self.lock();
            let Some(list) = map.get_mut(plugin) else {
                return false;
            };
            let Some(i) = list.iter().position(|s| s.id == id && &s.owner == owner) else {
                return false;
            };
            list.remove(i)
        };
        session.close().await;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_session_opened_after_a_reload_took_the_table_is_closed_not_lost() {
        // Found by the soak test: a call still running on the previous manifest opened a
        // session in a table nobody read any more, and its shell lived on.
        let old = SessionTable::default();
        let local = Owner::default();
        let kept = old
            .open_local("t", &local, OutputLog::new(80, 24))
            .await
            .expect("open");
        let new = SessionTable::default();
        assert_eq!(new.adopt(&old, |_, _| true).await, (1, 0));
        assert!(new.get("t", &local, &kept.id).is_some());
        let late = old.open_local("t", &local, OutputLog::new(80, 24)).await;
        assert!(matches!(late, Err(OpenError::Failed(m)) if m.contains("reloaded")));
        assert!(old.list("t", &local).is_empty());
        new.close_all().await;
    }

    #[tokio::test]
    async fn a_client_reaches_only_the_sessions_it_opened() {
        let table = SessionTable::default();
        let (alice, bob) = (Owner::client(Some("alice")), Owner::client(Some("bob")));
        let s = table
            .open_local("t", &alice, OutputLog::new(80, 24))
            .await
            .expect("open");
        assert!(table.get("t", &bob, &s.id).is_none());
        assert!(table.find(&bob, &s.id).is_none());
        assert!(table.list("t", &bob).is_empty());
        assert!(table.list("t", &Owner::default()).is_empty());
        assert!(!table.close("t", &bob, &s.id).await);
        assert!(table.get("t", &alice, &s.id).is_some());
        assert!(table.close("t", &alice, &s.id).await);
    }

    #[tokio::test]
    async fn one_clients_sessions_never_use_up_anothers_limit() {
        let table = SessionTable::default();
        let (alice, bob) = (Owner::client(Some("alice")), Owner::client(Some("bob")));
        for _ in 0..MAX_SESSIONS {
            table
                .open_local("t", &alice, OutputLog::new(80, 24))
                .await
                .expect("open");
        }
        let full = table.open_local("t", &alice, OutputLog::new(80, 24)).await;
        assert!(matches!(full, Err(OpenError::Limit)));
        table
            .open_local("t", &bob, OutputLog::new(80, 24))
            .await
            .expect("bob's first");
        assert_eq!(table.list("t", &bob).len(), 1);
        table.close_all().await;
    }
}
