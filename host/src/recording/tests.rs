//! The writer and recorder together: flush by time, the size cap, a failing directory, a
//! full queue, events before a session is named.

use super::asciicast::Asciicast;
use super::recorder::Recorder;
use super::retention::Retention;
use super::writer::{FLUSH_EVERY, OpenFiles, Owner, QUEUE_BYTES, Writer};
use crate::audit::AuditLog;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Setup {
    dir: tempfile::TempDir,
    audit: Arc<AuditLog>,
    writer: Writer,
}

fn setup(flush_every: Duration) -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Arc::new(AuditLog::open(&dir.path().join("audit.jsonl")).expect("audit"));
    let retention = Retention {
        dir: dir.path().join("recordings"),
        days: 30,
        bytes: u64::MAX,
    };
    let writer =
        Writer::spawn(audit.clone(), retention, OpenFiles::default(), flush_every).expect("writer");
    Setup { dir, audit, writer }
}

fn begin(s: &Setup, id: u64, path: &std::path::Path, cap: u64) -> Recorder {
    let r = Recorder::new(id, s.writer.clone());
    let owner = Owner {
        plugin: Arc::from("ops"),
        target: "local session t".into(),
        ..Owner::default()
    };
    r.begin(
        path.to_path_buf(),
        b"{\"version\": 2}\n".to_vec(),
        Box::new(Asciicast::default()),
        cap,
        owner,
    );
    r
}

fn audit_lines(s: &Setup) -> Vec<serde_json::Value> {
    std::fs::read_to_string(s.audit.path())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn events_reach_the_file_within_the_flush_interval_without_a_close() {
    let s = setup(Duration::from_millis(50));
    let path = s.dir.path().join("recordings/day/a.cast");
    let r = begin(&s, 1, &path, u64::MAX);
    r.event(b'o', b"hello");
    // Far less than the 64 KiB buffer: only the timed flush writes it out.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !std::fs::read_to_string(&path)
        .unwrap_or_default()
        .contains("hello")
    {
        assert!(Instant::now() < deadline, "not flushed by time");
        std::thread::sleep(Duration::from_millis(10));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(r.link().is_some_and(|l| l.file.ends_with("a.cast")));
}

#[test]
fn a_recording_stops_at_its_cap_says_so_and_is_audited() {
    let s = setup(FLUSH_EVERY);
    let path = s.dir.path().join("recordings/day/b.cast");
    let r = begin(&s, 2, &path, 4096);
    for _ in 0..100 {
        r.event(b'o', &[b'x'; 100]);
    }
    assert!(s.writer.sync(Duration::from_secs(5)));
    let text = std::fs::read_to_string(&path).expect("recording");
    assert!(text.len() <= 4096, "{}", text.len());
    let last: serde_json::Value =
        serde_json::from_str(text.lines().last().expect("a line")).expect("json");
    assert_eq!(last[1], "m");
    assert!(
        last[2].as_str().is_some_and(|m| m.contains("max_session")),
        "{last}"
    );
    let lines = audit_lines(&s);
    let stop = lines
        .iter()
        .find(|l| l["event"] == "recording")
        .expect("audited");
    assert_eq!(stop["error"], "limit_reached");
    assert_eq!(stop["plugin"], "ops");
    // Later events are not sent, and the link still names the file.
    r.event(b'o', b"later");
    assert!(s.writer.sync(Duration::from_secs(5)));
    assert!(
        !std::fs::read_to_string(&path)
            .expect("recording")
            .contains("later")
    );
    assert!(r.link().is_some());
    assert_eq!(audit_lines(&s).len(), 1);
}

#[test]
fn a_recording_that_cannot_be_written_is_audited_once_and_not_linked() {
    let s = setup(FLUSH_EVERY);
    // A file where the recordings' directory should be.
    let blocker = s.dir.path().join("recordings");
    std::fs::write(&blocker, b"not a directory").expect("write");
    let r = begin(&s, 3, &blocker.join("day/c.cast"), u64::MAX);
    for _ in 0..10 {
        r.event(b'o', b"output");
    }
    assert!(s.writer.sync(Duration::from_secs(5)));
    let lines = audit_lines(&s);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["event"], "recording");
    assert_eq!(lines[0]["error"], "io");
    assert!(r.link().is_none());
}

#[test]
fn events_the_queue_cannot_hold_are_dropped_and_counted_in_the_file() {
    let s = setup(FLUSH_EVERY);
    let path = s.dir.path().join("recordings/day/d.cast");
    let r = begin(&s, 4, &path, u64::MAX);
    r.event(b'o', &vec![b'y'; QUEUE_BYTES + 1]);
    r.event(b'o', b"after");
    drop(r);
    assert!(s.writer.sync(Duration::from_secs(5)));
    let text = std::fs::read_to_string(&path).expect("recording");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[1].contains(&format!("{} bytes", QUEUE_BYTES + 1)),
        "{}",
        lines[1]
    );
    assert!(lines[2].contains("after"));
}

#[test]
fn events_before_the_session_is_named_are_written_first_in_order() {
    let s = setup(FLUSH_EVERY);
    let path = s.dir.path().join("recordings/day/e.cast");
    let r = Recorder::new(5, s.writer.clone());
    r.event(b'o', b"motd ");
    r.event(b'o', b"$ ");
    r.begin(
        path.clone(),
        b"{\"version\": 2}\n".to_vec(),
        Box::new(Asciicast::default()),
        u64::MAX,
        Owner::default(),
    );
    r.event(b'i', b"ls\r");
    r.close();
    assert!(s.writer.sync(Duration::from_secs(5)));
    let text = std::fs::read_to_string(&path).expect("recording");
    let events: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let data: Vec<&str> = events.iter().filter_map(|e| e[2].as_str()).collect();
    assert_eq!(data, ["motd ", "$ ", "ls\r"]);
    let times: Vec<f64> = events.iter().filter_map(|e| e[0].as_f64()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
}
