//! The grant kinds of a plugin's `grants` table (capture, browser, terminal, SFTP, RDP) and
//! what the rest of the manifest defines for them, as data; [`super::grants::Grants`] holds
//! them and checks each use against them.

use super::glob::GlobList;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug)]
pub struct CaptureGrant {
    pub http_hosts: GlobList,
    pub max_body: u64,
    pub origins: GlobList,
    pub cookies: bool,
    pub http_only_cookies: bool,
}

#[derive(Debug)]
pub struct BrowserGrant {
    pub origins: GlobList,
    /// Origins pages may load sub-resources from (scripts, images, fetch, WebSocket, ...)
    /// without navigating to them; the navigation origins when the manifest names none.
    pub resource_origins: GlobList,
    pub cookies: bool,
    pub eval_js: bool,
    pub upload_dirs: Vec<PathBuf>,
    /// Where downloads are saved (`None`: refused), and the largest one saved.
    pub download_dir: Option<PathBuf>,
    pub download_max: u64,
    pub secrets: Vec<SecretGrant>,
    pub profiles: Vec<String>,
    /// Warden's secret files by inode: an upload that is one of them (a hard link in an
    /// upload directory) is refused.
    pub owned: std::sync::Arc<super::owned::OwnedFiles>,
}

/// A secret the plugin may have typed, with the origins (`[browser.secrets.NAME] origins`)
/// whose fields it may go into.
#[derive(Debug)]
pub struct SecretGrant {
    pub name: String,
    pub origins: GlobList,
}

/// The names a manifest defines that grants refer to: a grant of an undefined name is a load
/// error, so a refusal suggests adding a name only when it is defined.
#[derive(Debug, Clone, Default)]
pub struct Defined {
    /// `[browser.secrets.NAME]`
    pub secrets: Vec<String>,
    /// `[browser.profiles.NAME]`
    pub profiles: Vec<String>,
    /// `[ssh.hosts.NAME]`
    pub ssh_hosts: Vec<String>,
    /// `[rdp.hosts.NAME]`
    pub rdp_hosts: Vec<String>,
}

/// Per-plugin caps on the host resources the browser capabilities create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// `limits.browser_sessions`
    pub browser_sessions: usize,
    /// `limits.browser_tabs`
    pub browser_tabs: usize,
    /// `limits.capture_tabs`
    pub capture_tabs: usize,
}

/// Default `limits.browser_sessions`, `limits.browser_tabs` and `limits.capture_tabs`.
pub const DEFAULT_BROWSER_SESSIONS: usize = 8;
pub const DEFAULT_BROWSER_TABS: usize = 32;
pub const DEFAULT_CAPTURE_TABS: usize = 4;

impl Default for Caps {
    fn default() -> Self {
        Self {
            browser_sessions: DEFAULT_BROWSER_SESSIONS,
            browser_tabs: DEFAULT_BROWSER_TABS,
            capture_tabs: DEFAULT_CAPTURE_TABS,
        }
    }
}

/// A frame a secret would be typed into, as the browser reports it (never as page script does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFrame {
    /// The frame's document URL.
    pub url: String,
    /// The frame's security origin (`null` or empty when opaque: sandboxed, `data:`).
    pub security_origin: String,
}

#[derive(Debug)]
pub struct TerminalGrant {
    pub local: bool,
    pub ssh_hosts: Vec<String>,
    /// `terminal.members`: which members of a pattern host the sessions may reach.
    pub members: Members,
    pub read_only: bool,
}

/// `members.ALIAS = ["web-*.staging.internal"]` of a terminal or SFTP grant: the names (host
/// globs, case-insensitive) of a pattern host's members the plugin may reach. A pattern host
/// that has no entry is reached whole, as far as its pattern goes.
#[derive(Debug, Default, Clone)]
pub struct Members(BTreeMap<String, GlobList>);

impl Members {
    pub fn new(members: BTreeMap<String, GlobList>) -> Self {
        Self(members)
    }

    /// May `member` of pattern host `alias` be reached?
    pub fn admit(&self, alias: &str, member: &str) -> bool {
        self.0.get(alias).is_none_or(|globs| globs.is_match(member))
    }

    /// The member globs of `alias`, when the grant narrows it.
    pub fn of(&self, alias: &str) -> Option<&GlobList> {
        self.0.get(alias)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &GlobList)> {
        self.0.iter()
    }
}

#[derive(Debug)]
pub struct RdpGrant {
    pub hosts: Vec<String>,
    pub read_only: bool,
}

#[derive(Debug)]
pub struct SftpGrant {
    pub hosts: Vec<String>,
    /// `sftp.members`: which members of a pattern host SFTP may reach.
    pub members: Members,
    pub roots: Vec<String>,
    pub write: bool,
}

/// Default `grants.capture.max_body`.
pub const DEFAULT_MAX_BODY: u64 = 4 * 1024 * 1024;
