//! `wasi:filesystem/types` as the host serves it: each `descriptor` method that can write,
//! grow, create or move something first checks the descriptor's grant (mode, quota, the
//! same grant at both ends of a rename or link) and audits a refusal; then wasmtime-wasi's
//! own method runs (cap-std keeps every path inside its preopened directory). Methods that
//! only read go straight to wasmtime-wasi's, and a refusal of theirs that means "outside
//! the directory" is audited.

use super::granted::{CAPABILITY, quota_reason};
use super::open;
use super::quota::{BLOCK, cost};
use super::stream::Counted;
use crate::runtime::store_data::PluginState;
use cap_primitives::fs::FollowSymlinks;
use std::sync::Arc;
use wasmtime::component::{HasSelf, Linker, Resource};
use wasmtime_wasi::filesystem::{Descriptor, Dir, File, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::filesystem::types::{
    self, Advice, DescriptorFlags, DescriptorStat, DescriptorType, DirectoryEntry, ErrorCode,
    Filesize, HostDescriptor, HostDirectoryEntryStream, MetadataHashValue, NewTimestamp, OpenFlags,
    PathFlags,
};
use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, FsError, FsResult};

/// Link these methods over wasmtime-wasi's (the caller allows shadowing).
pub fn add_to_linker(linker: &mut Linker<PluginState>) -> wasmtime::Result<()> {
    types::add_to_linker::<PluginState, HasSelf<PluginState>>(linker, |s| s)
}

/// The size of what `path` names under `dir` (not following a final symlink), if anything
/// is there: a stat, which never waits on a FIFO.
fn existing_size(dir: &std::fs::File, path: &str) -> Option<u64> {
    cap_primitives::fs::stat(dir, std::path::Path::new(path), FollowSymlinks::No)
        .ok()
        .map(|m| m.len())
}

fn join(dir: &str, path: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{path}")
    } else {
        format!("{dir}/{path}")
    }
}

impl PluginState {
    /// The grant and guest path of `fd`. A descriptor the host did not hand out through
    /// a preopen or `open-at` has no grant: refused.
    fn placed(&self, fd: &Resource<Descriptor>) -> FsResult<(usize, String)> {
        self.files
            .opened
            .get(&fd.rep())
            .cloned()
            .ok_or_else(|| ErrorCode::BadDescriptor.into())
    }

    /// `fd`'s grant and path if it may write, else an audited refusal.
    fn writable(&self, fd: &Resource<Descriptor>, path: Option<&str>) -> FsResult<(usize, String)> {
        let (grant, dir) = self.placed(fd)?;
        let target = path.map_or_else(|| dir.clone(), |p| join(&dir, p));
        let Some(granted) = self.files.granted.get(grant) else {
            return Err(ErrorCode::BadDescriptor.into());
        };
        if !granted.grant.write {
            self.scope.denied(
                CAPABILITY,
                &target,
                &format!(
                    "read-only: {} is granted read-only; to let the plugin write there, set mode = \"read-write\" (with a quota) in {}",
                    granted.grant.guest,
                    granted.grant.describe()
                ),
            );
            return Err(ErrorCode::ReadOnly.into());
        }
        Ok((grant, target))
    }

    /// Reserve `growth` bytes of grant `grant`'s quota, or an audited refusal.
    fn reserve(&self, grant: usize, growth: u64, target: &str) -> FsResult<()> {
        let Some(granted) = self.files.granted.get(grant) else {
            return Err(ErrorCode::BadDescriptor.into());
        };
        granted
            .usage
            .reserve(growth, granted.grant.quota)
            .map_err(|full| {
                self.scope
                    .denied(CAPABILITY, target, &quota_reason(&granted.grant, full));
                ErrorCode::InsufficientSpace.into()
            })
    }

