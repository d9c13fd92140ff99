//! What a tab logged: `browse_console` (console messages, uncaught exceptions, browser log
//! entries) and `browse_network` (its requests, without headers or bodies).

use crate::memory;
use warden_sdk::browser::{ConsoleEntry, NetworkEntry, NetworkQuery};
use warden_sdk::prelude::*;

const DEFAULT_MAX: usize = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ConsoleArgs {
    /// Minimum, like warning.
    level: Option<String>,
    /// Only new ones.
    since_last: Option<bool>,
    /// Empty the log after.
    clear: Option<bool>,
    /// Newest N.
    max: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NetworkArgs {
    /// URL glob.
    url: Option<String>,
    /// Like script, xhr.
    #[serde(rename = "type")]
    resource_type: Option<String>,
    /// Failed, blocked or 4xx/5xx.
    failed_only: Option<bool>,
    /// Only new ones.
    since_last: Option<bool>,
    /// Empty the log after.
    clear: Option<bool>,
    /// Newest N.
    max: Option<usize>,
}

/// Severity rank of a level; unknown names are refused with the list.
pub fn level_rank(level: &str) -> Option<u8> {
    Some(match level {
        "debug" | "verbose" => 0,
        "info" => 1,
        "log" => 2,
        "warning" | "warn" => 3,
        "error" => 4,
        _ => return None,
    })
}

/// Keep the newest `max` of `items`; returns how many were left out.
fn newest<T>(items: &mut Vec<T>, max: usize) -> usize {
    let extra = items.len().saturating_sub(max);
    items.drain(..extra);
    extra
}

/// One log read: which log, what it holds and how it was read.
struct LogRead<'a> {
    /// "Console" or "Network".
    name: &'a str,
    /// "message(s)" or "request(s)".
    noun: &'a str,
    url: String,
    capacity: u32,
    dropped: u64,
    since_last: bool,
    clear: bool,
}

/// The log's lines under a header saying how many there are and what was left out.
fn render_log<T>(
    read: LogRead,
    mut entries: Vec<T>,
    max: usize,
    line: impl Fn(&T) -> String,
) -> String {
    let left_out = newest(&mut entries, max.max(1));
    let mut out = format!(
        "{} of {}: {} {}{}; the tab keeps the last {}, {} older dropped\n",
        read.name,
        read.url,
        entries.len() + left_out,
        read.noun,
        if read.since_last {
            " since the last read"
        } else {
            ""
        },
        read.capacity,
        read.dropped
    );
    if left_out > 0 {
        out.push_str(&format!(
            "(the {left_out} oldest not shown; raise max to see them)\n"
        ));
    }
    for e in &entries {
        out.push_str(&line(e));
        out.push('\n');
    }
    if read.clear {
        out.push_str(&format!(
            "The {} log is now empty.\n",
            read.name.to_ascii_lowercase()
        ));
    }
    out
}

fn console_line(e: &ConsoleEntry) -> String {
    let source = if e.source == "console" {
        String::new()
    } else {
        format!(" {}", e.source)
    };
    let location = e
        .location
        .as_deref()
        .map(|l| format!("  ({l})"))
        .unwrap_or_default();
    format!("#{} [{}{source}] {}{location}", e.seq, e.level, e.text)
}

fn size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

pub fn network_line(e: &NetworkEntry) -> String {
    let mut line = format!(
        "#{} {} {} {} {}",
        e.seq,
        e.method,
        e.status
            .map_or_else(|| "---".to_string(), |s| s.to_string()),
        e.resource_type,
        e.url
    );
    if let Some(mime) = &e.mime_type {
        line.push_str(&format!(" {mime}"));
    }
    if let Some(bytes) = e.encoded_bytes {
        line.push_str(&format!(" {}", size(bytes)));
    }
    if let Some(ms) = e.duration_ms {
        line.push_str(&format!(" {ms:.0} ms"));
    }
    if let Some(failure) = &e.failure {
        line.push_str(&format!(" FAILED {failure}"));
    }
    if let Some(what) = e.intercepted.as_deref() {
        match what.strip_prefix("mock ") {
            Some(glob) => line.push_str(&format!(" [mocked by route {glob}]")),
            None => line.push_str(&format!(" [blocked by {what}]")),
        }
    }
    if e.pending {
        line.push_str(" (pending)");
    }
    line
}

