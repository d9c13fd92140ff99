//! A desktop's recording (`[audit] record = ["rdp"]`): the frames Warden received, at most
//! `frame_rate` a second, each picture the plugin was given, and the input Warden sent.
//!
//! A sampler task per desktop wakes on the connection task's screen updates, waits for its
//! next slot (1 / `frame_rate` after the last sample), copies the framebuffer (under its lock,
//! a copy and no more) and, off the executor, compares the copy with the last recorded frame
//! (`recording::rdp`): a keyframe (`k`) at the start, after a resize and when the last is 10 s
//! old or more; otherwise the changed rectangles as patches (`d`), and nothing when nothing
//! changed, so a still desktop costs no bytes. A screenshot hands the sampler the whole
//! desktop as it was when the picture was taken, under the same lock, so frames are recorded
//! in the order they were seen, and the recording holds exactly what the plugin saw (a frame
//! marked `"shot"`). No call waits for the encoding.

use super::framebuffer::{self, Region};
use crate::audit::RecordingLink;
use crate::recording::SessionRecorder;
use crate::recording::rdp::{self as differ, Frame, Rect};
use base64::Engine;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

/// The longest a recording goes without a keyframe while the desktop changes, so a player
/// seeking to a moment decodes at most this much.
const KEYFRAME_EVERY: Duration = Duration::from_secs(10);
/// Changes covering more than this share of the desktop are written as a keyframe.
const KEYFRAME_SHARE: u64 = 2;
/// Frames of screenshots waiting for the sampler, in bytes; past it a screenshot is recorded
/// as missed (a note) rather than held.
const SHOT_BYTES: usize = 64 * 1024 * 1024;

/// What the sampler needs of a desktop (its session provides it).
pub trait Screen: Send + Sync + 'static {
    /// Screen updates from now on.
    fn subscribe(&self) -> watch::Receiver<u64>;
    /// Cancelled once the session is over.
    fn done(&self) -> CancellationToken;
    /// `f` of the framebuffer (RGBA pixels, bytes a row, width, height) under its lock; None
    /// when the lock is poisoned.
    fn with_pixels<R>(&self, f: impl FnOnce(&[u8], usize, u16, u16) -> R) -> Option<R>;
}

/// A frame to record, and what the plugin was shown of it when it is a screenshot's.
struct Sample {
    frame: Option<Frame>,
    shot: Option<Value>,
}

/// The recording of one desktop, held by its session.
pub struct DesktopRecording {
    rec: Arc<SessionRecorder>,
    shots: mpsc::UnboundedSender<Sample>,
    /// Bytes of screenshot frames not yet taken by the sampler.
    queued: Arc<AtomicUsize>,
    /// Screenshots so far (a shot's number, from 1, matches the n-th picture the plugin got).
    taken: AtomicUsize,
}

impl std::fmt::Debug for DesktopRecording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopRecording")
            .field("rec", &self.rec)
            .finish_non_exhaustive()
    }
}

impl DesktopRecording {
    /// Record desktop `id` (its screen is `screen`) at up to `frame_rate` frames a second.
    pub fn start(
        rec: Arc<SessionRecorder>,
        id: &str,
        screen: Arc<impl Screen>,
        frame_rate: u32,
    ) -> Self {
        rec.start(id);
        let (tx, rx) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let period = Duration::from_secs(1) / frame_rate.max(1);
        tokio::spawn(sample(rec.clone(), screen, rx, queued.clone(), period));
        Self {
            rec,
            shots: tx,
            queued,
            taken: AtomicUsize::new(0),
        }
    }

    /// The plugin was given `region` of the desktop at `scale`; `frame` makes the whole
    /// desktop as it is now. Called with the framebuffer locked (see the module doc).
    pub fn shot(&self, region: Region, scale: f32, frame: impl FnOnce() -> Frame) {
        if self.rec.stopped() {
            return;
        }
        let n = self.taken.fetch_add(1, Ordering::Relaxed) + 1;
        let shot = json!({
            "n": n,
            "x": region.x,
            "y": region.y,
            "width": region.width,
            "height": region.height,
            "scale": scale,
        });
        let frame = (self.queued.load(Ordering::Relaxed) < SHOT_BYTES).then(frame);
        let bytes = frame.as_ref().map_or(0, |f| f.rgb.len());
        self.queued.fetch_add(bytes, Ordering::Relaxed);
        let sample = Sample {
            frame,
            shot: Some(shot),
        };
        if self.shots.send(sample).is_err() {
            self.queued.fetch_sub(bytes, Ordering::Relaxed);
        }
    }

