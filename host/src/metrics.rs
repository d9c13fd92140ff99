//! Process-wide Prometheus metrics, served by the admin listener (`admin.rs`).
//!
//! Call, capability, denial, approval and restart counters are derived from the audit
//! records as they are written ([`AuditCounts`], a sink of the audit log), so the metrics
//! agree with the audit log by construction. Limit hits are counted where a limit refuses
//! something ([`limit_hit`]). Session and connection gauges are read from the live host
//! services at scrape time. The registry is a process global: a manifest reload replaces the
//! audit log and the services, never the counters.
//!
//! Labels carry only names the manifest defines (plugins, tools, capabilities, client
//! names) and fixed words: never arguments, targets, tokens or secret values.

use crate::audit::{AuditSink, Outcome, Record};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::LazyLock;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    /// `tool_call`, `resource_read`, `prompt_get` or `completion`.
    event: &'static str,
    plugin: String,
    tool: String,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LatencyLabels {
    event: &'static str,
    plugin: String,
    tool: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CapabilityLabels {
    plugin: String,
    capability: String,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DenialLabels {
    plugin: String,
    capability: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ApprovalLabels {
    plugin: String,
    tool: String,
    decision: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PluginLabels {
    plugin: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitLabels {
    limit: &'static str,
    /// The named HTTP client for per-client limits, the plugin for plugin limits.
    scope: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    result: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    latency: HistogramFamily<LatencyLabels>,
    capability_uses: Family<CapabilityLabels, Counter>,
    denials: Family<DenialLabels, Counter>,
    approvals: Family<ApprovalLabels, Counter>,
    restarts: Family<PluginLabels, Counter>,
    limit_hits: Family<LimitLabels, Counter>,
    sessions: Family<KindLabels, Gauge>,
    connections: Family<KindLabels, Gauge>,
    fleet_members: Family<StateLabels, Gauge>,
    calls_in_flight: Family<PluginLabels, Gauge>,
    calls_queued: Family<PluginLabels, Gauge>,
    instances_idle: Family<PluginLabels, Gauge>,
    state_bytes: Gauge,
    reloads: Family<ResultLabels, Counter>,
    ready: Gauge,
}

fn latency_histogram() -> Histogram {
    // 1 ms .. ~33 s: a trivial call and a page load that waits for the network alike.
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let mut registry = Registry::with_prefix("warden");
    let m = Metrics {
        registry: Registry::default(),
        calls: Family::default(),
        latency: Family::new_with_constructor(latency_histogram as fn() -> Histogram),
        capability_uses: Family::default(),
        denials: Family::default(),
        approvals: Family::default(),
        restarts: Family::default(),
        limit_hits: Family::default(),
        sessions: Family::default(),
        connections: Family::default(),
        fleet_members: Family::default(),
        calls_in_flight: Family::default(),
        calls_queued: Family::default(),
        instances_idle: Family::default(),
        state_bytes: Gauge::default(),
        reloads: Family::default(),
        ready: Gauge::default(),
    };
    registry.register(
        "calls",
        "Calls into plugins (tools, resource reads, prompts, completions) by plugin, tool and outcome; one per audit line",
        m.calls.clone(),
    );
    registry.register(
        "call_duration_seconds",
        "Duration of calls into plugins, as written to the audit log",
        m.latency.clone(),
    );
    registry.register(
        "capability_uses",
        "Host requests a capability made for a plugin (capability_used audit lines)",
        m.capability_uses.clone(),
    );
    registry.register(
        "denials",
        "Refused capability uses by capability (capability_denied audit lines)",
        m.denials.clone(),
    );
    registry.register(
        "approvals",
        "Approvals asked of the user, by decision",
        m.approvals.clone(),
    );
    registry.register(
        "plugin_restarts",
        "Calls whose instance was stopped by a timeout or trapped (other calls are not affected)",
        m.restarts.clone(),
    );
    registry.register(
        "limit_hits",
        "Requests or calls refused or stopped by a limit (rate, concurrency, plugin_concurrency, call_timeout, memory, output, terminal_sessions)",
        m.limit_hits.clone(),
    );
    registry.register(
        "sessions_active",
        "Open sessions by kind (browser, terminal, ssh, sftp)",
        m.sessions.clone(),
    );
    registry.register(
        "connections_active",
        "Open connections by kind (browser: running browsers; ssh: SSH connections)",
        m.connections.clone(),
    );
    registry.register(
        "browser_fleet_members",
        "Remote browsers of [browser] endpoints by health (healthy, down)",
        m.fleet_members.clone(),
    );
    registry.register(
        "plugin_calls_in_flight",
        "Calls running in a plugin now, each in an instance of its own (at most its limits.concurrency)",
        m.calls_in_flight.clone(),
    );
    registry.register(
        "plugin_calls_queued",
        "Calls waiting for one of a plugin's limits.concurrency places",
        m.calls_queued.clone(),
    );
    registry.register(
        "plugin_instances_idle",
        "Instances waiting for their conversation's next call (each serves one conversation only)",
        m.instances_idle.clone(),
    );
    registry.register(
        "plugin_state_bytes",
        "Bytes plugins keep between calls (warden:plugin/state), all conversations together",
        m.state_bytes.clone(),
    );
    registry.register(
        "manifest_reloads",
        "Manifest reloads by result (applied, refused)",
        m.reloads.clone(),
    );
    registry.register(
        "ready",
        "1 when every plugin is loaded and Warden serves, else 0",
        m.ready.clone(),
    );
    Metrics { registry, ..m }
});

fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Ok => "ok",
        Outcome::ToolError => "tool_error",
        Outcome::Timeout => "timeout",
        Outcome::Trap => "trap",
        Outcome::Cancelled => "cancelled",
        Outcome::Denied => "denied",
    }
}

/// The audit sink that counts: registered on the audit log by whoever builds the app.
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditCounts;

impl AuditSink for AuditCounts {
    fn observe(&self, record: &Record<'_>) {
        observe(record);
    }
}

/// Count what one audit record says happened.
fn observe(record: &Record<'_>) {
    let m = &*METRICS;
    match record.event {
        "tool_call" | "resource_read" | "prompt_get" | "completion" => {
            m.calls
                .get_or_create(&CallLabels {
                    event: record.event,
                    plugin: record.plugin.to_string(),
                    tool: record.tool.to_string(),
                    outcome: outcome_name(record.outcome),
                })
                .inc();
            if let Some(ms) = record.duration_ms {
                #[allow(clippy::cast_precision_loss)] // milliseconds stay far below 2^52
                m.latency
                    .get_or_create(&LatencyLabels {
                        event: record.event,
                        plugin: record.plugin.to_string(),
                        tool: record.tool.to_string(),
                    })
                    .observe(ms as f64 / 1000.0);
            }
            if matches!(record.outcome, Outcome::Timeout | Outcome::Trap) {
                m.restarts
                    .get_or_create(&PluginLabels {
                        plugin: record.plugin.to_string(),
                    })
                    .inc();
            }
        }
        "capability_used" => {
            m.capability_uses
                .get_or_create(&CapabilityLabels {
                    plugin: record.plugin.to_string(),
                    capability: record.capability.unwrap_or("").to_string(),
                    outcome: outcome_name(record.outcome),
                })
                .inc();
        }
        "capability_denied" => {
            m.denials
                .get_or_create(&DenialLabels {
                    plugin: record.plugin.to_string(),
                    capability: record.capability.unwrap_or("").to_string(),
                })
                .inc();
        }
        "approval" => {
            m.approvals
                .get_or_create(&ApprovalLabels {
                    plugin: record.plugin.to_string(),
                    tool: record.tool.to_string(),
                    decision: record.decision,
                })
                .inc();
        }
        _ => {}
    }
}

/// A limit refused or stopped something. `limit` is a fixed word (`rate`, `concurrency`,
/// `plugin_concurrency`, `call_timeout`, `memory`, `output`, `terminal_sessions`); `scope`
/// the client or plugin.
pub fn limit_hit(limit: &'static str, scope: &str) {
    METRICS
        .limit_hits
        .get_or_create(&LimitLabels {
            limit,
            scope: scope.to_string(),
        })
        .inc();
}

/// A manifest reload was applied (`true`) or refused.
pub fn reloaded(applied: bool) {
    METRICS
        .reloads
        .get_or_create(&ResultLabels {
            result: if applied { "applied" } else { "refused" },
        })
        .inc();
}

/// Calls of one plugin, running and waiting, and its instances idle between calls.
#[derive(Debug, Default, Clone)]
pub struct PluginCalls {
    pub plugin: String,
    pub in_flight: usize,
    pub queued: usize,
    pub idle: usize,
}

/// Open sessions and connections, read from the host services at scrape time.
#[derive(Debug, Default, Clone)]
pub struct Census {
    /// Each plugin's calls (set by the admin listener from the registry).
    pub plugin_calls: Vec<PluginCalls>,
    /// Bytes of `warden:plugin/state` held.
    pub state_bytes: u64,
    pub browser_sessions: usize,
    pub browser_connections: usize,
    pub terminal_sessions: usize,
    pub ssh_sessions: usize,
    pub sftp_sessions: usize,
    pub ssh_connections: usize,
    /// Members of the remote browser fleet whose last check passed, and those down.
    pub fleet_healthy: usize,
    pub fleet_down: usize,
}

/// The exposition text (OpenMetrics), with the gauges set from `census` and `ready`.
pub fn render(census: Census, ready: bool) -> String {
    let m = &*METRICS;
    let gauge = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
    for (kind, n) in [
        ("browser", census.browser_sessions),
        ("terminal", census.terminal_sessions),
        ("ssh", census.ssh_sessions),
        ("sftp", census.sftp_sessions),
    ] {
        m.sessions.get_or_create(&KindLabels { kind }).set(gauge(n));
    }
    for (kind, n) in [
        ("browser", census.browser_connections),
        ("ssh", census.ssh_connections),
    ] {
        m.connections
            .get_or_create(&KindLabels { kind })
            .set(gauge(n));
    }
    for (state, n) in [
        ("healthy", census.fleet_healthy),
        ("down", census.fleet_down),
    ] {
        m.fleet_members
            .get_or_create(&StateLabels { state })
            .set(gauge(n));
    }
    for calls in &census.plugin_calls {
        let labels = PluginLabels {
            plugin: calls.plugin.clone(),
        };
        m.calls_in_flight
            .get_or_create(&labels)
            .set(gauge(calls.in_flight));
        m.calls_queued
            .get_or_create(&labels)
            .set(gauge(calls.queued));
    }
    m.state_bytes
        .set(i64::try_from(census.state_bytes).unwrap_or(i64::MAX));
    m.ready.set(i64::from(ready));
    let mut text = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut text, &m.registry) {
        tracing::error!("metrics not encodable: {e}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_counts_once_and_carries_no_arguments() {
        let record = Record {
            event: "tool_call",
            plugin: "metrics-test",
            tool: "echo",
            args_sha256: Some("feedface".into()),
            args_bytes: Some(12),
            outcome: Outcome::Trap,
            duration_ms: Some(1500),
            target: Some("secret-target.example"),
            client: Some("alice"),
            ..Record::default()
        };
        observe(&record);
        let text = render(Census::default(), true);
        assert!(text.contains(
            r#"warden_calls_total{event="tool_call",plugin="metrics-test",tool="echo",outcome="trap"} 1"#
        ), "{text}");
        assert!(text.contains(r#"warden_plugin_restarts_total{plugin="metrics-test"} 1"#));
        assert!(text.contains("warden_ready 1"));
        assert!(!text.contains("feedface") && !text.contains("secret-target"));
        assert!(text.ends_with("# EOF\n"));
    }
}
