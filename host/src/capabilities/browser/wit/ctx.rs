//! A plugin's browser context in its store ([`BrowserCtx`]), and linking `warden:browser` to the plugins' store.

use crate::capabilities::HasView;
use crate::capabilities::browser::bindings::warden::browser::browser as browser_iface;
use crate::capabilities::browser::bindings::warden::browser::types;
use crate::capabilities::browser::leases::Lease;
use crate::capabilities::browser::model::owner::Owner;
use crate::capabilities::browser::provider::BrowserProvider;
use crate::capabilities::view::{Base, Project};
use std::ops::Deref;
use std::sync::Arc;
use wasmtime::component::Linker;

/// A plugin's browser context: its grants and audit scope, and the shared browser provider
/// (each plugin's sessions are browser contexts of their own).
pub struct BrowserCtx {
    pub base: Base,
    pub browser: Arc<BrowserProvider>,
    /// The conversation of the call in progress: session names are scoped by it.
    pub conversation: crate::capabilities::conversation::Conversation,
    /// The tabs the call in progress holds (`leases.rs`), released when it ends.
    pub(crate) leased: Vec<(String, Lease)>,
    /// Session recordings (`[audit] record`), when the manifest asks for some.
    pub recordings: Option<Arc<crate::recording::Recordings>>,
}

impl BrowserCtx {
    /// Who the calls of this context act as: the plugin's grants and audit scope, and the
    /// client of the conversation in progress.
    pub(crate) fn owner(&self) -> Owner {
        Owner {
            grants: Arc::clone(&self.grants),
            scope: self.scope.clone(),
            client: self.conversation.owner().clone(),
        }
    }
}

impl Deref for BrowserCtx {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

/// Link `warden:browser` (types, browser) to the plugins' store.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, BrowserCtx>,
) -> wasmtime::Result<()> {
    types::add_to_linker::<T, HasView<BrowserCtx>>(linker, get)?;
    browser_iface::add_to_linker::<T, HasView<BrowserCtx>>(linker, get)
}

pub(crate) const DEFAULT_SESSION: &str = "default";
