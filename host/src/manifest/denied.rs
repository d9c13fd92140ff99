//! A refused capability use, and what the admin can write into the manifest to allow it.
//! A refusal only ever suggests a grant that loads and then allows the use (a unit test in
//! `fix_tests.rs` writes each one into a manifest and checks both); where nothing can be
//! written (a page with no origin, a secret for a plugin that runs script) it says why.

use std::fmt;

/// A refused capability use. The message names the grant that would allow it.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Denied {
    /// The manifest key that governs the use, e.g. `grants.capture.http_hosts`.
    pub grant: &'static str,
    /// What was asked for (a `host:port`, an origin, a host alias). Never a secret.
    pub target: String,
    pub message: String,
    /// What would allow it, when something can be written; `None` when nothing can.
    pub fix: Option<Fix>,
}

/// A change to the manifest that allows a refused use, and loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fix {
    /// Add one of `values` to the list at `key`: a key of the plugin's grants
    /// (`grants.browser.origins`) or of a manifest table (`browser.secrets.PW.origins`).
    /// The first value is the narrowest; the others (a glob) are alternatives.
    Add { key: String, values: Vec<String> },
    /// Set the boolean `key` of the plugin's grants.
    Set { key: &'static str, value: bool },
}

impl Fix {
    /// Add `value` to `key`.
    pub fn add(key: impl Into<String>, value: impl Into<String>) -> Self {
        Self::Add {
            key: key.into(),
            values: vec![value.into()],
        }
    }

    /// Set `key` to `true`.
    pub fn enable(key: &'static str) -> Self {
        Self::Set { key, value: true }
    }
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Add { key, values } => {
                let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
                match quoted.split_first() {
                    Some((first, [])) => write!(f, "add {first} to {key}"),
                    Some((first, rest)) => write!(
                        f,
                        "add {first} (or a glob such as {}) to {key}",
                        rest.join(" or ")
                    ),
                    None => write!(f, "add a value to {key}"),
                }
            }
            Self::Set { key, value } => write!(f, "set {key} = {value}"),
        }
    }
}

/// Whose grant refused a use: the plugin's own, or a role's narrowing of it (the grants a
/// role's clients act with), so the message names the key the admin would change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner<'a> {
    Plugin(&'a str),
    Role { role: &'a str, plugin: &'a str },
}

impl Denied {
    /// A refusal of `owner`'s use of `target` under `grant`, allowed by writing `fix`.
    pub fn fixable(owner: Owner<'_>, grant: &'static str, target: String, fix: Fix) -> Self {
        let rule = grant.trim_start_matches("grants.");
        let message = match (&fix, owner) {
            (Fix::Add { key, .. }, _) if !key.starts_with("grants.") => {
                format!("{rule} does not allow {target}; {fix} in the manifest")
            }
            (_, Owner::Plugin(plugin)) => format!(
                "{rule} does not allow {target}; {fix} of plugin '{plugin}' in the manifest"
            ),
            (Fix::Add { key, values }, Owner::Role { role, plugin }) => {
                let kind = key.trim_start_matches("grants.");
                let value = values.first().map_or("a value", String::as_str);
                format!(
                    "{rule} as role '{role}' narrows it does not allow {target}; add \"{value}\" to roles.{role}.narrow.{plugin}.{kind} in the manifest, if the plugin's own {key} allows it too"
                )
            }
            (Fix::Set { key, value }, Owner::Role { role, plugin }) => {
                let kind = key.trim_start_matches("grants.");
                format!(
                    "{rule} as role '{role}' narrows it does not allow {target}; set roles.{role}.narrow.{plugin}.{kind} = {value} in the manifest, if the plugin's own {key} is {value} too"
                )
            }
        };
        Self {
            grant,
            target,
            message,
            fix: Some(fix),
        }
    }

    /// A refusal that no grant can lift; `message` says why and what to do instead.
    pub fn unfixable(grant: &'static str, target: String, message: String) -> Self {
        Self {
            grant,
            target,
            message,
            fix: None,
        }
    }
}
