//! `warden:sftp`: file operations on a host alias (grant `sftp.hosts`) over the alias's shared
//! SSH connection. Every path is resolved on the server and must stay under `sftp.roots`;
//! mutations need `sftp.write`. Refusals are audited.
//!
//! | file | job |
//! |---|---|
//! | `client.rs` | one SFTP subsystem per alias, reopened after a drop |
//! | `paths.rs` | root confinement: realpath on the server, symlinks judged by their target |
//! | `transfer.rs` | reading a byte range and writing a file (pipelined) |

pub mod bindings;
pub mod client;
pub mod paths;
pub mod transfer;

use super::terminal::table::SessionTable;
use super::view::{Base, Project};
use super::{HasView, View};
use crate::audit::Used;
use crate::scrub::Secrets;
use bindings::warden::sftp::sftp::{
    self as sftp_iface, DirEntry, FileKind, FileStat, Host, WriteMode,
};
use bindings::warden::sftp::types::{self, Error};
use client::Remote;
use client::{OpenError, SftpPool};
use paths::PathError;
use russh_sftp::client::error::Error as SftpError;
use russh_sftp::protocol::{FileType, StatusCode};
use std::ops::Deref;
use std::sync::Arc;
use wasmtime::component::Linker;

/// Largest single read (a tool asks for less; this bounds host memory).
const MAX_READ: u64 = 64 * 1024 * 1024;
/// Most entries one listing returns.
const MAX_ENTRIES: usize = 10_000;

/// A plugin's SFTP context: its grants and audit scope, the SFTP subsystems per alias, and
/// the terminal sessions (an SFTP call may name an SSH session instead of an alias).
pub struct SftpCtx {
    pub base: Base,
    pub sftp: Arc<SftpPool>,
    pub sessions: Arc<SessionTable>,
    /// The client of the call in progress: it names only the terminal sessions it opened.
    pub owner: super::conversation::Owner,
}

impl Deref for SftpCtx {
    type Target = Base;
    fn deref(&self) -> &Base {
        &self.base
    }
}

impl types::Host for View<'_, SftpCtx> {}

/// Link `warden:sftp` (types, sftp) to the plugins' store.
pub fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    get: Project<T, SftpCtx>,
) -> wasmtime::Result<()> {
    types::add_to_linker::<T, HasView<SftpCtx>>(linker, get)?;
    sftp_iface::add_to_linker::<T, HasView<SftpCtx>>(linker, get)
}

/// The most of an SFTP server's own error message a plugin gets (a packet may hold 256 KiB).
const SERVER_WORDS: usize = 512;

fn sftp_error(path: &str, e: SftpError) -> Error {
    match e {
        SftpError::Status(s) => match s.status_code {
            StatusCode::NoSuchFile => Error::NotFound(format!("{path}: no such file or directory")),
            StatusCode::PermissionDenied => Error::Io(format!(
                "{path}: the server denied permission (file permissions of the remote user)"
            )),
            // The server's words: on one line and cut short before the plugin gets them.
            code => Error::Io(format!(
                "{path}: {code}: {}",
                Secrets::default().bounded(&s.error_message, SERVER_WORDS)
            )),
        },
        SftpError::Timeout => Error::Timeout(format!("{path}: the server did not answer in time")),
        other => Error::Io(format!("{path}: {other}")),
    }
}

fn path_error(path: &str, e: PathError) -> Error {
    match e {
        PathError::Invalid(m) => Error::InvalidArgument(m),
        PathError::Outside(m) => Error::AccessDenied(m),
        PathError::Sftp(e) => sftp_error(path, e),
    }
}

fn transfer_error(path: &str, e: transfer::TransferError) -> Error {
    match e {
        transfer::TransferError::Sftp(e) => sftp_error(path, e),
        transfer::TransferError::Io(e) => Error::Io(format!("{path}: {e}")),
    }
}

fn to_stat(m: &russh_sftp::client::fs::Metadata) -> FileStat {
    FileStat {
        kind: match m.file_type() {
            FileType::File => FileKind::File,
            FileType::Dir => FileKind::Directory,
            FileType::Symlink => FileKind::Symlink,
            FileType::Other => FileKind::Other,
        },
        size: m.size.unwrap_or(0),
        mode: m.permissions.unwrap_or(0) & 0o7777,
        modified: m.mtime.map(u64::from),
    }
}

/// What a call needs: the alias's subsystem and the granted roots.
struct Ctx {
    remote: Arc<Remote>,
    roots: Vec<String>,
}

