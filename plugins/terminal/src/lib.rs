//! Warden's built-in `terminal` plugin: shells on SSH hosts named by the admin (and, when
//! granted, local PTYs), with reliable command completion, exit codes and bounded output.
//!
//! The host owns the sessions (`warden:terminal`); this plugin turns them into tools:
//! `terminal_execute` (marker-delimited command runs, see `execute.rs`), `terminal_open`,
//! `terminal_read`, `terminal_write` (text and named keys), `terminal_screen`,
//! `terminal_resize`, `terminal_list_sessions`, `terminal_close`, and the `sessions://`
//! resources. Remote desktops (RDP, `warden:rdp`) are sessions too (`desktop.rs`):
//! `terminal_open {"rdp": ALIAS}`, `terminal_screenshot`, `terminal_mouse`, `terminal_wait`.

mod capture;
mod desktop;
mod execute;
mod keys;

use std::time::{Duration, Instant};
use warden_sdk::prelude::*;
use warden_sdk::terminal::{self, Session, SessionInfo, Target};

/// Default and largest `timeout_ms` of `terminal_execute`.
const DEFAULT_TIMEOUT_MS: u64 = 30_000;
const MAX_TIMEOUT_MS: u64 = 600_000;
/// Default and largest output kept by `terminal_execute` and returned by `terminal_read`.
/// The output appears twice in a result (text and structured), so 32 KiB of output is a
/// result of about 17,000 tokens: under what common MCP clients accept (about 25,000).
const DEFAULT_OUTPUT_CAP: usize = 32 * 1024;
const MAX_OUTPUT_CAP: usize = 768 * 1024;
/// Terminal sizes a session may have, and the default.
const COLS: std::ops::RangeInclusive<u16> = 10..=500;
const ROWS: std::ops::RangeInclusive<u16> = 2..=200;
const DEFAULT_SIZE: (u16, u16) = (200, 50);

/// Arguments of `terminal_open`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OpenArgs {
    /// SSH host alias from the admin; omit for a local shell (grant terminal.local).
    host: Option<String>,
    /// Instead: an RDP desktop alias from the admin; opens a remote desktop session.
    rdp: Option<String>,
    /// 10-500 (default 200).
    cols: Option<u16>,
    /// 2-200 (default 50).
    rows: Option<u16>,
    /// rdp: desktop pixels, 200-8192 and even (default 1024).
    width: Option<u16>,
    /// rdp: desktop pixels, 200-8192 (default 768).
    height: Option<u16>,
}

/// Arguments of `terminal_resize`: cols and rows for a shell, width and height for rdp-.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResizeArgs {
    session_id: String,
    /// Shell: 10-500.
    cols: Option<u16>,
    /// Shell: 2-200.
    rows: Option<u16>,
    /// rdp: pixels, 200-8192, even.
    width: Option<u16>,
    /// rdp: pixels, 200-8192.
    height: Option<u16>,
}

/// Arguments of `terminal_execute`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExecuteArgs {
    /// Omit to open a session on host.
    session_id: Option<String>,
    /// SSH host alias, for a new session.
    host: Option<String>,
    /// One line, as typed at the prompt.
    command: String,
    /// Default 30000; the command keeps running after it.
    timeout_ms: Option<u64>,
    /// Default 32768; beyond it, head and tail and how to read the middle.
    max_output_bytes: Option<usize>,
}

/// The result of `terminal_execute`.
#[derive(Debug, Serialize, JsonSchema)]
struct ExecuteOutput {
    session_id: String,
    /// ANSI escapes stripped.
    output: String,
    /// Null while it runs.
    exit_code: Option<i32>,
    cwd: Option<String>,
    /// The wait ended first.
    timed_out: bool,
    /// Same as timed_out.
    still_running: bool,
    /// The middle was cut.
    truncated: bool,
    /// terminal_read offset of the cut.
    cut_offset: Option<u64>,
    /// Bytes the command printed.
    total_bytes: u64,
}

/// Arguments naming a session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    session_id: String,
}

/// Arguments of `terminal_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    session_id: String,
    /// Last lines to return (default 50).
    lines: Option<u32>,
    /// Instead: output from this byte offset (from a cut terminal_execute result).
    offset: Option<u64>,
    /// With offset (default 32768).
    max_bytes: Option<usize>,
    /// Wait for new output first (default 0).
    wait_ms: Option<u32>,
}

