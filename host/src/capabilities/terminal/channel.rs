//! SSH shell sessions: a PTY-backed shell channel on the alias's shared connection, read by a
//! task that feeds the session's output log until the channel is gone.

use super::session::OutputLog;
use super::ssh::Connection;
use russh::ChannelMsg;
use russh::client::Msg;
use std::sync::Arc;

pub type ShellInput = russh::ChannelWriteHalf<Msg>;

/// Open a shell with a PTY of `cols` x `rows` on `conn`.
pub async fn open_shell(
    conn: &Connection,
    cols: u16,
    rows: u16,
    log: Arc<OutputLog>,
) -> Result<ShellInput, russh::Error> {
    let channel = conn.channel_open_session().await?;
    let shell = async {
        channel
            .request_pty(false, "xterm-256color", cols.into(), rows.into(), 0, 0, &[])
            .await?;
        channel.request_shell(false).await
    };
    if let Err(e) = shell.await {
        let _ = channel.close().await;
        return Err(e);
    }
    let (mut read, write) = channel.split();
    tokio::spawn(async move {
        let mut status = None;
        // Output may follow the exit status: read until the channel is gone.
        while let Some(msg) = read.wait().await {
            match msg {
                ChannelMsg::Data { data } | ChannelMsg::ExtendedData { data, .. } => {
                    log.push(&data);
                }
                ChannelMsg::ExitStatus { exit_status } => {
                    let s = i32::try_from(exit_status).unwrap_or(-1);
                    status = Some(s);
                    log.set_exit_status(s);
                }
                ChannelMsg::ExitSignal { .. } => status = Some(-1),
                _ => {}
            }
        }
        log.end(status);
    });
    Ok(write)
}
