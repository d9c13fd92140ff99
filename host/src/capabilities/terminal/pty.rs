//! Local PTY sessions (grant `terminal.local`): the user's shell on a pseudo-terminal, read
//! by a blocking thread that feeds the session's output log.

use super::session::OutputLog;
use portable_pty::{ChildKiller, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

/// The host side of a local PTY.
pub struct Pty {
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    killer: Mutex<Box<dyn ChildKiller + Send + Sync>>,
}

/// Start the user's login shell on a new PTY of `cols` x `rows`.
pub fn spawn(cols: u16, rows: u16, log: Arc<OutputLog>) -> Result<Pty, String> {
    let pair = native_pty_system()
        .openpty(size(cols, rows))
        .map_err(|e| format!("cannot open a PTY: {e}"))?;
    let mut cmd = CommandBuilder::new_default_prog();
    cmd.env("TERM", "xterm-256color");
    if let Some(home) = std::env::var_os("HOME") {
        cmd.cwd(home);
    }
    let mut child = pair
        .slave
        .spawn_command(cmd)
        .map_err(|e| format!("cannot start a shell: {e}"))?;
    // The child holds the slave now; keeping ours open would hide its exit from the reader.
    drop(pair.slave);
    let killer = child.clone_killer();
    let mut reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| format!("cannot read the PTY: {e}"))?;
    let writer = pair
        .master
        .take_writer()
        .map_err(|e| format!("cannot write to the PTY: {e}"))?;
    std::thread::Builder::new()
        .name("warden-pty".into())
        .spawn(move || {
            let mut buf = vec![0u8; 16 * 1024];
            // EOF or EIO: every holder of the slave side is gone.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                log.push(&buf[..n]);
            }
            let status = child
                .wait()
                .ok()
                .map(|s| i32::try_from(s.exit_code()).unwrap_or(-1));
            log.end(status);
        })
        .map_err(|e| format!("cannot start the PTY reader: {e}"))?;
    Ok(Pty {
        writer: Arc::new(Mutex::new(writer)),
        master: Mutex::new(pair.master),
        killer: Mutex::new(killer),
    })
}

fn size(cols: u16, rows: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

impl Pty {
    pub async fn write(&self, data: Vec<u8>) -> Result<(), String> {
        let writer = self.writer.clone();
        // A full PTY buffer blocks the write; keep that off the async threads.
        tokio::task::spawn_blocking(move || {
            let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
            w.write_all(&data)?;
            w.flush()
        })
        .await
        .map_err(|e| format!("PTY writer failed: {e}"))?
        .map_err(|e| format!("cannot write to the PTY: {e}"))
    }

    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), String> {
        self.master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .resize(size(cols, rows))
            .map_err(|e| format!("cannot resize the PTY: {e}"))
    }

    /// Hang up: kill the shell; the reader thread then sees EOF and records the status.
    pub fn close(&self) {
        let _ = self.killer.lock().unwrap_or_else(|p| p.into_inner()).kill();
    }
}