/// Arguments of `terminal_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    session_id: String,
    /// Sent as is; end with "\n" to submit.
    text: Option<String>,
    /// After text: enter, tab, escape, backspace, up, down, left, right, home, end, pageup,
    /// pagedown, delete, f1-f12, ctrl-a..ctrl-z. Remote desktops: chords such as
    /// "ctrl+alt+delete", "alt+f4", "win+r".
    keys: Option<Vec<String>>,
    /// Settle time before answering (default 500).
    wait_ms: Option<u32>,
}

fn attach(id: &str) -> Result<Session, ToolError> {
    Ok(terminal::attach(id)?)
}

fn target(host: Option<String>) -> Target {
    match host {
        Some(h) if !h.is_empty() && h != "local" => Target::Ssh(h),
        _ => Target::Local,
    }
}

fn describe(i: &SessionInfo) -> String {
    let state = match (i.ended, i.exit_status) {
        (true, Some(code)) => format!("ended (exit {code})"),
        (true, None) => "ended".to_string(),
        (false, _) => "open".to_string(),
    };
    format!(
        "{}  {}  {}x{}  {}{}  {} bytes of output",
        i.id,
        i.target,
        i.cols,
        i.rows,
        state,
        if i.read_only { ", read-only" } else { "" },
        i.output_bytes
    )
}

fn info_json(i: &SessionInfo) -> serde_json::Value {
    serde_json::json!({
        "id": i.id,
        "type": if i.target.starts_with("ssh:") { "ssh" } else { "local" },
        "target": i.target,
        "cols": i.cols,
        "rows": i.rows,
        "read_only": i.read_only,
        "output_bytes": i.output_bytes,
        "exit_status": i.exit_status,
        "ended": i.ended,
        "created": i.created,
    })
}

/// `cols` x `rows`, or an error that gives the allowed range.
fn size(cols: u16, rows: u16) -> Result<(u16, u16), ToolError> {
    if !COLS.contains(&cols) || !ROWS.contains(&rows) {
        return Err(ToolError::invalid_arguments(format!(
            "a terminal of {cols}x{rows} is outside the allowed size: cols {}-{}, rows {}-{}",
            COLS.start(),
            COLS.end(),
            ROWS.start(),
            ROWS.end()
        )));
    }
    Ok((cols, rows))
}

fn open(args: OpenArgs) -> Result<ToolOutput, ToolError> {
    if let Some(alias) = &args.rdp {
        if args.host.is_some() {
            return Err(ToolError::invalid_arguments(
                "give `host` (SSH) or `rdp` (remote desktop), not both",
            ));
        }
        if args.cols.is_some() || args.rows.is_some() {
            return Err(ToolError::invalid_arguments(
                "a remote desktop is sized in pixels: give width and height, not cols and rows",
            ));
        }
        let size = match (args.width, args.height) {
            (None, None) => None,
            (Some(w), Some(h)) => Some((w, h)),
            _ => {
                return Err(ToolError::invalid_arguments(
                    "give both width and height (or neither, for 1024x768)",
                ));
            }
        };
        return desktop::open(alias, size);
    }
    if args.width.is_some() || args.height.is_some() {
        return Err(ToolError::invalid_arguments(
            "width and height size a remote desktop (with `rdp`); a shell takes cols and rows",
        ));
    }
    let (cols, rows) = size(
        args.cols.unwrap_or(DEFAULT_SIZE.0),
        args.rows.unwrap_or(DEFAULT_SIZE.1),
    )?;
    let session = terminal::open(target(args.host), cols, rows)?;
    wait_for_prompt(&session)?;
    let info = session.info();
    // Clients subscribed to the scrollback resource hear when the session prints.
    session.watch(&format!("sessions://{}/scrollback", info.id))?;
    let banner = session.scrollback(10)?;
    let mut out = ToolOutput::text(format!(
        "Opened session {} on {}. Run commands with terminal_execute {{\"session_id\": \"{}\", \"command\": ...}}.\n{banner}",
        info.id, info.target, info.id
    ));
    out.structured = Some(info_json(&info));
    Ok(out)
}

