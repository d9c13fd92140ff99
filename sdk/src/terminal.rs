//! Local PTYs and SSH sessions owned by the host (`warden:terminal/terminal`). SSH hosts are
//! named by the alias the admin gave them in the manifest; a plugin never sees an address,
//! a key or a password.

use crate::CapabilityError;
use crate::bindings::warden::terminal::terminal as wit;

/// Where a session runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A PTY on the host (grant `terminal.local`).
    Local,
    /// An SSH session to a host alias (grant `terminal.ssh_hosts`).
    Ssh(String),
}

/// One open terminal. Dropping it releases the handle; call [`Session::close`] to end the
/// session.
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

impl Session {
    /// Sends bytes to the terminal's input.
    pub fn write(&self, data: &[u8]) -> Result<(), CapabilityError> {
        Ok(self.0.write(data)?)
    }

    /// Output since `offset` (a byte position in the session's output stream), and the
    /// offset to pass next time.
    pub fn read(&self, offset: u64) -> Result<(Vec<u8>, u64), CapabilityError> {
        Ok(self.0.read(offset)?)
    }

    /// Closes the session.
    pub fn close(self) -> Result<(), CapabilityError> {
        Ok(self.0.close()?)
    }
}
