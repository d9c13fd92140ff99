//! One RDP session: a task owns the connection, applies every server update to the
//! framebuffer and sends the input it is handed; the session's handle shares the
//! framebuffer and counters with it. A dropped connection is re-established (a few tries,
//! with a pause); `close` ends the session with a clean shutdown request.

use super::connect::{self, Connected, Framed};
use crate::manifest::RdpHostConfig;
use ironrdp_graphics::image_processing::PixelFormat;
use ironrdp_input::{Database, Operation};
use ironrdp_pdu::rdp::capability_sets::InputFlags;
use ironrdp_session::image::DecodedImage;
use ironrdp_session::{ActiveStage, ActiveStageBuilder, ActiveStageOutput};
use ironrdp_tokio::FramedWrite as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};

/// Reconnection attempts after a dropped connection, and the pause before each.
const RECONNECTS: u32 = 3;
const RECONNECT_PAUSE: Duration = Duration::from_secs(1);

/// What the handle asks of the connection task.
enum Command {
    Input(Vec<Operation>, oneshot::Sender<Result<(), String>>),
    Close(oneshot::Sender<()>),
}

/// State shared by the handle and the connection task.
pub struct Shared {
    pub image: Mutex<DecodedImage>,
    pub bytes: AtomicU64,
    pub connected: AtomicBool,
    /// The server takes Unicode keyboard events.
    pub unicode_input: AtomicBool,
    /// Screen updates so far; waiters watch it.
    updates: watch::Sender<u64>,
    last_update: Mutex<Instant>,
}

impl Shared {
    pub fn updates(&self) -> u64 {
        *self.updates.borrow()
    }

    fn updated(&self) {
        if let Ok(mut at) = self.last_update.lock() {
            *at = Instant::now();
        }
        self.updates.send_modify(|n| *n += 1);
    }
}

/// A live session.
pub struct Desktop {
    pub id: String,
    pub alias: String,
    /// The `[rdp.hosts]` settings it was opened with (a reload that changes them closes it).
    pub host: RdpHostConfig,
    pub created: u64,
    pub shared: Arc<Shared>,
    commands: mpsc::Sender<Command>,
    closed: AtomicBool,
}

impl std::fmt::Debug for Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desktop")
            .field("id", &self.id)
            .field("alias", &self.alias)
            .finish_non_exhaustive()
    }
}

impl Desktop {
    /// Connect to `alias` and start the session's task.
    pub async fn open(
        id: String,
        alias: &str,
        host: RdpHostConfig,
    ) -> Result<Arc<Self>, connect::ConnectError> {
        let connected = connect::connect(alias, &host).await?;
        let size = connected.result.desktop_size;
        let shared = Arc::new(Shared {
            image: Mutex::new(DecodedImage::new(
                PixelFormat::RgbA32,
                size.width,
                size.height,
            )),
            bytes: AtomicU64::new(0),
            connected: AtomicBool::new(true),
            unicode_input: AtomicBool::new(unicode(&connected)),
            updates: watch::Sender::new(0),
            last_update: Mutex::new(Instant::now()),
        });
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(run(
            alias.to_string(),
            host.clone(),
            connected,
            shared.clone(),
            rx,
        ));
        Ok(Arc::new(Self {
            id,
            alias: alias.to_string(),
            host,
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            shared,
            commands: tx,
            closed: AtomicBool::new(false),
        }))
    }

    /// (width, height) of the desktop.
    pub fn size(&self) -> (u16, u16) {
        self.shared
            .image
            .lock()
            .map_or((0, 0), |i| (i.width(), i.height()))
    }

    /// Send input; answers once it is on the wire.
    pub async fn input(&self, ops: Vec<Operation>) -> Result<(), String> {
        let (tx, rx) = oneshot::channel();
        let gone = || format!("session {} has ended; open a new one", self.id);
        self.commands
            .send(Command::Input(ops, tx))
            .await
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Wait up to `timeout` for a screen update after now (`still` = None), or for `still`
    /// without one. True when it happened.
    pub async fn wait(&self, still: Option<Duration>, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut rx = self.shared.updates.subscribe();
        rx.mark_unchanged();
        match still {
            None => tokio::time::timeout_at(deadline, rx.changed())
                .await
                .is_ok_and(|r| r.is_ok()),
            Some(quiet) => loop {
                let since = self
                    .shared
                    .last_update
                    .lock()
                    .map_or(Duration::ZERO, |at| at.elapsed());
                if since >= quiet {
                    return true;
                }
                let wake = tokio::time::Instant::now() + (quiet - since);
                if wake > deadline {
                    tokio::time::sleep_until(deadline).await;
                    return false;
                }
                tokio::time::sleep_until(wake).await;
            },
        }
    }

    /// Disconnect cleanly (idempotent).
    pub async fn close(&self) {
        if self.closed.swap(true, Ordering::Relaxed) {
            return;
        }
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Close(tx)).await.is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(5), rx).await;
        }
    }
}

fn unicode(c: &Connected) -> bool {
    c.result.input_flags.contains(InputFlags::UNICODE)
}

