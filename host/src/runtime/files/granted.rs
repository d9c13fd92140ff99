//! The granted directories as one instance sees them ([`Files`]): which grant and path each
//! open descriptor belongs to, what the call in progress wrote, and the texts of refusals.

use super::quota::{Full, Usage};
use crate::audit::{GuestScope, Used};
use crate::manifest::files::FileGrant;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The audit capability name of file access.
pub(super) const CAPABILITY: &str = "wasi:filesystem";

/// One granted directory, as an instance sees it.
pub(super) struct Granted {
    pub(super) grant: FileGrant,
    pub(super) usage: Arc<Usage>,
}

/// Bytes written per file in the call in progress; shared with the streams that write them.
#[derive(Clone, Default)]
pub struct Tally(Arc<Mutex<BTreeMap<String, u64>>>);

impl Tally {
    pub(super) fn add(&self, path: &str, bytes: u64) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *map.entry(path.to_string()).or_default() += bytes;
    }

    pub(super) fn take(&self) -> BTreeMap<String, u64> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The files side of one instance: its grants, which grant and path each open descriptor
/// belongs to, and what the call in progress wrote.
pub struct Files {
    pub(super) granted: Vec<Granted>,
    /// Descriptor (table index) -> (grant, guest path).
    pub(super) opened: HashMap<u32, (usize, String)>,
    pub(super) tally: Tally,
    /// The guest asked for its directories and none is granted.
    pub looked_without_grant: bool,
}

impl Files {
    pub fn new(grants: &[FileGrant]) -> Self {
        Self {
            granted: grants
                .iter()
                .map(|g| Granted {
                    grant: g.clone(),
                    usage: Usage::of(&g.host),
                })
                .collect(),
            opened: HashMap::new(),
            tally: Tally::default(),
            looked_without_grant: false,
        }
    }

    /// Remember the preopens handed to the guest (by guest path).
    pub fn preopened(&mut self, rep: u32, guest: &str) {
        if let Some(i) = self.granted.iter().position(|g| g.grant.guest == guest) {
            self.opened.insert(rep, (i, guest.to_string()));
        }
    }

    /// One audit line per file written in the call that ends, with its bytes.
    pub fn flush(&self, scope: &GuestScope) {
        for (path, bytes) in self.tally.take() {
            scope.used(&Used {
                capability: CAPABILITY,
                target: &path,
                detail: Some("write"),
                bytes: Some(bytes),
                ..Used::default()
            });
        }
    }

    /// What an agent is told when a call failed after the guest looked for directories and
    /// none was granted.
    pub fn hint(&self) -> Option<&'static str> {
        self.looked_without_grant.then_some(
            "the plugin looked for a directory and none is granted: if it needs one, add grants.files = [{ host = \"DIR\", guest = \"/PATH\", mode = \"read-only\" }] to its [[plugin]] in the manifest",
        )
    }
}

/// `ENOSPC`, which the guest sees as `insufficient-space`.
pub(super) fn no_space(_: Full) -> std::io::Error {
    std::io::Error::from_raw_os_error(libc::ENOSPC)
}

/// The refusal text of a write over the quota.
pub(super) fn quota_reason(grant: &FileGrant, full: Full) -> String {
    format!(
        "quota: {} holds {} of its {} quota and this write needs {} more; remove files, or raise quota of {}",
        grant.guest,
        bytesize::ByteSize::b(full.held).display().iec(),
        bytesize::ByteSize::b(grant.quota).display().iec(),
        bytesize::ByteSize::b(full.wanted).display().iec(),
        grant.describe()
    )
}
