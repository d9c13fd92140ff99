//! Reading the audit log back: a filter over its lines (by plugin, tool, event, outcome,
//! capability and time) and a one-line rendering per record, for `warden audit`.

use serde_json::Value;
use std::time::{Duration, SystemTime};

/// Which lines to keep. Every field that is set must match.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub plugin: Option<String>,
    pub tool: Option<String>,
    /// `tool_call`, `resource_read`, `capability_used` or `capability_denied`.
    pub event: Option<String>,
    pub outcome: Option<String>,
    /// A capability, or its prefix before a dot: `terminal` matches `terminal.write`.
    pub capability: Option<String>,
    /// Lines at or after this RFC 3339 time.
    pub since: Option<String>,
}

/// `--since` was neither a duration nor a time.
#[derive(Debug, thiserror::Error)]
#[error(
    "\"{0}\" is neither a duration (such as 15m, 2h, 1day) nor an RFC 3339 time (such as 2026-11-23T10:00:00Z)"
)]
pub struct BadSince(String);

impl Filter {
    /// Parse `--since`: a duration back from now, or a time.
    pub fn since(value: &str) -> Result<String, BadSince> {
        if let Ok(d) = humantime::parse_duration(value) {
            let then = SystemTime::now()
                .checked_sub(d)
                .unwrap_or(SystemTime::UNIX_EPOCH);
            return Ok(humantime::format_rfc3339_millis(then).to_string());
        }
        humantime::parse_rfc3339_weak(value)
            .map(|t| humantime::format_rfc3339_millis(t).to_string())
            .map_err(|_| BadSince(value.to_string()))
    }

    pub fn matches(&self, line: &Value) -> bool {
        let field = |key: &str| line.get(key).and_then(Value::as_str).unwrap_or("");
        let eq = |want: &Option<String>, key: &str| want.as_ref().is_none_or(|w| field(key) == w);
        let capability = self.capability.as_ref().is_none_or(|c| {
            let have = field("capability");
            have == c
                || have
                    .strip_prefix(c.as_str())
                    .is_some_and(|r| r.starts_with('.'))
        });
        // Times are all UTC with milliseconds, so they compare as text.
        let since = self
            .since
            .as_ref()
            .is_none_or(|s| field("ts") >= s.as_str());
        eq(&self.plugin, "plugin")
            && eq(&self.tool, "tool")
            && eq(&self.event, "event")
            && eq(&self.outcome, "outcome")
            && capability
            && since
    }
}

/// One record as one line: time, event, plugin, tool, outcome, then what the event says.
pub fn render(line: &Value) -> String {
    // Every field may hold what a plugin or an agent wrote: shown escaped, one row a record.
    let field = |key: &str| crate::shown::line(line.get(key).and_then(Value::as_str).unwrap_or(""));
    let mut out = format!(
        "{}  {:<17}  {:<10}  {:<16}  {:<10}",
        field("ts"),
        field("event"),
        field("plugin"),
        field("tool"),
        field("outcome")
    );
    for key in ["capability", "target"] {
        if !field(key).is_empty() {
            out.push_str("  ");
            out.push_str(&field(key));
        }
    }
    if let Some(bytes) = line.get("bytes").and_then(Value::as_u64) {
        out.push_str(&format!("  {bytes} B"));
    }
    if let Some(ms) = line.get("duration_ms").and_then(Value::as_u64) {
        out.push_str(&format!(
            "  {}",
            humantime::format_duration(Duration::from_millis(ms))
        ));
    }
    for key in ["detail", "error", "reason"] {
        if !field(key).is_empty() {
            out.push_str(&format!("  {key}: {}", field(key)));
        }
    }
    if let Some(r) = line.get("recording") {
        let file = crate::shown::line(r.get("file").and_then(Value::as_str).unwrap_or(""));
        let t = r.get("t").and_then(Value::as_f64).unwrap_or(0.0);
        out.push_str(&format!("  recording: {file} at {t:.3}s"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line() -> Value {
        json!({"ts": "2026-11-23T10:00:00.000Z", "event": "capability_used", "plugin": "ops",
               "tool": "terminal_execute", "outcome": "ok", "capability": "terminal.write",
               "target": "ssh:web1 session t1", "detail": "uname -a", "bytes": 9, "duration_ms": 0})
    }

    #[test]
    fn every_set_field_must_match() {
        let l = line();
        assert!(Filter::default().matches(&l));
        let f = |f: Filter| f.matches(&l);
        assert!(f(Filter {
            plugin: Some("ops".into()),
            capability: Some("terminal".into()),
            ..Filter::default()
        }));
        assert!(!f(Filter {
            capability: Some("term".into()),
            ..Filter::default()
        }));
        assert!(!f(Filter {
            tool: Some("sftp_read".into()),
            ..Filter::default()
        }));
        assert!(f(Filter {
            since: Some("2026-11-23T09:59:59.000Z".into()),
            ..Filter::default()
        }));
        assert!(!f(Filter {
            since: Some("2026-11-23T10:00:00.001Z".into()),
            ..Filter::default()
        }));
    }

    #[test]
    fn since_takes_a_duration_or_a_time() {
        assert!(Filter::since("15m").is_ok());
        assert_eq!(
            Filter::since("2026-11-23T10:00:00Z").ok().as_deref(),
            Some("2026-11-23T10:00:00.000Z")
        );
        assert!(Filter::since("yesterday-ish").is_err());
    }

    #[test]
    fn a_record_renders_on_one_line() {
        let shown = render(&line());
        assert!(shown.contains("ssh:web1 session t1") && shown.contains("detail: uname -a"));
        assert!(!shown.contains('\n'));
    }
}
