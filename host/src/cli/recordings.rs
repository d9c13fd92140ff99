//! `warden audit recordings`, `warden audit play` and `warden audit view`: the session
//! recordings of the manifest's `[audit] dir`, listed by plugin, client and time, a terminal
//! recording played back in this terminal, and a loopback page that plays any recording
//! beside its audit lines.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};
use warden::audit::query::Filter;
use warden::builtin;
use warden::manifest::Manifest;
use warden::recording::{catalog, play, view as viewer};

#[derive(clap::Subcommand)]
pub enum RecordingsCommand {
    /// List the session recordings (`[audit] record`), oldest first: when, plugin, client,
    /// target, session, size, file.
    Recordings(ListArgs),
    /// Play a terminal recording here, in time: a file, or the session id an audit line names.
    Play(PlayArgs),
    /// Serve a page on loopback that lists the recordings and plays one beside its audit
    /// lines; prints the URL to open (it carries a token). Ctrl-C ends it.
    View(ViewArgs),
}

#[derive(clap::Args)]
pub struct ViewArgs {
    /// Read recordings from this directory instead of the manifest's `[audit] dir`.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Read audit lines from this log instead of the manifest's `[server] audit_log`.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Where to listen: a loopback address only (127.0.0.1:0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
}

#[derive(clap::Args)]
pub struct ListArgs {
    /// Read recordings from this directory instead of the manifest's `[audit] dir`.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Only this plugin's sessions.
    #[arg(long)]
    plugin: Option<String>,
    /// Only sessions this client opened.
    #[arg(long)]
    client: Option<String>,
    /// Only sessions begun since a duration ago (15m, 2h) or a time (2026-11-23T10:00:00Z).
    #[arg(long)]
    since: Option<String>,
    /// One JSON object per recording (its header, path and size).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    /// A recording file, or a session id (`local-1a2b3c`, as audit lines name it).
    recording: String,
    /// Find session ids in this directory instead of the manifest's `[audit] dir`.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Play faster (2) or slower (0.5).
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Write everything at once, without the recorded pauses.
    #[arg(long)]
    no_wait: bool,
    /// Write the output exactly as recorded. By default the escape sequences that would set
    /// this terminal's clipboard or title, or make it type answers into its input, are left out.
    #[arg(long)]
    raw: bool,
}

fn recordings_dir(dir: Option<PathBuf>, manifest: Option<&Path>) -> anyhow::Result<PathBuf> {
    Ok(match dir {
        Some(d) => d,
        None => Manifest::load(manifest, &builtin::names())?.recording.dir,
    })
}

pub fn run(command: RecordingsCommand, manifest: Option<&Path>) -> anyhow::Result<ExitCode> {
    match command {
        RecordingsCommand::Recordings(args) => list(args, manifest),
        RecordingsCommand::Play(args) => play_one(args, manifest),
        // `warden audit` runs on the runtime's thread; the viewer is a server.
        RecordingsCommand::View(args) => tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current().block_on(view(args, manifest))
        }),
    }
}

async fn view(args: ViewArgs, manifest: Option<&Path>) -> anyhow::Result<ExitCode> {
    let addr = viewer::listen_addr(&args.listen)?;
    let (dir, log) = match (args.dir, args.log) {
        (Some(dir), Some(log)) => (dir, log),
        (dir, log) => {
            let m = Manifest::load(manifest, &builtin::names())?;
            (dir.unwrap_or(m.recording.dir), log.unwrap_or(m.audit_log))
        }
    };
    let viewer = viewer::Viewer::new(dir, log);
    let (listener, url) = viewer.bind(addr).await?;
    eprintln!(
        "recordings of {}, audit lines of {}; open the URL below (Ctrl-C ends)",
        viewer.dir.display(),
        viewer.log.display()
    );
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{url}")?;
        out.flush()?;
    }
    axum::serve(listener, viewer.router())
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(ExitCode::SUCCESS)
}

fn list(args: ListArgs, manifest: Option<&Path>) -> anyhow::Result<ExitCode> {
    let dir = recordings_dir(args.dir, manifest)?;
    let since = args
        .since
        .as_deref()
        .map(Filter::since)
        .transpose()?
        .and_then(|s| humantime::parse_rfc3339_weak(&s).ok())
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let mut out = std::io::stdout().lock();
    let mut shown = 0;
    for entry in catalog::list(&dir) {
        let keep = |want: &Option<String>, key: &str| {
            want.as_ref().is_none_or(|w| entry.warden(key) == Some(w))
        };
        if !keep(&args.plugin, "plugin") || !keep(&args.client, "client") || entry.began() < since {
            continue;
        }
        shown += 1;
        let written = if args.json {
            let line = serde_json::json!({
                "file": entry.path.display().to_string(),
                "bytes": entry.size,
                "header": entry.header,
            });
            writeln!(out, "{line}")
        } else {
            let began = SystemTime::UNIX_EPOCH + Duration::from_secs(entry.began());
            writeln!(
                out,
                "{}  {:<10}  {:<10}  {:<12}  {:<18}  {:>10} B  {}",
                humantime::format_rfc3339_seconds(began),
                warden::shown::line(entry.warden("plugin").unwrap_or("?")),
                warden::shown::line(entry.warden("client").unwrap_or("-")),
                warden::shown::line(entry.warden("target").unwrap_or("?")),
                warden::shown::line(entry.warden("session").unwrap_or("?")),
                entry.size,
                warden::shown::line(&entry.path.display().to_string())
            )
        };
        if written.is_err() {
            return Ok(ExitCode::SUCCESS);
        }
    }
    if shown == 0 {
        eprintln!("no recording in {} matches", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn play_one(args: PlayArgs, manifest: Option<&Path>) -> anyhow::Result<ExitCode> {
    let path = if Path::new(&args.recording).is_file() {
        PathBuf::from(&args.recording)
    } else {
        let dir = recordings_dir(args.dir, manifest)?;
        catalog::find(&dir, &args.recording).ok_or_else(|| {
            anyhow::anyhow!(
                "no recording \"{}\" in {}; name a .cast file, or a session id that `warden audit recordings` lists",
                args.recording,
                dir.display()
            )
        })?
    };
    let file = std::fs::File::open(&path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    if !(args.speed.is_finite() && args.speed > 0.0) {
        anyhow::bail!(
            "--speed {} is not a positive number; write it like 2 or 0.5",
            args.speed
        );
    }
    let options = play::Options {
        speed: args.speed,
        wait: !args.no_wait,
        raw: args.raw,
    };
    let played = play::play(
        BufReader::new(file),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
        options,
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if played.unreadable > 0 {
        eprintln!(
            "warning: {} lines of {} are not events (a line cut by a crash?)",
            played.unreadable,
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
