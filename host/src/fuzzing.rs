//! Entry points for the fuzz harness (`fuzz/`), one per parser that takes outside bytes.
//! Each runs the host's own code on arbitrary input and checks what must hold whatever the
//! input: no panic, an error that says something, output that is well-formed. A broken rule
//! panics, which the harness reports like a crash. Not an API; nothing in the host calls these.

use crate::audit::{AuditLog, Outcome, Record};
use crate::capabilities::capture::http as capture_http;
use crate::capabilities::sftp::paths;
use crate::manifest::grants::{CaptureGrant, GlobList, Grants, host_port};
use crate::manifest::{Manifest, ManifestError};
use crate::mcp::convert;
use crate::runtime::bindings::{
    Annotations, ContentBlock, EmbeddedResource, Media, ResourceBody, TaskSupport, ToolInfo,
    ToolOutput,
};
use crate::runtime::registry::ToolEntry;
use reqwest::header::HeaderValue;
use serde_json::Value;
use std::path::Path;

pub use crate::capabilities::browser::fuzzing::BrowserInput;

/// `text` as a manifest: it loads, or every problem is a located, non-empty message.
pub fn manifest(text: &str, base: &Path) -> u64 {
    match Manifest::parse(text, "warden.toml", base, &crate::builtin::names()) {
        Ok(m) => 1 + m.plugins.len() as u64,
        Err(ManifestError::Invalid(diagnostics)) => {
            assert!(
                !diagnostics.is_empty(),
                "an invalid manifest with no diagnostic"
            );
            let lines = text.lines().count().max(1);
            for d in &diagnostics {
                assert!(!d.message.trim().is_empty(), "an empty diagnostic: {d:?}");
                assert!(d.line <= lines + 1, "diagnostic past the end: {d:?}");
            }
            100 + diagnostics.len() as u64
        }
        Err(e) => panic!("parse gave a non-validation error: {e}"),
    }
}