impl View<'_, SftpCtx> {
    /// The grant of `host` (an alias, or a pattern host's member: the grant names its entry).
    fn check_host(&self, host: &str) -> Result<(), Error> {
        let refused =
            |d: &crate::manifest::grants::Denied| Error::AccessDenied(self.refuse("sftp", d));
        let named = self.sftp.ssh().name(host).map_err(|e| {
            refused(&crate::manifest::grants::Denied::unfixable(
                "ssh.hosts",
                format!("sftp host '{host}'"),
                e.to_string(),
            ))
        })?;
        self.grants
            .check_sftp_host(&named.alias, named.member.as_deref())
            .map_err(|d| refused(&d))
    }

    /// Check the host grant (and `sftp.write` for mutations), then get the subsystem.
    async fn sftp_ctx(&mut self, host: &str, mutate: bool) -> Result<Ctx, Error> {
        self.check_host(host)?;
        if mutate {
            self.grants
                .check_sftp_write()
                .map_err(|d| Error::AccessDenied(self.refuse("sftp", &d)))?;
        }
        let roots = self.grants.sftp_roots().to_vec();
        if roots.is_empty() {
            let d = crate::manifest::grants::Denied::unfixable(
                "grants.sftp.roots",
                format!("sftp host '{host}'"),
                format!(
                    "grants.sftp.roots is empty, so no path on '{host}' is allowed; add the remote directories the plugin may use to grants.sftp.roots of plugin '{}' in the manifest",
                    self.plugin()
                ),
            );
            return Err(Error::AccessDenied(self.refuse("sftp", &d)));
        }
        let remote = self.sftp.remote(host).await.map_err(|e| match e {
            OpenError::Ssh(e) if e.is_refusal() => {
                let m = e.to_string();
                self.scope
                    .denied("sftp", &format!("sftp host '{host}'"), &m);
                Error::AccessDenied(m)
            }
            e => Error::Io(e.to_string()),
        })?;
        Ok(Ctx { remote, roots })
    }

    /// Audit a path refused by the roots.
    fn audit_path(&self, e: Error) -> Error {
        if let Error::AccessDenied(m) = &e {
            self.scope.denied("sftp", "a path outside sftp.roots", m);
        }
        e
    }

    /// Audit an operation that ran (`sftp.OP` with the alias and the resolved path, and the
    /// bytes moved), or clean up after its failure; its value goes back to the plugin.
    async fn finish<T>(
        &mut self,
        op: &'static str,
        host: &str,
        ctx: &Ctx,
        result: Result<(String, T), Error>,
        bytes: impl Fn(&T) -> Option<u64>,
    ) -> Result<T, Error> {
        match result {
            Ok((resolved, value)) => {
                self.scope.used(&Used {
                    capability: &format!("sftp.{op}"),
                    target: &format!("{host}:{resolved}"),
                    bytes: bytes(&value),
                    ..Used::default()
                });
                Ok(value)
            }
            Err(e) => Err(self.after(host, ctx, e).await),
        }
    }

    /// After a transport failure, drop the subsystem so the next call reconnects.
    async fn after(&mut self, host: &str, ctx: &Ctx, e: Error) -> Error {
        if matches!(e, Error::Timeout(_)) || ctx.remote.is_broken() {
            self.sftp.discard(host, &ctx.remote).await;
        }
        self.audit_path(e)
    }
}

