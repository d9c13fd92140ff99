//! The output streams a plugin writes files through (`write-via-stream`,
//! `append-via-stream`), wrapped so each write is held to the directory's quota and
//! counted for the audit line, as `descriptor.write` is.

use super::granted::{CAPABILITY, Tally, no_space, quota_reason};
use super::quota::{Usage, cost};
use crate::audit::GuestScope;
use crate::manifest::files::FileGrant;
use bytes::Bytes;
use std::fs::File;
use std::sync::Arc;
use wasmtime_wasi::p2::{DynOutputStream, OutputStream, Pollable, StreamError, StreamResult};

pub struct Counted {
    pub inner: DynOutputStream,
    pub file: Arc<File>,
    /// Where the next write lands; `None`: at the end (append).
    pub position: Option<u64>,
    /// The largest size this stream has made the file (writes may still be in flight).
    pub high: u64,
    pub usage: Arc<Usage>,
    pub grant: FileGrant,
    pub tally: Tally,
    pub scope: GuestScope,
    pub path: String,
    /// Reserved for the last write, which may still be under way: settled at the next
    /// write, or when the stream is dropped.
    pub unsettled: u64,
}

impl Counted {
    fn size(&self) -> u64 {
        self.file
            .metadata()
            .map_or(self.high, |m| m.len())
            .max(self.high)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.usage.settle(self.unsettled);
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for Counted {
    async fn ready(&mut self) {
        self.inner.ready().await;
    }
}

#[wasmtime_wasi::async_trait]
impl OutputStream for Counted {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        let len = bytes.len() as u64;
        let size = self.size();
        let start = self.position.unwrap_or(size);
        let end = start.saturating_add(len);
        let growth = cost(end.max(size)).saturating_sub(cost(size));
        // A write is accepted only once the last one finished (`check-write`), so what
        // was reserved for it is on disk now.
        self.usage.settle(std::mem::take(&mut self.unsettled));
        if let Err(full) = self.usage.reserve(growth, self.grant.quota) {
            self.scope
                .denied(CAPABILITY, &self.path, &quota_reason(&self.grant, full));
            return Err(StreamError::LastOperationFailed(no_space(full).into()));
        }
        match self.inner.write(bytes) {
            Ok(()) => {
                self.high = self.high.max(end);
                if let Some(p) = self.position.as_mut() {
                    *p = end;
                }
                self.tally.add(&self.path, len);
                self.unsettled = growth;
                Ok(())
            }
            Err(e) => {
                self.usage.release(growth);
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> StreamResult<()> {
        self.inner.flush()
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        self.inner.check_write()
    }

    async fn cancel(&mut self) {
        self.inner.cancel().await;
    }
}
