//! One RDP session: a task owns the connection, applies every server update to the
//! framebuffer and sends the input it is handed; the session's handle shares the
//! framebuffer and counters with it. A dropped connection is re-established (3 tries, after
//! 1, 2 and 4 s); a resize goes over Display Control when the server offers it, else by
//! reconnecting at the new size; `close` ends the session with a clean shutdown request.

use super::codec::{self, Codec};
use super::connect::{self, Connected, Framed};
use super::recording::{DesktopRecording, Screen};
use crate::manifest::RdpHostConfig;
use ironrdp_connector::DesktopSize;
use ironrdp_graphics::image_processing::PixelFormat;
use ironrdp_input::{Database, Operation};
use ironrdp_pdu::Action;
use ironrdp_pdu::rdp::capability_sets::InputFlags;
use ironrdp_session::image::DecodedImage;
use ironrdp_session::{ActiveStage, ActiveStageBuilder, ActiveStageOutput};
use ironrdp_tokio::FramedWrite as _;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

/// Reconnection attempts after a dropped connection, and the pause before the first (it
/// doubles for each next one).
const RECONNECTS: u32 = 3;
const RECONNECT_PAUSE: Duration = Duration::from_secs(1);
/// How long a Display Control resize may take to show in the framebuffer.
const RESIZE_SETTLE: Duration = Duration::from_secs(10);

/// How a resize was carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    DisplayControl,
    Reconnect,
}

/// What the handle asks of the connection task.
enum Command {
    Input(Vec<Operation>, oneshot::Sender<Result<(), String>>),
    Resize(DesktopSize, oneshot::Sender<Result<Method, String>>),
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
    /// The codec of the last screen update that showed it ([`Codec`] as a number).
    codec: AtomicU8,
    pub reconnects: AtomicU32,
    /// Why the session is over, once it is.
    ended: Mutex<Option<String>>,
    /// The size to ask for when (re)connecting.
    wanted: Mutex<DesktopSize>,
    /// Cancelled when the session is over (its recording ends with it).
    done: CancellationToken,
}

impl Shared {
    pub fn updates(&self) -> u64 {
        *self.updates.borrow()
    }

    pub fn codec(&self) -> Codec {
        Codec::from_u8(self.codec.load(Ordering::Relaxed))
    }

    /// Why the session is over, if it is.
    pub fn ended(&self) -> Option<String> {
        self.ended.lock().ok().and_then(|e| e.clone())
    }

    fn end(&self, why: String) {
        self.connected.store(false, Ordering::Relaxed);
        if let Ok(mut e) = self.ended.lock() {
            e.get_or_insert(why);
        }
        self.done.cancel();
    }

    fn wanted(&self) -> DesktopSize {
        self.wanted.lock().map_or(
            DesktopSize {
                width: 1024,
                height: 768,
            },
            |w| *w,
        )
    }

    fn set_image(&self, size: DesktopSize) {
        if let Ok(mut image) = self.image.lock() {
            *image = DecodedImage::new(PixelFormat::RgbA32, size.width, size.height);
        }
    }

    fn updated(&self) {
        if let Ok(mut at) = self.last_update.lock() {
            *at = Instant::now();
        }
        self.updates.send_modify(|n| *n += 1);
    }
}

impl Screen for Shared {
    fn subscribe(&self) -> watch::Receiver<u64> {
        self.updates.subscribe()
    }

    fn done(&self) -> CancellationToken {
        self.done.clone()
    }

    fn with_pixels<R>(&self, f: impl FnOnce(&[u8], usize, u16, u16) -> R) -> Option<R> {
        let image = self.image.lock().ok()?;
        Some(f(
            image.data(),
            image.stride(),
            image.width(),
            image.height(),
        ))
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
    /// Its recording, when `[audit] record` names rdp (set once it has its id).
    pub recording: OnceLock<DesktopRecording>,
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
    /// Connect to `alias` asking for a `size` desktop and start the session's task.
    pub async fn open(
        id: String,
        alias: &str,
        host: RdpHostConfig,
        size: DesktopSize,
    ) -> Result<Arc<Self>, connect::ConnectError> {
        let connected = connect::connect(alias, &host, size).await?;
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
            codec: AtomicU8::new(Codec::Pending as u8),
            reconnects: AtomicU32::new(0),
            ended: Mutex::new(None),
            wanted: Mutex::new(size),
            done: CancellationToken::new(),
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
            recording: OnceLock::new(),
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

    /// The error for a session that is over.
    pub fn gone(&self) -> String {
        match self.shared.ended() {
            Some(why) => format!(
                "session {} has ended ({why}); close it with terminal_close and open a new one",
                self.id
            ),
            None => format!("session {} has ended; open a new one", self.id),
        }
    }

    /// Send input; answers once it is on the wire.
    pub async fn input(&self, ops: Vec<Operation>) -> Result<(), String> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Input(ops, tx))
            .await
            .map_err(|_| self.gone())?;
        rx.await.map_err(|_| self.gone())?
    }

