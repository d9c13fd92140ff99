//! Warden's event lines, the format of remote-desktop and browser recordings (terminals use
//! asciicast): a header line `{"format": "warden-recording", "version": 1, "kind": ...,
//! "timestamp", "width", "height", "warden": {session, target, plugin, client}}`, then one
//! `[time, code, data]` line per event, where `data` is a JSON value (a frame, a snapshot,
//! an action). The shape is asciicast's, so one reader (`warden audit view`) walks both; a
//! note is `[time, "m", "text"]` as in asciicast.
//!
//! Remote desktops (`kind` `rdp`, header `extra.frame_rate`; written by
//! `capabilities/rdp/recording.rs`). A player draws each keyframe onto a canvas and paints
//! each patch at (x, y); every PNG is 8-bit RGB, base64:
//!
//! | code | data |
//! |---|---|
//! | `k` | keyframe: `{"width", "height", "png"}`, the whole desktop (at the start, after a resize, at least every 10 s while it changes) |
//! | `d` | changes since the last frame: `{"patches": [{"x", "y", "w", "h", "png"}]}`; none while the desktop is still |
//! | `k`, `d` with `"shot"` | the frame a screenshot showed the plugin: `"shot": {"n", "x", "y", "width", "height", "scale"}` (`n` counts the session's screenshots from 1; a `d` with no patches when nothing changed since the last frame) |
//! | `i` | input Warden sent: `{"op": "move", "x", "y"}`, `{"op": "click", "x", "y", "button", "count"}`, `{"op": "drag", "from": [x, y], "to": [x, y], "button"}`, `{"op": "scroll", "x", "y", "vertical", "horizontal"}`, `{"op": "type", "text"}`, `{"op": "keys", "keys": [names]}` |
//! | `r` | a resize: `{"asked": [w, h], "width", "height", "method"}` (the new frame follows as a keyframe) |
//! | `m` | a note (a screenshot the recorder was too far behind to keep, a frame that could not be encoded) |

use super::format::Format;
use serde_json::{Value, json};

/// The `format` key of a Warden event-line recording's header.
pub const FORMAT: &str = "warden-recording";

/// What the header says about a session.
#[derive(Debug, Clone)]
pub struct Header<'a> {
    /// `rdp` or `browser`.
    pub kind: &'a str,
    /// Seconds since the epoch when the session began.
    pub timestamp: u64,
    pub width: u32,
    pub height: u32,
    pub session: &'a str,
    pub target: &'a str,
    pub plugin: &'a str,
    pub client: Option<&'a str>,
    /// Anything else the kind says in its header (frame rate, ...).
    pub extra: Value,
}

impl Header<'_> {
    pub fn line(&self) -> Vec<u8> {
        let header = json!({
            "format": FORMAT,
            "version": 1,
            "kind": self.kind,
            "timestamp": self.timestamp,
            "width": self.width,
            "height": self.height,
            "title": format!("{} session {} ({})", self.target, self.session, self.plugin),
            "warden": {
                "kind": self.kind,
                "session": self.session,
                "target": self.target,
                "plugin": self.plugin,
                "client": self.client,
            },
            "extra": self.extra,
        });
        let mut line = header.to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

/// The event lines of a recording whose events are JSON values (the recorder hands each
/// value over serialized).
#[derive(Debug, Default)]
pub struct EventLines;

impl Format for EventLines {
    fn line(&mut self, t: f64, code: u8, data: &[u8]) -> Vec<u8> {
        // Data is serialized JSON from this process; anything else is kept as a string.
        let data: Value = serde_json::from_slice(data)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(data).into_owned()));
        event(t, code, &data)
    }

    fn note(&mut self, t: f64, text: &str) -> Vec<u8> {
        event(t, b'm', &Value::String(text.to_string()))
    }
}

fn event(t: f64, code: u8, data: &Value) -> Vec<u8> {
    let code = char::from(code).to_string();
    let mut line = format!("[{t:.6}, {}, {data}]", json!(code)).into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_one_json_array_per_line() {
        let mut f = EventLines;
        let line = f.line(1.5, b'a', br#"{"action":"click","ref":3}"#);
        let v: Value = serde_json::from_slice(&line).expect("json");
        assert_eq!(v, json!([1.5, "a", {"action": "click", "ref": 3}]));
        let note: Value = serde_json::from_slice(&f.note(2.0, "stopped")).expect("json");
        assert_eq!(note, json!([2.0, "m", "stopped"]));
        let raw: Value = serde_json::from_slice(&f.line(0.0, b'x', b"not json")).expect("json");
        assert_eq!(raw, json!([0.0, "x", "not json"]));
        let header: Value = serde_json::from_slice(
            &Header {
                kind: "rdp",
                timestamp: 7,
                width: 800,
                height: 600,
                session: "rdp-1",
                target: "rdp:desk",
                plugin: "rdp",
                client: None,
                extra: json!({"fps": 2}),
            }
            .line(),
        )
        .expect("json");
        assert_eq!(header["format"], FORMAT);
        assert_eq!(header["warden"]["kind"], "rdp");
        assert_eq!(header["extra"]["fps"], 2);
    }
}