/// The session's task: serve the connection, reconnect when it drops, stop on `Close` or
/// when the handle is gone.
async fn run(
    alias: String,
    host: RdpHostConfig,
    mut connected: Connected,
    shared: Arc<Shared>,
    mut commands: mpsc::Receiver<Command>,
) {
    let mut tries = 0;
    loop {
        match serve(connected, &shared, &mut commands).await {
            Ended::Closed => break,
            Ended::Dropped(reason) => {
                shared.connected.store(false, Ordering::Relaxed);
                tracing::warn!("rdp host '{alias}': connection lost ({reason}); reconnecting");
            }
        }
        let next = loop {
            tries += 1;
            if tries > RECONNECTS {
                break None;
            }
            tokio::time::sleep(RECONNECT_PAUSE).await;
            match connect::connect(&alias, &host).await {
                Ok(c) => break Some(c),
                Err(e) => tracing::warn!("{e}"),
            }
        };
        let Some(c) = next else {
            tracing::warn!(
                "rdp host '{alias}': giving up after {RECONNECTS} reconnection attempts"
            );
            break;
        };
        let size = c.result.desktop_size;
        if let Ok(mut image) = shared.image.lock() {
            *image = DecodedImage::new(PixelFormat::RgbA32, size.width, size.height);
        }
        shared.unicode_input.store(unicode(&c), Ordering::Relaxed);
        shared.connected.store(true, Ordering::Relaxed);
        tries = 0;
        connected = c;
    }
    shared.connected.store(false, Ordering::Relaxed);
    // Answer whoever still waits, so no caller hangs on a session that is gone.
    commands.close();
    while let Ok(cmd) = commands.try_recv() {
        match cmd {
            Command::Input(_, reply) => {
                let _ = reply.send(Err("the session has ended".into()));
            }
            Command::Close(reply) => {
                let _ = reply.send(());
            }
        }
    }
}

enum Ended {
    Closed,
    Dropped(String),
}

/// One connection's active stage until it ends.
async fn serve(
    connected: Connected,
    shared: &Shared,
    commands: &mut mpsc::Receiver<Command>,
) -> Ended {
    let Connected { result, mut framed } = connected;
    let mut stage = ActiveStageBuilder {
        static_channels: result.static_channels,
        user_channel_id: result.user_channel_id,
        io_channel_id: result.io_channel_id,
        message_channel_id: result.message_channel_id,
        share_id: result.share_id,
        compression_type: result.compression_type,
        enable_server_pointer: result.enable_server_pointer,
        pointer_software_rendering: result.pointer_software_rendering,
    }
    .build();
    let mut keyboard = Database::new();
    loop {
        tokio::select! {
            pdu = framed.read_pdu() => {
                let (action, payload) = match pdu {
                    Ok(p) => p,
                    Err(e) => return Ended::Dropped(e.to_string()),
                };
                shared.bytes.fetch_add(payload.len() as u64, Ordering::Relaxed);
                let outputs = {
                    let Ok(mut image) = shared.image.lock() else {
                        return Ended::Dropped("framebuffer poisoned".into());
                    };
                    stage.process(&mut image, action, &payload, framed.last_read_at())
                };
                match outputs {
                    Ok(outputs) => {
                        if let Some(end) = apply(&mut framed, shared, outputs).await {
                            return end;
                        }
                    }
                    Err(e) => return Ended::Dropped(format!("protocol error: {e}")),
                }
            }
            cmd = commands.recv() => match cmd {
                Some(Command::Input(ops, reply)) => {
                    let events = keyboard.apply(ops);
                    let sent = send_input(&mut stage, &mut framed, shared, &events).await;
                    let _ = reply.send(sent);
                }
                Some(Command::Close(reply)) => {
                    if let Ok(frames) = stage.graceful_shutdown() {
                        for out in frames {
                            if let ActiveStageOutput::ResponseFrame(f) = out {
                                let _ = framed.write_all(&f).await;
                            }
                        }
                    }
                    let _ = reply.send(());
                    return Ended::Closed;
                }
                None => return Ended::Closed,
            },
        }
    }
}

async fn send_input(
    stage: &mut ActiveStage,
    framed: &mut Framed,
    shared: &Shared,
    events: &[ironrdp_pdu::input::fast_path::FastPathInputEvent],
) -> Result<(), String> {
    let outputs = {
        let mut image = shared
            .image
            .lock()
            .map_err(|_| "framebuffer poisoned".to_string())?;
        stage
            .process_fastpath_input(&mut image, events)
            .map_err(|e| format!("cannot encode input: {e}"))?
    };
    for out in outputs {
        if let ActiveStageOutput::ResponseFrame(f) = out {
            framed
                .write_all(&f)
                .await
                .map_err(|e| format!("cannot send input: {e}"))?;
        }
    }
    Ok(())
}

/// Act on what the server's PDU produced: answer it, count screen updates, notice the end.
async fn apply(
    framed: &mut Framed,
    shared: &Shared,
    outputs: Vec<ActiveStageOutput>,
) -> Option<Ended> {
    for out in outputs {
        match out {
            ActiveStageOutput::ResponseFrame(f) if !f.is_empty() => {
                if let Err(e) = framed.write_all(&f).await {
                    return Some(Ended::Dropped(e.to_string()));
                }
            }
            ActiveStageOutput::GraphicsUpdate(_) => shared.updated(),
            ActiveStageOutput::Terminate(reason) => {
                // The server logged the session off: nothing to reconnect to.
                tracing::info!("rdp: the server ended a session: {reason}");
                return Some(Ended::Closed);
            }
            ActiveStageOutput::DeactivateAll => {
                return Some(Ended::Dropped(
                    "the server reactivated the session (resolution change)".into(),
                ));
            }
            _ => {}
        }
    }
    None
}
