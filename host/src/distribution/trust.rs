//! [`Trust`]: whose signatures are accepted (`[trust]`).

use super::keyless::TrustedIdentity;
use super::keys::TrustedKey;

/// Whose signatures are accepted: `[trust]`.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// `[trust.keys]`: public keys.
    pub keys: Vec<TrustedKey>,
    /// `[trust.identities]`: keyless signers, certified by a trust root's authority.
    pub identities: Vec<TrustedIdentity>,
}

impl Trust {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.identities.is_empty()
    }

    /// The trusted signers' names, for messages: `keys: a, b; identities: c`.
    pub fn names(&self) -> String {
        let list = |names: Vec<&str>| names.join(", ");
        let keys = list(self.keys.iter().map(|k| k.name.as_str()).collect());
        let ids = list(self.identities.iter().map(|i| i.name.as_str()).collect());
        match (keys.is_empty(), ids.is_empty()) {
            (_, true) => format!("keys: {keys}"),
            (true, false) => format!("identities: {ids}"),
            (false, false) => format!("keys: {keys}; identities: {ids}"),
        }
    }
}