impl Host for View<'_, SftpCtx> {
    async fn list(&mut self, host: String, path: String) -> Result<Vec<DirEntry>, Error> {
        let ctx = self.sftp_ctx(&host, false).await?;
        let work = async {
            let dir = paths::existing(&ctx.remote, &ctx.roots, &path)
                .await
                .map_err(|e| path_error(&path, e))?;
            let shown = dir.clone();
            let entries = ctx
                .remote
                .sftp
                .read_dir(dir)
                .await
                .map_err(|e| sftp_error(&path, e))?;
            let mut out: Vec<DirEntry> = entries
                .filter(|e| e.file_name() != "." && e.file_name() != "..")
                .take(MAX_ENTRIES)
                .map(|e| DirEntry {
                    name: e.file_name(),
                    stat: to_stat(&e.metadata()),
                })
                .collect();
            out.sort_by(|a, b| a.name.cmp(&b.name));
            Ok((shown, out))
        };
        let result = work.await;
        self.finish("list", &host, &ctx, result, |_| None).await
    }

    async fn stat(&mut self, host: String, path: String) -> Result<FileStat, Error> {
        let ctx = self.sftp_ctx(&host, false).await?;
        let work = async {
            let p = paths::existing(&ctx.remote, &ctx.roots, &path)
                .await
                .map_err(|e| path_error(&path, e))?;
            let m = ctx
                .remote
                .sftp
                .metadata(p.clone())
                .await
                .map_err(|e| sftp_error(&path, e))?;
            Ok((p, to_stat(&m)))
        };
        let result = work.await;
        self.finish("stat", &host, &ctx, result, |_| None).await
    }

    async fn read(
        &mut self,
        host: String,
        path: String,
        offset: u64,
        length: u64,
    ) -> Result<Vec<u8>, Error> {
        let ctx = self.sftp_ctx(&host, false).await?;
        let work = async {
            let p = paths::existing(&ctx.remote, &ctx.roots, &path)
                .await
                .map_err(|e| path_error(&path, e))?;
            transfer::read_range(&ctx.remote, p.clone(), offset, length.min(MAX_READ))
                .await
                .map(|data| (p, data))
                .map_err(|e| transfer_error(&path, e))
        };
        let result = work.await;
        self.finish("read", &host, &ctx, result, |d: &Vec<u8>| {
            Some(d.len() as u64)
        })
        .await
    }

    async fn write(
        &mut self,
        host: String,
        path: String,
        data: Vec<u8>,
        mode: WriteMode,
    ) -> Result<u64, Error> {
        let ctx = self.sftp_ctx(&host, true).await?;
        let work = async {
            let p = paths::entry(&ctx.remote, &ctx.roots, &path, true)
                .await
                .map_err(|e| path_error(&path, e))?;
            transfer::write_file(&ctx.remote, p.clone(), &data, mode)
                .await
                .map(|n| (p, n))
                .map_err(|e| match e {
                    transfer::TransferError::Sftp(SftpError::Status(s))
                        if matches!(mode, WriteMode::Create)
                            && s.status_code == StatusCode::Failure =>
                    {
                        Error::InvalidArgument(format!(
                            "{path} already exists; use mode \"overwrite\" or \"append\""
                        ))
                    }
                    e => transfer_error(&path, e),
                })
        };
        let result = work.await;
        self.finish("write", &host, &ctx, result, |n: &u64| Some(*n))
            .await
    }

    async fn mkdir(&mut self, host: String, path: String) -> Result<(), Error> {
        let ctx = self.sftp_ctx(&host, true).await?;
        let work = async {
            let p = paths::entry(&ctx.remote, &ctx.roots, &path, false)
                .await
                .map_err(|e| path_error(&path, e))?;
            ctx.remote
                .sftp
                .create_dir(p.clone())
                .await
                .map(|()| (p, ()))
                .map_err(|e| sftp_error(&path, e))
        };
        let result = work.await;
        self.finish("mkdir", &host, &ctx, result, |_| None).await
    }

    async fn remove(&mut self, host: String, path: String) -> Result<(), Error> {
        let ctx = self.sftp_ctx(&host, true).await?;
        let work = async {
            let p = paths::entry(&ctx.remote, &ctx.roots, &path, false)
                .await
                .map_err(|e| path_error(&path, e))?;
            let meta = ctx
                .remote
                .sftp
                .symlink_metadata(p.clone())
                .await
                .map_err(|e| sftp_error(&path, e))?;
            if meta.is_dir() {
                ctx.remote.sftp.remove_dir(p.clone()).await
            } else {
                ctx.remote.sftp.remove_file(p.clone()).await
            }
            .map(|()| (p, ()))
            .map_err(|e| sftp_error(&path, e))
        };
        let result = work.await;
        self.finish("remove", &host, &ctx, result, |_| None).await
    }

    async fn rename(&mut self, host: String, from: String, to: String) -> Result<(), Error> {
        let ctx = self.sftp_ctx(&host, true).await?;
        let work = async {
            let a = paths::entry(&ctx.remote, &ctx.roots, &from, false)
                .await
                .map_err(|e| path_error(&from, e))?;
            let b = paths::entry(&ctx.remote, &ctx.roots, &to, false)
                .await
                .map_err(|e| path_error(&to, e))?;
            let shown = format!("{a} -> {b}");
            ctx.remote
                .sftp
                .rename(a, b)
                .await
                .map(|()| (shown, ()))
                .map_err(|e| sftp_error(&from, e))
        };
        let result = work.await;
        self.finish("rename", &host, &ctx, result, |_| None).await
    }

    async fn session_host(&mut self, session_id: String) -> Result<String, Error> {
        if self.grants.sftp.is_none() {
            // Without any SFTP grant, not even whether the session exists is told.
            let d = crate::manifest::grants::Denied::unfixable(
                "grants.sftp.hosts",
                format!("the host of session '{session_id}'"),
                format!(
                    "plugin '{}' has no SFTP grant; add grants.sftp = {{ hosts = [...], roots = [...] }} to it in the manifest",
                    self.plugin()
                ),
            );
            return Err(Error::AccessDenied(self.refuse("sftp", &d)));
        }
        let session = self.sessions.find(&self.owner, &session_id).ok_or_else(|| {
            Error::unknown_handle(&session_id, || {
                format!("no open terminal session '{session_id}'; open one with terminal_open, or name the host alias with `host`")
            })
        })?;
        let alias = session.ssh_alias().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "session '{session_id}' is a local terminal, not an SSH session: SFTP needs an SSH host; name its alias with `host`"
            ))
        })?;
        // The same check as for a named alias, so the refusal is explained and audited.
        self.check_host(alias)?;
        Ok(alias.to_string())
    }

    async fn realpath(&mut self, host: String, path: String) -> Result<String, Error> {
        let ctx = self.sftp_ctx(&host, false).await?;
        match paths::existing(&ctx.remote, &ctx.roots, &path).await {
            Ok(p) => Ok(p),
            Err(e) => {
                let e = path_error(&path, e);
                Err(self.after(&host, &ctx, e).await)
            }
        }
    }
}
