//! Tool groups: a plugin names groups of its tools so that an admin serves only the ones
//! agents need (`tools = { groups = [...] }` in the manifest). A tool in no group is in group
//! `default`; a group given no tools takes every tool that no other group names.

/// A kind of grant a group's tools use (`grants.*` in the manifest). A group whose kinds
/// are all ungranted is not listed: every call of its tools would be refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// `grants.browser`
    Browser,
    /// `grants.capture.http_hosts`
    CaptureHttp,
    /// `grants.capture.origins`
    CapturePage,
    /// `grants.http`
    Http,
    /// `grants.terminal`
    Terminal,
    /// `grants.sftp`
    Sftp,
    /// `grants.rdp`
    Rdp,
    /// `grants.files`
    Files,
}

/// A named group of a plugin's tools.
///
/// ```
/// use warden_sdk::{Capability, Group};
/// let group = Group::new("core", "navigate, read and act on pages")
///     .tools(["browse_navigate", "browse_snapshot"])
///     .needs([Capability::Browser]);
/// assert_eq!(group.name(), "core");
/// ```
#[derive(Debug, Clone)]
pub struct Group {
    pub(crate) name: String,
    pub(crate) summary: String,
    pub(crate) tools: Vec<String>,
    pub(crate) needs: Vec<Capability>,
}

impl Group {
    /// A group named `name` (`[a-z0-9_-]{1,32}`), with a one-line summary of what its tools
    /// are for (agents read it when they may turn the group on).
    pub fn new(name: impl Into<String>, summary: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            summary: summary.into(),
            tools: Vec::new(),
            needs: Vec::new(),
        }
    }

    /// The group's tools, by name. Without any, the group takes every tool of the plugin
    /// that no other group names (one group of a plugin at most may do so).
    #[must_use]
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for tool in tools.into_iter().map(Into::into) {
            // Named twice is still one tool of the group (the host refuses a tool in two).
            if !self.tools.contains(&tool) {
                self.tools.push(tool);
            }
        }
        self
    }

    /// The grants its tools use: unlisted when none of them is granted.
    #[must_use]
    pub fn needs(mut self, kinds: impl IntoIterator<Item = Capability>) -> Self {
        self.needs.extend(kinds);
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}
