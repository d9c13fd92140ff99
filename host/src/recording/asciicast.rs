//! asciicast v2, the format of terminal recordings (`asciinema play` plays them): a header
//! line, then one `[time, code, data]` line per event: `"o"` output, `"i"` what Warden
//! typed, `"r"` a resize (`"COLSxROWS"`), `"m"` a note. Data is text: a UTF-8 sequence split
//! between two reads is joined before it is written, and bytes that are not UTF-8 become
//! U+FFFD (as a terminal would show them).

use super::format::Format;
use serde_json::json;

/// What an asciicast header says about a terminal session.
#[derive(Debug, Clone)]
pub struct Header<'a> {
    pub cols: u16,
    pub rows: u16,
    /// Seconds since the epoch when the session began.
    pub timestamp: u64,
    pub session: &'a str,
    /// `local` or `ssh:ALIAS`.
    pub target: &'a str,
    pub plugin: &'a str,
    pub client: Option<&'a str>,
}

impl Header<'_> {
    /// The header line. `warden` is an extra key players ignore: who the session was for.
    pub fn line(&self) -> Vec<u8> {
        let header = json!({
            "version": 2,
            "width": self.cols,
            "height": self.rows,
            "timestamp": self.timestamp,
            "title": format!("{} session {} ({})", self.target, self.session, self.plugin),
            "env": {"TERM": "xterm-256color"},
            "warden": {
                "kind": "terminal",
                "session": self.session,
                "target": self.target,
                "plugin": self.plugin,
                "client": self.client,
            },
        });
        let mut line = header.to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

/// The event lines of one terminal recording.
#[derive(Debug, Default)]
pub struct Asciicast {
    /// The start of a UTF-8 sequence the last output (or input) ended in.
    out_carry: Vec<u8>,
    in_carry: Vec<u8>,
}

impl Format for Asciicast {
    fn line(&mut self, t: f64, code: u8, data: &[u8]) -> Vec<u8> {
        let text = match code {
            b'o' => decode(&mut self.out_carry, data),
            b'i' => decode(&mut self.in_carry, data),
            _ => String::from_utf8_lossy(data).into_owned(),
        };
        event(t, code, &text)
    }

    fn note(&mut self, t: f64, text: &str) -> Vec<u8> {
        event(t, b'm', text)
    }
}

fn event(t: f64, code: u8, text: &str) -> Vec<u8> {
    let code = char::from(code).to_string();
    let mut line = format!("[{t:.6}, {}, {}]", json!(code), json!(text)).into_bytes();
    line.push(b'\n');
    line
}

/// `carry` + `data` as text; an incomplete sequence at the end waits in `carry`.
fn decode(carry: &mut Vec<u8>, data: &[u8]) -> String {
    let mut bytes = std::mem::take(carry);
    bytes.extend_from_slice(data);
    let mut text = String::with_capacity(bytes.len());
    let mut rest = &bytes[..];
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                text.push_str(s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                // `valid_up_to` is a char boundary, so this is valid text.
                text.push_str(&String::from_utf8_lossy(good));
                match e.error_len() {
                    Some(n) => {
                        text.push('\u{FFFD}');
                        rest = bad.get(n..).unwrap_or_default();
                    }
                    None => {
                        carry.extend_from_slice(bad);
                        break;
                    }
                }
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[u8]) -> serde_json::Value {
        serde_json::from_slice(line).expect("json line")
    }

    #[test]
    fn a_sequence_split_between_reads_is_joined() {
        let mut cast = Asciicast::default();
        let euro = "€".as_bytes();
        let first = parse(&cast.line(0.5, b'o', &[b"a", &euro[..1]].concat()));
        assert_eq!(first, json!([0.5, "o", "a"]));
        let second = parse(&cast.line(0.75, b'o', &[&euro[1..], b"b\x1b[0m"].concat()));
        assert_eq!(second, json!([0.75, "o", "€b\u{1b}[0m"]));
        // Not UTF-8 at all: shown as a terminal shows it, and nothing is held back.
        let bad = parse(&cast.line(1.0, b'o', b"x\xffy"));
        assert_eq!(bad, json!([1.0, "o", "x\u{FFFD}y"]));
        // Input keeps its own carry.
        assert_eq!(
            parse(&cast.line(1.0, b'i', &euro[..2])),
            json!([1.0, "i", ""])
        );
        assert_eq!(parse(&cast.line(1.0, b'o', b"z")), json!([1.0, "o", "z"]));
        assert_eq!(
            parse(&cast.line(1.5, b'i', &euro[2..])),
            json!([1.5, "i", "€"])
        );
        assert_eq!(parse(&cast.note(2.0, "stop")), json!([2.0, "m", "stop"]));
    }

    #[test]
    fn the_header_is_asciicast_v2() {
        let h = Header {
            cols: 100,
            rows: 30,
            timestamp: 1_800_000_000,
            session: "local-abc123",
            target: "local",
            plugin: "ops",
            client: Some("alice"),
        };
        let v = parse(&h.line());
        assert_eq!(v["version"], 2);
        assert_eq!(
            (v["width"].as_u64(), v["height"].as_u64()),
            (Some(100), Some(30))
        );
        assert_eq!(v["warden"]["client"], "alice");
    }
}
