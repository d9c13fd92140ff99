//! The admin's manifest (`warden.toml`): parsed strictly, validated with `file:line` in every
//! error, and turned into per-plugin [`Grants`] that the capability providers check on each call.
//!
//! One file per manifest section, each with the section's types and its checks (an
//! `impl Validator` block):
//!
//! | File | Job |
//! |---|---|
//! | `error.rs` | [`ManifestError`] and its `file:line:col` [`Diagnostic`]s |
//! | `dirs.rs` | default state and cache directories, `~/` in paths |
//! | `glob.rs` | [`GlobList`]: compiled glob patterns with their text |
//! | `values.rs` | byte sizes as text, `host:port` of a URL |
//! | `denied.rs` | [`Denied`]: a refused use and the grant that would allow it |
//! | `secret.rs` | [`SecretSource`]: a secret's `env` or `value` |
//! | `source.rs` | [`PluginSource`]: `[[plugin]] source` |
//! | `emulation.rs` | device emulation values (viewport, locale, ...) |
//! | `validate.rs` | the validator core every section's checks use |
//! | `schema.rs` | the TOML shape, as parsed |
//! | `credentials.rs` | `[credentials.NAME]` |
//! | `http.rs` | `grants.http` |
//! | `files.rs` | `grants.files` |
//! | `owned.rs` | the paths Warden owns, which no grant of a host directory may reach |
//! | `owned_grants.rs` | that rule checked on every plugin's grants when the manifest loads |
//! | `env.rs` | `grants.env` |
//! | `settings.rs` | `[plugin.settings]` |
//! | `grant_kinds.rs` | the grant kinds (capture, browser, terminal, SFTP, RDP) as data |
//! | `grants.rs` | [`Grants`]: everything one plugin was granted, checked on each call |
//! | `hosts.rs` | `[ssh.hosts.NAME]`, `[rdp.hosts.NAME]`, which SSH entry a name stands for |
//! | `members.rs` | `grants.terminal.members`, `grants.sftp.members`: the members of a fleet a grant reaches |
//! | `ssh_pattern.rs` | `[ssh.hosts.NAME] pattern`: a fleet's names, port and allowed networks |
//! | `search.rs` | `[search]` |
//! | `audit.rs` | `[audit]`: session recordings, their retention and size cap |
//! | `browser.rs` | `[browser]`, its secrets and profiles, `[capture] profile_dir` |
//! | `browser_sandbox.rs` | `[browser] run_as` and `sandbox`: the launched browser's user and sandbox |
//! | `client_limits.rs` | `max_concurrent` and `rate` of a named HTTP client |
//! | `oauth.rs` | `[server.http.oauth]` |
//! | `server_http.rs` | `[server.http]` |
//! | `distribution.rs` | `[trust]`, `[registries]`, `oci://` sources |
//! | `plugin_grants.rs` | a plugin's `grants` table, into [`Grants`] |
//! | `tool_groups.rs` | `tools.groups` and `tools.offer` of a `[[plugin]]`: its tool groups listed and offered |
//! | `plugin.rs` | `[[plugin]]` |
//! | `roles.rs` | `[roles.NAME]`: what a client may use, and who has which role |
//! | `role_grants.rs` | a role's narrower grants of a plugin, checked to lie within the plugin's |
//! | `load.rs` | [`Manifest`]: loading, parsing, the sections in order, `[server]`, `[admin]`, `[telemetry]` |

mod audit;
mod browser;
pub mod browser_sandbox;
mod client_limits;
pub mod credentials;
mod denied;
mod dirs;
mod distribution;
pub mod emulation;
mod env;
mod error;
pub mod files;
mod glob;
mod grant_kinds;
pub mod grants;
mod hosts;
pub mod http;
mod load;
mod members;
mod oauth;
pub mod owned;
mod owned_grants;
mod plugin;
mod plugin_grants;
mod role_grants;
pub mod roles;
mod schema;
mod search;
mod secret;
mod server_http;
mod settings;
mod source;
mod ssh_pattern;
mod tool_groups;
mod validate;
mod values;

pub use audit::{
    DEFAULT_MAX_SESSION, DEFAULT_RETENTION_BYTES, DEFAULT_RETENTION_DAYS, RecordingPolicy,
};
pub use browser::{BrowserConfig, BrowserProfile};
pub use client_limits::{ClientLimits, Rate};
pub use dirs::{cache_dir, state_dir};
pub use error::{Diagnostic, ManifestError};
pub use grants::{Denied, GlobList, Grants};
pub use hosts::{RdpHostConfig, SshHostConfig, normalize_fingerprint, ssh_name};
pub use load::{DEFAULT_MANIFEST, DEFAULT_MANIFEST_NAME, Manifest};
pub use oauth::{DEFAULT_JWKS_MIN_REFRESH, OAuthClientRule, OAuthConfig};
pub use plugin::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_MEMORY, DEFAULT_OUTPUT, DEFAULT_QUEUE_TIMEOUT, DEFAULT_STATE,
    Limits, MAX_CONCURRENCY, PluginConfig, RememberApproval, ToolFilter, default_concurrency,
};
pub use plugin_grants::DEFAULT_DOWNLOAD_MAX;
pub use roles::{Access, Role, RoleRefusal, Roles, ToolRef};
pub use search::{BRAVE_ENDPOINT, SearchConfig, SearchProvider};
pub use secret::SecretSource;
pub use server_http::{DEFAULT_HTTP_MAX_BODY, HttpConfig};
pub use settings::Settings;
pub use source::PluginSource;
pub use ssh_pattern::{HostPattern, SshAddress, SshName, SshNameError};
pub use tool_groups::{GroupChoice, GroupState, valid_group_name};

#[cfg(test)]
mod fix_tests;
#[cfg(test)]
mod http_tests;
#[cfg(test)]
mod tests;