    /// Settle a reservation when its operation succeeded, release it when it failed.
    fn done<T>(&self, grant: usize, bytes: u64, result: &FsResult<T>) {
        if let Some(granted) = self.files.granted.get(grant) {
            match result {
                Ok(_) => granted.usage.settle(bytes),
                Err(_) => granted.usage.release(bytes),
            }
        }
    }

    /// Audit a refusal of cap-std's: a path that leads out of the granted directory.
    fn outside<T>(&self, result: FsResult<T>, target: &str) -> FsResult<T> {
        if let Err(e) = &result
            && matches!(e.downcast_ref(), Some(ErrorCode::NotPermitted))
        {
            self.scope.denied(
                CAPABILITY,
                target,
                "outside the granted directory: a path may not leave it (by .., an absolute path or a symlink); no grant changes this",
            );
        }
        result
    }

    /// The size of file `fd` now.
    fn size_of(&mut self, fd: &Resource<Descriptor>) -> FsResult<u64> {
        match self.filesystem().table.get(fd)? {
            Descriptor::File(f) => Ok(f.file.metadata().map_err(ErrorCode::from)?.len()),
            Descriptor::Dir(_) => Err(ErrorCode::IsDirectory.into()),
        }
    }

    /// The open file behind `fd`, for a stream's size checks.
    fn file_of(&mut self, fd: &Resource<Descriptor>) -> FsResult<Arc<std::fs::File>> {
        match self.filesystem().table.get(fd)? {
            Descriptor::File(f) => Ok(f.file.clone()),
            Descriptor::Dir(_) => Err(ErrorCode::IsDirectory.into()),
        }
    }

    /// Wrap the output stream wasmtime-wasi made so its writes are held to the quota and
    /// counted.
    fn counted(
        &mut self,
        file: Arc<std::fs::File>,
        stream: Resource<DynOutputStream>,
        position: Option<u64>,
        grant: usize,
        path: String,
    ) -> FsResult<Resource<DynOutputStream>> {
        let Some(granted) = self.files.granted.get(grant) else {
            return Err(ErrorCode::BadDescriptor.into());
        };
        let high = file.metadata().map_or(0, |m| m.len());
        let (usage, grant) = (granted.usage.clone(), granted.grant.clone());
        let (tally, scope) = (self.files.tally.clone(), self.scope.clone());
        let view = self.filesystem();
        let wrapped: DynOutputStream = Box::new(Counted {
            inner: view.table.delete(stream)?,
            file,
            position,
            high,
            usage,
            grant,
            tally,
            scope,
            path,
            unsettled: 0,
        });
        Ok(view.table.push(wrapped)?)
    }
}

impl types::Host for PluginState {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<ErrorCode> {
        types::Host::convert_error_code(&mut self.filesystem(), err)
    }

    fn filesystem_error_code(
        &mut self,
        err: Resource<wasmtime::Error>,
    ) -> wasmtime::Result<Option<ErrorCode>> {
        types::Host::filesystem_error_code(&mut self.filesystem(), err)
    }
}

impl HostDescriptor for PluginState {
    async fn advise(
        &mut self,
        fd: Resource<Descriptor>,
        offset: Filesize,
        len: Filesize,
        advice: Advice,
    ) -> FsResult<()> {
        HostDescriptor::advise(&mut self.filesystem(), fd, offset, len, advice).await
    }

    async fn sync_data(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        HostDescriptor::sync_data(&mut self.filesystem(), fd).await
    }

