//! `warden:rdp`: remote desktops over RDP to the manifest's `[rdp.hosts]` aliases (grant
//! `rdp.hosts`). The grant of a session's alias is checked on every call, input is refused
//! under `rdp.read_only`, and every open, close, input and screenshot is audited (typed
//! text as its length only). Credentials stay in the manifest and the connection code.
//!
//! Why a package of its own rather than growth of `warden:terminal`: a desktop is pixels,
//! a pointer and key events, not a byte stream with a shell behind it; it has its own
//! grant (`grants.rdp`), its own credentials and its own provider. The terminal plugin
//! imports both packages and shows both kinds of session under one set of tools.
//!
//! | file | job |
//! |---|---|
//! | `connect.rs` | TCP, X.224, TLS upgrade, CredSSP (NLA) logon, connection sequence |
//! | `tls.rs` | the certificate pin (SHA-256 fingerprint) as a rustls verifier |
//! | `session.rs` | the connection task: framebuffer from server updates, input, resize, reconnect, close |
//! | `codec.rs` | which codec (bitmap, RemoteFX) the server's updates use |
//! | `framebuffer.rs` | crop, scale and PNG-encode a picture of the framebuffer |
//! | `recording.rs` | a desktop's recording: frames at a bounded rate, each screenshot's frame, input |
//! | `keys.rs` | key names and characters as scancodes |
//! | `table.rs` | desktops per plugin, kept by the host |

pub mod bindings;
mod codec;
mod connect;
mod framebuffer;
mod keys;
mod recording;
mod session;
pub mod table;
mod tls;

use super::view::{Base, Project};
use super::{HasView, View};
use crate::audit::Used;
use crate::manifest::RdpHostConfig;
use crate::recording::SessionMeta;
use crate::recording::rdp::Frame;
use bindings::warden::rdp::desktop::{
    self as desktop_iface, Codec as WitCodec, DesktopInfo, DesktopSize as WitSize, Host,
    MouseButton, Picture, Rect, ResizeMethod, Resized, WaitFor,
};
use bindings::warden::rdp::types::{self, Error};
use codec::Codec;
use framebuffer::Region;
use ironrdp_connector::DesktopSize;
use ironrdp_input::{MousePosition, Operation, WheelRotations};
use recording::DesktopRecording;
use serde_json::json;
use session::{Desktop, Method};
use std::collections::BTreeMap;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;
use table::{DesktopTable, OpenError};
use wasmtime::component::Linker;

/// Longest single `wait` (the plugin loops for longer ones).
const MAX_WAIT: Duration = Duration::from_secs(30);
/// Longest text one `type-text` takes.
const MAX_TEXT: usize = 4096;
/// Pointer steps of a drag, so the server sees a movement, not a jump.
const DRAG_STEPS: u16 = 8;
/// Desktop sizes the host asks for: MS-RDPEDISP's monitor limits (width even), applied to
/// reconnections and first connections too, so every path has the same rule.
const MIN_SIDE: u16 = 200;
const MAX_SIDE: u16 = 8192;
/// The size asked for when `open` names none.
const DEFAULT_SIZE: DesktopSize = DesktopSize {
    width: 1024,
    height: 768,
};

/// `size` as a desktop size within the limits, or an error that says what would fit.
fn checked_size(size: WitSize) -> Result<DesktopSize, Error> {
    let WitSize { width, height } = size;
    let sides = MIN_SIDE..=MAX_SIDE;
    if !sides.contains(&width) || !sides.contains(&height) {
        return Err(Error::InvalidArgument(format!(
            "a desktop of {width}x{height} is outside the allowed size: width and height from {MIN_SIDE} to {MAX_SIDE} pixels"
        )));
    }
    if width % 2 != 0 {
        return Err(Error::InvalidArgument(format!(
            "the desktop width must be even (MS-RDPEDISP): use {} or {}",
            width - 1,
            (width + 1).min(MAX_SIDE)
        )));
    }
    Ok(DesktopSize { width, height })
}