fn execute(args: ExecuteArgs) -> Result<Structured<ExecuteOutput>, ToolError> {
    if args.command.trim().is_empty() {
        return Err(ToolError::invalid_arguments("`command` must not be empty"));
    }
    if args.command.contains('\n') {
        return Err(ToolError::invalid_arguments(
            "`command` must be one line; join commands with ';' or '&&', or write a script with sftp_write and run it",
        ));
    }
    let session = match (&args.session_id, args.host) {
        (Some(id), _) => attach(id)?,
        (None, Some(host)) => {
            let session = terminal::open(target(Some(host)), DEFAULT_SIZE.0, DEFAULT_SIZE.1)?;
            wait_for_prompt(&session)?;
            session
        }
        (None, None) => {
            return Err(ToolError::invalid_arguments(
                "give `session_id` (from terminal_open) or `host` (an SSH host alias)",
            ));
        }
    };
    let id = session.info().id;
    let timeout = Duration::from_millis(
        args.timeout_ms
            .unwrap_or(DEFAULT_TIMEOUT_MS)
            .clamp(1, MAX_TIMEOUT_MS),
    );
    let cap = args
        .max_output_bytes
        .unwrap_or(DEFAULT_OUTPUT_CAP)
        .clamp(1024, MAX_OUTPUT_CAP);
    let o = execute::run(&session, &args.command, timeout, cap)?;

    let mut text = o.output.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if o.timed_out {
        text.push_str(&format!(
            "[still running after {} ms in session {id}: poll with terminal_read, or stop it with terminal_write keys [\"ctrl-c\"]]",
            timeout.as_millis()
        ));
    } else if o.session_ended {
        text.push_str(&format!(
            "[the shell of session {id} ended{}]",
            o.exit_code
                .map(|c| format!(" with status {c}"))
                .unwrap_or_default()
        ));
    } else {
        text.push_str(&format!(
            "[exit code {}, cwd {}]",
            o.exit_code.map_or("?".to_string(), |c| c.to_string()),
            o.cwd.as_deref().unwrap_or("?")
        ));
    }
    Ok(Structured::new(ExecuteOutput {
        session_id: id,
        output: o.output,
        exit_code: o.exit_code,
        cwd: o.cwd,
        timed_out: o.timed_out,
        still_running: o.timed_out,
        truncated: o.cut.is_some(),
        cut_offset: o.cut.map(|c| c.at),
        total_bytes: o.total_bytes,
    })
    .text(text))
}

fn read(args: ReadArgs) -> Result<ToolOutput, ToolError> {
    if let Some(offset) = args.offset {
        return read_from(args, offset);
    }
    let session = attach(&args.session_id)?;
    if let Some(wait) = args.wait_ms.filter(|w| *w > 0) {
        let at = session.info().output_bytes;
        session.read(at, 0, Duration::from_millis(wait.into()))?;
    }
    let text = session.scrollback(args.lines.unwrap_or(50).max(1))?;
    let info = session.info();
    let running = session.busy();
    let mut out = ToolOutput::text(format!(
        "{text}\n[{}{}]",
        describe(&info),
        if running {
            "; a terminal_execute command is still running"
        } else {
            ""
        }
    ));
    out.structured = Some(serde_json::json!({
        "output": text,
        "session": info_json(&info),
        "still_running": running,
    }));
    Ok(out)
}

/// `terminal_read` with an offset: raw output from there, cleaned, with the call that
/// continues it.
fn read_from(args: ReadArgs, offset: u64) -> Result<ToolOutput, ToolError> {
    let session = attach(&args.session_id)?;
    let max = args
        .max_bytes
        .unwrap_or(DEFAULT_OUTPUT_CAP)
        .clamp(1024, MAX_OUTPUT_CAP);
    let wait = Duration::from_millis(args.wait_ms.unwrap_or(0).into());
    let chunk = session.read(offset, max as u32, wait)?;
    let from = chunk.next - chunk.data.len() as u64;
    let total = session.info().output_bytes;
    let mut text = capture::clean(&chunk.data, false);
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if chunk.skipped > 0 {
        text.insert_str(
            0,
            &format!(
                "[bytes {offset}-{from} are gone: a session keeps its last 64 KiB of output and the first 8 MiB of the latest terminal_execute]\n"
            ),
        );
    }
    text.push_str(&if chunk.next < total {
        format!(
            r#"[bytes {from}-{} of {total}; more: terminal_read {{"session_id": "{}", "offset": {}}}]"#,
            chunk.next, args.session_id, chunk.next
        )
    } else {
        format!("[bytes {from}-{} of {total}: the end of the output so far]", chunk.next)
    });
    let mut out = ToolOutput::text(text);
    out.structured = Some(serde_json::json!({
        "from": from,
        "next": chunk.next,
        "skipped": chunk.skipped,
        "total_bytes": total,
    }));
    Ok(out)
}