fn browse_console(args: ConsoleArgs) -> Result<String, ToolError> {
    let min = match args.level.as_deref().map(str::to_ascii_lowercase) {
        None => 0,
        Some(l) => level_rank(&l).ok_or_else(|| {
            ToolError::invalid_arguments(format!(
                "level \"{l}\" is not debug, info, log, warning or error"
            ))
        })?,
    };
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let log = tab.page.console(
            args.since_last.unwrap_or(false),
            args.clear.unwrap_or(false),
        )?;
        let entries: Vec<ConsoleEntry> = log
            .entries
            .into_iter()
            .filter(|e| level_rank(&e.level).unwrap_or(2) >= min)
            .collect();
        let read = LogRead {
            name: "Console",
            noun: "message(s)",
            url: tab.page.url().unwrap_or_default(),
            capacity: log.capacity,
            dropped: log.dropped,
            since_last: args.since_last == Some(true),
            clear: args.clear == Some(true),
        };
        Ok(render_log(
            read,
            entries,
            args.max.unwrap_or(DEFAULT_MAX),
            console_line,
        ))
    })
}

fn browse_network(args: NetworkArgs) -> Result<String, ToolError> {
    let query = NetworkQuery {
        url_glob: args.url.clone(),
        resource_type: args.resource_type.clone(),
        failed_only: args.failed_only.unwrap_or(false),
        since_last: args.since_last.unwrap_or(false),
        clear: args.clear.unwrap_or(false),
    };
    memory::with(|st| {
        let tab = st.existing_tab()?;
        let log = tab.page.network(&query)?;
        let read = LogRead {
            name: "Network",
            noun: "request(s)",
            url: tab.page.url().unwrap_or_default(),
            capacity: log.capacity,
            dropped: log.dropped,
            since_last: query.since_last,
            clear: query.clear,
        };
        Ok(render_log(
            read,
            log.entries,
            args.max.unwrap_or(DEFAULT_MAX),
            network_line,
        ))
    })
}

pub fn register(p: Plugin) -> Plugin {
    p.tool(
        Tool::new("browse_console", browse_console)
            .description("The tab's console messages and uncaught errors, to debug a page.")
            .read_only(),
    )
    .tool(
        Tool::new("browse_network", browse_network)
            .description(
                "The tab's requests (status, size, timing), to debug loading or find APIs.",
            )
            .read_only(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_keeps_the_end() {
        let mut v = vec![1, 2, 3, 4];
        assert_eq!(newest(&mut v, 2), 2);
        assert_eq!(v, vec![3, 4]);
        assert_eq!(newest(&mut v, 5), 0);
    }

    #[test]
    fn network_line_names_interception() {
        let mut e = NetworkEntry {
            seq: 3,
            method: "GET".into(),
            url: "http://x/a.png".into(),
            resource_type: "Image".into(),
            status: None,
            mime_type: None,
            encoded_bytes: None,
            duration_ms: Some(2.4),
            failure: Some("net::ERR_BLOCKED_BY_CLIENT".into()),
            intercepted: Some("route *.png".into()),
            pending: false,
        };
        assert_eq!(
            network_line(&e),
            "#3 GET --- Image http://x/a.png 2 ms FAILED net::ERR_BLOCKED_BY_CLIENT [blocked by route *.png]"
        );
        e.intercepted = Some("mock */api/*".into());
        e.failure = None;
        e.status = Some(200);
        assert!(network_line(&e).ends_with("[mocked by route */api/*]"));
    }
}
