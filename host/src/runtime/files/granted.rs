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

/// What the call in progress changed, per file: the bytes written and every other
/// operation that changed or removed data (truncated, removed, renamed, replaced, created);
/// shared with the streams that write.
#[derive(Clone, Default)]
pub struct Tally(Arc<Mutex<BTreeMap<String, Change>>>);

/// One file's changes in one call.
#[derive(Default)]
pub(super) struct Change {
    written: u64,
    /// Operations in the order they first happened, each once ("write", "truncate", ...).
    ops: Vec<String>,
}

impl Tally {
    fn with(&self, path: &str, f: impl FnOnce(&mut Change)) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(map.entry(path.to_string()).or_default());
    }

    /// `bytes` written to `path`.
    pub(super) fn add(&self, path: &str, bytes: u64) {
        self.with(path, |c| {
            c.written += bytes;
            c.note("write");
        });
    }

    /// `path` was changed by `op` (other than a write).
    pub(super) fn note(&self, path: &str, op: impl Into<String>) {
        self.with(path, |c| c.note(op));
    }

    fn take(&self) -> BTreeMap<String, Change> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Change {
    fn note(&mut self, op: impl Into<String>) {
        let op = op.into();
        if !self.ops.contains(&op) {
            self.ops.push(op);
        }
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

    /// One audit line per file the call that ends changed or removed: what was done to it
    /// ("write", "truncate", "unlink", "renamed to /data/b", ...), with the bytes written.
    pub fn flush(&self, scope: &GuestScope) {
        for (path, change) in self.tally.take() {
            let detail = change.ops.join(", ");
            scope.used(&Used {
                capability: CAPABILITY,
                target: &path,
                detail: Some(&detail),
                bytes: (change.written > 0 || change.ops.iter().any(|o| o == "write"))
                    .then_some(change.written),
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
