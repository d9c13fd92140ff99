//! `warden:terminal`: local PTYs (grant `terminal.local`) and SSH shells to the manifest's
//! host aliases (grant `terminal.ssh_hosts`). The grant of a session's target is checked on
//! every call, writes are refused under `terminal.read_only`, and refusals are audited.
//!
//! | file | job |
//! |---|---|
//! | `ssh.rs` | connection pool per alias, jump hosts, host key checks, keep-alive |
//! | `ssh_auth.rs` | logging in: identity file, passphrase, user certificate, agent |
//! | `ssh_error.rs` | why a connection could not be made, as the agent reads it |
//! | `fleet.rs` | the addresses a pattern host's member may be reached at |
//! | `known_hosts.rs` | a `known_hosts` file read as OpenSSH reads it (patterns, hashes, CAs, revocations) |
//! | `channel.rs` | an SSH shell channel and the task that reads it |
//! | `pty.rs` | a local PTY and the thread that reads it |
//! | `session.rs` | output ring buffer (64 KiB), vt100 screen, exit status |
//! | `table.rs` | sessions per plugin, kept by the host |

pub mod bindings;
mod channel;
mod fleet;
mod handle;
pub mod known_hosts;
mod pty;
pub mod session;
pub mod ssh;
mod ssh_auth;
mod ssh_error;
pub mod table;

use super::conversation::Owner;
use super::view::{Base, Project};
use super::{HasView, View};
use crate::audit::Used;
use crate::manifest::SshName;
use crate::manifest::grants::Denied;
use crate::recording::TerminalMeta;
use bindings::warden::terminal::terminal::{
    self as terminal_iface, Chunk, Host, HostSession, SessionInfo, Target,
};
use bindings::warden::terminal::types::{self, Error};
pub use handle::SessionHandle;
use ssh::SshPool;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;
use table::Session;
use table::{OpenError, SessionTable};
use wasmtime::component::Linker;
use wasmtime::component::Resource;

/// Longest a single `read` may wait (the plugin loops for longer waits, so cancellation and
/// the call's time limit stay responsive).
const MAX_WAIT: Duration = Duration::from_secs(10);
/// Largest single `read`.
const MAX_READ: usize = 1024 * 1024;

/// Longest input text kept in an audit line (the byte count is always whole).
const AUDIT_INPUT_MAX: usize = 2048;

