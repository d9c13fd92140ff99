//! `warden:sftp`: the host-alias grant check is in place; the SFTP provider is not built yet,
//! so a granted call answers with an `io` error that says so.

use super::not_provided;
use crate::runtime::bindings::warden::sftp::sftp::{DirEntry, FileStat, Host};
use crate::runtime::bindings::warden::sftp::types::{self, Error};
use crate::runtime::state::PluginState;

impl types::Host for PluginState {}

impl PluginState {
    fn sftp_allowed(&self, host: &str) -> Result<(), Error> {
        self.grants
            .check_sftp_host(host)
            .map_err(|d| Error::AccessDenied(self.refuse("sftp", &d)))?;
        Err(Error::Io(not_provided("sftp")))
    }
}

impl Host for PluginState {
    async fn list(&mut self, host: String, _path: String) -> Result<Vec<DirEntry>, Error> {
        self.sftp_allowed(&host).map(|()| Vec::new())
    }

    async fn stat(&mut self, host: String, _path: String) -> Result<FileStat, Error> {
        self.sftp_allowed(&host)?;
        Err(Error::Io(not_provided("sftp")))
    }

    async fn read(
        &mut self,
        host: String,
        _path: String,
        _offset: u64,
        _length: u64,
    ) -> Result<Vec<u8>, Error> {
        self.sftp_allowed(&host).map(|()| Vec::new())
    }
}
