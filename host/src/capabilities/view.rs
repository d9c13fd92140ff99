//! What a capability's host functions run on. Each capability has a context of its own
//! (its grants, its audit scope, its provider), and each WIT interface is linked with a
//! projection of the store onto that context plus the instance's resource table, so a
//! capability sees nothing of another's state (the pattern of wasmtime's `WasiCtxView`).

use crate::audit::GuestScope;
use crate::manifest::grants::{Denied, Grants};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use wasmtime::component::{HasData, ResourceTable};

/// One capability's context and the instance's resource table, for the length of a host call.
pub struct View<'a, C> {
    pub ctx: &'a mut C,
    pub table: &'a mut ResourceTable,
}

impl<C> View<'_, C> {
    /// The instance's resource table (tabs, sessions handed to the guest).
    pub fn table(&mut self) -> &mut ResourceTable {
        self.table
    }
}

impl<C> Deref for View<'_, C> {
    type Target = C;
    fn deref(&self) -> &C {
        self.ctx
    }
}

impl<C> DerefMut for View<'_, C> {
    fn deref_mut(&mut self) -> &mut C {
        self.ctx
    }
}

/// The `HasData` marker that links an interface to [`View`]s of context `C`.
pub struct HasView<C>(PhantomData<fn() -> C>);

impl<C: Send + 'static> HasData for HasView<C> {
    type Data<'a> = View<'a, C>;
}

/// How the store hands a capability its view (the runtime supplies one per capability).
pub type Project<T, C> = fn(&mut T) -> View<'_, C>;

/// What every capability context starts from: whose grants, and where its audit lines go.
#[derive(Debug, Clone)]
pub struct Base {
    pub grants: Arc<Grants>,
    pub scope: GuestScope,
}

impl Base {
    pub fn plugin(&self) -> &str {
        &self.grants.plugin
    }

    /// Audit a refusal and return its message for the WIT `access-denied` variant.
    pub(crate) fn refuse(&self, capability: &str, denied: &Denied) -> String {
        self.scope
            .denied(capability, &denied.target, &denied.message);
        denied.message.clone()
    }
}
