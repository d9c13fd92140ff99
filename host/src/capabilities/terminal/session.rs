//! One terminal session's output side: a 64 KiB ring buffer of raw output addressed by
//! stream offset, the first 8 MiB of the latest `terminal_execute` command's output, a vt100
//! screen model for TUIs, and the exit status. The pump that feeds it (an SSH channel or a
//! PTY reader) never blocks on a slow reader: old output is dropped, and a read says how
//! much it missed.

use crate::capabilities::conversation::Owner;
use crate::capabilities::resource_events::ResourceEvents;
use crate::recording::TerminalRecorder;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// Output kept per session.
pub const RING_BYTES: usize = 64 * 1024;
/// The beginning of the latest command's output, kept until the next command begins: a
/// result cut to fit a client names the offset where its cut begins, and the bytes after it
/// must still be there to read. Bounded per session (16 sessions at most per plugin).
pub const COMMAND_BYTES: usize = 8 * 1024 * 1024;

/// Smallest screen model: vt100 0.16 panics on a line wrap in a one-row screen and on a wide
/// character (two cells) in a one-column one, and a remote shell may print either any time.
const MIN_COLS: u16 = 2;
const MIN_ROWS: u16 = 2;

/// Run `f` on the screen model; should the third-party parser panic (vt100 0.16 still does
/// on wide characters after a shrinking resize), start a fresh screen of the same size
/// rather than lose the session's pump. The raw output is unaffected.
fn guarded(screen: &mut vt100::Parser, f: impl FnOnce(&mut vt100::Parser)) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(screen))).is_err() {
        let (rows, cols) = screen.screen().size();
        tracing::warn!("the terminal screen model failed on this output; screen reset");
        *screen = vt100::Parser::new(rows.max(MIN_ROWS), cols.max(MIN_COLS), 0);
    }
}

/// Output read from a session (mirrors the WIT `chunk`).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Chunk {
    pub data: Vec<u8>,
    pub next: u64,
    pub skipped: u64,
    pub ended: bool,
}

/// Progress that waiting readers watch: total bytes seen and whether the stream ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Progress {
    total: u64,
    ended: bool,
}

struct Output {
    ring: VecDeque<u8>,
    /// Stream offset of `ring[0]`.
    start: u64,
    screen: vt100::Parser,
    exit_status: Option<i32>,
    /// A command typed by `terminal_execute` that has not printed its end marker yet.
    pending: Option<Pending>,
    /// The last non-blank cursor line while no command was pending: the shell's prompt, for
    /// a command typed right after the previous one ended, before the prompt was redrawn.
    idle_prompt: String,
    /// Stream offset and first bytes (up to [`COMMAND_BYTES`]) of the latest command.
    command: Option<(u64, Vec<u8>)>,
}

/// A running command: its end marker is watched for in everything the pump pushes (not only
/// what a reader happens to read), so its end is seen even after the ring moved past it.
struct Pending {
    marker: Vec<u8>,
    /// The last `marker.len() - 1` bytes pushed, so a marker split across pushes is found.
    carry: Vec<u8>,
    /// The cursor line when the command was typed: the shell's prompt.
    prompt: String,
    /// Bytes pushed since; the prompt only counts as back once the line has been echoed.
    seen: u64,
}

