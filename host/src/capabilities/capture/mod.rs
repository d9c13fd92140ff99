//! `warden:capture`: host-performed HTTP and page capture in the persistent capture profile.

pub mod bindings;
mod checked;
pub mod handoff;
pub(crate) mod http;
mod page;

use super::browser::BrowserProvider;
use super::view::{Base, Project};
use super::{HasView, View};
use bindings::warden::capture::{http as http_iface, page as page_iface, types};
use std::ops::Deref;
use std::sync::Arc;
use wasmtime::component::Linker;

/// A plugin's capture context: its grants and audit scope, and the capture browser on the
/// persistent profile (`http_get` builds a client per hop, pinned to the checked addresses).
#[derive(Clone)]
pub struct CaptureCtx {
    pub base: Base,
    pub capture_browser: Arc<BrowserProvider>,
    /// How to tell the user of the current call that a login waits for them.
    pub handoff: Option<Arc<dyn handoff::HandOff>>,
}

impl Deref for CaptureCtx {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

impl types::Host for View<'_, CaptureCtx> {}

/// Link `warden:capture` (types, http, page) to the plugins' store.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, CaptureCtx>,
) -> wasmtime::Result<()> {
    types::add_to_linker::<T, HasView<CaptureCtx>>(linker, get)?;
    http_iface::add_to_linker::<T, HasView<CaptureCtx>>(linker, get)?;
    page_iface::add_to_linker::<T, HasView<CaptureCtx>>(linker, get)
}
