//! The terminal output pipeline: raw shell output pushed in arbitrary pieces into the host's
//! session log (ring buffer, vt100 screen, end-marker watch, kept command output), read back
//! at offsets, then the plugin's side (capture with a byte cap, start and end markers, ANSI
//! stripping and the cut note).

use crate::Target;
use crate::rng::{Rng, hash};
use std::time::Duration;
use warden::capabilities::terminal::session::OutputLog;

#[path = "../../../plugins/terminal/src/capture.rs"]
#[allow(dead_code)]
mod capture;

pub const TARGET: Target = Target {
    name: "terminal",
    about: "terminal output: ring buffer, vt100 screen, markers, capture cap/cut, ANSI stripping",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"WDStok\n",
        b"WDEtok:0:/home\n",
        b"WDEtok:",
        b"\x1b[2J",
        b"\x1b[H",
        b"\x1b[?1049h",
        b"\x1b[31m",
        b"\x1b]0;title\x07",
        b"\x1b[999;999H",
        b"\x1b[1000000C",
        b"\r\n",
        b"\x08",
        b"\x1bP",
        b"\x1b\\",
        b"\x1b[6n",
        b"$ ",
        b"\t",
        b"\xe2\x94\x80",
        b"\xf0\x9f\x98\x80",
    ],
    // vt100 0.16 panics on wide characters after a shrinking resize; the session log
    // catches it and resets the screen (`session.rs`).
    contained: &["vt100-0.16.2/src/"],
    run,
};

const START: &[u8] = b"WDStok";
const END: &[u8] = b"WDEtok:";

fn run(input: &[u8]) -> u64 {
    let mut rng = Rng::new(hash(input));
    let (cols, rows) = (1 + rng.below(300) as u16, 1 + rng.below(100) as u16);
    let log = OutputLog::new(cols, rows);
    let cap = 256 + rng.below(8192);
    let mut cap_state = capture::Capture::new(cap, 0);
    let mut offset = 0u64;
    if rng.chance(2) {
        log.push(b"$ ");
    }
    log.begin_command(END.to_vec());
    let mut rest = input;
    let mut start = None;
    let mut found = None;
    while !rest.is_empty() {
        let n = (1 + rng.below(rest.len().min(4096))).min(rest.len());
        let (piece, tail) = rest.split_at(n);
        rest = tail;
        log.push(piece);
        if rng.chance(16) {
            log.resize(rng.below(400) as u16, rng.below(200) as u16);
        }
        // The plugin reads what is there, sometimes too late (the ring moved on).
        let max = if rng.chance(8) { 1 } else { 1 << 20 };
        let chunk = block_on_read(&log, offset, max);
        assert!(chunk.next >= offset, "a read went backwards");
        cap_state.skip(chunk.skipped);
        cap_state.push(&chunk.data);
        offset = chunk.next;
        if start.is_none() {
            start = capture::output_start(cap_state.head_bytes(), START);
        }
        if found.is_none() {
            found = capture::end_of(cap_state.recent(), END);
        }
    }
    let _ = log.busy();
    let screen = log.screen();
    let scrollback = log.scrollback(rng.below(200));
    let (raw, cut) = cap_state.assemble(start.unwrap_or(0), found.as_ref().map(|f| f.0), |c| {
        format!("[... {} bytes left out at {} ...]", c.len, c.at)
    });
    let bound = 2 * (cap / 2).max(256) + 128;
    assert!(
        raw.len() <= bound,
        "a capture kept {} bytes over a cap of {cap}",
        raw.len()
    );
    if let Some((_, trailer)) = &found {
        let _ = capture::status_of(trailer);
    }
    let text = capture::clean(&raw, found.is_some());
    assert!(
        !text.contains('\r'),
        "carriage return left in cleaned output"
    );
    log.end(Some(0));
    let last = block_on_read(&log, offset, 1 << 20);
    assert!(last.ended, "an ended session read to its end says so");
    (found.is_some() as u64)
        | (start.is_some() as u64) << 1
        | (cut.is_some() as u64) << 2
        | ((screen.len() as u64).min(64)) << 3
        | ((scrollback.lines().count() as u64).min(64)) << 10
}

fn block_on_read(
    log: &OutputLog,
    offset: u64,
    max: usize,
) -> warden::capabilities::terminal::session::Chunk {
    // A zero wait never awaits: polled once, it is ready.
    let fut = log.read(offset, max, Duration::ZERO);
    let mut fut = std::pin::pin!(fut);
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(c) => c,
        std::task::Poll::Pending => panic!("a read without a wait did not answer at once"),
    }
}

const SEEDS: &[&str] = &[
    "printf '%s%s\\n' 'WDS' 'tok'; eval 'ls'; printf ...\r\nWDStok\r\nfile1  file2\r\n\x1b[01;34mdir\x1b[0m\r\n\r\nWDEtok:0:/home/me\r\n$ ",
    "WDStok\n\x1b[?1049h\x1b[H\x1b[2Jtop - 10:00\x1b[7m PID USER \x1b[27m\x1b[?1049l\nWDEtok:130:/\n",
    "\x1b]0;me@host: ~\x07me@host:~$ sleep 100\r\n^C\r\nme@host:~$ ",
];
