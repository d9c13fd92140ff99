//! `warden audit`: print the audit log, filtered (by plugin, tool, event, outcome,
//! capability, time), one record per line or as the JSON lines themselves.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::ExitCode;
use warden::audit::query::{Filter, render};
use warden::builtin;
use warden::manifest::Manifest;

pub fn run(
    manifest: Option<&Path>,
    file: Option<&Path>,
    filter: &Filter,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let path = match file {
        Some(f) => f.to_path_buf(),
        None => Manifest::load(manifest, &builtin::names())?.audit_log,
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
