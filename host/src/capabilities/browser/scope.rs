//! Browser sessions and saved states are scoped by the conversation of the call that names
//! them (`../conversation.rs`): the name a plugin passes ("default", "work") is its
//! conversation's, kept in the host as `name~scope`. Two agents on one server each get their
//! own "default" and cannot name the other's; the local client (stdio, CLI) keeps bare
//! names. Every name a plugin passes goes through [`SessionKey::new`], and every name the
//! host hands back through [`SessionKey::visible`].

use crate::capabilities::conversation::Conversation;
use crate::capabilities::errors::Error;

const SEPARATOR: char = '~';

/// A session's (or saved state's) name as the host keeps it. Derefs to that key; displays
/// as the name the plugin gave, so messages never show the scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionKey(String);

impl SessionKey {
    /// `name` (1-64 letters, digits, '-' or '_') in `conversation`'s scope.
    pub(crate) fn new(name: &str, conversation: &Conversation) -> Result<Self, Error> {
        if name.is_empty()
            || name.len() > 64
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(Error::InvalidArgument(format!(
                "session name \"{name}\" must be 1-64 letters, digits, '-' or '_'"
            )));
        }
        Ok(match conversation.key() {
            "" => Self(name.to_string()),
            scope => Self(format!("{name}{SEPARATOR}{scope}")),
        })
    }

    /// A key the host holds, as the plugin of `conversation` named it; `None` when it is
    /// another conversation's.
    pub(crate) fn visible<'k>(key: &'k str, conversation: &Conversation) -> Option<&'k str> {
        let (name, scope) = split(key);
        (scope == conversation.key()).then_some(name)
    }

    pub(crate) fn into_key(self) -> String {
        self.0
    }
}

/// (name, scope) of a key; the scope is empty for the local client's.
pub(crate) fn split(key: &str) -> (&str, &str) {
    key.split_once(SEPARATOR).unwrap_or((key, ""))
}

impl std::ops::Deref for SessionKey {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(split(&self.0).0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn two_conversations_get_two_keys_for_one_name_and_see_only_their_own() {
        let a = Conversation::session("session-a", None, Arc::new(|| true));
        let b = Conversation::session("session-b", None, Arc::new(|| true));
        let local = Conversation::default();
        let ka = SessionKey::new("default", &a).expect("a valid name");
        let kb = SessionKey::new("default", &b).expect("a valid name");
        assert_ne!(*ka, *kb);
        assert_eq!(ka.to_string(), "default");
        assert_eq!(SessionKey::visible(&ka, &a), Some("default"));
        assert_eq!(SessionKey::visible(&ka, &b), None);
        assert_eq!(SessionKey::visible(&ka, &local), None);
        assert_eq!(
            &*SessionKey::new("default", &local).expect("a valid name"),
            "default"
        );
        assert_eq!(SessionKey::visible("default", &local), Some("default"));
        // The separator is not a name character: no name can pose as another scope's.
        assert!(SessionKey::new("default~s0123", &local).is_err());
        assert!(!(*ka).contains("session-a"));
    }
}
