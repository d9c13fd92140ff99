//! The process's stdin and stdout on threads of their own, as async streams. tokio's own
//! `stdin()` and `stdout()` read and write on its shared blocking pool, the pool that
//! wasmtime-wasi's filesystem calls also run on: were a plugin to fill it (with calls
//! that block in the kernel), the stdio wire could read no request and write no answer,
//! for every client. These two threads belong to the wire alone.

use std::io::{Read, Write};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

/// Bytes moved at a time between a thread and its stream.
const CHUNK: usize = 64 * 1024;

/// Stdin, read by a thread of its own; end of input (or a read error) ends the stream.
pub fn stdin() -> std::io::Result<DuplexStream> {
    let (stream, mut feed) = tokio::io::duplex(CHUNK);
    let runtime = tokio::runtime::Handle::current();
    std::thread::Builder::new()
        .name("warden-stdin".into())
        .spawn(move || {
            let mut input = std::io::stdin().lock();
            let mut buf = vec![0u8; CHUNK];
            loop {
                let n = match input.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        tracing::error!("cannot read stdin: {e}");
                        break;
                    }
                };
                if runtime.block_on(feed.write_all(&buf[..n])).is_err() {
                    break;
                }
            }
            let _ = runtime.block_on(feed.shutdown());
        })?;
    Ok(stream)
}

/// Stdout, written by a thread of its own, flushed after each write it is given. The
/// receiver resolves once the thread has written everything the stream was given and the
/// stream is dropped: wait for it before the process ends, or the last answers are lost.
pub fn stdout() -> std::io::Result<(DuplexStream, tokio::sync::oneshot::Receiver<()>)> {
    let (stream, mut drain) = tokio::io::duplex(CHUNK);
    let (written, done) = tokio::sync::oneshot::channel();
    let runtime = tokio::runtime::Handle::current();
    std::thread::Builder::new()
        .name("warden-stdout".into())
        .spawn(move || {
            let mut output = std::io::stdout().lock();
            let mut buf = vec![0u8; CHUNK];
            loop {
                let n = match runtime.block_on(drain.read(&mut buf)) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if output
                    .write_all(&buf[..n])
                    .and_then(|()| output.flush())
                    .is_err()
                {
                    break;
                }
            }
            let _ = written.send(());
        })?;
    Ok((stream, done))
}
