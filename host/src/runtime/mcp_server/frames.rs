//! The framing of an MCP server's output, bounded before it is held: newline-delimited
//! JSON-RPC (stdio), and server-sent events (a streamable HTTP response). Both read bytes
//! as they come and give whole messages; a message longer than the bound is refused without
//! being kept.

/// Complete lines out of a byte stream. Each byte is looked at a bounded number of times
/// (found once, copied once into its line, moved at most once when the buffer is compacted),
/// so a flood of short lines or one long line costs time in proportion to its bytes.
#[derive(Debug)]
pub struct Lines {
    buf: Vec<u8>,
    /// Where the next line starts: the lines before it were taken.
    start: usize,
    /// Where the search for the next newline goes on (bytes before it hold none).
    scanned: usize,
    /// Bytes after the last newline of the stream: the line being written.
    tail: usize,
    bound: usize,
}

/// A line longer than the bound.
#[derive(Debug, PartialEq, Eq)]
pub struct Overlong;

impl Lines {
    pub fn new(bound: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            tail: 0,
            bound,
        }
    }

    /// Take in bytes; refused when the line they continue grows past the bound.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), Overlong> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        self.tail = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(at) => bytes.len() - at - 1,
            None => self.tail.saturating_add(bytes.len()),
        };
        if self.tail > self.bound {
            return Err(Overlong);
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// The next complete line, without its `\n` (and `\r`).
    pub fn next_line(&mut self) -> Option<Vec<u8>> {
        let from = self.scanned.max(self.start);
        let Some(at) = self.buf[from..].iter().position(|&b| b == b'\n') else {
            self.scanned = self.buf.len();
            return None;
        };
        let at = from + at;
        let mut line = self.buf[self.start..at].to_vec();
        self.start = at + 1;
        self.scanned = self.start;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Some(line)
    }

    /// Bytes of an unfinished line.
    pub fn pending(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    /// The unfinished line, taken out (at the end of the stream).
    pub fn take_rest(&mut self) -> Vec<u8> {
        let rest = self.buf.split_off(self.start);
        self.buf.clear();
        (self.start, self.scanned, self.tail) = (0, 0, 0);
        rest
    }
}

/// The data of each event of a `text/event-stream` (WHATWG HTML, "server-sent events"):
/// `data:` lines joined with `\n`, dispatched at a blank line; comments, `event:`, `id:` and
/// `retry:` are read and dropped (an MCP server's events are all JSON-RPC messages).
#[derive(Debug)]
pub struct Events {
    lines: Lines,
    data: Vec<u8>,
    has_data: bool,
    bound: usize,
}

impl Events {
    pub fn new(bound: usize) -> Self {
        Self {
            lines: Lines::new(bound),
            data: Vec::new(),
            has_data: false,
            bound,
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), Overlong> {
        self.lines.feed(bytes)
    }

    /// The data of the next complete event.
    pub fn next_event(&mut self) -> Result<Option<Vec<u8>>, Overlong> {
        while let Some(line) = self.lines.next_line() {
            if line.is_empty() {
                if self.has_data {
                    self.has_data = false;
                    return Ok(Some(std::mem::take(&mut self.data)));
                }
                continue;
            }
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(0) => continue,
                Some(at) => {
                    let value = &line[at + 1..];
                    (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (&line[..], &b""[..]),
            };
            if field == b"data" {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
                if self.data.len() > self.bound {
                    return Err(Overlong);
                }
            }
        }
        Ok(None)
    }

    /// At the end of the stream: an event its server did not end with a blank line.
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        let rest = self.lines.take_rest();
        let rest = rest.strip_suffix(b"\r").unwrap_or(&rest);
        if let Some(line) = rest.strip_prefix(b"data:") {
            let value = line.strip_prefix(b" ").unwrap_or(line).to_vec();
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data.extend_from_slice(&value);
            self.has_data = true;
        }
        self.has_data.then(|| {
            self.has_data = false;
            std::mem::take(&mut self.data)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_whole_across_reads_and_lose_their_line_ends() {
        let mut lines = Lines::new(64);
        lines.feed(b"{\"a\":").expect("short");
        assert_eq!(lines.next_line(), None);
        lines.feed(b"1}\r\n{\"b\":2}\n{\"c\"").expect("short");
        assert_eq!(lines.next_line().as_deref(), Some(&b"{\"a\":1}"[..]));
        assert_eq!(lines.next_line().as_deref(), Some(&b"{\"b\":2}"[..]));
        assert_eq!(lines.next_line(), None);
        assert_eq!(lines.pending(), b"{\"c\"");
    }

    #[test]
    fn a_line_past_the_bound_is_refused_before_it_is_kept() {
        let mut lines = Lines::new(8);
        lines.feed(b"12345678").expect("at the bound");
        assert_eq!(lines.feed(b"9"), Err(Overlong));
        // Many short lines are not one long one.
        let mut lines = Lines::new(8);
        for _ in 0..100 {
            lines.feed(b"1234567\n").expect("short lines");
            assert!(lines.next_line().is_some());
        }
    }

    #[test]
    fn lines_taken_between_feeds_keep_their_order_and_the_unfinished_line() {
        let mut lines = Lines::new(16);
        lines.feed(b"a\nb\n\nlong").expect("short");
        assert_eq!(lines.next_line().as_deref(), Some(&b"a"[..]));
        // A feed while lines are still waiting keeps them and the unfinished one.
        lines.feed(b"er\nc").expect("short");
        let rest: Vec<Vec<u8>> = std::iter::from_fn(|| lines.next_line()).collect();
        assert_eq!(rest, [b"b".to_vec(), Vec::new(), b"longer".to_vec()]);
        assert_eq!(lines.pending(), b"c");
        // The bound counts the line being written across feeds, not what was taken.
        lines.feed(b"0123456789abcde").expect("at the bound");
        assert_eq!(lines.feed(b"f"), Err(Overlong));
    }

    #[test]
    fn events_join_their_data_lines_and_drop_everything_else() {
        let mut events = Events::new(1024);
        events
            .feed(b": ping\nevent: message\nid: 7\ndata: {\"a\":\ndata:1}\n\nretry: 5\n\ndata: x")
            .expect("short");
        assert_eq!(
            events.next_event().expect("bounded").as_deref(),
            Some(&b"{\"a\":\n1}"[..])
        );
        assert_eq!(events.next_event().expect("bounded"), None);
        assert_eq!(events.finish().as_deref(), Some(&b"x"[..]));
        assert_eq!(events.finish(), None);
    }

    #[test]
    fn an_event_past_the_bound_is_refused() {
        let mut events = Events::new(10);
        events
            .feed(b"data: 123456\ndata: 789012\n")
            .expect("lines short");
        assert_eq!(events.next_event(), Err(Overlong));
    }
}
