//! `warden:terminal`: the grant checks are in place; the PTY and SSH providers are not built
//! yet, so a granted call answers with an `io` error that says so.

use super::not_provided;
use crate::runtime::bindings::warden::terminal::terminal::{Host, HostSession, Target};
use crate::runtime::bindings::warden::terminal::types::{self, Error};
use crate::runtime::state::PluginState;
use wasmtime::component::Resource;

/// A terminal session handed to a plugin.
#[derive(Debug)]
pub struct SessionHandle;

impl types::Host for PluginState {}

impl Host for PluginState {
    async fn open(
        &mut self,
        target: Target,
        _cols: u16,
        _rows: u16,
    ) -> Result<Resource<SessionHandle>, Error> {
        let check = match &target {
            Target::Local => self.grants.check_terminal_local(),
            Target::Ssh(alias) => self.grants.check_terminal_ssh(alias),
        };
        check.map_err(|d| Error::AccessDenied(self.refuse("terminal", &d)))?;
        Err(Error::Io(not_provided("terminal")))
    }
}

impl HostSession for PluginState {
    async fn write(&mut self, _s: Resource<SessionHandle>, _data: Vec<u8>) -> Result<(), Error> {
        Err(Error::NotFound("no such session".into()))
    }

    async fn read(
        &mut self,
        _s: Resource<SessionHandle>,
        _offset: u64,
    ) -> Result<(Vec<u8>, u64), Error> {
        Err(Error::NotFound("no such session".into()))
    }

    async fn close(&mut self, _s: Resource<SessionHandle>) -> Result<(), Error> {
        Err(Error::NotFound("no such session".into()))
    }

    async fn drop(&mut self, _s: Resource<SessionHandle>) -> wasmtime::Result<()> {
        Ok(())
    }
}
