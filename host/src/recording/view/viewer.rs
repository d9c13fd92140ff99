//! What one viewer serves: the recordings under its directory, the audit lines of its log,
//! behind its token.

use super::token::Token;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

/// What the viewer serves: the recordings under `dir`, the audit lines of `log`.
#[derive(Debug)]
pub struct Viewer {
    pub dir: PathBuf,
    pub log: PathBuf,
    pub token: Token,
    /// The recordings the last listing found; a request names one by its place here, never
    /// by a path.
    pub(super) listed: RwLock<Vec<PathBuf>>,
}

impl Viewer {
    pub fn new(dir: PathBuf, log: PathBuf) -> Arc<Self> {
        Arc::new(Self {
            dir,
            log,
            token: Token::random(),
            listed: RwLock::new(Vec::new()),
        })
    }
}
