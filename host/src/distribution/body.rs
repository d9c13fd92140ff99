//! Reading what a registry sends, never more than was agreed: a body is refused before it is
//! read when its `Content-Length` is over the bound, and reading stops at the first byte over
//! it otherwise (a registry may send no length, or lie about it). A blob is streamed to a file
//! while it is hashed, so its size in memory is one chunk whatever the registry sends.

use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

/// Why a bounded read did not give the body.
#[derive(Debug)]
pub enum ReadError {
    /// The body is longer than the bound (said so, or sent more).
    Over,
    /// The body ended before the declared size.
    Short { got: u64 },
    /// The transfer failed.
    Transfer(reqwest::Error),
    /// The file the blob streams into could not be written.
    Io(std::io::Error),
}

/// The body of `resp`, at most `max` bytes.
pub async fn capped(resp: &mut reqwest::Response, max: u64) -> Result<Vec<u8>, ReadError> {
    if resp.content_length().is_some_and(|n| n > max) {
        return Err(ReadError::Over);
    }
    let mut out = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(ReadError::Transfer)? {
        if out.len() as u64 + chunk.len() as u64 > max {
            return Err(ReadError::Over);
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// The first `max` bytes of the body of `resp` (an error's text: the rest is not read).
pub async fn head(resp: &mut reqwest::Response, max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    while out.len() < max {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let room = max - out.len();
                out.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
            }
            Ok(None) | Err(_) => break,
        }
    }
    out
}

/// A blob of exactly `size` bytes, as its manifest declares: in memory (a signature payload).
/// Returns the bytes and their digest.
pub async fn exact(
    resp: &mut reqwest::Response,
    size: u64,
) -> Result<(Vec<u8>, String), ReadError> {
    let bytes = capped(resp, size).await?;
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
    file: &mut tokio::fs::File,
) -> Result<String, ReadError> {
    if resp.content_length().is_some_and(|n| n > size) {
        return Err(ReadError::Over);
    }
    let mut hasher = Sha256::new();
    let mut got: u64 = 0;
    while let Some(chunk) = resp.chunk().await.map_err(ReadError::Transfer)? {
        got += chunk.len() as u64;
        if got > size {
            return Err(ReadError::Over);
        }
        hasher.update(&chunk);
        file.write_all(&chunk).await.map_err(ReadError::Io)?;
    }
    if got < size {
        return Err(ReadError::Short { got });
    }
    file.flush().await.map_err(ReadError::Io)?;
    Ok(format!("sha256:{}", hex::encode(hasher.finalize())))
}