fn write(args: WriteArgs) -> Result<ToolOutput, ToolError> {
    if desktop::is_desktop(&args.session_id) {
        return desktop::write(
            &args.session_id,
            args.text,
            args.keys,
            args.wait_ms.unwrap_or(300),
        );
    }
    let session = attach(&args.session_id)?;
    let mut bytes = args.text.unwrap_or_default().into_bytes();
    for key in args.keys.unwrap_or_default() {
        let k = keys::bytes(&key).ok_or_else(|| {
            ToolError::invalid_arguments(format!(
                "unknown key \"{key}\"; known keys: {}",
                keys::NAMES
            ))
        })?;
        bytes.extend(k);
    }
    if bytes.is_empty() {
        return Err(ToolError::invalid_arguments(
            "give `text` and/or `keys` to send",
        ));
    }
    let at = session.info().output_bytes;
    session.write(&bytes)?;
    settle(
        &session,
        at,
        Duration::from_millis(args.wait_ms.unwrap_or(500).into()),
        Duration::from_millis(150),
    )?;
    let tail = session.scrollback(20)?;
    Ok(ToolOutput::text(format!(
        "sent {} bytes to session {}; last lines:\n{tail}",
        bytes.len(),
        args.session_id
    )))
}

/// Let a new shell print its banner and prompt before anything is typed: the prompt on the
/// cursor line is how the host recognises, after a Ctrl-C, that the shell is back. Waits (at
/// most 3 s) until output has been quiet for 200 ms and does not end with a newline, which
/// a prompt never does; the banner before it does, and the shell may start after a pause.
fn wait_for_prompt(session: &Session) -> Result<(), ToolError> {
    const QUIET: Duration = Duration::from_millis(200);
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let info = session.info();
        let seen = info.output_bytes;
        if info.ended {
            return Ok(());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        session.read(seen, 0, if seen == 0 { left } else { QUIET.min(left) })?;
        if seen > 0 && session.info().output_bytes == seen {
            let last = session.read(seen - 1, 1, Duration::ZERO)?.data;
            if !matches!(last.first(), Some(b'\n' | b'\r')) {
                return Ok(());
            }
        }
    }
}

/// Wait, up to `max`, until output that started after `from` has been quiet for a moment:
/// the answer to a keystroke usually comes in a burst.
fn settle(session: &Session, from: u64, max: Duration, quiet: Duration) -> Result<(), ToolError> {
    let deadline = Instant::now() + max;
    let mut seen = from;
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ok(());
        }
        let left = deadline - now;
        let wait = if seen > from { quiet.min(left) } else { left };
        session.read(seen, 0, wait)?;
        let total = session.info().output_bytes;
        if total == seen && seen > from {
            return Ok(());
        }
        seen = total;
    }
}

fn screen(args: SessionArgs) -> Result<ToolOutput, ToolError> {
    let session = attach(&args.session_id)?;
    let info = session.info();
    Ok(ToolOutput::text(format!(
        "{}\n[screen of session {} ({}x{})]",
        session.screen()?,
        info.id,
        info.cols,
        info.rows
    )))
}

