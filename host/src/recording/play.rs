//! A terminal recording played back: its output written in time (scaled by `speed`) and,
//! unless `raw`, through [`SafeOutput`] (the admin's terminal obeys no sequence from the
//! session that sets its clipboard or types into it); its notes (`"m"` events) on their own
//! line; what Warden typed left out (the terminal's echo shows it).

use super::safe_output::SafeOutput;
use serde_json::Value;
use std::io::{BufRead, Write};
use std::time::Duration;

/// How to play.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// 2.0 plays twice as fast.
    pub speed: f64,
    /// Wait between events (false: write everything at once, as tests do).
    pub wait: bool,
    /// Write the output exactly as recorded, escape sequences and all.
    pub raw: bool,
}

/// What was played.
#[derive(Debug, Default, PartialEq)]
pub struct Played {
    pub events: usize,
    /// Seconds from the first to the last event, as recorded.
    pub duration: f64,
    /// Lines that were not events (the last one cut by a crash, say).
    pub unreadable: usize,
}

/// Why a recording cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error("this is not an asciicast v2 recording (its first line is not a version 2 header)")]
    NotAsciicast,
    #[error("this is a recording of a {0} session, not a terminal: open it in `warden audit view`")]
    NotTerminal(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Play `input` (an asciicast v2 recording) to `out`, notes to `notes`.
pub fn play(
    input: impl BufRead,
    out: &mut impl Write,
    notes: &mut impl Write,
    options: Options,
) -> Result<Played, PlayError> {
    let mut lines = input.lines();
    let header: Value = match lines.next() {
        Some(line) => serde_json::from_str(&line?).map_err(|_| PlayError::NotAsciicast)?,
        None => return Err(PlayError::NotAsciicast),
    };
    if header.get("format").and_then(Value::as_str) == Some(super::events::FORMAT) {
        let kind = header
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("other");
        return Err(PlayError::NotTerminal(kind.to_string()));
    }
    if header.get("version").and_then(Value::as_u64) != Some(2) {
        return Err(PlayError::NotAsciicast);
    }
    let speed = if options.speed > 0.0 {
        options.speed
    } else {
        1.0
    };
    let mut played = Played::default();
    let mut last = 0.0_f64;
    let mut safe = SafeOutput::default();
    for line in lines {
        let line = line?;
        let Ok(Value::Array(event)) = serde_json::from_str::<Value>(&line) else {
            played.unreadable += 1;
            continue;
        };
        let (Some(t), Some(code), Some(data)) = (
            event.first().and_then(Value::as_f64),
            event.get(1).and_then(Value::as_str),
            event.get(2).and_then(Value::as_str),
        ) else {
            played.unreadable += 1;
            continue;
        };
        // A time from the file may be anything: one too large for a Duration is not waited.
        if options.wait
            && t > last
            && let Ok(pause) = Duration::try_from_secs_f64((t - last) / speed)
        {
            std::thread::sleep(pause);
        }
        last = last.max(t);
        played.events += 1;
        played.duration = last;
        match code {
            "o" if options.raw => {
                out.write_all(data.as_bytes())?;
                out.flush()?;
            }
            "o" => {
                out.write_all(safe.filter(data).as_bytes())?;
                out.flush()?;
            }
            "m" => writeln!(notes, "\r\n[recording: {data}]")?,
            _ => {}
        }
    }
    Ok(played)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_played_in_order_and_notes_apart() {
        let cast = concat!(
            "{\"version\": 2, \"width\": 80, \"height\": 24}\n",
            "[0.1, \"o\", \"$ \"]\n",
            "[0.2, \"i\", \"ls\\r\"]\n",
            "[0.3, \"o\", \"ls\\r\\na b\\r\\n\"]\n",
            "[0.4, \"r\", \"100x30\"]\n",
            "[0.5, \"m\", \"recording stopped\"]\n",
            "[0.6, \"o\", \"cut by a cra",
        );
        let (mut out, mut notes) = (Vec::new(), Vec::new());
        let opts = Options {
            speed: 1.0,
            wait: false,
            raw: false,
        };
        let played = play(cast.as_bytes(), &mut out, &mut notes, opts).expect("plays");
        assert_eq!(out, b"$ ls\r\na b\r\n");
        assert_eq!(
            String::from_utf8_lossy(&notes),
            "\r\n[recording: recording stopped]\n"
        );
        assert_eq!((played.events, played.unreadable), (5, 1));
        assert!((played.duration - 0.5).abs() < 1e-9);
        let not = play(&b"hello\n"[..], &mut out, &mut notes, opts);
        assert!(matches!(not, Err(PlayError::NotAsciicast)));
        let browser = play(
            &b"{\"format\":\"warden-recording\",\"version\":1,\"kind\":\"browser\"}\n"[..],
            &mut Vec::new(),
            &mut Vec::new(),
            opts,
        );
        assert!(matches!(browser, Err(PlayError::NotTerminal(k)) if k == "browser"));
    }

    #[test]
    fn timing_is_honoured_and_scaled() {
        let cast = "{\"version\": 2}\n[0.0, \"o\", \"a\"]\n[0.2, \"o\", \"b\"]\n";
        let (mut out, mut notes) = (Vec::new(), Vec::new());
        let started = std::time::Instant::now();
        play(
            cast.as_bytes(),
            &mut out,
            &mut notes,
            Options {
                speed: 2.0,
                wait: true,
                raw: false,
            },
        )
        .expect("plays");
        // 0.2 s recorded, played at twice the speed: at least 0.1 s.
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(out, b"ab");
    }

    #[test]
    fn a_time_no_pause_can_hold_is_not_waited_and_does_not_panic() {
        let cast = "{\"version\": 2}\n[1e300, \"o\", \"a\"]\n[1e301, \"o\", \"b\"]\n";
        let (mut out, mut notes) = (Vec::new(), Vec::new());
        let opts = Options {
            speed: 1.0,
            wait: true,
            raw: false,
        };
        let played = play(cast.as_bytes(), &mut out, &mut notes, opts).expect("plays");
        assert_eq!((out.as_slice(), played.events), (&b"ab"[..], 2));
    }
}