impl Pending {
    /// Feed output; true once the marker has gone by.
    fn feed(&mut self, bytes: &[u8]) -> bool {
        self.seen += bytes.len() as u64;
        let m = self.marker.len();
        let head = &bytes[..bytes.len().min(m.saturating_sub(1))];
        let mut joined = std::mem::take(&mut self.carry);
        joined.extend_from_slice(head);
        if contains(&joined, &self.marker) || contains(bytes, &self.marker) {
            return true;
        }
        // Keep the last m - 1 bytes of (carry + bytes).
        if bytes.len() >= m.saturating_sub(1) {
            self.carry = bytes[bytes.len() + 1 - m.max(1)..].to_vec();
        } else {
            let cut = joined.len().saturating_sub(m.saturating_sub(1));
            joined.drain(..cut);
            self.carry = joined;
        }
        false
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && hay.len() >= needle.len()
        && hay
            .windows(needle.len())
            .any(|w| w[0] == needle[0] && w == needle)
}

/// The text of the cursor's row up to the cursor.
fn cursor_line(screen: &vt100::Screen) -> String {
    let (row, col) = screen.cursor_position();
    screen.contents_between(row, 0, row, col)
}

/// Resources of a plugin that show a session's output (`session.watch`).
struct Watchers {
    events: Arc<ResourceEvents>,
    plugin: Arc<str>,
    owner: Owner,
    uris: Vec<Arc<str>>,
}

/// URIs one session may announce.
pub const MAX_WATCHED: usize = 8;

/// The output of one session, shared by its pump and its readers.
pub struct OutputLog {
    inner: Mutex<Output>,
    watchers: Mutex<Option<Watchers>>,
    progress: watch::Sender<Progress>,
    pub created: SystemTime,
    /// The session's recording (`[audit] record`): every byte pushed here is recorded.
    recorder: Option<Arc<TerminalRecorder>>,
}

impl std::fmt::Debug for OutputLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputLog")
            .field("progress", &*self.progress.borrow())
            .finish_non_exhaustive()
    }
}

impl OutputLog {
    pub fn new(cols: u16, rows: u16) -> Self {
        Self {
            inner: Mutex::new(Output {
                ring: VecDeque::with_capacity(RING_BYTES),
                start: 0,
                screen: vt100::Parser::new(rows.max(MIN_ROWS), cols.max(MIN_COLS), 0),
                exit_status: None,
                pending: None,
                idle_prompt: String::new(),
                command: None,
            }),
            watchers: Mutex::new(None),
            progress: watch::Sender::new(Progress::default()),
            created: SystemTime::now(),
            recorder: None,
        }
    }

    /// Record this session's output (and, through [`Self::recorder`], its input).
    #[must_use]
    pub fn recorded(mut self, recorder: Option<Arc<TerminalRecorder>>) -> Self {
        self.recorder = recorder;
        self
    }