/// A plugin's RDP context: its grants and audit scope, the manifest's desktops and the
/// host's sessions.
pub struct RdpCtx {
    pub base: Base,
    pub hosts: Arc<BTreeMap<String, RdpHostConfig>>,
    pub desktops: Arc<DesktopTable>,
    /// The client of the call in progress: it reaches only the desktops it opened.
    pub owner: crate::capabilities::conversation::Owner,
    /// Session recordings, when `[audit] record` names rdp.
    pub recordings: Option<Arc<crate::recording::Recordings>>,
}

impl Deref for RdpCtx {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

impl types::Host for View<'_, RdpCtx> {}

/// Link `warden:rdp` (types, desktop) to the plugins' store.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, RdpCtx>,
) -> wasmtime::Result<()> {
    types::add_to_linker::<T, HasView<RdpCtx>>(linker, get)?;
    desktop_iface::add_to_linker::<T, HasView<RdpCtx>>(linker, get)
}

impl View<'_, RdpCtx> {
    fn check_host(&self, alias: &str) -> Result<(), Error> {
        self.grants
            .check_rdp_host(alias)
            .map_err(|d| Error::AccessDenied(self.refuse("rdp", &d)))
    }

    /// The plugin's desktop `id`, still live (not ended), after re-checking its grant.
    fn live(&self, id: &str) -> Result<Arc<Desktop>, Error> {
        let desktop = self.desktop(id)?;
        if desktop.shared.ended().is_some() {
            return Err(Error::Gone(desktop.gone()));
        }
        Ok(desktop)
    }

    /// The plugin's desktop `id`, after re-checking the grant of its alias.
    fn desktop(&self, id: &str) -> Result<Arc<Desktop>, Error> {
        let desktop = self.desktops.get(self.plugin(), &self.owner, id).ok_or_else(|| {
            Error::unknown_handle(id, || {
                format!(
                    "no remote desktop session '{id}'; terminal_list_sessions shows the open ones"
                )
            })
        })?;
        self.check_host(&desktop.alias)?;
        Ok(desktop)
    }

    /// The desktop `id`, when input is granted.
    fn input_target(&self, id: &str) -> Result<Arc<Desktop>, Error> {
        let desktop = self.live(id)?;
        self.grants
            .check_rdp_input()
            .map_err(|d| Error::AccessDenied(self.refuse("rdp", &d)))?;
        Ok(desktop)
    }

    /// Record what was done (`rdp.OP`, alias and session id).
    fn audit_use(&self, op: &str, desktop: &Desktop, detail: Option<&str>, bytes: Option<u64>) {
        self.scope.used(&Used {
            capability: &format!("rdp.{op}"),
            target: &format!("rdp:{} session {}", desktop.alias, desktop.id),
            detail,
            bytes,
            recording: desktop.recording.get().and_then(|r| r.link()),
            ..Used::default()
        });
    }

    /// Start recording a desktop just opened, if rdp sessions are recorded.
    fn record(&self, desktop: &Desktop) {
        let Some(recordings) = &self.recordings else {
            return;
        };
        let (width, height) = desktop.size();
        let caller = self.scope.caller();
        let frame_rate = recordings.policy().frame_rate;
        let meta = SessionMeta {
            kind: "rdp",
            plugin: Arc::from(self.plugin()),
            client: caller.client,
            session: caller.session,
            target: format!("rdp:{}", desktop.alias),
            width: width.into(),
            height: height.into(),
            extra: serde_json::json!({ "frame_rate": frame_rate }),
        };
        if let Some(rec) = recordings.session(meta) {
            let recording =
                DesktopRecording::start(rec, &desktop.id, desktop.shared.clone(), frame_rate);
            let _ = desktop.recording.set(recording);
        }
    }

    fn info_of(&self, d: &Desktop) -> DesktopInfo {
        let (width, height) = d.size();
        DesktopInfo {
            id: d.id.clone(),
            host: d.alias.clone(),
            width,
            height,
            read_only: self.grants.rdp.as_ref().is_none_or(|r| r.read_only),
            bytes_received: d.shared.bytes.load(std::sync::atomic::Ordering::Relaxed),
            updates: d.shared.updates(),
            connected: d
                .shared
                .connected
                .load(std::sync::atomic::Ordering::Relaxed),
            created: d.created,
            codec: match d.shared.codec() {
                Codec::Pending => WitCodec::Pending,
                Codec::Bitmap => WitCodec::Bitmap,
                Codec::RemoteFx => WitCodec::Remotefx,
            },
            reconnects: d
                .shared
                .reconnects
                .load(std::sync::atomic::Ordering::Relaxed),
            ended: d.shared.ended().is_some(),
        }
    }

    /// Send `ops`, then record `input` (what was sent, as the recording holds it) and audit
    /// `op` with `detail`.
    async fn send(
        &mut self,
        id: &str,
        op: &str,
        detail: &str,
        input: serde_json::Value,
        ops: Vec<Operation>,
    ) -> Result<(), Error> {
        let desktop = self.input_target(id)?;
        let (w, h) = desktop.size();
        for o in &ops {
            if let Operation::MouseMove(p) = o
                && (p.x >= w || p.y >= h)
            {
                return Err(Error::InvalidArgument(format!(
                    "({}, {}) is outside the {w}x{h} desktop",
                    p.x, p.y
                )));
            }
        }
        desktop.input(ops).await.map_err(Error::Gone)?;
        if let Some(r) = desktop.recording.get() {
            r.event(b'i', &input);
        }
        self.audit_use(op, &desktop, Some(detail), None);
        Ok(())
    }
}

