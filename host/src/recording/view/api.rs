//! The viewer's API: the sessions the catalog lists, one recording's bytes and the audit
//! lines that name it. A request names a recording by its place in the last listing, never
//! by a path; the file opened is one `catalog::list` found, checked again to lie under the
//! recordings directory and not to be a symlink.

use super::viewer::Viewer;
use crate::recording::catalog;
use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::AsyncReadExt;

/// Longest audit line read; a longer one is skipped.
const MAX_AUDIT_LINE: u64 = 256 * 1024;
/// Most audit lines sent for one recording.
const MAX_AUDIT_LINES: usize = 20_000;
/// A recording is sent in pieces of this size, never held whole.
const CHUNK: usize = 64 * 1024;

fn json_response(value: &Value) -> Response {
    ([(CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

fn not_found(why: &'static str) -> Response {
    (
        StatusCode::NOT_FOUND,
        [(CONTENT_TYPE, "text/plain; charset=utf-8")],
        why,
    )
        .into_response()
}

/// Every recording, oldest first, each with its place (`id`) in this listing.
pub async fn sessions(State(viewer): State<Arc<Viewer>>) -> Response {
    let dir = viewer.dir.clone();
    // What a symlinked day directory leads to is not the recordings directory's: not listed.
    let entries = tokio::task::spawn_blocking(move || {
        let root = dir.canonicalize().ok();
        catalog::list(&dir)
            .into_iter()
            .filter(|e| {
                root.as_ref()
                    .is_some_and(|r| e.path.canonicalize().is_ok_and(|p| p.starts_with(r)))
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    let list: Vec<Value> = entries
        .iter()
        .enumerate()
        .map(|(id, e)| {
            json!({
                "id": id,
                "kind": e.kind(),
                "plugin": e.warden("plugin"),
                "client": e.warden("client"),
                "target": e.warden("target"),
                "session": e.warden("session"),
                "began": e.began(),
                "bytes": e.size,
                "name": e.path.file_name().map(|n| n.to_string_lossy().into_owned()),
            })
        })
        .collect();
    if let Ok(mut listed) = viewer.listed.write() {
        *listed = entries.into_iter().map(|e| e.path).collect();
    }
    json_response(&Value::Array(list))
}

/// The recording at `id` of the last listing, if it still is what the catalog found.
fn listed(viewer: &Viewer, id: usize) -> Option<PathBuf> {
    viewer.listed.read().ok()?.get(id).cloned()
}

/// `path` opened for reading if it is a regular file under `dir` reached without a symlink.
fn open_under(dir: &Path, path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let inside = dir
        .canonicalize()
        .and_then(|d| path.canonicalize().map(|p| p.starts_with(d)))?;
    if !inside {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "outside the recordings directory",
        ));
    }
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// The recording's bytes, streamed in pieces as read.
pub async fn recording(State(viewer): State<Arc<Viewer>>, UrlPath(id): UrlPath<usize>) -> Response {
    let Some(path) = listed(&viewer, id) else {
        return not_found("no such recording; reload the list\n");
    };
    let dir = viewer.dir.clone();
    let opened = tokio::task::spawn_blocking(move || open_under(&dir, &path)).await;
    let file = match opened {
        Ok(Ok(file)) => tokio::fs::File::from_std(file),
        Ok(Err(e)) => {
            tracing::warn!("viewer did not serve a listed recording: {e}");
            return not_found("that recording cannot be served\n");
        }
        Err(_) => return not_found("that recording cannot be served\n"),
    };
    let stream = futures::stream::unfold(Some(file), |file| async move {
        let mut file = file?;
        let mut buf = vec![0u8; CHUNK];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok::<_, std::io::Error>(buf), Some(file)))
            }
            Err(e) => Some((Err(e), None)),
        }
    });
    (
        [(CONTENT_TYPE, "text/plain; charset=utf-8")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// The last two parts of a path (`DAY/NAME`): how an audit line's `recording.file`, written
/// relative to where Warden ran or absolute, is matched to a file of the listing.
fn tail(path: &Path) -> Vec<std::ffi::OsString> {
    let mut parts: Vec<_> = path
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_os_string())
        .collect();
    parts.reverse();
    parts
}

/// The audit lines whose `recording.file` is `file`, in the log's order.
fn lines_of(log: &Path, file: &Path) -> std::io::Result<Vec<Value>> {
    let want = tail(file);
    let mut reader = BufReader::new(std::fs::File::open(log)?);
    let mut found = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader
            .by_ref()
            .take(MAX_AUDIT_LINE)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if !line.ends_with(b"\n") && n as u64 == MAX_AUDIT_LINE {
            // Too long: skip to its end.
            let mut rest = Vec::new();
            reader.read_until(b'\n', &mut rest)?;
            continue;
        }
        let Ok(value) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        let named = value
            .get("recording")
            .and_then(|r| r.get("file"))
            .and_then(Value::as_str)
            .is_some_and(|f| tail(Path::new(f)) == want);
        if named {
            found.push(value);
            if found.len() >= MAX_AUDIT_LINES {
                break;
            }
        }
    }
    Ok(found)
}

/// The audit lines of the recording at `id`.
pub async fn audit(State(viewer): State<Arc<Viewer>>, UrlPath(id): UrlPath<usize>) -> Response {
    let Some(path) = listed(&viewer, id) else {
        return not_found("no such recording; reload the list\n");
    };
    let log = viewer.log.clone();
    let read = tokio::task::spawn_blocking(move || lines_of(&log, &path)).await;
    match read {
        Ok(Ok(lines)) => json_response(&json!({ "lines": lines })),
        Ok(Err(e)) => json_response(&json!({
            "lines": [],
            "error": format!("cannot read the audit log {}: {e}", viewer.log.display()),
        })),
        Err(_) => json_response(&json!({ "lines": [] })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_lines_match_by_day_and_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("audit.jsonl");
        let long = "x".repeat(MAX_AUDIT_LINE as usize + 10);
        std::fs::write(
            &log,
            format!(
                "{}\n{{\"long\":\"{long}\",\"recording\":{{\"file\":\"r/2026-11-28/a.cast\"}}}}\nnot json\n{}\n{}\n",
                json!({"n": 1, "recording": {"file": "recordings/2026-11-28/a.cast", "t": 0.5}}),
                json!({"n": 2, "recording": {"file": "recordings/2026-11-28/b.cast", "t": 1}}),
                json!({"n": 3, "recording": {"file": "/abs/recordings/2026-11-28/a.cast", "t": 2}}),
            ),
        )
        .expect("write");
        let found = lines_of(&log, Path::new("/x/recordings/2026-11-28/a.cast")).expect("read");
        let ns: Vec<_> = found.iter().filter_map(|v| v["n"].as_u64()).collect();
        assert_eq!(ns, [1, 3]);
    }

    #[test]
    fn symlinks_and_files_outside_are_not_opened() {
        let dir = tempfile::tempdir().expect("tempdir");
        let recordings = dir.path().join("rec");
        std::fs::create_dir_all(recordings.join("day")).expect("mkdir");
        let outside = dir.path().join("secret.cast");
        std::fs::write(&outside, "secret").expect("write");
        let link = recordings.join("day/link.cast");
        std::os::unix::fs::symlink(&outside, &link).expect("symlink");
        let real = recordings.join("day/real.cast");
        std::fs::write(&real, "ok").expect("write");
        assert!(open_under(&recordings, &link).is_err());
        assert!(open_under(&recordings, &outside).is_err());
        assert!(open_under(&recordings, &recordings.join("day/../../secret.cast")).is_err());
        assert!(open_under(&recordings, &real).is_ok());
    }
}
