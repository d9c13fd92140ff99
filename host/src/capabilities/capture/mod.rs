//! `warden:capture`: host-performed HTTP and page capture in the persistent capture profile.

mod checked;
mod http;
mod page;

use crate::runtime::bindings::warden::capture::types;
use crate::runtime::state::PluginState;

impl types::Host for PluginState {}