fn button(b: MouseButton) -> ironrdp_input::MouseButton {
    match b {
        MouseButton::Left => ironrdp_input::MouseButton::Left,
        MouseButton::Right => ironrdp_input::MouseButton::Right,
        MouseButton::Middle => ironrdp_input::MouseButton::Middle,
    }
}

fn button_name(b: MouseButton) -> &'static str {
    match b {
        MouseButton::Left => "left",
        MouseButton::Right => "right",
        MouseButton::Middle => "middle",
    }
}

fn move_to(x: u16, y: u16) -> Operation {
    Operation::MouseMove(MousePosition { x, y })
}

/// Key events that type `text`: Unicode events when the server takes them, otherwise the
/// US keyboard's keys (ASCII only).
fn typing(text: &str, unicode: bool) -> Result<Vec<Operation>, Error> {
    let mut ops = Vec::with_capacity(text.len() * 2);
    for c in text.chars() {
        if let Some((code, shift)) = keys::us_key(c).filter(|_| !unicode || c.is_control()) {
            if shift {
                ops.push(Operation::KeyPressed(keys::SHIFT));
            }
            ops.push(Operation::KeyPressed(code));
            ops.push(Operation::KeyReleased(code));
            if shift {
                ops.push(Operation::KeyReleased(keys::SHIFT));
            }
        } else if unicode {
            ops.push(Operation::UnicodeKeyPressed(c));
            ops.push(Operation::UnicodeKeyReleased(c));
        } else {
            return Err(Error::InvalidArgument(format!(
                "this server takes no Unicode keyboard input, so only characters of a US keyboard can be typed; {c:?} is not one"
            )));
        }
    }
    Ok(ops)
}