/// What a plugin hands the host, read from JSON text shaped like the WIT records: a tool
/// list, a tool output, resource contents and a progress message. Each is checked the way
/// the host checks it and converted to what a client gets, which must serialize.
pub fn plugin_json(value: &Value) -> u64 {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let opt = |v: &Value| (!v.is_null()).then(|| text(v));
    let mut seen = 0u64;
    for t in value["tools"].as_array().into_iter().flatten() {
        let a = &t["annotations"];
        let info = ToolInfo {
            name: text(&t["name"]),
            title: opt(&t["title"]),
            description: text(&t["description"]),
            input_schema: text(&t["input_schema"]),
            output_schema: opt(&t["output_schema"]),
            annotations: Annotations {
                read_only: a["read_only"].as_bool().unwrap_or(false),
                destructive: a["destructive"].as_bool().unwrap_or(false),
                idempotent: a["idempotent"].as_bool().unwrap_or(false),
                open_world: a["open_world"].as_bool().unwrap_or(false),
            },
            task: match t["task"].as_str() {
                Some("optional") => TaskSupport::Optional,
                Some("required") => TaskSupport::Required,
                _ => TaskSupport::Never,
            },
        };
        match crate::runtime::plugin::validate_tool(&info) {
            Ok(()) => {
                let entry = ToolEntry {
                    public_name: info.name.clone(),
                    plugin: "p".into(),
                    info,
                    offered: None,
                };
                let tool = convert::tool(&entry);
                must_serialize(&tool);
                seen += 1;
            }
            Err(message) => assert!(!message.is_empty()),
        }
    }
    let resource = |r: &Value| EmbeddedResource {
        uri: text(&r["uri"]),
        mime_type: opt(&r["mime_type"]),
        body: match &r["blob"] {
            Value::String(b) => ResourceBody::Blob(b.clone().into_bytes()),
            _ => ResourceBody::Text(text(&r["text"])),
        },
    };
    let block = |b: &Value| match b["type"].as_str() {
        Some("image") | Some("audio") => {
            let media = Media {
                mime_type: text(&b["mime_type"]),
                data: text(&b["data"]).into_bytes(),
            };
            if b["type"] == "image" {
                ContentBlock::Image(media)
            } else {
                ContentBlock::Audio(media)
            }
        }
        Some("resource") => ContentBlock::Resource(resource(&b["resource"])),
        _ => ContentBlock::Text(text(&b["text"])),
    };
    let output = &value["output"];
    if !output.is_null() {
        let result = convert::success(ToolOutput {
            content: output["content"]
                .as_array()
                .into_iter()
                .flatten()
                .map(block)
                .collect(),
            structured: opt(&output["structured"]),
        });
        must_serialize(&result);
        seen += 2 + u64::from(result.is_error.unwrap_or(false));
    }
    let contents = convert::resource_contents(
        value["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .map(resource)
            .collect(),
    );
    must_serialize(&contents);
    seen += contents.len() as u64;
    if let Some(message) = value["progress"].as_str() {
        let cut = crate::runtime::budget::cut(message.to_string());
        assert!(
            cut.len()
                <= message
                    .len()
                    .max(crate::runtime::budget::LOG_MESSAGE_MAX + 8)
        );
        seen += 5;
    }
    seen
}

fn must_serialize<T: serde::Serialize>(value: &T) {
    let text = serde_json::to_string(value).expect("what a client gets must serialize");
    serde_json::from_str::<Value>(&text).expect("and parse back");
}

/// An `http.get` request as a plugin may send it: the URL, its headers and a `Location`
/// a server may answer with. Every refusal is a message; accepted URLs are checked against
/// a grant of `*.example.com` and `127.0.0.1:8080`.
pub fn http_request(url: &str, headers: &[(String, String)], location: &[u8]) -> u64 {
    let Ok(url) = url::Url::parse(url) else {
        return 1;
    };
    let mut seen = 2;
    if capture_http::host_only_header(headers).is_some() {
        seen += 4;
    } else if capture_http::headers(headers).is_ok() {
        seen += 8;
    }
    let grants = Grants {
        plugin: "p".into(),
        capture: Some(CaptureGrant {
            http_hosts: GlobList::new(&["*.example.com".into(), "127.0.0.1:8080".into()])
                .unwrap_or_else(|_| GlobList::empty()),
            max_body: 1024,
            origins: GlobList::empty(),
            cookies: false,
            http_only_cookies: false,
        }),
        ..Grants::default()
    };
    match grants.check_http(&url) {
        Ok(()) => seen += 16,
        Err(denied) => assert!(!denied.message.is_empty()),
    }
    let _ = host_port(&url);
    let _ = url.origin().ascii_serialization();
    if let Ok(value) = HeaderValue::from_bytes(location) {
        match capture_http::redirect_target(&url, &value) {
            Ok(next) => {
                seen += 32;
                let _ = grants.check_http(&next);
            }
            Err(e) => assert!(!format!("{e:?}").is_empty()),
        }
    }
    seen
}

/// SFTP root confinement on a path as a plugin gives it, the roots as granted, and the path
/// as the server resolves it.
pub fn sftp_path(path: &str, roots: &[String], resolved: &str) -> u64 {
    let mut seen = 0;
    if let Ok((parent, name)) = paths::split_name(path) {
        assert!(!name.is_empty() && name != "." && name != ".." && !name.contains('/'));
        assert!(!parent.is_empty());
        seen += 1;
    }
    if let Some(first) = roots.first()
        && let Ok(abs) = paths::absolute(path, first)
    {
        assert!(abs.starts_with('/') || !first.starts_with('/') || first.is_empty());
        seen += 2;
    }
    let inside = paths::check(path, resolved, roots, roots).is_ok();
    if inside {
        // Inside means: a root itself, or below one at a `/` boundary.
        assert!(roots.iter().any(|r| {
            let r = r.trim_end_matches('/');
            r.is_empty() || resolved == r || resolved.starts_with(&format!("{r}/"))
        }));
        seen += 4;
    }
    seen
}

/// One audit line per record, whatever the strings in it: written, read back, each field
/// as given. `text` is what a plugin typed into a terminal (shown escaped).
pub fn audit_line(log: &Path, fields: &[String; 6], text: &[u8]) -> u64 {
    let audit = AuditLog::open(log).expect("open the audit log");
    let before = std::fs::read(log).map(|b| b.len()).unwrap_or(0);
    let shown = crate::capabilities::terminal::shown_input(text);
    assert!(
        !shown.chars().any(char::is_control),
        "control character in {shown:?}"
    );
    let record = Record {
        ts: crate::audit::now(),
        event: "capability_used",
        plugin: &fields[0],
        tool: &fields[1],
        args_sha256: Some(crate::audit::digest(fields[2].as_bytes())),
        args_bytes: Some(fields[2].len()),
        decision: "allowed",
        outcome: Outcome::Ok,
        capability: Some("terminal.write"),
        target: Some(&fields[3]),
        reason: Some(&fields[4]),
        client: Some(&fields[5]),
        detail: Some(&shown),
        bytes: Some(text.len() as u64),
        ..Record::default()
    };
    audit.write(&record);
    let all = std::fs::read(log).expect("read the audit log");
    let line = &all[before..];
    assert_eq!(line.last(), Some(&b'\n'), "an audit line ends in a newline");
    assert_eq!(
        line.iter().filter(|b| **b == b'\n').count(),
        1,
        "one record, one line"
    );
    let back: Value = serde_json::from_slice(line).expect("an audit line is JSON");
    assert_eq!(back["plugin"], fields[0].as_str());
    assert_eq!(back["target"], fields[3].as_str());
    assert_eq!(back["detail"], shown.as_str());
    line.len() as u64 / 64
}