    async fn get_flags(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorFlags> {
        HostDescriptor::get_flags(&mut self.filesystem(), fd).await
    }

    async fn get_type(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorType> {
        HostDescriptor::get_type(&mut self.filesystem(), fd).await
    }

    async fn set_size(&mut self, fd: Resource<Descriptor>, size: Filesize) -> FsResult<()> {
        let (grant, path) = self.writable(&fd, None)?;
        let now = self.size_of(&fd)?;
        let growth = cost(size).saturating_sub(cost(now));
        self.reserve(grant, growth, &path)?;
        let result = HostDescriptor::set_size(&mut self.filesystem(), fd, size).await;
        self.done(grant, growth, &result);
        if result.is_ok() && size != now {
            let op = if size < now { "truncate" } else { "extend" };
            self.files.tally.note(&path, op);
        }
        result
    }

    async fn set_times(
        &mut self,
        fd: Resource<Descriptor>,
        atim: NewTimestamp,
        mtim: NewTimestamp,
    ) -> FsResult<()> {
        HostDescriptor::set_times(&mut self.filesystem(), fd, atim, mtim).await
    }

    async fn read(
        &mut self,
        fd: Resource<Descriptor>,
        len: Filesize,
        offset: Filesize,
    ) -> FsResult<(Vec<u8>, bool)> {
        HostDescriptor::read(&mut self.filesystem(), fd, len, offset).await
    }

    async fn write(
        &mut self,
        fd: Resource<Descriptor>,
        buf: Vec<u8>,
        offset: Filesize,
    ) -> FsResult<Filesize> {
        let (grant, path) = self.writable(&fd, None)?;
        let now = self.size_of(&fd)?;
        let len = buf.len() as u64;
        let end = offset.saturating_add(len);
        let growth = cost(end.max(now)).saturating_sub(cost(now));
        self.reserve(grant, growth, &path)?;
        let result = HostDescriptor::write(&mut self.filesystem(), fd, buf, offset).await;
        self.done(grant, growth, &result);
        if let Ok(written) = &result {
            self.files.tally.add(&path, *written);
        }
        result
    }

    async fn read_directory(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<types::DirectoryEntryStream>> {
        HostDescriptor::read_directory(&mut self.filesystem(), fd).await
    }

    async fn sync(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        HostDescriptor::sync(&mut self.filesystem(), fd).await
    }

    async fn create_directory_at(
        &mut self,
        fd: Resource<Descriptor>,
        path: String,
    ) -> FsResult<()> {
        let (grant, target) = self.writable(&fd, Some(&path))?;
        self.reserve(grant, BLOCK, &target)?;
        let result = HostDescriptor::create_directory_at(&mut self.filesystem(), fd, path).await;
        self.done(grant, BLOCK, &result);
        self.changed(&result, &target, "create-directory");
        self.outside(result, &target)
    }

    async fn stat(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorStat> {
        HostDescriptor::stat(&mut self.filesystem(), fd).await
    }

    async fn stat_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
    ) -> FsResult<DescriptorStat> {
        let target = self
            .placed(&fd)
            .map(|(_, d)| join(&d, &path))
            .unwrap_or_default();
        let result = HostDescriptor::stat_at(&mut self.filesystem(), fd, path_flags, path).await;
        self.outside(result, &target)
    }

    async fn set_times_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        atim: NewTimestamp,
        mtim: NewTimestamp,
    ) -> FsResult<()> {
        let (_, target) = self.writable(&fd, Some(&path))?;
        let result =
            HostDescriptor::set_times_at(&mut self.filesystem(), fd, path_flags, path, atim, mtim)
                .await;
        self.outside(result, &target)
    }

    async fn link_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path_flags: PathFlags,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        let (from, source) = self.writable(&fd, Some(&old_path))?;
        let (to, target) = self.writable(&new_descriptor, Some(&new_path))?;
        self.same_grant(from, to, &source, &target)?;
        self.reserve(to, BLOCK, &target)?;
        let result = HostDescriptor::link_at(
            &mut self.filesystem(),
            fd,
            old_path_flags,
            old_path,
            new_descriptor,
            new_path,
        )
        .await;
        self.done(to, BLOCK, &result);
        self.changed(&result, &target, format!("hard link to {source}"));
        self.outside(result, &target)
    }

    async fn open_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        oflags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        let writes = oflags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE)
            || flags.intersects(DescriptorFlags::WRITE | DescriptorFlags::MUTATE_DIRECTORY);
        let (grant, target) = if writes {
            self.writable(&fd, Some(&path))?
        } else {
            let (grant, dir) = self.placed(&fd)?;
            (grant, join(&dir, &path))
        };
        let dir = match self.filesystem().table.get(&fd)? {
            Descriptor::Dir(d) => d.clone(),
            Descriptor::File(_) => return Err(ErrorCode::NotDirectory.into()),
        };
        let request = open::request(dir.perms, path_flags, path, oflags, flags)?;
        // Whether it is there before, for the audit line: a truncation or a creation.
        let before = writes
            .then(|| existing_size(&dir.dir, &request.path))
            .flatten();
        let creates = oflags.contains(OpenFlags::CREATE);
        if creates && before.is_none() {
            self.reserve(grant, BLOCK, &target)?;
        }
        let owned = self
            .files
            .granted
            .get(grant)
            .map(|g| g.grant.owned.clone())
            .unwrap_or_default();
        let open_mode = request.open_mode;
        let dir_file = dir.dir.clone();
        let result = tokio::task::spawn_blocking(move || open::open(&dir_file, &request, &owned))
            .await
            .map_err(|_| FsError::from(ErrorCode::Io))
            .and_then(|r| r.map_err(FsError::from));
        if creates && before.is_none() {
            self.done(grant, BLOCK, &result);
        }
        let descriptor = match self.outside(result, &target)? {
            open::Opened::Dir(file) => Descriptor::Dir(Dir::new(file, dir.perms, open_mode, false)),
            open::Opened::File(file) => {
                Descriptor::File(File::new(file, dir.perms, open_mode, false))
            }
            open::Opened::Special(what) => {
                self.scope.denied(
                    CAPABILITY,
                    &target,
                    &format!("not a regular file: {target} is a {what}, which a plugin may not open (it could hold the host waiting); only files and directories are served from a granted directory"),
                );
                return Err(ErrorCode::Unsupported.into());
            }
            open::Opened::Owned => {
                self.scope.denied(
                    CAPABILITY,
                    &target,
                    &format!("one of Warden's own files: {target} is a hard link to a file Warden keeps from plugins (its manifest, a credential, a key or the audit log); no grant changes this"),
                );
                return Err(ErrorCode::Access.into());
            }
        };
        match before {
            None if creates => self.files.tally.note(&target, "create"),
            Some(size) if size > 0 && oflags.contains(OpenFlags::TRUNCATE) => {
                self.files.tally.note(&target, "truncate");
            }
            _ => {}
        }
        let opened = self.filesystem().table.push(descriptor)?;
        self.files
            .opened
            .insert(opened.rep(), (grant, target.clone()));
        Ok(opened)
    }

    fn drop(&mut self, fd: Resource<Descriptor>) -> wasmtime::Result<()> {
        self.files.opened.remove(&fd.rep());
        HostDescriptor::drop(&mut self.filesystem(), fd)
    }

    async fn readlink_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<String> {
        let target = self
            .placed(&fd)
            .map(|(_, d)| join(&d, &path))
            .unwrap_or_default();
        let result = HostDescriptor::readlink_at(&mut self.filesystem(), fd, path).await;
        self.outside(result, &target)
    }

    async fn remove_directory_at(
        &mut self,
        fd: Resource<Descriptor>,
        path: String,
    ) -> FsResult<()> {
        let (_, target) = self.writable(&fd, Some(&path))?;
        let result = HostDescriptor::remove_directory_at(&mut self.filesystem(), fd, path).await;
        self.changed(&result, &target, "remove-directory");
        self.outside(result, &target)
    }

    async fn rename_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        let (from, source) = self.writable(&fd, Some(&old_path))?;
        let (to, target) = self.writable(&new_fd, Some(&new_path))?;
        self.same_grant(from, to, &source, &target)?;
        let replaces = match self.filesystem().table.get(&new_fd)? {
            Descriptor::Dir(d) => existing_size(&d.dir, &new_path).is_some(),
            Descriptor::File(_) => false,
        };
        let result =
            HostDescriptor::rename_at(&mut self.filesystem(), fd, old_path, new_fd, new_path).await;
        self.changed(&result, &source, format!("renamed to {target}"));
        if replaces {
            self.changed(&result, &target, format!("replaced by {source}"));
        }
        self.outside(result, &target)
    }

    async fn symlink_at(
        &mut self,
        fd: Resource<Descriptor>,
        src_path: String,
        dest_path: String,
    ) -> FsResult<()> {
        let (grant, target) = self.writable(&fd, Some(&dest_path))?;
        self.reserve(grant, BLOCK, &target)?;
        let result =
            HostDescriptor::symlink_at(&mut self.filesystem(), fd, src_path, dest_path).await;
        self.done(grant, BLOCK, &result);
        self.changed(&result, &target, "create-symlink");
        self.outside(result, &target)
    }

    async fn unlink_file_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let (_, target) = self.writable(&fd, Some(&path))?;
        let result = HostDescriptor::unlink_file_at(&mut self.filesystem(), fd, path).await;
        self.changed(&result, &target, "unlink");
        self.outside(result, &target)
    }

    fn read_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: Filesize,
    ) -> FsResult<Resource<DynInputStream>> {
        HostDescriptor::read_via_stream(&mut self.filesystem(), fd, offset)
    }

    fn write_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: Filesize,
    ) -> FsResult<Resource<DynOutputStream>> {
        let (grant, path) = self.writable(&fd, None)?;
        let file = self.file_of(&fd)?;
        let stream = HostDescriptor::write_via_stream(&mut self.filesystem(), fd, offset)?;
        self.counted(file, stream, Some(offset), grant, path)
    }

    fn append_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<DynOutputStream>> {
        let (grant, path) = self.writable(&fd, None)?;
        let file = self.file_of(&fd)?;
        let stream = HostDescriptor::append_via_stream(&mut self.filesystem(), fd)?;
        self.counted(file, stream, None, grant, path)
    }

    async fn is_same_object(
        &mut self,
        a: Resource<Descriptor>,
        b: Resource<Descriptor>,
    ) -> wasmtime::Result<bool> {
        HostDescriptor::is_same_object(&mut self.filesystem(), a, b).await
    }

    async fn metadata_hash(&mut self, fd: Resource<Descriptor>) -> FsResult<MetadataHashValue> {
        HostDescriptor::metadata_hash(&mut self.filesystem(), fd).await
    }

    async fn metadata_hash_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
    ) -> FsResult<MetadataHashValue> {
        HostDescriptor::metadata_hash_at(&mut self.filesystem(), fd, path_flags, path).await
    }
}

