//! The rule of `owned.rs` applied when a manifest loads: Warden's fixed paths remembered,
//! then every plugin's grants of host directories checked against all of Warden's paths,
//! each one that reaches one a load error.

use super::error::Diagnostic;
use super::owned::Reach;
use super::plugin::PluginConfig;
use super::validate::Validator;
use std::path::Path;

impl Validator<'_> {
    /// Remember the paths Warden uses whatever the manifest says, then hand out the secret
    /// files' inodes: called once the sections that name files are read, before plugins.
    pub(super) fn own_fixed(&mut self, fixed: &[(&Path, &str, Reach)]) {
        for (path, what, reach) in fixed {
            self.owned.add(path, *what, *reach);
        }
        let temp = std::env::temp_dir();
        self.owned.add_temp(&temp);
        // A browser whose user cannot reach $TMPDIR makes its tree under /tmp.
        if temp != Path::new("/tmp") {
            self.owned.add_temp(Path::new("/tmp"));
        }
    }

    /// A load error for each grant of a host directory, in every plugin, that reaches one of
    /// Warden's own paths.
    pub(super) fn unreached_owned(&mut self, plugins: &[PluginConfig]) {
        for plugin in plugins {
            let grants = &plugin.grants;
            let mut dirs: Vec<(&str, &Path, bool)> = grants
                .files
                .iter()
                .map(|g| ("grants.files host", g.host.as_path(), g.write))
                .collect();
            if let Some(b) = &grants.browser {
                dirs.extend(
                    b.upload_dirs
                        .iter()
                        .map(|d| ("grants.browser.upload_dirs", d.as_path(), false)),
                );
                dirs.extend(
                    b.download_dir
                        .iter()
                        .map(|d| ("grants.browser.download_dir", d.as_path(), true)),
                );
            }
            for (key, dir, write) in dirs {
                let Some(owned) = self.owned.reached_by(dir, write) else {
                    continue;
                };
                let why = match owned.reach {
                    Reach::Secret => "holds what only Warden may read",
                    Reach::Integrity => {
                        "is what Warden runs or trusts, which a writable grant could replace"
                    }
                };
                let message = format!(
                    "plugin \"{}\": {key} = \"{}\" reaches {} ({}), which {why}: grant a directory that holds none of Warden's files{}",
                    plugin.name,
                    dir.display(),
                    owned.what,
                    owned.path.display(),
                    if owned.reach == Reach::Integrity {
                        ", or make the grant read-only"
                    } else {
                        ""
                    },
                );
                self.diagnostics.push(Diagnostic {
                    file: self.file_name.to_string(),
                    line: plugin.line,
                    column: 1,
                    message,
                });
            }
        }
    }
}
