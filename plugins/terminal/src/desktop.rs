//! Remote desktop (RDP) sessions as terminal sessions of a third kind: opened by
//! `terminal_open {"rdp": ALIAS}`, listed beside the shells, written to with
//! `terminal_write` (text and key chords), resized in pixels with `terminal_resize
//! {width, height}`, and driven with the desktop-only tools `terminal_screenshot`,
//! `terminal_mouse` and `terminal_wait`. Their ids start with `rdp-`
//! (after the replica's name and a dot, when Warden runs as a named replica).

use std::time::Duration;
use warden_sdk::prelude::*;
use warden_sdk::rdp::{self, Codec, DesktopInfo, MouseButton, Rect, ResizeMethod};

/// Longest `terminal_wait`.
const MAX_WAIT_MS: u32 = 120_000;

/// Is `id` a remote desktop session? (`rdp-N`, or `REPLICA.rdp-N` from a named replica.)
pub fn is_desktop(id: &str) -> bool {
    id.rsplit('.')
        .next()
        .is_some_and(|local| local.starts_with("rdp-"))
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn codec_name(c: Codec) -> &'static str {
    match c {
        Codec::Pending => "pending",
        Codec::Bitmap => "bitmap",
        Codec::Remotefx => "remotefx",
    }
}

fn state(i: &DesktopInfo) -> &'static str {
    if i.ended {
        "ended"
    } else if i.connected {
        "open"
    } else {
        "reconnecting"
    }
}

pub fn describe(i: &DesktopInfo) -> String {
    format!(
        "{}  rdp:{}  {}x{} desktop ({})  {}{}  {} bytes received",
        i.id,
        i.host,
        i.width,
        i.height,
        codec_name(i.codec),
        state(i),
        if i.read_only { ", read-only" } else { "" },
        i.bytes_received
    )
}

pub fn info_json(i: &DesktopInfo) -> serde_json::Value {
    serde_json::json!({
        "id": i.id,
        "type": "rdp",
        "target": format!("rdp:{}", i.host),
        "width": i.width,
        "height": i.height,
        "read_only": i.read_only,
        "bytes_received": i.bytes_received,
        "updates": i.updates,
        "connected": i.connected,
        "state": state(i),
        "ended": i.ended,
        "codec": codec_name(i.codec),
        "reconnects": i.reconnects,
        "created": i.created,
        "uptime_secs": now_secs().saturating_sub(i.created),
    })
}

pub fn open(alias: &str, size: Option<(u16, u16)>) -> Result<ToolOutput, ToolError> {
    let info = rdp::open(alias, size)?;
    // The first frame is on its way: give it a moment so a screenshot right after shows it.
    let _ = rdp::wait(
        &info.id,
        Some(Duration::from_millis(150)),
        Duration::from_secs(2),
    );
    let info = rdp::info(&info.id)?;
    let mut out = ToolOutput::text(format!(
        "Opened remote desktop session {} on rdp:{} ({}x{}{}). Look with terminal_screenshot {{\"session_id\": \"{}\"}}; act with terminal_mouse and terminal_write.",
        info.id,
        info.host,
        info.width,
        info.height,
        kept(size, &info),
        info.id
    ));
    out.structured = Some(info_json(&info));
    Ok(out)
}

/// ", not the WxH asked for" when the server chose another size.
fn kept(asked: Option<(u16, u16)>, info: &DesktopInfo) -> String {
    match asked {
        Some((w, h)) if (w, h) != (info.width, info.height) => format!(
            "; {w}x{h} was asked for, the server chose {}x{}",
            info.width, info.height
        ),
        _ => String::new(),
    }
}