impl Host for View<'_, RdpCtx> {
    async fn open(&mut self, host: String, size: Option<WitSize>) -> Result<DesktopInfo, Error> {
        self.check_host(&host)?;
        let size = size.map(checked_size).transpose()?.unwrap_or(DEFAULT_SIZE);
        let config = self.hosts.get(&host).cloned().ok_or_else(|| {
            Error::NotFound(format!(
                "no rdp host '{host}' in the manifest; define it under [rdp.hosts.{host}]"
            ))
        })?;
        let plugin = self.plugin().to_string();
        let desktop = self
            .desktops
            .clone()
            .open(&plugin, &self.owner, &host, config, size)
            .await
            .map_err(|e| match e {
                OpenError::Limit => {
                    self.scope
                        .denied("rdp", &format!("rdp:{host}"), &e.to_string());
                    Error::LimitReached(e.to_string())
                }
                OpenError::Connect(c) => {
                    self.scope.used(&Used {
                        capability: "rdp.open",
                        target: &format!("rdp:{host}"),
                        error: Some("io"),
                        detail: Some(&c.to_string()),
                        ..Used::default()
                    });
                    Error::Io(c.to_string())
                }
            })?;
        self.record(&desktop);
        let info = self.info_of(&desktop);
        self.audit_use(
            "open",
            &desktop,
            Some(&format!("{}x{}", info.width, info.height)),
            None,
        );
        Ok(info)
    }

    async fn info(&mut self, id: String) -> Result<DesktopInfo, Error> {
        let desktop = self.desktop(&id)?;
        Ok(self.info_of(&desktop))
    }

    async fn list_desktops(&mut self) -> Vec<DesktopInfo> {
        self.desktops
            .list(self.plugin(), &self.owner)
            .iter()
            .filter(|d| self.grants.check_rdp_host(&d.alias).is_ok())
            .map(|d| self.info_of(d))
            .collect()
    }

    async fn screenshot(
        &mut self,
        id: String,
        region: Option<Rect>,
        scale: f32,
    ) -> Result<Picture, Error> {
        // An ended session's last frame is stale: refuse it rather than show it as current.
        let desktop = self.live(&id)?;
        if !(framebuffer::MIN_SCALE..=framebuffer::MAX_SCALE).contains(&scale) {
            return Err(Error::InvalidArgument(format!(
                "scale must be from {} to {}",
                framebuffer::MIN_SCALE,
                framebuffer::MAX_SCALE
            )));
        }
        let shown = desktop.clone();
        let picture = tokio::task::spawn_blocking(move || {
            let (w, h, rgb) = {
                let image = shown
                    .shared
                    .image
                    .lock()
                    .map_err(|_| "framebuffer poisoned".to_string())?;
                let region = framebuffer::clip(
                    region.map(|r| Region {
                        x: r.x.into(),
                        y: r.y.into(),
                        width: r.width.into(),
                        height: r.height.into(),
                    }),
                    image.width().into(),
                    image.height().into(),
                )?;
                let picture = framebuffer::crop_scale(image.data(), image.stride(), region, scale);
                // The recording gets the desktop as the plugin saw it, under the same lock.
                if let Some(r) = shown.recording.get() {
                    let (iw, ih) = (image.width(), image.height());
                    r.shot(region, scale, || {
                        if (picture.0, picture.1) == (iw.into(), ih.into()) {
                            Frame {
                                width: picture.0,
                                height: picture.1,
                                rgb: picture.2.clone(),
                            }
                        } else {
                            recording::whole(image.data(), image.stride(), iw, ih)
                        }
                    });
                }
                picture
            };
            framebuffer::png(w, h, &rgb).map(|png| Picture {
                width: w,
                height: h,
                png,
            })
        })
        .await
        .map_err(|e| Error::Io(format!("screenshot failed: {e}")))?
        .map_err(Error::InvalidArgument)?;
        self.audit_use(
            "screenshot",
            &desktop,
            Some(&format!("{}x{}", picture.width, picture.height)),
            Some(picture.png.len() as u64),
        );
        Ok(picture)
    }

    async fn pointer_move(&mut self, id: String, x: u16, y: u16) -> Result<(), Error> {
        self.send(
            &id,
            "move",
            &format!("move to ({x}, {y})"),
            json!({"op": "move", "x": x, "y": y}),
            vec![move_to(x, y)],
        )
        .await
    }

    async fn click(
        &mut self,
        id: String,
        x: u16,
        y: u16,
        b: MouseButton,
        count: u8,
    ) -> Result<(), Error> {
        let count = count.clamp(1, 3);
        let mut ops = vec![move_to(x, y)];
        for _ in 0..count {
            ops.push(Operation::MouseButtonPressed(button(b)));
            ops.push(Operation::MouseButtonReleased(button(b)));
        }
        let what = if count == 2 { "double-click" } else { "click" };
        self.send(
            &id,
            "click",
            &format!("{} {what} at ({x}, {y})", button_name(b)),
            json!({"op": "click", "x": x, "y": y, "button": button_name(b), "count": count}),
            ops,
        )
        .await
    }

    async fn drag(
        &mut self,
        id: String,
        from_x: u16,
        from_y: u16,
        to_x: u16,
        to_y: u16,
        b: MouseButton,
    ) -> Result<(), Error> {
        let mut ops = vec![
            move_to(from_x, from_y),
            Operation::MouseButtonPressed(button(b)),
        ];
        for step in 1..=DRAG_STEPS {
            let at = |from: u16, to: u16| {
                let (from, to) = (i32::from(from), i32::from(to));
                (from + (to - from) * i32::from(step) / i32::from(DRAG_STEPS)) as u16
            };
            ops.push(move_to(at(from_x, to_x), at(from_y, to_y)));
        }
        ops.push(Operation::MouseButtonReleased(button(b)));
        self.send(
            &id,
            "drag",
            &format!(
                "{} drag from ({from_x}, {from_y}) to ({to_x}, {to_y})",
                button_name(b)
            ),
            json!({
                "op": "drag",
                "from": [from_x, from_y],
                "to": [to_x, to_y],
                "button": button_name(b),
            }),
            ops,
        )
        .await
    }

    async fn scroll(
        &mut self,
        id: String,
        x: u16,
        y: u16,
        vertical: i16,
        horizontal: i16,
    ) -> Result<(), Error> {
        // One notch is 120 units (WHEEL_DELTA).
        let units = |n: i16| n.clamp(-100, 100).saturating_mul(120);
        let mut ops = vec![move_to(x, y)];
        if vertical != 0 {
            ops.push(Operation::WheelRotations(WheelRotations {
                is_vertical: true,
                rotation_units: units(vertical),
            }));
        }
        if horizontal != 0 {
            ops.push(Operation::WheelRotations(WheelRotations {
                is_vertical: false,
                rotation_units: units(horizontal),
            }));
        }
        self.send(
            &id,
            "scroll",
            &format!("scroll at ({x}, {y}) by {vertical} vertical, {horizontal} horizontal"),
            json!({"op": "scroll", "x": x, "y": y, "vertical": vertical, "horizontal": horizontal}),
            ops,
        )
        .await
    }

    async fn type_text(&mut self, id: String, text: String) -> Result<(), Error> {
        if text.chars().count() > MAX_TEXT {
            return Err(Error::InvalidArgument(format!(
                "type at most {MAX_TEXT} characters at a time"
            )));
        }
        let desktop = self.input_target(&id)?;
        let unicode = desktop
            .shared
            .unicode_input
            .load(std::sync::atomic::Ordering::Relaxed);
        let ops = typing(&text, unicode)?;
        // The text itself may be a secret the agent was given: only its length is audited.
        // The recording, as sensitive as the session (0600), holds it as sent.
        let detail = format!("typed {} characters", text.chars().count());
        let input = json!({"op": "type", "text": text});
        self.send(&id, "type", &detail, input, ops).await
    }

    async fn press_keys(&mut self, id: String, names: Vec<String>) -> Result<(), Error> {
        if names.is_empty() || names.len() > 8 {
            return Err(Error::InvalidArgument(
                "give 1 to 8 key names for one chord".into(),
            ));
        }
        let codes = names
            .iter()
            .map(|n| {
                keys::named(n).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "unknown key \"{n}\"; known keys: {}",
                        keys::names()
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut ops: Vec<Operation> = codes.iter().map(|c| Operation::KeyPressed(*c)).collect();
        ops.extend(codes.iter().rev().map(|c| Operation::KeyReleased(*c)));
        let detail = format!("keys {}", names.join("+").to_ascii_lowercase());
        let input = json!({"op": "keys", "keys": names});
        self.send(&id, "keys", &detail, input, ops).await
    }

    async fn wait(
        &mut self,
        id: String,
        until: WaitFor,
        still_ms: u32,
        timeout_ms: u32,
    ) -> Result<bool, Error> {
        let desktop = self.desktop(&id)?;
        let timeout = Duration::from_millis(timeout_ms.into()).min(MAX_WAIT);
        let still = match until {
            WaitFor::Change => None,
            WaitFor::Stillness => Some(Duration::from_millis(still_ms.into())),
        };
        let cancel = self.scope.cancel();
        tokio::select! {
            done = desktop.wait(still, timeout) => Ok(done),
            () = cancel.cancelled() => Err(Error::Timeout("the call was cancelled".into())),
        }
    }

    async fn resize(&mut self, id: String, size: WitSize) -> Result<Resized, Error> {
        let size = checked_size(size)?;
        // Not input to the desktop's content, but it rearranges the remote desktop (windows
        // move, programs see a display change), so a read-only grant refuses it too.
        let desktop = self.input_target(&id)?;
        let (w, h) = desktop.size();
        let method = desktop.resize(size).await.map_err(Error::Io)?;
        let info = self.info_of(&desktop);
        let how = match method {
            Method::DisplayControl => "display control",
            Method::Reconnect => "reconnect",
        };
        if let Some(r) = desktop.recording.get() {
            r.event(
                b'r',
                &json!({
                    "asked": [size.width, size.height],
                    "width": info.width,
                    "height": info.height,
                    "method": how,
                }),
            );
        }
        self.audit_use(
            "resize",
            &desktop,
            Some(&format!(
                "{w}x{h} to {}x{} asked, {}x{} by {how}",
                size.width, size.height, info.width, info.height
            )),
            None,
        );
        Ok(Resized {
            method: match method {
                Method::DisplayControl => ResizeMethod::DisplayControl,
                Method::Reconnect => ResizeMethod::Reconnect,
            },
            info,
        })
    }

    async fn close(&mut self, id: String) -> Result<(), Error> {
        let desktop = self.desktop(&id)?;
        let plugin = self.plugin().to_string();
        self.desktops.close(&plugin, &self.owner, &id).await;
        self.audit_use(
            "close",
            &desktop,
            None,
            Some(
                desktop
                    .shared
                    .bytes
                    .load(std::sync::atomic::Ordering::Relaxed),
            ),
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_display_control_limits() {
        let size = |width, height| checked_size(WitSize { width, height });
        assert!(size(800, 600).is_ok());
        assert!(size(200, 200).is_ok() && size(8192, 8192).is_ok());
        for (w, h) in [(199, 600), (800, 8193), (0, 0)] {
            let Err(Error::InvalidArgument(m)) = size(w, h) else {
                panic!("{w}x{h} accepted")
            };
            assert!(m.contains("from 200 to 8192"), "{m}");
        }
        let Err(Error::InvalidArgument(m)) = size(801, 600) else {
            panic!("odd width accepted")
        };
        assert!(m.contains("use 800 or 802"), "{m}");
    }

    #[test]
    fn text_is_typed_as_unicode_or_us_keys() {
        let ops = typing("aB\n", false).expect("ascii");
        // a: press, release; B: shift, press, release, shift; enter: press, release.
        assert_eq!(ops.len(), 8);
        assert!(typing("é", false).is_err());
        let ops = typing("é\n", true).expect("unicode");
        assert!(matches!(ops[0], Operation::UnicodeKeyPressed('é')));
        assert!(matches!(ops[2], Operation::KeyPressed(_)));
    }
}
