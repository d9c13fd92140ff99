//! Local PTYs and SSH sessions owned by the host (`warden:terminal/terminal`). SSH hosts are
//! named by the alias the admin gave them in the manifest; a plugin never sees an address,
//! a key or a password.
//!
//! Sessions belong to the plugin and are kept by the host, so they survive a restart of the
//! plugin's instance: find them again with [`attach`] or [`list_sessions`].

use std::time::Duration;

use crate::CapabilityError;
use crate::bindings::warden::terminal::terminal as wit;

/// How much of the output of the latest command ([`Session::begin_command`]) the host keeps
/// readable from its start offset, until the next command begins: the first 8 MiB.
pub const KEPT_COMMAND_BYTES: u64 = 8 * 1024 * 1024;

/// Where a session runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A PTY on the host (grant `terminal.local`).
    Local,
    /// An SSH session to a host alias (grant `terminal.ssh_hosts`).
    Ssh(String),
}

/// What a session is and how far it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// Stable id, unique among the plugin's sessions.
    pub id: String,
    /// `local` or `ssh:ALIAS`.
    pub target: String,
    /// Terminal width.
    pub cols: u16,
    /// Terminal height.
    pub rows: u16,
    /// Writes are refused (grant `terminal.read_only`).
    pub read_only: bool,
    /// Bytes of output so far: the offset the next byte will have.
    pub output_bytes: u64,
    /// The shell's exit status once it has ended (-1 when killed by a signal).
    pub exit_status: Option<i32>,
    /// The shell has ended; no more output will come.
    pub ended: bool,
    /// Creation time, seconds since the Unix epoch.
    pub created: u64,
}

impl From<wit::SessionInfo> for SessionInfo {
    fn from(i: wit::SessionInfo) -> Self {
        Self {
            id: i.id,
            target: i.target,
            cols: i.cols,
            rows: i.rows,
            read_only: i.read_only,
            output_bytes: i.output_bytes,
            exit_status: i.exit_status,
            ended: i.ended,
            created: i.created,
        }
    }
}

/// Output read from a session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    /// The bytes (raw terminal output, escape sequences included).
    pub data: Vec<u8>,
    /// The offset to read from next.
    pub next: u64,
    /// Bytes that had already left the session's buffers (its last 64 KiB, and the first
    /// [`KEPT_COMMAND_BYTES`] of the latest command) and were skipped.
    pub skipped: u64,
    /// The session has ended and `data` reaches the end of its output.
    pub ended: bool,
}

/// A handle to one terminal session. Dropping it releases the handle only; call
/// [`Session::close`] to end the session.
#[derive(Debug)]
pub struct Session(wit::Session);

/// Opens a terminal of `cols` x `rows` on `target`.
pub fn open(target: Target, cols: u16, rows: u16) -> Result<Session, CapabilityError> {
    let target = match target {
        Target::Local => wit::Target::Local,
        Target::Ssh(alias) => wit::Target::Ssh(alias),
    };
    Ok(Session(wit::open(&target, cols, rows)?))
}

/// A handle to the plugin's session `id`, opened by the calling client.
pub fn attach(id: &str) -> Result<Session, CapabilityError> {
    Ok(Session(wit::attach(id)?))
}

/// The plugin's sessions that the calling client opened, oldest first.
pub fn list_sessions() -> Vec<SessionInfo> {
    wit::list_sessions().into_iter().map(Into::into).collect()
}

impl Session {
    /// What the session is and how far it got.
    pub fn info(&self) -> SessionInfo {
        self.0.info().into()
    }

    /// Sends bytes to the terminal's input.
    pub fn write(&self, data: &[u8]) -> Result<(), CapabilityError> {
        Ok(self.0.write(data)?)
    }

    /// Output from `offset`, at most `max_bytes`, waiting up to `wait` (the host caps it at
    /// 10 s) when there is none yet.
    pub fn read(
        &self,
        offset: u64,
        max_bytes: u32,
        wait: Duration,
    ) -> Result<Chunk, CapabilityError> {
        let wait_ms = u32::try_from(wait.as_millis()).unwrap_or(u32::MAX);
        let c = self.0.read(offset, max_bytes, wait_ms)?;
        Ok(Chunk {
            data: c.data,
            next: c.next,
            skipped: c.skipped,
            ended: c.ended,
        })
    }

    /// The last `lines` lines of buffered output, ANSI escapes stripped.
    pub fn scrollback(&self, lines: u32) -> Result<String, CapabilityError> {
        Ok(self.0.scrollback(lines)?)
    }

    /// `uri`, one of this plugin's resources, shows this session's output: clients
    /// subscribed to it hear of new output (at most 8 per session).
    pub fn watch(&self, uri: &str) -> Result<(), CapabilityError> {
        Ok(self.0.watch(uri)?)
    }

    /// The terminal screen as text (what a terminal emulator shows; for TUIs).
    pub fn screen(&self) -> Result<String, CapabilityError> {
        Ok(self.0.screen()?)
    }

    /// Changes the terminal size.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), CapabilityError> {
        Ok(self.0.resize(cols, rows)?)
    }

    /// Records that a command was typed which prints `end_marker` when it finishes: the
    /// session is [`busy`](Self::busy) until the host sees the marker in later output, the
    /// session ends, or the shell's prompt is back (after Ctrl-C).
    pub fn begin_command(&self, end_marker: &[u8]) {
        self.0.begin_command(end_marker);
    }

    /// A command started with [`begin_command`](Self::begin_command) has not finished yet.
    pub fn busy(&self) -> bool {
        self.0.busy()
    }

    /// Ends the session: the shell is hung up and its channel or PTY released.
    pub fn close(self) -> Result<(), CapabilityError> {
        Ok(self.0.close()?)
    }
}