/// `terminal_resize` on a desktop: ask for `width` x `height` pixels.
pub fn resize(id: &str, width: u16, height: u16) -> Result<ToolOutput, ToolError> {
    let (method, info) = rdp::resize(id, width, height)?;
    let how = match method {
        ResizeMethod::DisplayControl => "over Display Control (the session stayed connected)",
        ResizeMethod::Reconnect => "by reconnecting (the server offers no Display Control channel)",
    };
    let text = if (info.width, info.height) == (width, height) {
        format!(
            "session {id} is now {width}x{height}, resized {how}; take a new terminal_screenshot"
        )
    } else {
        format!(
            "session {id}: {width}x{height} was asked for {how}, but the server kept the desktop at {}x{} (the server decides; one that mirrors a fixed screen ignores the request)",
            info.width, info.height
        )
    };
    let mut out = ToolOutput::text(text);
    let mut json = info_json(&info);
    json["method"] = serde_json::json!(match method {
        ResizeMethod::DisplayControl => "display_control",
        ResizeMethod::Reconnect => "reconnect",
    });
    json["requested"] = serde_json::json!({ "width": width, "height": height });
    out.structured = Some(json);
    Ok(out)
}

/// A region of the desktop.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Region {
    x: u16,
    y: u16,
    width: u16,
    height: u16,
}

/// Arguments of `terminal_screenshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotArgs {
    /// An rdp- session.
    session_id: String,
    /// Part of the desktop, in desktop pixels (default: all of it).
    region: Option<Region>,
    /// 0.05-1 (default 1; 0.5 for a quick look costs a quarter of the tokens).
    scale: Option<f32>,
}

pub fn screenshot(args: ScreenshotArgs) -> Result<ToolOutput, ToolError> {
    let scale = args.scale.unwrap_or(1.0);
    if !(0.05..=1.0).contains(&scale) {
        return Err(ToolError::invalid_arguments("scale must be from 0.05 to 1"));
    }
    let region = args.region.map(|r| Rect {
        x: r.x,
        y: r.y,
        width: r.width,
        height: r.height,
    });
    let picture = rdp::screenshot(&args.session_id, region, scale)?;
    let (x, y) = region.map_or((0, 0), |r| (r.x, r.y));
    Ok(ToolOutput::new()
        .with(Content::image("image/png", picture.png))
        .with(Content::text(format!(
            "{}x{} PNG of session {}{}; desktop coordinates = image coordinates / {scale} + ({x}, {y})",
            picture.width,
            picture.height,
            args.session_id,
            if region.is_some() { " (a region)" } else { "" },
        ))))
}

/// What `terminal_mouse` does.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MouseAction {
    Move,
    Click,
    DoubleClick,
    RightClick,
    MiddleClick,
    Drag,
    Scroll,
}

/// Arguments of `terminal_mouse`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MouseArgs {
    /// An rdp- session.
    session_id: String,
    action: MouseAction,
    /// Desktop pixels (drag: the start).
    x: u16,
    y: u16,
    /// Drag: the end.
    to_x: Option<u16>,
    to_y: Option<u16>,
    /// Scroll: notches, positive up (default 0).
    scroll_y: Option<i16>,
    /// Scroll: notches, positive right (default 0).
    scroll_x: Option<i16>,
    /// Settle time before answering (default 300).
    wait_ms: Option<u32>,
}

pub fn mouse(args: MouseArgs) -> Result<ToolOutput, ToolError> {
    let (id, x, y) = (args.session_id.as_str(), args.x, args.y);
    let done = match args.action {
        MouseAction::Move => {
            rdp::pointer_move(id, x, y)?;
            format!("moved the pointer to ({x}, {y})")
        }
        MouseAction::Click => {
            rdp::click(id, x, y, MouseButton::Left, 1)?;
            format!("clicked at ({x}, {y})")
        }
        MouseAction::DoubleClick => {
            rdp::click(id, x, y, MouseButton::Left, 2)?;
            format!("double-clicked at ({x}, {y})")
        }
        MouseAction::RightClick => {
            rdp::click(id, x, y, MouseButton::Right, 1)?;
            format!("right-clicked at ({x}, {y})")
        }
        MouseAction::MiddleClick => {
            rdp::click(id, x, y, MouseButton::Middle, 1)?;
            format!("middle-clicked at ({x}, {y})")
        }
        MouseAction::Drag => {
            let (Some(to_x), Some(to_y)) = (args.to_x, args.to_y) else {
                return Err(ToolError::invalid_arguments("a drag needs to_x and to_y"));
            };
            rdp::drag(id, (x, y), (to_x, to_y), MouseButton::Left)?;
            format!("dragged from ({x}, {y}) to ({to_x}, {to_y})")
        }
        MouseAction::Scroll => {
            let (v, h) = (args.scroll_y.unwrap_or(0), args.scroll_x.unwrap_or(0));
            if v == 0 && h == 0 {
                return Err(ToolError::invalid_arguments(
                    "a scroll needs scroll_y and/or scroll_x (notches)",
                ));
            }
            rdp::scroll(id, x, y, v, h)?;
            format!("scrolled at ({x}, {y}) by {v} up, {h} right")
        }
    };
    settle(id, args.wait_ms.unwrap_or(300))?;
    Ok(ToolOutput::text(format!(
        "{done} in session {id}; look with terminal_screenshot"
    )))
}

