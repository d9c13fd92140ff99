//! What of a recording reaches the admin's terminal on `warden audit play`. The output was
//! written by whatever ran in the session (a hostile host, an agent's program), and an admin's
//! terminal obeys escape sequences: it may set the clipboard (OSC 52), set a title and report
//! it back as typed input, or answer queries into the admin's shell. So strings (OSC, DCS,
//! APC, PM, SOS) and the queries a terminal answers (device status, attributes, window
//! reports, mode requests) are dropped; text, colours and cursor movement are kept, so the
//! screen looks as it did. A sequence may span events: the filter keeps its state.

/// The longest control sequence kept; a longer one is dropped whole.
const MAX_CSI: usize = 64;

#[derive(Debug, Default)]
enum State {
    #[default]
    Ground,
    /// After ESC.
    Esc,
    /// Inside a control sequence (its bytes so far).
    Csi(String),
    /// Inside a string (OSC, DCS, ...), dropped until its end.
    Str,
    /// ESC inside a string: `\` ends it.
    StrEsc,
    /// Inside a control sequence too long to be kept: dropped until its final byte.
    CsiSkip,
}

/// The filter, fed event by event.
#[derive(Debug, Default)]
pub struct SafeOutput {
    state: State,
}

impl SafeOutput {
    /// `text` with strings and queries dropped.
    pub fn filter(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            self.feed(c, &mut out);
        }
        out
    }

    fn feed(&mut self, c: char, out: &mut String) {
        match std::mem::take(&mut self.state) {
            State::Ground => match c {
                '\u{1b}' => self.state = State::Esc,
                '\u{9b}' => self.state = State::Csi("\u{1b}[".into()),
                '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => self.state = State::Str,
                // Other C1 controls: nothing a replay needs.
                '\u{80}'..='\u{9f}' => {}
                c => out.push(c),
            },
            State::Esc => match c {
                '[' => self.state = State::Csi("\u{1b}[".into()),
                ']' | 'P' | 'X' | '^' | '_' => self.state = State::Str,
                c => {
                    out.push('\u{1b}');
                    out.push(c);
                }
            },
            State::Csi(mut seq) => {
                seq.push(c);
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    if !is_query(&seq, c) {
                        out.push_str(&seq);
                    }
                } else if seq.len() <= MAX_CSI {
                    self.state = State::Csi(seq);
                } else {
                    self.state = State::CsiSkip;
                }
            }
            State::CsiSkip => {
                if !('\u{40}'..='\u{7e}').contains(&c) {
                    self.state = State::CsiSkip;
                }
            }
            State::Str => match c {
                '\u{7}' | '\u{9c}' => {}
                '\u{1b}' => self.state = State::StrEsc,
                _ => self.state = State::Str,
            },
            State::StrEsc => {
                if c != '\\' {
                    // Any ESC ends a string; what follows starts a sequence of its own.
                    self.state = State::Esc;
                    self.feed(c, out);
                }
            }
        }
    }
}

/// A control sequence the terminal answers by typing into its input: device status (`n`),
/// attributes (`c`), window operations and reports (`t`), parameter and mode requests
/// (`x`, `$p`), status strings (`$q` is a DCS, dropped as a string).
fn is_query(seq: &str, last: char) -> bool {
    matches!(last, 'n' | 'c' | 't' | 'x') || (last == 'p' && seq.contains('$'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_queries_are_dropped_text_and_colours_kept() {
        let mut f = SafeOutput::default();
        let hostile = concat!(
            "\x1b]52;c;ZWNobyBwd25lZA==\x07",   // clipboard write
            "\x1b]0;title\x1b\\",               // title, ST-terminated
            "\x1b[21t",                         // report the title as input
            "\x1b[6n\x1b[c\x1b[>c\x1b[?2004$p", // cursor, attributes, mode request
            "\x1bP$q\"p\x1b\\",                 // DCS status string request
            "\u{9d}8;;http://x\u{9c}",          // 8-bit OSC (hyperlink)
            "\x1b[31mred\x1b[0m \x1b[2;5Hat\r\n\x1b(B\x1b7ok\x1b8",
        );
        assert_eq!(
            f.filter(hostile),
            "\x1b[31mred\x1b[0m \x1b[2;5Hat\r\n\x1b(B\x1b7ok\x1b8"
        );
    }

    #[test]
    fn a_sequence_split_between_events_is_still_dropped() {
        let mut f = SafeOutput::default();
        assert_eq!(f.filter("a\x1b]52;c;"), "a");
        assert_eq!(f.filter("ZWNobw==\x07b\x1b["), "b");
        assert_eq!(f.filter("6nc\x1b[1"), "c");
        assert_eq!(f.filter("mbold"), "\x1b[1mbold");
        // A control sequence too long to be one is dropped whole, not passed on in pieces.
        let long = format!("\x1b[{}m", "1;".repeat(100));
        assert_eq!(f.filter(&format!("{long}x")), "x");
    }
}