fn resize(args: ResizeArgs) -> Result<ToolOutput, ToolError> {
    if desktop::is_desktop(&args.session_id) {
        return match (args.width, args.height, args.cols, args.rows) {
            (Some(w), Some(h), None, None) => desktop::resize(&args.session_id, w, h),
            _ => Err(ToolError::invalid_arguments(
                "a remote desktop is resized in pixels: give width and height (not cols and rows)",
            )),
        };
    }
    let (Some(cols), Some(rows), None, None) = (args.cols, args.rows, args.width, args.height)
    else {
        return Err(ToolError::invalid_arguments(
            "a shell is resized in characters: give cols and rows (width and height are for rdp- sessions)",
        ));
    };
    let (cols, rows) = size(cols, rows)?;
    let session = attach(&args.session_id)?;
    session.resize(cols, rows)?;
    let info = session.info();
    let mut out = ToolOutput::text(format!(
        "session {} is now {}x{} (cols x rows); full-screen programs redraw on their own",
        info.id, info.cols, info.rows
    ));
    out.structured = Some(info_json(&info));
    Ok(out)
}

/// Shells and remote desktops, as lines and as JSON.
fn all_sessions() -> (Vec<String>, Vec<serde_json::Value>) {
    let shells = terminal::list_sessions();
    let desktops = warden_sdk::rdp::list();
    let lines = shells
        .iter()
        .map(describe)
        .chain(desktops.iter().map(desktop::describe))
        .collect();
    let json = shells
        .iter()
        .map(info_json)
        .chain(desktops.iter().map(desktop::info_json))
        .collect();
    (lines, json)
}

fn list(_: NoArgs) -> Result<ToolOutput, ToolError> {
    let (lines, json) = all_sessions();
    let text = if lines.is_empty() {
        "no sessions; open one with terminal_open".to_string()
    } else {
        lines.join("\n")
    };
    let mut out = ToolOutput::text(text);
    out.structured = Some(serde_json::json!({ "sessions": json }));
    Ok(out)
}

fn close(args: SessionArgs) -> Result<String, ToolError> {
    if desktop::is_desktop(&args.session_id) {
        return desktop::close(&args.session_id);
    }
    attach(&args.session_id)?.close()?;
    Ok(format!("closed session {}", args.session_id))
}

fn plugin() -> Plugin {
    Plugin::new()
        .group(
            Group::new(
                "shell",
                "shells on SSH hosts or this machine, remote desktops",
            )
            .tools([
                "terminal_open",
                "terminal_execute",
                "terminal_read",
                "terminal_write",
                "terminal_wait",
                "terminal_list_sessions",
                "terminal_close",
            ])
            .needs([Capability::Terminal, Capability::Rdp]),
        )
        .group(
            Group::new(
                "screen",
                "screens of full-screen programs and desktops, resize, mouse",
            )
            .tools([
                "terminal_screen",
                "terminal_resize",
                "terminal_screenshot",
                "terminal_mouse",
            ])
            .needs([Capability::Terminal, Capability::Rdp]),
        )
        .tool(
            Tool::new("terminal_open", open)
                .description(
                    "Open a shell on an SSH host (or locally); returns the session_id the other \
                     terminal tools take. Stays open until terminal_close.",
                )
                .open_world(),
        )
        .tool(
            Tool::new("terminal_execute", execute)
                .description(
                    "Run a shell command and return its output, exit code and cwd; shell state \
                     persists. On timeout it keeps running: poll with terminal_read, interrupt \
                     with terminal_write.",
                )
                .destructive()
                .open_world()
                // Long logins, commands and transfers: a task the client can poll or cancel.
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("terminal_read", read)
                .description(
                    "A session's latest output lines, or the output from an offset, without \
                     sending anything.",
                )
                .read_only(),
        )
        .tool(
            Tool::new("terminal_write", write)
                .description(
                    "Send text and keys to a session: answer prompts, drive TUIs, ctrl-c a \
                     command. Returns the last lines.",
                )
                .destructive()
                .open_world(),
        )
        .tool(
            Tool::new("terminal_screen", screen)
                .description(
                    "The session's screen as text, to read full-screen programs (top, less, vim).",
                )
                .read_only(),
        )
        .tool(
            Tool::new("terminal_resize", resize)
                .description(
                    "Change a session's size: cols and rows for a shell, width and height \
                     (pixels) for a remote desktop, which the server may refuse.",
                )
                .idempotent(),
        )
        .tool(
            Tool::new("terminal_screenshot", desktop::screenshot)
                .description(
                    "A PNG of a remote desktop session (rdp-...), or of a region of it, \
                     optionally scaled down. A full 1024x768 frame costs about 1,000 image tokens.",
                )
                .read_only(),
        )
        .tool(
            Tool::new("terminal_mouse", desktop::mouse)
                .description(
                    "Pointer input on a remote desktop: move, click, double_click, right_click, \
                     middle_click, drag (to_x, to_y), scroll (scroll_y, scroll_x notches).",
                )
                .destructive()
                .open_world(),
        )
        .tool(
            Tool::new("terminal_wait", desktop::wait)
                .description(
                    "Wait until a remote desktop's screen changes, or stays still for still_ms.",
                )
                .read_only(),
        )
        .tool(
            Tool::new("terminal_list_sessions", list)
                .description(
                    "List terminal and remote desktop sessions: id, type, host, size, state.",
                )
                .read_only(),
        )
        .tool(
            Tool::new("terminal_close", close)
                .description("Close a session and hang up its shell.")
                .idempotent(),
        )
        .resource(
            Resource::new("sessions://list", "sessions")
                .description("This plugin's terminal sessions (JSON).")
                .mime_type("application/json"),
            |uri| {
                let (_, list) = all_sessions();
                Ok(vec![
                    EmbeddedResource::text(uri, serde_json::Value::from(list).to_string())
                        .mime_type("application/json"),
                ])
            },
        )
        .resource_template(
            ResourceTemplate::new("sessions://{id}/info", "session info")
                .description("One terminal session: target, size, state (JSON).")
                .mime_type("application/json"),
            |uri, vars| {
                let id = &vars["id"];
                let info = if desktop::is_desktop(id) {
                    desktop::info(id)?
                } else {
                    info_json(&attach(id)?.info())
                };
                Ok(vec![
                    EmbeddedResource::text(uri, info.to_string()).mime_type("application/json"),
                ])
            },
        )
        .resource_template(
            ResourceTemplate::new("sessions://{id}/scrollback", "session scrollback")
                .description("The buffered output of a session (last 64 KiB, ANSI stripped).")
                .mime_type("text/plain"),
            |uri, vars| {
                let text = attach(&vars["id"])?.scrollback(u32::MAX)?;
                Ok(vec![
                    EmbeddedResource::text(uri, text).mime_type("text/plain"),
                ])
            },
        )
}

