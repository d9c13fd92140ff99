//! What else sees each audit record: the metrics and the trace exporter subscribe here, so
//! the audit log names neither and they count exactly what it writes.

use super::record::Record;

/// A subscriber to the audit log, registered with [`super::AuditLog::with_sink`].
pub trait AuditSink: Send + Sync {
    /// Called with every record, before it is written. Must not block.
    fn observe(&self, record: &Record<'_>);
}
