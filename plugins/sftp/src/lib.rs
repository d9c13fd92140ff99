//! Warden's built-in `sftp` plugin: files on SSH hosts named by the admin, through the
//! host's SFTP connection. The host confines every path to the grant's `sftp.roots` (as
//! the server resolves it, symlinks included) and refuses changes without `sftp.write`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use warden_sdk::prelude::*;
use warden_sdk::sftp::{self, FileKind, FileStat, WriteMode};

/// Default `max_bytes` of `sftp_read`: about 16,000 tokens of text, a result every common
/// MCP client accepts (many refuse one above ~25,000 tokens); the answer says how to read on.
const DEFAULT_READ: u64 = 64 * 1024;
/// Largest `max_bytes` (keeps a base64 answer under the default output limit's reach).
const MAX_READ: u64 = 16 * 1024 * 1024;

/// Arguments naming a path.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PathArgs {
    /// SSH host alias; or give session.
    host: Option<String>,
    /// An SSH terminal session_id: its host.
    #[serde(alias = "session_id")]
    session: Option<String>,
    /// Relative to the first granted root, or absolute.
    path: String,
}

/// Arguments of `sftp_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    /// SSH host alias; or give session.
    host: Option<String>,
    /// An SSH terminal session_id: its host.
    #[serde(alias = "session_id")]
    session: Option<String>,
    /// Relative to the first granted root, or absolute.
    path: String,
    /// Default 0.
    offset: Option<u64>,
    /// Default 65536.
    max_bytes: Option<u64>,
    /// text or base64; default: text if valid UTF-8.
    encoding: Option<String>,
}

/// The result of `sftp_read`.
#[derive(Debug, Serialize, JsonSchema)]
struct ReadOutput {
    /// Text or base64.
    content: String,
    encoding: String,
    bytes: u64,
    offset: u64,
    size: u64,
    /// Read on from offset + bytes.
    truncated: bool,
}

/// Arguments of `sftp_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    /// SSH host alias; or give session.
    host: Option<String>,
    /// An SSH terminal session_id: its host.
    #[serde(alias = "session_id")]
    session: Option<String>,
    /// Relative to the first granted root, or absolute.
    path: String,
    content: String,
    /// text (default) or base64.
    encoding: Option<String>,
    /// overwrite (default), create (must not exist) or append.
    mode: Option<String>,
}

/// Arguments of `sftp_rename`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RenameArgs {
    /// SSH host alias; or give session.
    host: Option<String>,
    /// An SSH terminal session_id: its host.
    #[serde(alias = "session_id")]
    session: Option<String>,
    from: String,
    /// Must not exist.
    to: String,
}

/// The host alias named by `host`, or that of the SSH session `session`.
fn resolve(host: &Option<String>, session: &Option<String>) -> Result<String, ToolError> {
    match (host, session) {
        (Some(h), None) => Ok(h.clone()),
        (None, Some(id)) => Ok(sftp::session_host(id)?),
        (Some(_), Some(_)) => Err(ToolError::invalid_arguments(
            "give either `host` or `session`, not both",
        )),
        (None, None) => Err(ToolError::invalid_arguments(
            "give `host` (an SSH host alias) or `session` (an SSH session id from terminal_open)",
        )),
    }
}

fn kind(k: FileKind) -> &'static str {
    match k {
        FileKind::File => "file",
        FileKind::Directory => "directory",
        FileKind::Symlink => "symlink",
        FileKind::Other => "other",
    }
}

fn stat_json(s: &FileStat) -> serde_json::Value {
    serde_json::json!({
        "kind": kind(s.kind),
        "size": s.size,
        "mode": format!("{:04o}", s.mode),
        "modified": s.modified,
    })
}

fn list(args: PathArgs) -> Result<ToolOutput, ToolError> {
    let host = resolve(&args.host, &args.session)?;
    let entries = sftp::list(&host, &args.path)?;
    let mut text = format!("{} ({} entries)\n", args.path, entries.len());
    for e in &entries {
        let suffix = match e.stat.kind {
            FileKind::Directory => "/",
            FileKind::Symlink => "@",
            _ => "",
        };
        text.push_str(&format!(
            "{:04o} {:>12} {}{suffix}\n",
            e.stat.mode, e.stat.size, e.name
        ));
    }
    let mut out = ToolOutput::text(text);
    out.structured = Some(serde_json::json!({
        "entries": entries.iter().map(|e| {
            let mut v = stat_json(&e.stat);
            v["name"] = e.name.clone().into();
            v
        }).collect::<Vec<_>>()
    }));
    Ok(out)
}

fn stat(args: PathArgs) -> Result<ToolOutput, ToolError> {
    let host = resolve(&args.host, &args.session)?;
    let s = sftp::stat(&host, &args.path)?;
    let mut out = ToolOutput::text(format!(
        "{}: {}, {} bytes, mode {:04o}{}",
        args.path,
        kind(s.kind),
        s.size,
        s.mode,
        s.modified
            .map(|m| format!(", modified {m} (Unix time)"))
            .unwrap_or_default()
    ));
    out.structured = Some(stat_json(&s));
    Ok(out)
}

