//! `[[plugin]] source`: where a plugin's component comes from.

use std::fmt;
use std::path::PathBuf;

/// Where a plugin's component comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginSource {
    /// Embedded first-party plugin: `builtin:NAME`.
    Builtin(String),
    /// Implemented in the host itself (benchmark baseline): `native:NAME`.
    Native(String),
    /// A `.wasm` component on disk.
    Path(PathBuf),
    /// A component in an OCI registry: `oci://...`.
    Oci(crate::distribution::OciSource),
}

impl fmt::Display for PluginSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Builtin(n) => write!(f, "builtin:{n}"),
            Self::Native(n) => write!(f, "native:{n}"),
            Self::Path(p) => write!(f, "{}", p.display()),
            Self::Oci(o) => write!(f, "{}", o.reference),
        }
    }
}