/// `terminal_write` on a desktop: type `text`, then press each chord of `keys`
/// (`"ctrl+alt+delete"`, `"enter"`).
pub fn write(
    id: &str,
    text: Option<String>,
    keys: Option<Vec<String>>,
    wait_ms: u32,
) -> Result<ToolOutput, ToolError> {
    let text = text.unwrap_or_default();
    let keys = keys.unwrap_or_default();
    if text.is_empty() && keys.is_empty() {
        return Err(ToolError::invalid_arguments(
            "give `text` and/or `keys` to send",
        ));
    }
    if !text.is_empty() {
        rdp::type_text(id, &text)?;
    }
    for chord in &keys {
        let names: Vec<String> = chord
            .split('+')
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .collect();
        rdp::press_keys(id, &names)?;
    }
    settle(id, wait_ms)?;
    Ok(ToolOutput::text(format!(
        "typed {} characters and {} key chords into session {id}; look with terminal_screenshot",
        text.chars().count(),
        keys.len()
    )))
}

/// Let the screen answer an action: wait (at most `max_ms`) until it has been still for
/// 150 ms.
fn settle(id: &str, max_ms: u32) -> Result<(), ToolError> {
    if max_ms > 0 {
        rdp::wait(
            id,
            Some(Duration::from_millis(150)),
            Duration::from_millis(max_ms.min(10_000).into()),
        )?;
    }
    Ok(())
}

/// What `terminal_wait` waits for.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Until {
    Change,
    Still,
}

/// Arguments of `terminal_wait`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// An rdp- session.
    session_id: String,
    /// change: any screen update; still: none for still_ms.
    until: Until,
    /// For still (default 500).
    still_ms: Option<u32>,
    /// Default 10000, at most 120000.
    timeout_ms: Option<u32>,
}

pub fn wait(args: WaitArgs) -> Result<ToolOutput, ToolError> {
    let timeout = args.timeout_ms.unwrap_or(10_000).min(MAX_WAIT_MS);
    let still = match args.until {
        Until::Change => None,
        Until::Still => Some(Duration::from_millis(args.still_ms.unwrap_or(500).into())),
    };
    // The host waits at most 30 s per call; longer waits are several calls.
    let mut left = timeout;
    let happened = loop {
        let slice = left.min(30_000);
        if rdp::wait(&args.session_id, still, Duration::from_millis(slice.into()))? {
            break true;
        }
        left -= slice;
        if left == 0 {
            break false;
        }
    };
    let what = match (&args.until, happened) {
        (Until::Change, true) => "the screen changed".to_string(),
        (Until::Change, false) => format!("no screen change within {timeout} ms"),
        (Until::Still, true) => "the screen is still".to_string(),
        (Until::Still, false) => format!("the screen kept changing for {timeout} ms"),
    };
    let mut out = ToolOutput::text(format!("{what} (session {})", args.session_id));
    out.structured = Some(serde_json::json!({ "happened": happened }));
    Ok(out)
}

pub fn close(id: &str) -> Result<String, ToolError> {
    rdp::close(id)?;
    Ok(format!("closed remote desktop session {id}"))
}

pub fn info(id: &str) -> Result<serde_json::Value, ToolError> {
    Ok(info_json(&rdp::info(id)?))
}

#[cfg(test)]
mod tests {
    use super::is_desktop;

    #[test]
    fn desktops_are_known_by_their_local_id_with_or_without_a_replica() {
        assert!(is_desktop("rdp-3"));
        assert!(is_desktop("r2.rdp-3"));
        assert!(!is_desktop("pty-1a2b3c"));
        assert!(!is_desktop("r2.ssh-1a2b3c"));
    }
}
