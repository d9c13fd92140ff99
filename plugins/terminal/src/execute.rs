//! `terminal_execute`: run one command line in a session and wait for its end.
//!
//! The command is wrapped between two markers built from a random token at run time:
//! `printf '%s%s\n' 'WDS' 'TOKEN'` prints `WDSTOKEN`, but the shell's echo of the line
//! shows `'WDS' 'TOKEN'`, so neither the echo nor output that merely looks like a marker can
//! end the capture early. The end marker carries `$?` and `$PWD`.
//!
//! The command itself runs through `eval` with its text single-quoted, so nothing in it can
//! reach the end marker: a trailing `# comment` comments out only the command, and an
//! unbalanced quote or a missing heredoc body is a syntax error of the `eval` (exit 2,
//! reported at once) instead of a shell waiting for the rest of the line. `eval` runs in the
//! current shell, so `cd`, variables, functions and aliases behave as if typed.
//!
//! The host is told the end marker (`begin-command`), so a later call can see that a
//! command which outlived its timeout is still running and refuse to type into it.

use crate::capture::{Capture, Cut, clean, end_of, output_start, status_of};
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};
use warden_sdk::ToolError;
use warden_sdk::context;
use warden_sdk::terminal::{KEPT_COMMAND_BYTES, Session};

/// What the markers found.
#[derive(Debug, Default)]
pub struct Outcome {
    pub output: String,
    pub exit_code: Option<i32>,
    pub cwd: Option<String>,
    pub timed_out: bool,
    /// The middle of the output that the result leaves out.
    pub cut: Option<Cut>,
    pub total_bytes: u64,
    pub session_ended: bool,
}

/// A random token from the host's random source (std seeds `RandomState` with it).
fn token() -> String {
    let a = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(a);
    format!("{a:016x}{:08x}", h.finish() as u32)
}

/// The line typed into the shell.
pub fn command_line(command: &str, token: &str) -> String {
    let command = command.trim_end_matches(['\n', '\r', ' ', '\t']);
    let quoted = command.replace('\'', r"'\''");
    format!(
        "printf '%s%s\\n' 'WDS' '{token}'; eval '{quoted}'; printf '\\n%s%s:%s:%s\\n' 'WDE' '{token}' \"$?\" \"$PWD\"\n"
    )
}

/// The refusal for a session whose earlier command still runs.
pub fn busy_message(id: &str) -> String {
    format!(
        "session {id} is still running a command; poll with terminal_read, or send Ctrl-C with terminal_write keys [\"ctrl-c\"]"
    )
}

pub fn run(
    session: &Session,
    command: &str,
    timeout: Duration,
    cap: usize,
) -> Result<Outcome, ToolError> {
    let token = token();
    let start_marker = format!("WDS{token}");
    let end_marker = format!("WDE{token}:");
    let info = session.info();
    if session.busy() {
        return Err(ToolError::failed(busy_message(&info.id)));
    }
    let offset_at_start = info.output_bytes;
    let mut offset = offset_at_start;
    session.begin_command(end_marker.as_bytes());
    session.write(command_line(command, &token).as_bytes())?;

    let deadline = Instant::now() + timeout;
    let mut capture = Capture::new(cap, offset);
    let mut start: Option<usize> = None;
    let mut ended = false;
    let found = loop {
        if start.is_none() {
            start = output_start(capture.head_bytes(), start_marker.as_bytes());
        }
        if let Some(end) = end_of(capture.recent(), end_marker.as_bytes()) {
            break Some(end);
        }
        if ended {
            break None;
        }
        let now = Instant::now();
        if now >= deadline || context::cancelled() {
            break None;
        }
        let wait = (deadline - now).min(Duration::from_secs(2));
        let chunk = session.read(offset, 1024 * 1024, wait)?;
        capture.skip(chunk.skipped);
        capture.push(&chunk.data);
        offset = chunk.next;
        ended = chunk.ended;
    };

    let mut outcome = Outcome {
        total_bytes: capture.total,
        ..Outcome::default()
    };
    let note = |cut: Cut| cut_note(&info.id, offset_at_start, cut);
    let (raw, cut) = match &found {
        Some((end, trailer)) => {
            (outcome.exit_code, outcome.cwd) = status_of(trailer);
            capture.assemble(start.unwrap_or(0), Some(*end), note)
        }
        None => {
            outcome.timed_out = !ended;
            outcome.session_ended = ended;
            if ended {
                outcome.exit_code = session.info().exit_status;
            }
            capture.assemble(start.unwrap_or(0), None, note)
        }
    };
    outcome.cut = cut;
    outcome.output = clean(&raw, found.is_some());
    Ok(outcome)
}

/// What stands in a result for the middle it leaves out: how much, and the `terminal_read`
/// call that continues from there, as far as the session still holds it (the first
/// [`KEPT_COMMAND_BYTES`] of the command's output).
fn cut_note(id: &str, command_start: u64, cut: Cut) -> String {
    const NARROW: &str = "redirect the output to a file, or narrow it with grep/head/tail";
    let kept_end = command_start + KEPT_COMMAND_BYTES;
    let readable = kept_end.saturating_sub(cut.at).min(cut.len);
    let call = format!(
        r#"terminal_read {{"session_id": "{id}", "offset": {}}} (before the next terminal_execute in this session)"#,
        cut.at
    );
    let what = if readable == cut.len {
        format!("read them with {call}")
    } else if readable > 0 {
        format!(
            "{call} reads the first {readable}; the rest is gone (a session keeps the first 8 MiB \
             of a command's output): {NARROW}"
        )
    } else {
        format!("they are gone: {NARROW}")
    };
    format!("\n[... {} bytes left out here; {what} ...]\n", cut.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_echo_never_contains_a_marker() {
        let line = command_line("echo hi", "abc");
        assert!(!line.contains("WDSabc"));
        assert!(!line.contains("WDEabc"));
        assert!(line.starts_with("printf '%s%s\\n' 'WDS' 'abc'; eval 'echo hi'; printf"));
        assert!(line.ends_with("\"$?\" \"$PWD\"\n"));
        assert_eq!(line.matches('\n').count(), 1);
    }

    #[test]
    fn the_command_is_quoted_whole_for_eval() {
        // A comment, a quote or a background job cannot reach the end marker.
        assert!(command_line("echo hi # note", "t").contains("eval 'echo hi # note'; printf"));
        assert!(
            command_line("echo 'a b' \"c\"", "t")
                .contains(r#"eval 'echo '\''a b'\'' "c"'; printf"#)
        );
        assert!(command_line("echo 'open", "t").contains(r"eval 'echo '\''open'; printf"));
        assert!(command_line("sleep 9 &", "t").contains("eval 'sleep 9 &'; printf"));
        assert!(command_line("a && b  \n", "t").contains("eval 'a && b'; printf"));
    }

    #[test]
    fn tokens_differ() {
        assert_ne!(token(), token());
        assert_eq!(token().len(), 24);
    }

    #[test]
    fn cleaning() {
        assert_eq!(
            clean(b"\x1b[1mhi\x1b[0m\r\nthere\r\n\r\n", true),
            "hi\nthere"
        );
        assert_eq!(clean(b"partial", false), "partial");
    }
}
