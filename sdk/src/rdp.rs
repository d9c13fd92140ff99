//! Remote desktops over RDP owned by the host (`warden:rdp/desktop`). Desktops are named by
//! the alias the admin gave them in the manifest (`[rdp.hosts.NAME]`); a plugin never sees
//! an address, a user or a password. Sessions are kept by the host and found again by id.

use crate::CapabilityError;
use crate::bindings::warden::rdp::desktop as wit;
use std::time::Duration;

pub use wit::{Codec, MouseButton, ResizeMethod};

/// What a session is and how far it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesktopInfo {
    /// Stable id (`rdp-N`).
    pub id: String,
    /// The host alias.
    pub host: String,
    /// Desktop width in pixels.
    pub width: u16,
    /// Desktop height in pixels.
    pub height: u16,
    /// Input is refused (grant `rdp.read_only`).
    pub read_only: bool,
    /// Bytes received from the server so far.
    pub bytes_received: u64,
    /// Screen updates applied so far.
    pub updates: u64,
    /// The connection is up.
    pub connected: bool,
    /// Seconds since the Unix epoch.
    pub created: u64,
    /// How the last screen update was encoded.
    pub codec: Codec,
    /// Connections re-established after a drop or for a new size.
    pub reconnects: u32,
    /// The session is over; only `info` and `close` still answer.
    pub ended: bool,
}

impl From<wit::DesktopInfo> for DesktopInfo {
    fn from(i: wit::DesktopInfo) -> Self {
        Self {
            id: i.id,
            host: i.host,
            width: i.width,
            height: i.height,
            read_only: i.read_only,
            bytes_received: i.bytes_received,
            updates: i.updates,
            connected: i.connected,
            created: i.created,
            codec: i.codec,
            reconnects: i.reconnects,
            ended: i.ended,
        }
    }
}

/// A rectangle of the desktop, in desktop pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Left edge.
    pub x: u16,
    /// Top edge.
    pub y: u16,
    /// Width.
    pub width: u16,
    /// Height.
    pub height: u16,
}

/// A PNG picture of the desktop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// The PNG file.
    pub png: Vec<u8>,
}

/// Connects to desktop alias `host` and logs on with the manifest's credentials, asking for
/// a `size` (width, height) desktop (default 1024x768); the server may choose another.
pub fn open(host: &str, size: Option<(u16, u16)>) -> Result<DesktopInfo, CapabilityError> {
    let size = size.map(|(width, height)| wit::DesktopSize { width, height });
    Ok(wit::open(host, size)?.into())
}

/// Asks for a `width` x `height` desktop (width even, both 200 to 8192): over Display
/// Control when the server offers it, else by reconnecting. The server decides the final
/// size, which the returned info shows.
pub fn resize(
    id: &str,
    width: u16,
    height: u16,
) -> Result<(ResizeMethod, DesktopInfo), CapabilityError> {
    let r = wit::resize(id, wit::DesktopSize { width, height })?;
    Ok((r.method, r.info.into()))
}

/// The plugin's desktop session `id`.
pub fn info(id: &str) -> Result<DesktopInfo, CapabilityError> {
    Ok(wit::info(id)?.into())
}

/// The plugin's desktop sessions, oldest first.
pub fn list() -> Vec<DesktopInfo> {
    wit::list_desktops().into_iter().map(Into::into).collect()
}

/// The current frame, or `region` of it, scaled by `scale` (0.05 to 1), as PNG.
pub fn screenshot(id: &str, region: Option<Rect>, scale: f32) -> Result<Picture, CapabilityError> {
    let region = region.map(|r| wit::Rect {
        x: r.x,
        y: r.y,
        width: r.width,
        height: r.height,
    });
    let p = wit::screenshot(id, region, scale)?;
    Ok(Picture {
        width: p.width,
        height: p.height,
        png: p.png,
    })
}

/// Moves the pointer to (x, y).
pub fn pointer_move(id: &str, x: u16, y: u16) -> Result<(), CapabilityError> {
    Ok(wit::pointer_move(id, x, y)?)
}

/// Clicks `count` times (1 or 2) with `button` at (x, y).
pub fn click(
    id: &str,
    x: u16,
    y: u16,
    button: MouseButton,
    count: u8,
) -> Result<(), CapabilityError> {
    Ok(wit::click(id, x, y, button, count)?)
}

/// Drags with `button` held from `from` to `to`.
pub fn drag(
    id: &str,
    from: (u16, u16),
    to: (u16, u16),
    button: MouseButton,
) -> Result<(), CapabilityError> {
    Ok(wit::drag(id, from.0, from.1, to.0, to.1, button)?)
}

/// Turns the wheel at (x, y): `vertical` notches (positive: up), `horizontal` (positive: right).
pub fn scroll(
    id: &str,
    x: u16,
    y: u16,
    vertical: i16,
    horizontal: i16,
) -> Result<(), CapabilityError> {
    Ok(wit::scroll(id, x, y, vertical, horizontal)?)
}

/// Types Unicode text.
pub fn type_text(id: &str, text: &str) -> Result<(), CapabilityError> {
    Ok(wit::type_text(id, text)?)
}

/// Presses one chord: the keys in order, released in reverse (`["ctrl", "alt", "delete"]`).
pub fn press_keys(id: &str, keys: &[String]) -> Result<(), CapabilityError> {
    Ok(wit::press_keys(id, keys)?)
}

/// Waits up to `timeout` for a screen change (`still` = None) or for `still` without one.
/// True when it happened.
pub fn wait(id: &str, still: Option<Duration>, timeout: Duration) -> Result<bool, CapabilityError> {
    let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
    let (until, still_ms) = match still {
        None => (wit::WaitFor::Change, 0),
        Some(d) => (wit::WaitFor::Stillness, ms(d)),
    };
    Ok(wit::wait(id, until, still_ms, ms(timeout))?)
}

/// Disconnects and forgets the session.
pub fn close(id: &str) -> Result<(), CapabilityError> {
    Ok(wit::close(id)?)
}
