//! A blob read to exactly the size its manifest declares, on the bounded reads of
//! [`crate::net::body`]: a registry that sends more is cut at the first byte over, one that
//! sends less is caught at the end. A blob streamed to a file is hashed on the way, so its
//! size in memory is one chunk whatever the registry sends.

use crate::net::body::{Body, BodyError};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

/// Why a blob read did not give the blob.
#[derive(Debug)]
pub enum ReadError {
    /// The bounded read failed (more than declared, past the deadline, the transfer).
    Body(BodyError),
    /// The body ended before the declared size.
    Short { got: u64 },
    /// The file the blob streams into could not be written.
    Io(std::io::Error),
}

impl From<BodyError> for ReadError {
    fn from(e: BodyError) -> Self {
        Self::Body(e)
    }
}

/// A blob of exactly `size` bytes, as its manifest declares: in memory (a signature payload).
/// Returns the bytes and their digest.
pub async fn exact(
    resp: &mut reqwest::Response,
    size: u64,
    deadline: Instant,
) -> Result<(Vec<u8>, String), ReadError> {
    let bytes = crate::net::body::read(resp, size, deadline).await?;
    if (bytes.len() as u64) < size {
        return Err(ReadError::Short {
            got: bytes.len() as u64,
        });
    }
    let digest = super::store::digest_of(&bytes);
    Ok((bytes, digest))
}

/// A blob of exactly `size` bytes streamed into `file`; returns its digest.
pub async fn exact_into(
    resp: &mut reqwest::Response,
    size: u64,
    deadline: Instant,
    file: &mut tokio::fs::File,
) -> Result<String, ReadError> {
    let mut body = Body::new(resp, size, deadline)?;
    let mut hasher = Sha256::new();
    while let Some(chunk) = body.chunk().await? {
        hasher.update(&chunk);
        file.write_all(&chunk).await.map_err(ReadError::Io)?;
    }
    if body.got() < size {
        return Err(ReadError::Short { got: body.got() });
    }
    file.flush().await.map_err(ReadError::Io)?;
    Ok(format!("sha256:{}", hex::encode(hasher.finalize())))
}