    pub fn recorder(&self) -> Option<&TerminalRecorder> {
        self.recorder.as_deref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Output> {
        // A panic while holding the lock leaves consistent bytes behind; keep serving them.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Append output from the pump.
    pub fn push(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if let Some(r) = &self.recorder {
            r.output(bytes);
        }
        {
            let mut out = self.lock();
            // The screen model is a third-party parser fed by a remote peer: should it panic
            // on some sequence, start a fresh screen rather than lose the session's pump.
            let screen = &mut out.screen;
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| screen.process(bytes)))
                .is_err()
            {
                let (rows, cols) = out.screen.screen().size();
                tracing::warn!("the terminal screen model failed on this output; screen reset");
                out.screen = vt100::Parser::new(rows.max(MIN_ROWS), cols.max(MIN_COLS), 0);
            }
            if let Some(p) = out.pending.as_mut()
                && p.feed(bytes)
            {
                out.pending = None;
            }
            if out.pending.is_none() {
                let line = cursor_line(out.screen.screen());
                if !line.trim().is_empty() {
                    out.idle_prompt = line;
                }
            }
            if let Some((_, kept)) = out.command.as_mut() {
                let room = COMMAND_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&bytes[..room.min(bytes.len())]);
            }
            // Only the last RING_BYTES of a large chunk can be kept anyway.
            let keep = &bytes[bytes.len().saturating_sub(RING_BYTES)..];
            let overflow = (out.ring.len() + keep.len()).saturating_sub(RING_BYTES);
            out.ring.drain(..overflow);
            out.start += overflow as u64 + (bytes.len() - keep.len()) as u64;
            out.ring.extend(keep);
        }
        self.progress.send_modify(|p| p.total += bytes.len() as u64);
        self.announce();
    }

    /// Tell subscribers of the watching resources that output changed.
    fn announce(&self) {
        let watchers = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = watchers.as_ref() {
            for uri in &w.uris {
                w.events.changed(&w.plugin, uri, &w.owner);
            }
        }
    }

    /// `uri` of `plugin` shows this output from now on, to the subscribers of `owner` (the
    /// session's); false when the session already has [`MAX_WATCHED`] of them.
    pub fn watch(
        &self,
        events: &Arc<ResourceEvents>,
        plugin: &str,
        owner: &Owner,
        uri: &str,
    ) -> bool {
        let mut watchers = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        let w = watchers.get_or_insert_with(|| Watchers {
            events: events.clone(),
            plugin: Arc::from(plugin),
            owner: owner.clone(),
            uris: Vec::new(),
        });
        if w.uris.iter().any(|u| &**u == uri) {
            return true;
        }
        if w.uris.len() >= MAX_WATCHED {
            return false;
        }
        w.uris.push(Arc::from(uri));
        true
    }

    /// The stream ended (the shell exited or the connection dropped).
    pub fn end(&self, exit_status: Option<i32>) {
        {
            let mut out = self.lock();
            if out.exit_status.is_none() {
                out.exit_status = exit_status;
            }
        }
        if let Some(r) = &self.recorder {
            r.close();
        }
        self.progress.send_modify(|p| p.ended = true);
    }

    pub fn set_exit_status(&self, status: i32) {
        self.lock().exit_status = Some(status);
    }

    pub fn exit_status(&self) -> Option<i32> {
        self.lock().exit_status
    }

    pub fn ended(&self) -> bool {
        self.progress.borrow().ended
    }

    pub fn total(&self) -> u64 {
        self.progress.borrow().total
    }

    /// Output from `offset`, at most `max` bytes, waiting up to `wait` when none is there yet.
    pub async fn read(&self, offset: u64, max: usize, wait: Duration) -> Chunk {
        let mut rx = self.progress.subscribe();
        if !wait.is_zero() {
            // Elapsed just means "nothing new": answer with what is there (nothing).
            let _ = tokio::time::timeout(wait, rx.wait_for(|p| p.total > offset || p.ended)).await;
        }
        let ended = rx.borrow().ended;
        let out = self.lock();
        let end = out.start + out.ring.len() as u64;
        // Before the ring: the kept beginning of the latest command, if it covers `offset`.
        if let Some((at, kept)) = &out.command
            && offset < out.start
            && (*at..*at + kept.len() as u64).contains(&offset)
        {
            let begin = usize::try_from(offset - at).unwrap_or(usize::MAX);
            let take = kept.len().saturating_sub(begin).min(max);
            return Chunk {
                data: kept[begin..begin + take].to_vec(),
                next: offset + take as u64,
                skipped: 0,
                ended: false,
            };
        }
        let from = offset.clamp(out.start, end);
        let skipped = from.saturating_sub(offset);
        let begin = usize::try_from(from - out.start).unwrap_or(usize::MAX);
        let take = out.ring.len().saturating_sub(begin).min(max);
        let data: Vec<u8> = out.ring.range(begin..begin + take).copied().collect();
        let next = from + take as u64;
        Chunk {
            data,
            next,
            skipped,
            ended: ended && next == end,
        }
    }

    /// The last `lines` lines of buffered output with ANSI escapes removed.
    pub fn scrollback(&self, lines: usize) -> String {
        let raw: Vec<u8> = {
            let out = self.lock();
            out.ring.iter().copied().collect()
        };
        let text = strip_ansi_escapes::strip_str(String::from_utf8_lossy(&raw));
        let text = text.replace("\r\n", "\n").replace('\r', "");
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// The vt100 screen as text, trailing blank lines removed.
    pub fn screen(&self) -> String {
        let contents = self.lock().screen.screen().contents();
        contents.trim_end_matches('\n').to_string()
    }

    /// A command was typed that prints `marker` when it ends (see [`Self::busy`]).
    pub fn begin_command(&self, marker: Vec<u8>) {
        let mut out = self.lock();
        let mut prompt = cursor_line(out.screen.screen());
        if prompt.trim().is_empty() {
            prompt = out.idle_prompt.clone();
        }
        out.pending = Some(Pending {
            marker,
            carry: Vec::new(),
            prompt,
            seen: 0,
        });
        let at = out.start + out.ring.len() as u64;
        out.command = Some((at, Vec::new()));
    }

    /// The command from [`Self::begin_command`] still runs: its marker has not been seen,
    /// the session has not ended, and the cursor is not back at the same (non-blank) prompt
    /// after output, which is how an interrupted command (Ctrl-C skips the marker) ends.
    pub fn busy(&self) -> bool {
        if self.ended() {
            return false;
        }
        let mut out = self.lock();
        let Some(p) = out.pending.as_ref() else {
            return false;
        };
        let prompt_back = !p.prompt.trim().is_empty()
            && p.seen > 0
            && cursor_line(out.screen.screen()) == p.prompt;
        if prompt_back {
            out.pending = None;
        }
        !prompt_back
    }

    pub fn resize(&self, cols: u16, rows: u16) {
        guarded(&mut self.lock().screen, |screen| {
            screen
                .screen_mut()
                .set_size(rows.max(MIN_ROWS), cols.max(MIN_COLS));
        });
    }

    pub fn size(&self) -> (u16, u16) {
        let (rows, cols) = self.lock().screen.screen().size();
        (cols, rows)
    }

    pub fn created_secs(&self) -> u64 {
        self.created
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_wide_character_on_a_one_column_screen_is_kept() {
        // Found by the fuzz harness: vt100 panicked on a line wrap in one row and on a wide
        // character in one column.
        let log = OutputLog::new(1, 1);
        log.push("a\u{1F600}b\u{4E2D}\r\n".as_bytes());
        log.resize(1, 1);
        log.push("\u{1F600}\u{1F600}".as_bytes());
        assert_eq!(log.size(), (MIN_COLS, MIN_ROWS));
        // A shrinking resize under wide characters made vt100 panic: contained, screen reset.
        log.resize(80, 24);
        log.push("x\u{4E2D}\u{4E2D}\u{4E2D}\u{4E2D}\u{4E2D}".as_bytes());
        log.resize(3, 2);
        log.push("x\u{4E2D}\u{4E2D}\u{4E2D}\u{4E2D}\u{4E2D}\x1b[1;1H\u{4E2D}".as_bytes());
        log.push(b"still here");
        let c = log.read(0, 1024, Duration::ZERO).await;
        assert_eq!(c.next, c.data.len() as u64);
        assert!(!log.screen().is_empty());
    }

    #[tokio::test]
    async fn ring_keeps_the_last_64_kib_and_counts_what_was_missed() {
        let log = OutputLog::new(80, 24);
        log.push(b"hello ");
        log.push(b"world");
        let c = log.read(0, 1024, Duration::ZERO).await;
        assert_eq!(c.data, b"hello world");
        assert_eq!((c.next, c.skipped, c.ended), (11, 0, false));
        let c = log.read(6, 3, Duration::ZERO).await;
        assert_eq!(c.data, b"wor");

        let big = vec![b'x'; 100_000];
        log.push(&big);
        assert_eq!(log.total(), 100_011);
        let c = log.read(0, usize::MAX, Duration::ZERO).await;
        assert_eq!(c.data.len(), RING_BYTES);
        assert_eq!(c.skipped, 100_011 - RING_BYTES as u64);
        assert_eq!(c.next, 100_011);
        log.push(b"tail");
        let c = log.read(100_011, 100, Duration::ZERO).await;
        assert_eq!(c.data, b"tail");
    }

    #[tokio::test]
    async fn the_beginning_of_the_latest_command_stays_readable() {
        let log = OutputLog::new(80, 24);
        log.push(b"before");
        log.begin_command(b"END".to_vec());
        let out: Vec<u8> = (0..COMMAND_BYTES + 200_000)
            .map(|i| (i % 251) as u8)
            .collect();
        log.push(&out);
        // Inside the kept beginning: whole, nothing skipped.
        let c = log.read(6 + 1000, 500, Duration::ZERO).await;
        assert_eq!(c.data, &out[1000..1500]);
        assert_eq!((c.next, c.skipped), (6 + 1500, 0));
        // Between the kept beginning and the ring: gone, and said so.
        let gap = 6 + COMMAND_BYTES as u64 + 10;
        let c = log.read(gap, 100, Duration::ZERO).await;
        let ring_start = log.total() - RING_BYTES as u64;
        assert_eq!(c.skipped, ring_start - gap);
        // Output from before the command is not kept by it.
        assert_eq!(log.read(0, 10, Duration::ZERO).await.skipped, ring_start);
        // The next command replaces it.
        log.begin_command(b"END2".to_vec());
        assert!(log.read(6 + 1000, 10, Duration::ZERO).await.skipped > 0);
    }

    #[tokio::test]
    async fn read_waits_for_output_and_sees_the_end() {
        let log = std::sync::Arc::new(OutputLog::new(80, 24));
        let l = log.clone();
        let waiter = tokio::spawn(async move { l.read(0, 100, Duration::from_secs(5)).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        log.push(b"late");
        assert_eq!(waiter.await.expect("joined").data, b"late");
        log.end(Some(3));
        let c = log.read(4, 100, Duration::from_secs(5)).await;
        assert!(c.ended && c.data.is_empty());
        assert_eq!(log.exit_status(), Some(3));
    }

    #[test]
    fn a_command_is_busy_until_its_marker_even_when_split() {
        let log = OutputLog::new(40, 5);
        assert!(!log.busy());
        log.push(b"user@box:~$ ");
        log.begin_command(b"WDEtoken:".to_vec());
        assert!(log.busy());
        log.push(b"printf ... 'WDE' 'token'\r\nbefore\r\n");
        assert!(log.busy());
        log.push(b"xxWD");
        log.push(b"Eto");
        assert!(log.busy());
        log.push(b"ken:0:/\r\nuser@box:~$ ");
        assert!(!log.busy());
        // A marker inside one big push.
        log.begin_command(b"WDEnext:".to_vec());
        log.push(&[b'y'; 5000]);
        log.push(&[&[b'z'; 100][..], b"WDEnext:1:/tmp", &[b'z'; 100][..]].concat());
        assert!(!log.busy());
    }

    #[test]
    fn an_interrupted_command_ends_when_its_prompt_is_back() {
        let log = OutputLog::new(40, 5);
        log.push(b"user@box:~$ ");
        log.begin_command(b"WDEtoken:".to_vec());
        // Before anything was echoed the prompt is still there: that is not an end.
        assert!(log.busy());
        log.push(b"sleep 30 ...\r\nbefore\r\n");
        assert!(log.busy());
        log.push(b"^C\r\nuser@box:~$ ");
        assert!(!log.busy());
        // A command typed as soon as the previous one's marker came, before the prompt.
        log.begin_command(b"WDEone:".to_vec());
        log.push(b"echo one ...\r\none\r\nWDEone:0:/\r\n");
        assert!(!log.busy());
        log.begin_command(b"WDEtwo:".to_vec());
        log.push(b"user@box:~$ cat ...\r\n");
        assert!(log.busy());
        log.push(b"^C\r\nuser@box:~$ ");
        assert!(!log.busy());
        // Without a visible prompt only the marker (or the end) ends it.
        let log = OutputLog::new(40, 5);
        log.begin_command(b"WDEtoken:".to_vec());
        log.push(b"cmd\r\n");
        assert!(log.busy());
        log.end(Some(0));
        assert!(!log.busy());
    }

    #[test]
    fn scrollback_strips_ansi_and_screen_renders() {
        let log = OutputLog::new(20, 5);
        log.push(b"\x1b[31mred\x1b[0m line\r\nsecond\r\nthird\r\n");
        assert_eq!(log.scrollback(2), "second\nthird");
        assert_eq!(log.scrollback(10), "red line\nsecond\nthird");
        log.push(b"\x1b[2J\x1b[1;1Htop-left");
        assert_eq!(log.screen(), "top-left");
    }
}
