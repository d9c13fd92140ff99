//! The manifest's validator core: it walks the parsed TOML and collects every problem with
//! its `file:line:col` instead of stopping at the first. Each section's checks are
//! `impl Validator` blocks in the section's own file; here are the parts they share (spans,
//! paths, globs, sizes, counts, durations, names).

use super::dirs::expand_home;
use super::error::Diagnostic;
use super::glob::GlobList;
use super::owned::{OwnedFiles, OwnedPaths, Reach};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use toml::Spanned;

/// Checks a manifest's sections, collecting their problems in `diagnostics`.
pub(super) struct Validator<'a> {
    pub(super) text: &'a str,
    pub(super) file_name: &'a str,
    pub(super) base: &'a Path,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The paths Warden itself uses, as the sections name them (no grant may reach them).
    pub(super) owned: OwnedPaths,
    /// Warden's secret files by inode, handed to each file grant (checked at open).
    pub(super) owned_files: Arc<OwnedFiles>,
}

impl Validator<'_> {
    pub(super) fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = self.text.get(..offset).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let column = before
            .rfind('\n')
            .map_or(before.len(), |i| before.len() - i - 1)
            + 1;
        (line, column)
    }

    pub(super) fn error(&mut self, span: Range<usize>, message: String) {
        let (line, column) = self.line_col(span.start);
        self.diagnostics.push(Diagnostic {
            file: self.file_name.to_string(),
            line,
            column,
            message,
        });
    }

    /// `path` resolved, and remembered as one of Warden's own (see `owned.rs`): every path
    /// the manifest names for Warden's use goes through here.
    pub(super) fn resolve_owned(&mut self, path: &str, what: &str, reach: Reach) -> PathBuf {
        let resolved = self.resolve(path);
        self.owned.add(&resolved, what, reach);
        resolved
    }

    /// `path` resolved against the manifest's directory. For a path Warden itself uses,
    /// `resolve_owned`; only grants of host directories use this alone.
    pub(super) fn resolve(&self, path: &str) -> PathBuf {
        let path = expand_home(path);
        if path.is_absolute() {
            path
        } else {
            self.base.join(path)
        }
    }

    pub(super) fn globs(&mut self, key: &str, patterns: &[Spanned<String>]) -> GlobList {
        let mut good = Vec::new();
        for p in patterns {
            match GlobList::new(std::slice::from_ref(p.get_ref())) {
                Ok(_) => good.push(p.get_ref().clone()),
                Err(e) => self.error(
                    p.span(),
                    format!("{key}: bad glob \"{}\": {}", p.get_ref(), glob_reason(&e)),
                ),
            }
        }
        GlobList::new(&good).unwrap_or_else(|_| GlobList::empty())
    }

    pub(super) fn size(&mut self, key: &str, value: Option<&Spanned<String>>, default: u64) -> u64 {
        let Some(value) = value else { return default };
        match value.get_ref().trim().parse::<bytesize::ByteSize>() {
            Ok(size) if size.as_u64() > 0 => size.as_u64(),
            _ => {
                self.error(
                    value.span(),
                    format!(
                        "{key}: \"{}\" is not a size; write it like \"128MiB\" or \"512KiB\"",
                        value.get_ref()
                    ),
                );
                default
            }
        }
    }

    pub(super) fn count(
        &mut self,
        key: &str,
        value: Option<&Spanned<i64>>,
        default: usize,
    ) -> usize {
        let Some(value) = value else { return default };
        match usize::try_from(*value.get_ref()) {
            Ok(n) if (1..=10_000).contains(&n) => n,
            _ => {
                self.error(
                    value.span(),
                    format!(
                        "{key}: {} is not a count; write a number from 1 to 10000",
                        value.get_ref()
                    ),
                );
                default
            }
        }
    }

    pub(super) fn duration(
        &mut self,
        key: &str,
        value: Option<&Spanned<String>>,
        default: Duration,
    ) -> Duration {
        let Some(value) = value else { return default };
        match humantime::parse_duration(value.get_ref().trim()) {
            Ok(d) if !d.is_zero() => d,
            _ => {
                self.error(
                    value.span(),
                    format!(
                        "{key}: \"{}\" is not a duration; write it like \"60s\" or \"2m\"",
                        value.get_ref()
                    ),
                );
                default
            }
        }
    }
}

pub(super) fn glob_reason(e: &globset::Error) -> String {
    // globset's Display repeats the pattern; keep only the reason.
    e.kind().to_string()
}

/// A name the manifest defines (a host alias, a secret, a profile, a client).
pub(super) fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A plugin name: a [`valid_name`] in lowercase.
pub(super) fn valid_plugin_name(s: &str) -> bool {
    valid_name(s) && !s.chars().any(|c| c.is_ascii_uppercase())
}