/// Input written to a terminal as one readable line: control characters and backslashes
/// escaped (`\n`, `\u{1b}`, `\\`), everything else as typed, cut after
/// [`AUDIT_INPUT_MAX`] characters.
pub(crate) fn shown_input(data: &[u8]) -> String {
    let mut shown = String::new();
    for (i, c) in String::from_utf8_lossy(data).chars().enumerate() {
        if i == AUDIT_INPUT_MAX {
            shown.push_str("...[cut]");
            break;
        }
        if c == '\\' || c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// A plugin's terminal context: its grants and audit scope, the host's terminal sessions
/// and the SSH connections they run on.
pub struct TerminalCtx {
    pub base: Base,
    pub sessions: Arc<SessionTable>,
    pub ssh: Arc<SshPool>,
    /// Where session output is announced to subscribers of the resources that show it.
    pub events: Arc<super::resource_events::ResourceEvents>,
    /// The client of the call in progress: it reaches only the sessions it opened.
    pub owner: Owner,
    /// Session recordings, when `[audit] record` names terminals.
    pub recordings: Option<Arc<crate::recording::Recordings>>,
}

impl Deref for TerminalCtx {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

impl types::Host for View<'_, TerminalCtx> {}

/// Link `warden:terminal` (types, terminal) to the plugins' store.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, TerminalCtx>,
) -> wasmtime::Result<()> {
    types::add_to_linker::<T, HasView<TerminalCtx>>(linker, get)?;
    terminal_iface::add_to_linker::<T, HasView<TerminalCtx>>(linker, get)
}

impl View<'_, TerminalCtx> {
    /// Check the grant of a session target (`local`, or `ssh:NAME` with NAME an alias or a
    /// pattern host's member); for SSH, what NAME stands for.
    fn check_target(&self, target: &str) -> Result<Option<SshName>, Error> {
        let refused = |d: &Denied| Error::AccessDenied(self.refuse("terminal", d));
        let Some(name) = target.strip_prefix("ssh:") else {
            self.grants
                .check_terminal_local()
                .map_err(|d| refused(&d))?;
            return Ok(None);
        };
        let named = self.ssh.name(name).map_err(|e| {
            refused(&Denied::unfixable(
                "ssh.hosts",
                format!("ssh host '{name}'"),
                e.to_string(),
            ))
        })?;
        self.grants
            .check_terminal_ssh(&named.alias, named.member.as_deref())
            .map_err(|d| refused(&d))?;
        Ok(Some(named))
    }

    /// The session behind a handle, after re-checking the grant of its target. A handle kept
    /// from another client's call (a plugin that shares its state across clients) is
    /// refused as if it did not exist.
    fn session(&mut self, handle: &Resource<SessionHandle>) -> Result<Arc<Session>, Error> {
        let session = self
            .table
            .get(handle)
            .map(|h| h.0.clone())
            .ok()
            .filter(|s| s.owner == self.owner)
            .ok_or_else(|| Error::NotFound("no such session handle".into()))?;
        self.check_target(&session.target)?;
        Ok(session)
    }

    fn handle(&mut self, session: Arc<Session>) -> Result<Resource<SessionHandle>, Error> {
        self.table
            .push(SessionHandle(session))
            .map_err(|e| Error::Io(format!("too many session handles: {e}")))
    }

    /// Record what was done in a session (`terminal.OP`, target and session id), so the
    /// audit log tells what ran where.
    fn audit_use(&self, op: &str, session: &Session, detail: Option<&str>, bytes: Option<u64>) {
        self.scope.used(&Used {
            capability: &format!("terminal.{op}"),
            target: &format!("{} session {}", session.target, session.id),
            detail,
            bytes,
            recording: session.log.recorder().and_then(|r| r.link()),
            ..Used::default()
        });
    }

    fn session_info(&self, s: &Session) -> SessionInfo {
        let (cols, rows) = s.log.size();
        SessionInfo {
            id: s.id.clone(),
            target: s.target.clone(),
            cols,
            rows,
            read_only: self.grants.terminal.as_ref().is_some_and(|t| t.read_only),
            output_bytes: s.log.total(),
            exit_status: s.log.exit_status(),
            ended: s.log.ended(),
            created: s.log.created_secs(),
        }
    }
}

/// For the audit line: the pattern host a member belongs to, and the chain of jump hosts
/// the session runs through (`of web via bastion`).
fn route(ssh: &SshPool, named: Option<&SshName>) -> Option<String> {
    let named = named?;
    let of = named.member.as_ref().map(|_| format!("of {}", named.alias));
    let via = ssh
        .config(&named.alias)
        .filter(|c| !c.via.is_empty())
        .map(|c| format!("via {}", c.via.join(", ")));
    let parts: Vec<String> = of.into_iter().chain(via).collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

impl Host for View<'_, TerminalCtx> {
    async fn open(
        &mut self,
        target: Target,
        cols: u16,
        rows: u16,
    ) -> Result<Resource<SessionHandle>, Error> {
        let target_name = match &target {
            Target::Local => "local".to_string(),
            Target::Ssh(alias) => format!("ssh:{alias}"),
        };
        let named = self.check_target(&target_name)?;
        let (cols, rows) = (cols.clamp(10, 1000), rows.clamp(2, 1000));
        let (sessions, ssh) = (self.sessions.clone(), self.ssh.clone());
        let plugin = self.plugin().to_string();
        let recorder = self.recordings.as_ref().and_then(|r| {
            let caller = self.scope.caller();
            r.terminal(TerminalMeta {
                plugin: Arc::from(plugin.as_str()),
                client: caller.client,
                session: caller.session,
                target: target_name.clone(),
                cols,
                rows,
            })
        });
        let log = session::OutputLog::new(cols, rows).recorded(recorder);
        let session = match &named {
            None => sessions.open_local(&plugin, &self.owner, log).await,
            Some(named) => {
                sessions
                    .open_ssh(&ssh, &plugin, &self.owner, named.key(), log)
                    .await
            }
        }
        .map_err(|e| match e {
            OpenError::Limit => {
                self.scope.denied("terminal", &target_name, &e.to_string());
                Error::LimitReached(e.to_string())
            }
            OpenError::Refused(m) => {
                self.scope.denied("terminal", &target_name, &m);
                Error::AccessDenied(m)
            }
            OpenError::Failed(m) => Error::Io(m),
        })?;
        self.audit_use(
            "open",
            &session,
            route(&ssh, named.as_ref()).as_deref(),
            None,
        );
        self.handle(session)
    }

    async fn attach(&mut self, id: String) -> Result<Resource<SessionHandle>, Error> {
        let session = self
            .sessions
            .get(self.plugin(), &self.owner, &id)
            .ok_or_else(|| {
                Error::unknown_handle(&id, || {
                    format!("no session '{id}'; terminal_list_sessions shows the open ones")
                })
            })?;
        self.check_target(&session.target)?;
        self.handle(session)
    }

    async fn list_sessions(&mut self) -> Vec<SessionInfo> {
        self.sessions
            .list(self.plugin(), &self.owner)
            .iter()
            .map(|s| self.session_info(s))
            .collect()
    }
}

impl HostSession for View<'_, TerminalCtx> {
    async fn info(&mut self, s: Resource<SessionHandle>) -> SessionInfo {
        match self.table.get(&s).map(|h| h.0.clone()) {
            Ok(session) if session.owner == self.owner => self.session_info(&session),
            _ => SessionInfo {
                id: String::new(),
                target: String::new(),
                cols: 0,
                rows: 0,
                read_only: true,
                output_bytes: 0,
                exit_status: None,
                ended: true,
                created: 0,
            },
        }
    }

    async fn write(&mut self, s: Resource<SessionHandle>, data: Vec<u8>) -> Result<(), Error> {
        let session = self.session(&s)?;
        self.grants
            .check_terminal_write()
            .map_err(|d| Error::AccessDenied(self.refuse("terminal", &d)))?;
        let (shown, len) = (shown_input(&data), data.len() as u64);
        session.write(data).await.map_err(Error::Io)?;
        self.audit_use("write", &session, Some(&shown), Some(len));
        Ok(())
    }

    async fn read(
        &mut self,
        s: Resource<SessionHandle>,
        offset: u64,
        max_bytes: u32,
        wait_ms: u32,
    ) -> Result<Chunk, Error> {
        let session = self.session(&s)?;
        let wait = Duration::from_millis(wait_ms.into()).min(MAX_WAIT);
        let max = usize::try_from(max_bytes).unwrap_or(MAX_READ).min(MAX_READ);
        let cancel = self.scope.cancel();
        let chunk = tokio::select! {
            c = session.log.read(offset, max, wait) => c,
            () = cancel.cancelled() => return Err(Error::Timeout("the call was cancelled".into())),
        };
        Ok(Chunk {
            data: chunk.data,
            next: chunk.next,
            skipped: chunk.skipped,
            ended: chunk.ended,
        })
    }

    async fn scrollback(
        &mut self,
        s: Resource<SessionHandle>,
        lines: u32,
    ) -> Result<String, Error> {
        let session = self.session(&s)?;
        Ok(session.log.scrollback(lines as usize))
    }

    async fn watch(&mut self, s: Resource<SessionHandle>, uri: String) -> Result<(), Error> {
        let session = self.session(&s)?;
        if uri.is_empty() || uri.len() > 512 {
            return Err(Error::InvalidArgument(
                "a resource URI of 1 to 512 bytes".into(),
            ));
        }
        if session
            .log
            .watch(&self.events, self.plugin(), &session.owner, &uri)
        {
            Ok(())
        } else {
            Err(Error::LimitReached(format!(
                "a session announces at most {} resources",
                session::MAX_WATCHED
            )))
        }
    }

    async fn screen(&mut self, s: Resource<SessionHandle>) -> Result<String, Error> {
        let session = self.session(&s)?;
        Ok(session.log.screen())
    }

    async fn resize(
        &mut self,
        s: Resource<SessionHandle>,
        cols: u16,
        rows: u16,
    ) -> Result<(), Error> {
        let session = self.session(&s)?;
        session
            .resize(cols.clamp(10, 1000), rows.clamp(2, 1000))
            .await
            .map_err(Error::Io)
    }

    async fn begin_command(&mut self, s: Resource<SessionHandle>, end_marker: Vec<u8>) {
        // Bounded: the marker is searched in every byte of output.
        if end_marker.is_empty() || end_marker.len() > 256 {
            return;
        }
        if let Ok(session) = self.session(&s) {
            session.log.begin_command(end_marker);
        }
    }

    async fn busy(&mut self, s: Resource<SessionHandle>) -> bool {
        self.session(&s).is_ok_and(|session| session.log.busy())
    }

    async fn close(&mut self, s: Resource<SessionHandle>) -> Result<(), Error> {
        let session = self.session(&s)?;
        let plugin = self.plugin().to_string();
        self.sessions.close(&plugin, &self.owner, &session.id).await;
        self.audit_use("close", &session, None, Some(session.log.total()));
        Ok(())
    }

    async fn drop(&mut self, s: Resource<SessionHandle>) -> wasmtime::Result<()> {
        // Only the handle goes; the session stays open until `close`.
        self.table.delete(s)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_one_line_with_controls_escaped() {
        assert_eq!(
            shown_input(b"echo 'a \"b\"'\\x\n\x1b[A"),
            "echo 'a \"b\"'\\\\x\\n\\u{1b}[A"
        );
        let long = shown_input(&[b'x'; AUDIT_INPUT_MAX + 10]);
        assert!(long.ends_with("...[cut]") && long.len() == AUDIT_INPUT_MAX + 8);
    }
}
