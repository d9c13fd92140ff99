//! Moving bytes: a byte range out of a remote file, and data into one. russh-sftp's `File`
//! keeps many requests in flight (see `client::IN_FLIGHT`), which is what makes large
//! transfers as fast as OpenSSH's own client.

use super::bindings::warden::sftp::sftp::WriteMode;
use super::client::Remote;
use russh_sftp::client::error::Error as SftpError;
use russh_sftp::protocol::OpenFlags;
use std::io::SeekFrom;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    Sftp(#[from] SftpError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Up to `length` bytes of the file at the resolved path `path`, from `offset`.
pub async fn read_range(
    remote: &Remote,
    path: String,
    offset: u64,
    length: u64,
) -> Result<Vec<u8>, TransferError> {
    let mut file = remote.sftp.open(path).await?;
    if offset > 0 {
        file.seek(SeekFrom::Start(offset)).await?;
    }
    let mut data = Vec::with_capacity(usize::try_from(length.min(1 << 20)).unwrap_or(0));
    (&mut file).take(length).read_to_end(&mut data).await?;
    let _ = file.shutdown().await;
    Ok(data)
}

/// Write `data` to the resolved path `path`; returns the file's size afterwards.
pub async fn write_file(
    remote: &Remote,
    path: String,
    data: &[u8],
    mode: WriteMode,
) -> Result<u64, TransferError> {
    // russh-sftp's plain `write` neither creates nor truncates: say what we mean in flags.
    let flags = OpenFlags::WRITE
        | OpenFlags::CREATE
        | match mode {
            WriteMode::Create => OpenFlags::EXCLUDE,
            WriteMode::Truncate => OpenFlags::TRUNCATE,
            WriteMode::Append => OpenFlags::APPEND,
        };
    let mut file = remote.sftp.open_with_flags(path.clone(), flags).await?;
    if matches!(mode, WriteMode::Append) {
        // Not every server honours the APPEND flag: write at the end explicitly.
        let size = file.metadata().await?.len();
        file.seek(SeekFrom::Start(size)).await?;
    }
    file.write_all(data).await?;
    file.flush().await?;
    file.shutdown().await?;
    Ok(remote.sftp.metadata(path).await?.len())
}
