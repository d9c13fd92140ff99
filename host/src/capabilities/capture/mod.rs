//! `warden:capture`: host-performed HTTP now; page capture in the capture profile later.

mod http;

use crate::runtime::bindings::warden::capture::types;
use crate::runtime::state::PluginState;

impl types::Host for PluginState {}