fn read(args: ReadArgs) -> Result<Structured<ReadOutput>, ToolError> {
    let offset = args.offset.unwrap_or(0);
    let max = args.max_bytes.unwrap_or(DEFAULT_READ).clamp(1, MAX_READ);
    let host = resolve(&args.host, &args.session)?;
    let size = sftp::stat(&host, &args.path)?.size;
    let data = sftp::read(&host, &args.path, offset, max)?;
    let bytes = data.len() as u64;
    let (content, encoding) = match args.encoding.as_deref() {
        Some("base64") => (B64.encode(&data), "base64"),
        Some("text") => match String::from_utf8(data) {
            Ok(t) => (t, "text"),
            Err(_) => {
                return Err(ToolError::invalid_arguments(format!(
                    "{} is not UTF-8 text in this range; read it with encoding \"base64\"",
                    args.path
                )));
            }
        },
        None => match String::from_utf8(data) {
            Ok(t) => (t, "text"),
            Err(e) => (B64.encode(e.as_bytes()), "base64"),
        },
        Some(other) => {
            return Err(ToolError::invalid_arguments(format!(
                "encoding \"{other}\" is not \"text\" or \"base64\""
            )));
        }
    };
    let truncated = offset + bytes < size;
    let mut text = if encoding == "text" {
        content.clone()
    } else {
        format!("<{bytes} bytes, base64 in structuredContent.content>\n{content}")
    };
    if truncated {
        text.push_str(&format!(
            "\n[{bytes} of {size} bytes from offset {offset}; read on with offset {}]",
            offset + bytes
        ));
    }
    Ok(Structured::new(ReadOutput {
        content,
        encoding: encoding.to_string(),
        bytes,
        offset,
        size,
        truncated,
    })
    .text(text))
}

fn write(args: WriteArgs) -> Result<String, ToolError> {
    let host = resolve(&args.host, &args.session)?;
    let data = match args.encoding.as_deref() {
        None | Some("text") => args.content.into_bytes(),
        Some("base64") => B64.decode(args.content.trim()).map_err(|e| {
            ToolError::invalid_arguments(format!("`content` is not valid base64: {e}"))
        })?,
        Some(other) => {
            return Err(ToolError::invalid_arguments(format!(
                "encoding \"{other}\" is not \"text\" or \"base64\""
            )));
        }
    };
    let mode = match args.mode.as_deref() {
        None | Some("overwrite") | Some("truncate") => WriteMode::Truncate,
        Some("create") => WriteMode::Create,
        Some("append") => WriteMode::Append,
        Some(other) => {
            return Err(ToolError::invalid_arguments(format!(
                "mode \"{other}\" is not \"create\", \"overwrite\" or \"append\""
            )));
        }
    };
    let size = sftp::write(&host, &args.path, &data, mode)?;
    Ok(format!(
        "wrote {} bytes to {}; the file now has {size} bytes",
        data.len(),
        args.path
    ))
}

fn mkdir(args: PathArgs) -> Result<String, ToolError> {
    sftp::mkdir(&resolve(&args.host, &args.session)?, &args.path)?;
    Ok(format!("created directory {}", args.path))
}

fn remove(args: PathArgs) -> Result<String, ToolError> {
    sftp::remove(&resolve(&args.host, &args.session)?, &args.path)?;
    Ok(format!("removed {}", args.path))
}

fn rename(args: RenameArgs) -> Result<String, ToolError> {
    sftp::rename(&resolve(&args.host, &args.session)?, &args.from, &args.to)?;
    Ok(format!("renamed {} to {}", args.from, args.to))
}

fn plugin() -> Plugin {
    Plugin::new()
        .group(
            // No tools listed: the group has all of them.
            Group::new("files", "files on SSH hosts").needs([Capability::Sftp]),
        )
        .tool(
            Tool::new("sftp_list", list)
                .description(
                    "List a remote directory on an SSH host: mode, size, name (dirs end in /).",
                )
                .read_only()
                .open_world(),
        )
        .tool(
            Tool::new("sftp_stat", stat)
                .description("Kind, size, mode and mtime of a remote path.")
                .read_only()
                .open_world(),
        )
        .tool(
            Tool::new("sftp_read", read)
                .description("Read a remote file, text or base64, from an offset.")
                .read_only()
                .open_world()
                // Long logins, commands and transfers: a task the client can poll or cancel.
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("sftp_write", write)
                .description("Write text or base64 to a remote file. Needs grant sftp.write.")
                .destructive()
                .open_world()
                // Long logins, commands and transfers: a task the client can poll or cancel.
                .task(TaskSupport::Optional),
        )
        .tool(
            Tool::new("sftp_mkdir", mkdir)
                .description("Create a remote directory. Needs grant sftp.write.")
                .open_world(),
        )
        .tool(
            Tool::new("sftp_remove", remove)
                .description(
                    "Remove a remote file, symlink or empty directory. Needs grant sftp.write.",
                )
                .destructive()
                .open_world(),
        )
        .tool(
            Tool::new("sftp_rename", rename)
                .description("Rename or move a remote file or directory.")
                .destructive()
                .open_world(),
        )
}

warden_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools() {
        let p = plugin();
        let names: Vec<_> = p.tools().iter().map(|t| t.name().to_string()).collect();
        assert_eq!(
            names,
            [
                "sftp_list",
                "sftp_stat",
                "sftp_read",
                "sftp_write",
                "sftp_mkdir",
                "sftp_remove",
                "sftp_rename"
            ]
        );
        let err = p
            .call(
                "sftp_write",
                r#"{"host":"h","path":"p","content":"x","mode":"bogus"}"#,
            )
            .expect_err("bad mode");
        assert!(matches!(err, ToolError::InvalidArguments(_)));
        for args in [
            r#"{"path":"p"}"#,
            r#"{"host":"h","session":"ssh-000001","path":"p"}"#,
        ] {
            let err = p.call("sftp_stat", args).expect_err("host xor session");
            assert!(matches!(err, ToolError::InvalidArguments(_)), "{args}");
        }
    }
}
