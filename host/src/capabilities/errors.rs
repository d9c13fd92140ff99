//! `warden:types/errors`: the one error type every capability package returns. Its cases
//! say what happened (refused, limit reached, stale element, gone, ...) so plugins act on
//! the case, never on message text.

pub mod bindings {
    //! Host bindings for `warden:types`; every capability's bindings reuse them.
    wasmtime::component::bindgen!({
        world: "warden:types/imports",
        path: "../wit",
    });
}

use super::view::Project;
use super::{HasView, View};
use bindings::warden::types::errors;
use wasmtime::component::Linker;

pub use errors::Error;

impl Error {
    /// The case, for audit lines (`error` field).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::AccessDenied(_) => "access_denied",
            Self::LimitReached(_) => "limit_reached",
            Self::NotFound(_) => "not_found",
            Self::StaleElement(_) => "stale_element",
            Self::Gone(_) => "gone",
            Self::Timeout(_) => "timeout",
            Self::InvalidArgument(_) => "invalid_argument",
            Self::Io(_) => "io",
        }
    }

    /// A session handle this process does not hold: `gone` with where it belongs when
    /// another replica made it (see [`crate::replica`]), else `not-found` with `message`.
    pub fn unknown_handle(handle: &str, message: impl FnOnce() -> String) -> Self {
        crate::replica::elsewhere(handle)
            .map_or_else(|| Self::NotFound(message()), |e| Self::Gone(e.to_string()))
    }
}

// The interface holds only types; any capability's view can serve it.
impl<C> errors::Host for View<'_, C> {}

/// Link `warden:types/errors` (once, for every capability).
pub fn add_to_linker<T: Send + 'static, C: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, C>,
) -> wasmtime::Result<()> {
    errors::add_to_linker::<T, HasView<C>>(linker, get)
}
