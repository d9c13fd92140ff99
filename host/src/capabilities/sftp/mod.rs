//! `warden:sftp`: the host-alias grant check is in place; the SFTP provider is not built yet,
//! so a granted call answers with an `io` error that says so.

use super::not_provided;
use crate::runtime::bindings::warden::sftp::sftp::{DirEntry, FileStat, Host};
use crate::runtime::bindings::warden::sftp::types::{self, Error};
use crate::runtime::state::PluginState;

impl types::Host for PluginState {}

impl PluginState {
    /// The answer to every SFTP call until the provider exists: access-denied without the
    /// grant (audited), otherwise an `io` error saying the provider is not built.
    fn sftp_unavailable(&self, host: &str) -> Error {
        match self.grants.check_sftp_host(host) {
            Err(d) => Error::AccessDenied(self.refuse("sftp", &d)),
            Ok(()) => Error::Io(not_provided("sftp")),
        }
    }
}

impl Host for PluginState {
    async fn list(&mut self, host: String, _path: String) -> Result<Vec<DirEntry>, Error> {
        Err(self.sftp_unavailable(&host))
    }

    async fn stat(&mut self, host: String, _path: String) -> Result<FileStat, Error> {
        Err(self.sftp_unavailable(&host))
    }

    async fn read(
        &mut self,
        host: String,
        _path: String,
        _offset: u64,
        _length: u64,
    ) -> Result<Vec<u8>, Error> {
        Err(self.sftp_unavailable(&host))
    }
}
