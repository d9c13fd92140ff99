//! The audit log file: opened once, appended one record per `write`, each record handed to
//! the registered [`AuditSink`]s first.

use super::record::Record;
use super::sink::AuditSink;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The audit log. Cheap to share behind an `Arc`.
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<File>,
    /// Who else sees each record (metrics, traces), registered by whoever builds the app.
    sinks: Vec<Arc<dyn AuditSink>>,
}

/// The audit log could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the audit log {path}: {source}; fix [server] audit_log in the manifest")]
pub struct AuditOpenError {
    path: PathBuf,
    source: std::io::Error,
}

impl AuditLog {
    pub fn open(path: &Path) -> Result<Self, AuditOpenError> {
        let err = |source| AuditOpenError {
            path: path.to_path_buf(),
            source,
        };
        // Readable by Warden's user alone: the log names what every client and plugin did.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(err)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(err)?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            sinks: Vec::new(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Hand every record written from now on to `sink` too (before it is written, as
    /// the metrics and traces must agree with this log).
    #[must_use]
    pub fn with_sink(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Append one record, and hand it to the sinks (so they agree with this log). A
    /// failure to write is logged, not fatal: the call it describes has already happened.
    pub fn write(&self, record: &Record<'_>) {
        for sink in &self.sinks {
            sink.observe(record);
        }
        let mut line = match serde_json::to_vec(record) {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("audit record not serializable: {e}");
                return;
            }
        };
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = file.write_all(&line) {
            tracing::error!(path = %self.path.display(), "audit write failed: {e}");
        }
    }
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("path", &self.path)
            .field("sinks", &self.sinks.len())
            .finish_non_exhaustive()
    }
}
