//! What a manifest that fails to load reports: every problem with its `file:line:col`.

use std::fmt;
use std::path::PathBuf;

/// A manifest that failed to load.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read manifest {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// One or more problems, each `file:line:col: message`.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Diagnostic>),
}

/// One problem at one place in the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}
