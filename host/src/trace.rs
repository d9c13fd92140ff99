//! OpenTelemetry traces, off unless `[telemetry] otlp_endpoint` is set: one span per call into
//! a plugin and one child span per capability use or refusal inside it, exported over
//! OTLP/HTTP with the JSON encoding (`POST {endpoint}/v1/traces`).
//!
//! Like the metrics, spans are made from the audit records as they are written ([`Spans`], a
//! sink of the audit log), so a trace shows exactly what the audit log shows, with the same
//! restraint: names of plugins, tools and capabilities, outcomes and the named client; never
//! arguments, targets or secrets.
//! A call joins the caller's trace when the request carries a W3C `traceparent`, in its
//! `_meta` (2026-07-28) or as an HTTP header; otherwise it starts a trace of its own.

use crate::audit::{AuditSink, Outcome, Record};
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;

/// Spans sent in one export at most; a batch also goes out after this long.
const BATCH: usize = 256;
const FLUSH_EVERY: Duration = Duration::from_millis(500);

pub use crate::audit::CallTrace;

static EXPORT: OnceLock<mpsc::UnboundedSender<Value>> = OnceLock::new();

/// Export spans to `endpoint` from now on (once per process).
pub fn start(endpoint: &url::Url) {
    let url = format!("{}/v1/traces", endpoint.as_str().trim_end_matches('/'));
    let (tx, rx) = mpsc::unbounded_channel();
    if EXPORT.set(tx).is_ok() {
        tracing::info!(
            "exporting traces to {} (OTLP/HTTP JSON)",
            crate::net::shown::shown(&url)
        );
        tokio::spawn(export(url, rx));
    }
}

/// The trace context of a new call, or `None` when traces are off.
pub fn for_call(context: &RequestContext<RoleServer>) -> Option<CallTrace> {
    EXPORT.get()?;
    let from_meta = context.meta.get_traceparent();
    let from_header = || {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.headers.get("traceparent"))
            .and_then(|v| v.to_str().ok())
    };
    let remote = from_meta.or_else(from_header).and_then(parse_traceparent);
    Some(CallTrace {
        trace_id: remote.map_or_else(rand::random, |(t, _)| t),
        span_id: rand::random(),
        parent: remote.map(|(_, s)| s),
    })
}

/// `00-TRACEID-SPANID-FLAGS` (W3C Trace Context); all-zero ids are invalid.
fn parse_traceparent(value: &str) -> Option<([u8; 16], [u8; 8])> {
    let mut parts = value.trim().split('-');
    let (version, trace, span, _flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if version.len() != 2 || version == "ff" {
        return None;
    }
    let trace: [u8; 16] = hex::decode(trace).ok()?.try_into().ok()?;
    let span: [u8; 8] = hex::decode(span).ok()?.try_into().ok()?;
    (trace != [0; 16] && span != [0; 8]).then_some((trace, span))
}

/// The audit sink that exports spans: registered on the audit log by whoever builds the app.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spans;

impl AuditSink for Spans {
    fn observe(&self, record: &Record<'_>) {
        observe(record);
    }
}

/// Make the span an audit record describes, when it belongs to a traced call.
fn observe(record: &Record<'_>) {
    let (Some(export), Some(trace)) = (EXPORT.get(), record.trace) else {
        return;
    };
    let end = SystemTime::now();
    let duration = Duration::from_millis(record.duration_ms.unwrap_or(0));
    let start = end.checked_sub(duration).unwrap_or(end);
    let (name, span_id, parent, kind) = match record.event {
        "tool_call" => (
            format!("tools/call {}", record.tool),
            trace.span_id,
            trace.parent,
            2,
        ),
        "resource_read" | "prompt_get" | "completion" => (
            format!("{} {}", record.event, record.tool),
            trace.span_id,
            trace.parent,
            2,
        ),
        "capability_used" | "capability_denied" => (
            format!(
                "{}{}",
                record.capability.unwrap_or("capability"),
                if record.decision == "denied" {
                    " denied"
                } else {
                    ""
                }
            ),
            rand::random(),
            Some(trace.span_id),
            1,
        ),
        _ => return,
    };
    let mut attributes = vec![
        attribute("warden.plugin", record.plugin),
        attribute("warden.tool", record.tool),
        attribute("warden.event", record.event),
        attribute("warden.decision", record.decision),
    ];
    if let Some(capability) = record.capability {
        attribute_push(&mut attributes, "warden.capability", capability);
    }
    if let Some(client) = record.client {
        attribute_push(&mut attributes, "warden.client", client);
    }
    let outcome = serde_json::to_value(record.outcome).unwrap_or(Value::Null);
    attributes.push(json!({"key": "warden.outcome", "value": {"stringValue": outcome}}));
    let mut span = json!({
        "traceId": hex::encode(trace.trace_id),
        "spanId": hex::encode(span_id),
        "name": name,
        "kind": kind,
        "startTimeUnixNano": nanos(start),
        "endTimeUnixNano": nanos(end),
        "attributes": attributes,
        "status": if record.outcome == Outcome::Ok {
            json!({"code": 1})
        } else {
            json!({"code": 2, "message": outcome})
        },
    });
    if let Some(parent) = parent {
        span["parentSpanId"] = json!(hex::encode(parent));
    }
    let _ = export.send(span);
}

fn attribute(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

fn attribute_push(attributes: &mut Vec<Value>, key: &str, value: &str) {
    attributes.push(attribute(key, value));
}

fn nanos(t: SystemTime) -> String {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
        .to_string()
}

async fn export(url: String, mut spans: mpsc::UnboundedReceiver<Value>) {
    // The collector answers itself: a redirect would send the spans to a host no one named.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default();
    let shown = crate::net::shown::shown(&url);
    let mut failing = false;
    while let Some(first) = spans.recv().await {
        let mut batch = vec![first];
        let deadline = tokio::time::Instant::now() + FLUSH_EVERY;
        while batch.len() < BATCH {
            match tokio::time::timeout_at(deadline, spans.recv()).await {
                Ok(Some(span)) => batch.push(span),
                Ok(None) | Err(_) => break,
            }
        }
        let body = json!({"resourceSpans": [{
            "resource": {"attributes": [attribute("service.name", "warden")]},
            "scopeSpans": [{"scope": {"name": "warden", "version": env!("CARGO_PKG_VERSION")}, "spans": batch}],
        }]});
        let sent = client
            .post(&url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .timeout(Duration::from_secs(10))
            .send()
            .await;
        match sent.map(|r| r.status()) {
            Ok(status) if status.is_success() => failing = false,
            outcome => {
                // Said once per outage, not once per batch; the error without its URL.
                if !failing {
                    let why = match outcome {
                        Ok(status) => format!("HTTP {status}"),
                        Err(e) => crate::net::chain::error_chain(&e.without_url()),
                    };
                    tracing::warn!(
                        "trace export to {shown} failed ({why}); spans are dropped until it recovers"
                    );
                }
                failing = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_is_parsed_strictly() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let (trace, span) = parse_traceparent(good).expect("valid");
        assert_eq!(hex::encode(trace), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(hex::encode(span), "00f067aa0ba902b7");
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f35-00f067aa0ba902b7-01",
        ] {
            assert!(parse_traceparent(bad).is_none(), "{bad}");
        }
    }
}
