//! [`SessionHandle`]: a plugin's handle to one of its sessions, the resource type the
//! generated bindings (`bindings.rs`) name for `warden:terminal/terminal.session`.

use super::table::Session;
use std::sync::Arc;

/// A plugin's handle to one of its sessions.
#[derive(Debug)]
pub struct SessionHandle(pub(super) Arc<Session>);
