//! Collects a command's output between its start and end markers, keeping the first and
//! the last half of a byte cap and recording where the middle that was left out begins (a
//! stream offset, so `terminal_read` can continue from there) and how long it is.

/// Bytes moved from the head into the tail when the head fills, so that a marker spanning
/// the boundary is always whole in the tail.
const OVERLAP: usize = 128;

/// The middle of the output that a result leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// Stream offset of its first byte.
    pub at: u64,
    /// Its length in bytes.
    pub len: u64,
}

#[derive(Debug)]
pub struct Capture {
    /// Stream offset of the first byte pushed.
    base: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
    half: usize,
    full: bool,
    /// Stream offset of the first byte after the head, once the head is full.
    head_end: Option<u64>,
    /// Bytes cut from the middle (by us or because the host's buffer had moved on).
    pub omitted: u64,
    pub total: u64,
}

impl Capture {
    /// A capture of at most `cap` bytes of the stream that starts at offset `base`.
    pub fn new(cap: usize, base: u64) -> Self {
        Self {
            base,
            head: Vec::new(),
            tail: Vec::new(),
            half: (cap / 2).max(OVERLAP * 2),
            full: false,
            head_end: None,
            omitted: 0,
            total: 0,
        }
    }

    /// Output the host dropped before we could read it.
    pub fn skip(&mut self, n: u64) {
        if n > 0 {
            if !self.full {
                self.head_end = Some(self.base + self.total);
            }
            self.omitted += n;
            self.total += n;
            self.full = true;
        }
    }

    pub fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        let mut data = data;
        if !self.full {
            let room = self.half - self.head.len();
            let take = room.min(data.len());
            self.head.extend_from_slice(&data[..take]);
            data = &data[take..];
            if !data.is_empty() {
                self.full = true;
                let keep = self.head.len().saturating_sub(OVERLAP);
                self.tail.extend_from_slice(&self.head[keep..]);
                self.head.truncate(keep);
                // The head is the stream's first bytes: nothing was skipped before it filled.
                self.head_end = Some(self.base + self.head.len() as u64);
            }
        }
        self.tail.extend_from_slice(data);
        // Trim in batches so pushes stay cheap.
        if self.tail.len() > self.half * 2 {
            let cut = self.tail.len() - self.half;
            self.tail.drain(..cut);
            self.omitted += cut as u64;
        }
    }

    /// Where the live search for the end marker looks.
    pub fn recent(&self) -> &[u8] {
        if self.full { &self.tail } else { &self.head }
    }

    /// The collected output: head, `note(cut)` when something was cut, tail; with the bytes
    /// from `start` (an index into the head, or 0) up to `end` (an index into `recent()`).
    pub fn assemble(
        &self,
        start: usize,
        end: Option<usize>,
        note: impl Fn(Cut) -> String,
    ) -> (Vec<u8>, Option<Cut>) {
        let start = start.min(self.head.len());
        if !self.full {
            let end = end.unwrap_or(self.head.len()).clamp(start, self.head.len());
            return (self.head[start..end].to_vec(), None);
        }
        let end = end.unwrap_or(self.tail.len()).min(self.tail.len());
        // The tail buffer holds up to twice its share between trims: keep only its share.
        let begin = end.saturating_sub(self.half);
        let omitted = self.omitted + begin as u64;
        let mut out = self.head[start..].to_vec();
        let cut = (omitted > 0).then(|| Cut {
            at: self.head_end.unwrap_or(self.base + self.head.len() as u64),
            len: omitted,
        });
        if let Some(cut) = cut {
            out.extend_from_slice(note(cut).as_bytes());
        }
        out.extend_from_slice(&self.tail[begin..end]);
        (out, cut)
    }

    /// The head, where the start marker is looked for.
    pub fn head_bytes(&self) -> &[u8] {
        &self.head
    }
}

/// Where a command's output begins in `head`: on the line after the start marker, once that
/// line is complete.
pub fn output_start(head: &[u8], start_marker: &[u8]) -> Option<usize> {
    let i = find(head, start_marker)?;
    let nl = head[i..].iter().position(|&b| b == b'\n')?;
    Some(i + nl + 1)
}

/// The end marker in `recent` once its line is complete: its index and the rest of its line
/// (`STATUS:CWD`).
pub fn end_of(recent: &[u8], end_marker: &[u8]) -> Option<(usize, String)> {
    let i = find(recent, end_marker)?;
    let rest = &recent[i + end_marker.len()..];
    let nl = rest.iter().position(|&b| b == b'\n')?;
    let trailer = String::from_utf8_lossy(&rest[..nl])
        .trim_end_matches('\r')
        .to_string();
    Some((i, trailer))
}

/// The exit status and working directory an end marker's trailer names.
pub fn status_of(trailer: &str) -> (Option<i32>, Option<String>) {
    let (code, cwd) = trailer.split_once(':').unwrap_or((trailer, ""));
    (
        code.trim().parse().ok(),
        (!cwd.is_empty()).then(|| cwd.to_string()),
    )
}

/// Terminal bytes to plain text: escapes stripped, CRLF to LF, and for a finished command
/// the trailing newlines (the command's last one and the one the end marker adds) removed.
pub fn clean(raw: &[u8], finished: bool) -> String {
    let text = strip_ansi_escapes::strip_str(String::from_utf8_lossy(raw));
    let text = text.replace("\r\n", "\n").replace('\r', "");
    if finished {
        text.trim_end_matches('\n').to_string()
    } else {
        text
    }
}

/// Position of `needle` in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(cut: Cut) -> String {
        format!("[cut {} at {}]", cut.len, cut.at)
    }

    #[test]
    fn small_output_is_kept_whole() {
        let mut c = Capture::new(1024, 0);
        c.push(b"hello ");
        c.push(b"world");
        assert_eq!(c.assemble(0, None, note), (b"hello world".to_vec(), None));
        assert_eq!(c.assemble(6, Some(9), note).0, b"wor");
    }

    #[test]
    fn large_output_keeps_both_ends_and_a_note() {
        let mut c = Capture::new(1024, 7000);
        c.push(b"BEGIN");
        for _ in 0..1000 {
            c.push(&[b'x'; 100]);
        }
        c.push(b"MARK");
        let end = find(c.recent(), b"MARK");
        assert!(end.is_some());
        let (out, cut) = c.assemble(0, end, note);
        let cut = cut.expect("cut");
        assert!(out.starts_with(b"BEGIN"));
        let text = String::from_utf8(out).expect("utf8");
        // The head is everything before the cut, the tail everything after it.
        let head = text.split_once("[cut").expect("note").0;
        assert_eq!(cut.at, 7000 + head.len() as u64);
        assert!(text.contains(&format!("[cut {} at {}]", cut.len, cut.at)));
        assert!(text.len() <= 1024 + 64, "{} bytes", text.len());
        let tail = text.rsplit_once(']').expect("note").1;
        assert_eq!(head.len() as u64 + cut.len + tail.len() as u64, 5 + 100_000);
        assert_eq!(c.total, 5 + 100_000 + 4);
    }

    #[test]
    fn a_marker_across_the_head_boundary_is_found() {
        let mut c = Capture::new(512, 0);
        c.push(&[b'a'; 250]);
        c.push(b"MARKER-xyz");
        c.push(&[b'b'; 10]);
        assert!(find(c.recent(), b"MARKER-xyz").is_some());
    }
}