warden_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_and_schemas() {
        let p = plugin();
        let names: Vec<_> = p.tools().iter().map(|t| t.name().to_string()).collect();
        assert_eq!(
            names,
            [
                "terminal_open",
                "terminal_execute",
                "terminal_read",
                "terminal_write",
                "terminal_screen",
                "terminal_resize",
                "terminal_screenshot",
                "terminal_mouse",
                "terminal_wait",
                "terminal_list_sessions",
                "terminal_close"
            ]
        );
        let exec = p.tool_named("terminal_execute").expect("tool");
        assert_eq!(
            exec.input_schema().as_value()["required"],
            serde_json::json!(["command"])
        );
        let err = p
            .call("terminal_execute", r#"{"command": "a\nb"}"#)
            .expect_err("multi-line");
        assert!(matches!(err, ToolError::InvalidArguments(_)));
        for args in [
            r#"{"session_id": "s", "cols": 9, "rows": 24}"#,
            r#"{"session_id": "s", "cols": 80, "rows": 201}"#,
            r#"{"session_id": "s", "cols": 80}"#,
            r#"{"session_id": "s", "width": 800, "height": 600}"#,
            r#"{"session_id": "rdp-1", "cols": 80, "rows": 24}"#,
            r#"{"session_id": "rdp-1", "width": 800}"#,
        ] {
            let err = p.call("terminal_resize", args).expect_err("out of range");
            assert!(matches!(err, ToolError::InvalidArguments(_)), "{args}");
        }
        for args in [
            r#"{"cols": 5000}"#,
            r#"{"width": 800, "height": 600}"#,
            r#"{"rdp": "win1", "cols": 80, "rows": 24}"#,
            r#"{"rdp": "win1", "width": 800}"#,
        ] {
            let err = p.call("terminal_open", args).expect_err("bad size");
            assert!(matches!(err, ToolError::InvalidArguments(_)), "{args}");
        }
    }
}
