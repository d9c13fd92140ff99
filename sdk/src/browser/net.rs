//! A tab's console and network logs, a session's routes and emulation, a page's storage,
//! and saved session states.

use super::page::Page;
use crate::CapabilityError;
use crate::bindings::warden::browser::browser as wit;

pub use wit::{
    ConsoleEntry, ConsoleLog, Emulation, Geolocation, MockResponse, NetworkEntry, NetworkLog,
    NetworkQuery, Route, RouteAction, SavedState, StorageArea, Viewport,
};

/// Adds a route to `session`: requests whose URL matches `url_glob` are blocked or answered
/// by `action`. Returns the route's id.
pub fn add_route(
    session: Option<&str>,
    url_glob: &str,
    action: &RouteAction,
) -> Result<u32, CapabilityError> {
    Ok(wit::add_route(session, url_glob, action)?)
}

pub fn remove_route(session: Option<&str>, id: u32) -> Result<(), CapabilityError> {
    Ok(wit::remove_route(session, id)?)
}

/// The routes of `session`, in the order they match.
pub fn list_routes(session: Option<&str>) -> Result<Vec<Route>, CapabilityError> {
    Ok(wit::list_routes(session)?)
}

/// Replaces the emulation of `session` (its open tabs and every tab it opens later).
pub fn set_emulation(session: Option<&str>, emulation: &Emulation) -> Result<(), CapabilityError> {
    Ok(wit::set_emulation(session, emulation)?)
}

pub fn emulation(session: Option<&str>) -> Result<Emulation, CapabilityError> {
    Ok(wit::get_emulation(session)?)
}

/// Opens `session`, with the manifest's browser profile `profile` when given (grant
/// `browser.profiles`).
pub fn create_session(session: &str, profile: Option<&str>) -> Result<(), CapabilityError> {
    Ok(wit::create_session(session, profile)?)
}

/// Saves `session`'s cookies and the local storage of its tabs' origins in the host under
/// `name`; the values never come back to the plugin.
pub fn save_state(session: Option<&str>, name: &str) -> Result<SavedState, CapabilityError> {
    Ok(wit::save_state(session, name)?)
}

/// Opens `session` (not open yet) with the saved state `state`'s cookies and local storage.
pub fn create_session_from_state(
    session: &str,
    state: &str,
) -> Result<SavedState, CapabilityError> {
    Ok(wit::create_session_from_state(session, state)?)
}

/// The states this plugin has saved.
pub fn list_states() -> Result<Vec<SavedState>, CapabilityError> {
    Ok(wit::list_states()?)
}

pub fn delete_state(name: &str) -> Result<(), CapabilityError> {
    Ok(wit::delete_state(name)?)
}

impl Page {
    /// The tab's console messages (only those since the last read with `since_last`);
    /// `clear` empties the log after reading.
    pub fn console(&self, since_last: bool, clear: bool) -> Result<ConsoleLog, CapabilityError> {
        Ok(wit::console_messages(&self.0, since_last, clear)?)
    }

    /// The tab's requests, filtered by `query`.
    pub fn network(&self, query: &NetworkQuery) -> Result<NetworkLog, CapabilityError> {
        Ok(wit::network_requests(&self.0, query)?)
    }

    /// The items of the page's storage (grant `browser.cookies`).
    pub fn storage(&self, area: StorageArea) -> Result<Vec<(String, String)>, CapabilityError> {
        Ok(wit::storage_items(&self.0, area)?)
    }

    /// Sets an item of the page's storage, or removes it (`None`).
    pub fn set_storage(
        &self,
        area: StorageArea,
        key: &str,
        value: Option<&str>,
    ) -> Result<(), CapabilityError> {
        Ok(wit::set_storage_item(&self.0, area, key, value)?)
    }

    pub fn clear_storage(&self, area: StorageArea) -> Result<(), CapabilityError> {
        Ok(wit::clear_storage(&self.0, area)?)
    }
}
