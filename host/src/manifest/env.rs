//! `grants.env`: the environment variables a plugin reads through `wasi:cli/environment`,
//! each named by the admin: a value written here, or a variable of the host's environment
//! copied by name when the manifest loads. Never the host's environment as a whole, and
//! never a credential: a plugin can print, log or send whatever it reads here; credentials
//! stay with the host (`[credentials]`), which adds them to the plugin's requests.

use super::validate::Validator;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// `grants.env = { vars = { API_BASE = "https://api.example.com" }, from_host = ["LANG"] }`
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvGrantSpec {
    /// Variables and their values. Example: `vars = { API_BASE = "https://api.example.com" }`.
    #[serde(default)]
    pub vars: BTreeMap<String, Spanned<String>>,
    /// Variables copied from the host's environment when the manifest loads (one not set
    /// there is left out). Example: `from_host = ["LANG", "TZ"]`.
    #[serde(default)]
    pub from_host: Vec<Spanned<String>>,
}

/// Bytes of environment a plugin may be given: configuration, not data.
const MAX_ENV_BYTES: usize = 64 * 1024;

/// Parts of a name that say it holds a secret.
const SECRET_WORDS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
];

impl Validator<'_> {
    pub(super) fn env_grant(&mut self, spec: Option<EnvGrantSpec>) -> Vec<(String, String)> {
        let Some(spec) = spec else {
            return Vec::new();
        };
        let mut env = Vec::new();
        let check = |this: &mut Self, name: &str, span: std::ops::Range<usize>| -> bool {
            let valid = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                this.error(
                    span,
                    format!("grants.env: \"{name}\" is not a variable name; use letters, digits and _ (like API_BASE)"),
                );
                return false;
            }
            let upper = name.to_ascii_uppercase();
            if let Some(word) = SECRET_WORDS.iter().find(|w| upper.contains(**w)) {
                this.error(
                    span,
                    format!(
                        "grants.env: \"{name}\" looks like a credential ({word}); a plugin can print or send what it reads from its environment: keep the secret in the host ([credentials] in the manifest, bound to the origins it is for), which adds it to the plugin's requests without the plugin seeing it"
                    ),
                );
                return false;
            }
            true
        };
        // The key's own span is not kept by the map; the value's stands for both.
        for (name, value) in &spec.vars {
            if check(self, name, value.span()) {
                env.push((name.clone(), value.get_ref().clone()));
            }
        }
        for name in &spec.from_host {
            if !check(self, name.get_ref(), name.span()) {
                continue;
            }
            if env.iter().any(|(n, _)| n == name.get_ref()) {
                self.error(
                    name.span(),
                    format!(
                        "grants.env: \"{}\" is both in vars and in from_host; keep one",
                        name.get_ref()
                    ),
                );
                continue;
            }
            match std::env::var(name.get_ref()) {
                Ok(value) => env.push((name.get_ref().clone(), value)),
                Err(_) => tracing::warn!(
                    variable = %name.get_ref(),
                    "grants.env.from_host: not set in the host's environment (or not UTF-8); the plugin does not get it"
                ),
            }
        }
        let bytes: usize = env.iter().map(|(k, v)| k.len() + v.len()).sum();
        if bytes > MAX_ENV_BYTES
            && let Some(first) = spec.vars.values().next().or(spec.from_host.first())
        {
            self.error(
                first.span(),
                format!("grants.env: {bytes} bytes of environment; at most {MAX_ENV_BYTES} are allowed: keep data in a granted directory"),
            );
        }
        env
    }
}