    /// Input Warden sent (`i`) or a resize (`r`), recorded now.
    pub fn event(&self, code: u8, data: &Value) {
        self.rec.event(code, data);
    }

    pub fn link(&self) -> Option<RecordingLink> {
        self.rec.link()
    }
}

/// What the sampler keeps between frames.
#[derive(Default)]
struct Differ {
    last: Option<Frame>,
    keyframe_at: Option<Instant>,
}

/// The sampler: see the module doc. Ends, closing the recording, when the desktop does.
async fn sample(
    rec: Arc<SessionRecorder>,
    screen: Arc<impl Screen>,
    mut shots: mpsc::UnboundedReceiver<Sample>,
    queued: Arc<AtomicUsize>,
    period: Duration,
) {
    let mut updates = screen.subscribe();
    let done = screen.done();
    let mut state = Differ::default();
    let mut next = tokio::time::Instant::now();
    // The first sample is due at once: the keyframe of the start.
    let mut due = true;
    'run: while !rec.stopped() {
        if !due {
            tokio::select! {
                biased;
                () = done.cancelled() => break 'run,
                s = shots.recv() => {
                    let Some(s) = s else { break 'run };
                    state = record(&rec, state, vec![s], &queued).await;
                    continue 'run;
                }
                r = updates.changed() => if r.is_err() { break 'run },
            }
        }
        // A change (or the start): sample at the next slot; screenshots go in meanwhile.
        due = true;
        tokio::select! {
            biased;
            () = done.cancelled() => break 'run,
            s = shots.recv() => {
                let Some(s) = s else { break 'run };
                state = record(&rec, state, vec![s], &queued).await;
                continue 'run;
            }
            () = tokio::time::sleep_until(next) => {}
        }
        due = false;
        let batch = capture(screen.as_ref(), &mut shots);
        next = tokio::time::Instant::now() + period;
        state = record(&rec, state, batch, &queued).await;
    }
    // Screenshots taken before the end are still recorded, in order.
    let mut rest = Vec::new();
    while let Ok(s) = shots.try_recv() {
        rest.push(s);
    }
    record(&rec, state, rest, &queued).await;
    rec.close();
}

/// Under the framebuffer's lock: the screenshots handed over before now, then the desktop as
/// it is now.
fn capture(screen: &impl Screen, shots: &mut mpsc::UnboundedReceiver<Sample>) -> Vec<Sample> {
    screen
        .with_pixels(|rgba, stride, width, height| {
            let mut batch = Vec::new();
            while let Ok(s) = shots.try_recv() {
                batch.push(s);
            }
            batch.push(Sample {
                frame: Some(whole(rgba, stride, width, height)),
                shot: None,
            });
            batch
        })
        .unwrap_or_default()
}

/// The whole desktop as a frame: the same pixels a full-size screenshot holds
/// (`framebuffer::crop_scale` at scale 1), copied row by row, since the framebuffer's lock is
/// held meanwhile.
pub fn whole(rgba: &[u8], stride: usize, width: u16, height: u16) -> Frame {
    let (w, h) = (usize::from(width), usize::from(height));
    let mut rgb = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        match rgba.get(y * stride..y * stride + w * 4) {
            Some(row) => {
                for p in row.chunks_exact(4) {
                    rgb.extend_from_slice(p.get(..3).unwrap_or(&[0, 0, 0]));
                }
            }
            None => rgb.resize(rgb.len() + w * 3, 0),
        }
    }
    Frame {
        width: width.into(),
        height: height.into(),
        rgb,
    }
}

/// Record `batch` in order, off the executor.
async fn record(
    rec: &Arc<SessionRecorder>,
    state: Differ,
    batch: Vec<Sample>,
    queued: &Arc<AtomicUsize>,
) -> Differ {
    if batch.is_empty() {
        return state;
    }
    let taken: usize = batch
        .iter()
        .filter(|s| s.shot.is_some())
        .filter_map(|s| s.frame.as_ref().map(|f| f.rgb.len()))
        .sum();
    queued.fetch_sub(taken.min(queued.load(Ordering::Relaxed)), Ordering::Relaxed);
    let rec = rec.clone();
    tokio::task::spawn_blocking(move || {
        let mut state = state;
        for s in batch {
            write(&rec, &mut state, s);
        }
        state
    })
    .await
    .unwrap_or_default()
}

fn b64(png: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(png)
}

/// Compare one frame with the last, and write what changed.
fn write(rec: &SessionRecorder, state: &mut Differ, s: Sample) {
    if rec.stopped() {
        return;
    }
    let Some(frame) = s.frame else {
        let n = s.shot.as_ref().and_then(|v| v.get("n")).cloned();
        let note = format!(
            "screenshot {} not recorded: the recorder is behind",
            n.unwrap_or(Value::Null)
        );
        rec.event(b'm', &Value::String(note));
        return;
    };
    let rects = state
        .last
        .as_ref()
        .and_then(|last| differ::changed(last, &frame));
    let key_due = state
        .keyframe_at
        .is_none_or(|at| at.elapsed() >= KEYFRAME_EVERY);
    let whole_area = u64::from(frame.width) * u64::from(frame.height);
    let (code, mut data) = match rects {
        Some(rects) if rects.is_empty() => {
            // Nothing changed: only a screenshot is worth a line (the frame it saw).
            if s.shot.is_none() {
                return;
            }
            (b'd', json!({ "patches": [] }))
        }
        Some(rects)
            if !key_due
                && rects.iter().map(Rect::area).sum::<u64>() * KEYFRAME_SHARE <= whole_area =>
        {
            match patches(&frame, &rects) {
                Ok(p) => (b'd', json!({ "patches": p })),
                Err(e) => return failed(rec, state, &e),
            }
        }
        _ => match framebuffer::png(frame.width, frame.height, &frame.rgb) {
            Ok(png) => {
                state.keyframe_at = Some(Instant::now());
                (
                    b'k',
                    json!({"width": frame.width, "height": frame.height, "png": b64(&png)}),
                )
            }
            Err(e) => return failed(rec, state, &e),
        },
    };
    if let (Some(shot), Some(obj)) = (s.shot, data.as_object_mut()) {
        obj.insert("shot".into(), shot);
    }
    rec.event(code, &data);
    state.last = Some(frame);
}

fn patches(frame: &Frame, rects: &[Rect]) -> Result<Vec<Value>, String> {
    rects
        .iter()
        .map(|r| {
            let png = framebuffer::png(r.w, r.h, &frame.crop(*r))?;
            Ok(json!({"x": r.x, "y": r.y, "w": r.w, "h": r.h, "png": b64(&png)}))
        })
        .collect()
}

/// A frame could not be encoded: say so, and start again from a keyframe.
fn failed(rec: &SessionRecorder, state: &mut Differ, e: &str) {
    rec.event(
        b'm',
        &Value::String(format!("a frame was not recorded: {e}")),
    );
    state.last = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_frame_is_what_a_full_screenshot_holds() {
        // 3x2 RGBA with 4 bytes of padding a row, and a buffer one row short.
        let stride = 16;
        let rgba: Vec<u8> = (0..32).map(|i| (i * 7) as u8).collect();
        let full = Region {
            x: 0,
            y: 0,
            width: 3,
            height: 2,
        };
        let (_, _, shot) = framebuffer::crop_scale(&rgba, stride, full, 1.0);
        assert_eq!(whole(&rgba, stride, 3, 2).rgb, shot);
        let short = &rgba[..16];
        let (_, _, shot) = framebuffer::crop_scale(short, stride, full, 1.0);
        assert_eq!(whole(short, stride, 3, 2).rgb, shot);
    }
}
