//! The cost of scrubbing a response body of a plugin's credentials, the way `wasi:http` does
//! it (16 KiB chunks through `warden::scrub::Scrubber`): the whole variants alone (plain,
//! percent, base64, hex, reversed) against those plus each secret with any character escaped
//! (JSON `\uXXXX`, `\/`, percent), over JSON with many escapes and over plain text. Figures
//! go to docs/benchmarks.md.
//!
//! `cargo run --release -p warden-tests --bin scrub-bench [MIB]`

use std::time::Instant;
use warden::scrub::{Scrubber, variants};

const CHUNK: usize = 16 * 1024;

fn body(mib: usize, escaped: bool) -> Vec<u8> {
    let line: &[u8] = if escaped {
        // A serializer's output heavy in the characters the escaped forms start with.
        br#"{"id":12345,"path":"\/api\/v1\/items","html":"\u003cb\u003e50%\u003c\/b\u003e \u0026 more","name":"t\u00e9st tok-ish"}"#
    } else {
        b"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor tokens. "
    };
    line.iter().copied().cycle().take(mib << 20).collect()
}

/// MiB/s of scrubbing `data` in chunks, best of three.
fn rate(scrubber: &Scrubber, data: &[u8]) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let mut s = scrubber.clone();
        let started = Instant::now();
        let mut out = 0;
        for chunk in data.chunks(CHUNK) {
            out += s.feed(chunk).len();
        }
        out += s.finish().len();
        assert!(out > 0);
        best = best.min(started.elapsed().as_secs_f64());
    }
    data.len() as f64 / (1 << 20) as f64 / best
}

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(32);
    let secrets = vec![
        "tok-3f9a1c77e2b04d5a9e61/x+y=".to_string(),
        "ci:s3cret-pass".to_string(),
        "at-7c1e0b9d4f2a".to_string(),
    ];
    let mut whole: Vec<String> = secrets.iter().flat_map(|s| variants(s)).collect();
    whole.sort();
    whole.dedup();
    let started = Instant::now();
    let old = Scrubber::new(&whole, "[credential]");
    let built_old = started.elapsed();
    let started = Instant::now();
    let new = Scrubber::of_secrets(&secrets, "[credential]");
    let built_new = started.elapsed();
    println!("scrubber built: variants {built_old:?}, variants + escapes {built_new:?}");
    for (name, data) in [
        ("plain text", body(mib, false)),
        ("escaped JSON", body(mib, true)),
    ] {
        println!(
            "{name}, {mib} MiB: variants {:.0} MiB/s, variants + escapes {:.0} MiB/s",
            rate(&old, &data),
            rate(&new, &data)
        );
    }
}
