//! `warden audit`: print the audit log, filtered (by plugin, tool, event, outcome,
//! capability, time), one record per line or as the JSON lines themselves;
//! `warden audit recordings` lists the session recordings and `warden audit play` plays a
//! terminal recording (see `recordings.rs` beside this file).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use warden::audit::query::{Filter, render};
use warden::builtin;
use warden::manifest::Manifest;

/// `warden audit` arguments.
#[derive(clap::Args)]
pub struct AuditArgs {
    #[command(subcommand)]
    command: Option<super::recordings::RecordingsCommand>,
    #[arg(long, short, env = "WARDEN_MANIFEST", global = true)]
    manifest: Option<PathBuf>,
    /// Read this audit log instead of the manifest's.
    #[arg(long)]
    file: Option<PathBuf>,
    /// Only this plugin's records.
    #[arg(long)]
    plugin: Option<String>,
    /// Only records of this tool.
    #[arg(long)]
    tool: Option<String>,
    /// Only this event: tool_call, resource_read, capability_used, capability_denied, ...
    #[arg(long)]
    event: Option<String>,
    /// Only this outcome: ok, tool_error, timeout, trap, cancelled, denied.
    #[arg(long)]
    outcome: Option<String>,
    /// Only this capability, or its family: `terminal` matches terminal.write.
    #[arg(long)]
    capability: Option<String>,
    /// Only records since a duration ago (15m, 2h) or a time (2026-11-23T10:00:00Z).
    #[arg(long)]
    since: Option<String>,
    /// Print the matching JSON lines as they are.
    #[arg(long)]
    json: bool,
}

pub fn run(args: AuditArgs) -> anyhow::Result<ExitCode> {
    if let Some(command) = args.command {
        return super::recordings::run(command, args.manifest.as_deref());
    }
    let filter = Filter {
        plugin: args.plugin,
        tool: args.tool,
        event: args.event,
        outcome: args.outcome,
        capability: args.capability,
        since: args.since.as_deref().map(Filter::since).transpose()?,
    };
    let json = args.json;
    let path = match args.file {
        Some(f) => f,
        None => Manifest::load(args.manifest.as_deref(), &builtin::names())?.audit_log,
    };
    let reader = std::fs::File::open(&path).map(BufReader::new).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the audit log {}: {e}; name another with --file, or the manifest whose [server] audit_log it is with --manifest",
            path.display()
        )
    })?;
    let mut out = std::io::stdout().lock();
    let (mut shown, mut unreadable) = (0usize, 0usize);
    for line in reader.lines() {
        let line = line?;
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&line) else {
            unreadable += 1;
            continue;
        };
        if !filter.matches(&record) {
            continue;
        }
        shown += 1;
        let written = if json {
            writeln!(out, "{line}")
        } else {
            writeln!(out, "{}", render(&record))
        };
        // A closed pipe (`| head`) ends the listing, not with an error.
        if written.is_err() {
            return Ok(ExitCode::SUCCESS);
        }
    }
    if unreadable > 0 {
        eprintln!(
            "warning: {unreadable} lines of {} are not JSON (a line cut by a crash?)",
            path.display()
        );
    }
    if shown == 0 {
        eprintln!("no audit record in {} matches", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