    /// Ask for a `size` desktop. Answers once the framebuffer has the size the server chose
    /// (for Display Control, once it changed or after [`RESIZE_SETTLE`]).
    pub async fn resize(&self, size: DesktopSize) -> Result<Method, String> {
        let before = self.size();
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Resize(size, tx))
            .await
            .map_err(|_| self.gone())?;
        let method = rx.await.map_err(|_| self.gone())??;
        if method == Method::DisplayControl {
            let deadline = tokio::time::Instant::now() + RESIZE_SETTLE;
            while self.size() == before
                && self.shared.ended().is_none()
                && tokio::time::Instant::now() < deadline
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Ok(method)
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

/// The session's task: serve the connection, reconnect when it drops or a new size needs
/// it, stop on `Close` or when the handle is gone.
async fn run(
    alias: String,
    host: RdpHostConfig,
    mut connected: Connected,
    shared: Arc<Shared>,
    mut commands: mpsc::Receiver<Command>,
) {
    loop {
        // A drop waits for the server to come back; a new size reconnects at once.
        let (mut resize, why, immediate) = match serve(connected, &shared, &mut commands).await {
            Ended::Closed(why) => {
                shared.end(why);
                break;
            }
            Ended::Dropped(reason) => {
                tracing::warn!("rdp host '{alias}': connection lost ({reason}); reconnecting");
                (None, reason, false)
            }
            Ended::Reconnect(reply) => {
                tracing::info!("rdp host '{alias}': reconnecting for a new desktop size");
                (
                    reply,
                    "reconnecting for a new desktop size".to_string(),
                    true,
                )
            }
        };
        shared.connected.store(false, Ordering::Relaxed);
        let mut last = why;
        let mut next = None;
        for attempt in 0..RECONNECTS {
            // Pauses of 1, 2, 4 s (after an immediate first try: 0, 1, 2 s).
            if !immediate || attempt > 0 {
                let step = if immediate { attempt - 1 } else { attempt };
                tokio::time::sleep(RECONNECT_PAUSE * (1 << step)).await;
            }
            match connect::connect(&alias, &host, shared.wanted()).await {
                Ok(c) => {
                    next = Some(c);
                    break;
                }
                Err(e) => {
                    tracing::warn!("{e}");
                    last = e.to_string();
                    if let Some(reply) = resize.take() {
                        let _ = reply.send(Err(format!(
                            "reconnecting at the new size failed ({e}); the session keeps trying"
                        )));
                    }
                }
            }
        }
        let Some(c) = next else {
            tracing::warn!(
                "rdp host '{alias}': giving up after {RECONNECTS} reconnection attempts"
            );
            shared.end(format!(
                "the connection dropped and {RECONNECTS} reconnection attempts failed; the last: {last}"
            ));
            break;
        };
        shared.set_image(c.result.desktop_size);
        shared.unicode_input.store(unicode(&c), Ordering::Relaxed);
        shared.reconnects.fetch_add(1, Ordering::Relaxed);
        shared.connected.store(true, Ordering::Relaxed);
        if let Some(reply) = resize.take() {
            let _ = reply.send(Ok(Method::Reconnect));
        }
        connected = c;
    }
    // Answer whoever still waits, so no caller hangs on a session that is gone.
    let why = shared.ended().unwrap_or_else(|| "closed".into());
    commands.close();
    while let Ok(cmd) = commands.try_recv() {
        match cmd {
            Command::Input(_, reply) => {
                let _ = reply.send(Err(format!("the session has ended ({why})")));
            }
            Command::Resize(_, reply) => {
                let _ = reply.send(Err(format!("the session has ended ({why})")));
            }
            Command::Close(reply) => {
                let _ = reply.send(());
            }
        }
    }
}

enum Ended {
    /// Closed by the handle or logged off by the server: why.
    Closed(String),
    Dropped(String),
    /// Disconnected to reconnect at once: for a resize the server offers no Display Control
    /// for (the caller waits for the answer), or because the server changed the desktop.
    Reconnect(Option<oneshot::Sender<Result<Method, String>>>),
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
                if action == Action::FastPath
                    && let Some(c) = codec::of_fast_path(&payload)
                {
                    shared.codec.store(c as u8, Ordering::Relaxed);
                }
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
                Some(Command::Resize(size, reply)) => {
                    if let Ok(mut w) = shared.wanted.lock() {
                        *w = size;
                    }
                    match stage.encode_resize(size.width.into(), size.height.into(), None, None) {
                        Some(Ok(frame)) => {
                            if let Err(e) = framed.write_all(&frame).await {
                                let _ = reply.send(Err(format!("cannot send the resize: {e}")));
                                return Ended::Dropped(e.to_string());
                            }
                            let _ = reply.send(Ok(Method::DisplayControl));
                        }
                        Some(Err(e)) => {
                            let _ = reply.send(Err(format!("cannot encode the resize: {e}")));
                        }
                        // No Display Control channel (or not ready): reconnect at the size.
                        None => {
                            shut_down(&mut stage, &mut framed).await;
                            return Ended::Reconnect(Some(reply));
                        }
                    }
                }
                Some(Command::Close(reply)) => {
                    shut_down(&mut stage, &mut framed).await;
                    let _ = reply.send(());
                    return Ended::Closed("closed".into());
                }
                None => return Ended::Closed("closed".into()),
            },
        }
    }
}

/// Ask the server to end the connection (the request, not the wait for its answer). `&mut`
/// because the stage is not `Sync`, and this future must stay `Send`.
async fn shut_down(stage: &mut ActiveStage, framed: &mut Framed) {
    if let Ok(frames) = stage.graceful_shutdown() {
        for out in frames {
            if let ActiveStageOutput::ResponseFrame(f) = out {
                let _ = framed.write_all(&f).await;
            }
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
                return Some(Ended::Closed(format!("the server ended it: {reason}")));
            }
            // The server changes the desktop (a new resolution, after a Display Control
            // resize or on its own): reconnecting picks up what it now offers.
            ActiveStageOutput::DeactivateAll => return Some(Ended::Reconnect(None)),
            _ => {}
        }
    }
    None
}
