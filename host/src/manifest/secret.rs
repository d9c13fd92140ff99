//! Where a secret the manifest names comes from (`env` or a literal `value`).

use std::fmt;

/// Where a secret (a client's bearer token, a password for a page) comes from. Resolved when
/// it is used, so a deployment that never uses it does not need the variable set.
#[derive(Clone, PartialEq, Eq)]
pub enum SecretSource {
    Env(String),
    Literal(String),
}

impl SecretSource {
    /// The value, or a message that names what to set. Never part of a message itself.
    pub fn resolve(&self) -> Result<String, String> {
        match self {
            Self::Literal(v) => Ok(v.clone()),
            Self::Env(var) => match std::env::var(var) {
                Ok(v) if !v.is_empty() => Ok(v),
                _ => Err(format!(
                    "environment variable {var} is not set for the warden process"
                )),
            },
        }
    }
}

/// Never prints a literal token, so a logged manifest cannot leak one.
impl fmt::Debug for SecretSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Env(var) => f.debug_tuple("Env").field(var).finish(),
            Self::Literal(_) => f.write_str("Literal(<redacted>)"),
        }
    }
}