impl PluginState {
    /// Tally `op` on `target` for the call's audit line when it succeeded.
    fn changed<T>(&self, result: &FsResult<T>, target: &str, op: impl Into<String>) {
        if result.is_ok() {
            self.files.tally.note(target, op);
        }
    }

    /// A rename or hard link stays inside one grant: each directory has its own quota
    /// (and mode), which a move from one into the other would step around.
    fn same_grant(&self, from: usize, to: usize, source: &str, target: &str) -> FsResult<()> {
        if from == to {
            return Ok(());
        }
        self.scope.denied(
            CAPABILITY,
            &format!("{source} -> {target}"),
            "between two granted directories: a file is not moved or linked from one grant into another (each keeps its own quota); copy it instead",
        );
        Err(ErrorCode::CrossDevice.into())
    }
}

impl HostDirectoryEntryStream for PluginState {
    async fn read_directory_entry(
        &mut self,
        stream: Resource<types::DirectoryEntryStream>,
    ) -> FsResult<Option<DirectoryEntry>> {
        HostDirectoryEntryStream::read_directory_entry(&mut self.filesystem(), stream).await
    }

    fn drop(&mut self, stream: Resource<types::DirectoryEntryStream>) -> wasmtime::Result<()> {
        HostDirectoryEntryStream::drop(&mut self.filesystem(), stream)
    }
}
