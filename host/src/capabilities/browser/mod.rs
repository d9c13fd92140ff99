//! `warden:browser`: the grant check is in place; the Chromium provider is not built yet, so a
//! granted call answers with an `io` error that says so.

use super::not_provided;
use crate::runtime::bindings::warden::browser::browser::{Host, HostPage, WaitUntil};
use crate::runtime::bindings::warden::browser::types::{self, Error};
use crate::runtime::state::PluginState;
use wasmtime::component::Resource;

/// A tab handed to a plugin.
#[derive(Debug)]
pub struct PageHandle;

impl types::Host for PluginState {}

impl Host for PluginState {
    async fn open_page(&mut self, _session: Option<String>) -> Result<Resource<PageHandle>, Error> {
        self.grants
            .check_browser()
            .map_err(|d| Error::AccessDenied(self.refuse("browser", &d)))?;
        Err(Error::Io(not_provided("browser")))
    }
}

impl HostPage for PluginState {
    async fn url(&mut self, _page: Resource<PageHandle>) -> Result<String, Error> {
        Err(Error::NotFound("no such page".into()))
    }

    async fn navigate(
        &mut self,
        _page: Resource<PageHandle>,
        _url: String,
        _wait: WaitUntil,
        _timeout_ms: u32,
    ) -> Result<String, Error> {
        Err(Error::NotFound("no such page".into()))
    }

    async fn close(&mut self, _page: Resource<PageHandle>) -> Result<(), Error> {
        Err(Error::NotFound("no such page".into()))
    }

    async fn drop(&mut self, _page: Resource<PageHandle>) -> wasmtime::Result<()> {
        Ok(())
    }
}
