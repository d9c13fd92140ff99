//! The audit-line writer: one JSON line per record whatever the strings in it (newlines,
//! NUL, invalid UTF-8 from a terminal write, huge values), each field read back as given.

use crate::Target;

pub const TARGET: Target = Target {
    name: "audit",
    about: "audit log lines: one line per record, fields round-trip, terminal input escaped",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"\n",
        b"\r",
        b"\"}\n{\"event\":\"x\"",
        b"\\n",
        b"\x1b[A",
        b"\xff\xfe",
        b"\xe2\x80\xa8",
    ],
    contained: &[],
    run,
};

fn run(input: &[u8]) -> u64 {
    // `fields as JSON` NUL `raw terminal input`.
    let (head, raw) = match input.iter().position(|b| *b == 0) {
        Some(i) => (&input[..i], &input[i + 1..]),
        None => (input, &[][..]),
    };
    let v = super::support::json(head).unwrap_or_default();
    let fields: [String; 6] = std::array::from_fn(|i| super::support::text(&v[i]));
    let log = super::support::scratch().join("audit.jsonl");
    let _ = std::fs::remove_file(&log);
    warden::fuzzing::audit_line(&log, &fields, raw)
}

const SEEDS: &[&str] = &[
    "[\"terminal\",\"terminal_execute\",\"{\\\"command\\\":\\\"ls\\\"}\",\"local\",\"\",\"claude\"]\0ls -la\n",
    "[\"p\",\"t\",\"\",\"host:22\",\"line1\\nline2\",\"c\\u0000\"]\0\x1b[A\x03\\x\r\n",
];
