//! Text Warden did not write, made safe to show a person: the one place where what a
//! plugin, an agent, a page or a server wrote is escaped before it reaches a terminal
//! (`warden audit`, `check`, `call`, `tools`, `recordings`, and every log line on stderr).
//!
//! A terminal obeys what it is sent: a newline starts a row a reader takes for Warden's own
//! (a forged audit line), `ESC [2J` clears the screen, `ESC ] 52` writes the clipboard, a
//! carriage return overwrites what came before it, a bidi override makes text read in
//! another order than it is stored. Each of these characters is shown as an escape instead
//! (`\n`, `\r`, `\t`, `\u{1b}`), so what is printed is what was stored, in plain sight.
//!
//! Escaped: the C0 controls (U+0000–U+001F) and DEL, the C1 controls (U+0080–U+009F),
//! the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
//! implicit marks (U+200E, U+200F, U+061C), and the line and paragraph separators
//! (U+2028, U+2029). A backslash stays itself: the escapes are for a reader, not a parser
//! (`warden audit --json` prints the JSON lines, whose escaping is exact).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

/// Whether `c` may not reach a terminal as it is.
fn unsafe_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        | '\u{200e}' | '\u{200f}' | '\u{061c}'
        | '\u{2028}' | '\u{2029}')
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let keep = |c: char| !unsafe_char(c) || (keep_newlines && c == '\n');
    if text.chars().all(keep) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if keep(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// `text` as part of one line: every unsafe character escaped, newlines too.
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` as a block of lines of its own (a tool's text output printed by `warden call`):
/// newlines stay line breaks, every other unsafe character is escaped.
pub fn block(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// A writer for log lines: what it is handed is one formatted event (tracing's fmt layer
/// writes each event with one `write_all`), escaped as [`line`] but for its final newline.
/// Whatever a plugin's text put in a field or a message stays inside its own log line.
pub struct LogWriter<W>(pub W);

impl<W: io::Write> io::Write for LogWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (body, end) = match text.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (&*text, ""),
        };
        let mut shown = line(body).into_owned();
        shown.push_str(end);
        self.0.write_all(shown.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// The log writer for stderr, as tracing's `with_writer` takes it.
pub fn stderr() -> LogWriter<io::Stderr> {
    LogWriter(io::stderr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn every_terminal_control_is_shown_escaped() {
        let hostile = "a\nb\r\x1b[2J\x1b]52;c;aGk=\x07\u{9b}\u{202e}z\u{2028}\u{7f}";
        let shown = line(hostile);
        assert!(shown.chars().all(|c| !unsafe_char(c)), "{shown}");
        assert_eq!(
            shown,
            "a\\nb\\r\\u{1b}[2J\\u{1b}]52;c;aGk=\\u{7}\\u{9b}\\u{202e}z\\u{2028}\\u{7f}"
        );
        assert_eq!(block("one\ntwo\x1b"), "one\ntwo\\u{1b}");
        assert!(matches!(line("plain text é"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_log_line_keeps_only_its_own_newline() {
        let mut w = LogWriter(Vec::new());
        w.write_all(b"WARN host \"x\nINFO forged\x1b[2J\"\n")
            .expect("write");
        assert_eq!(
            String::from_utf8(w.0).expect("utf-8"),
            "WARN host \"x\\nINFO forged\\u{1b}[2J\"\n"
        );
    }
}
