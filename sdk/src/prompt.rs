//! [`Prompt`]s (MCP `prompts/list` and `prompts/get`) and [`Completion`]s (MCP
//! `completion/complete`) a plugin serves.

use std::collections::BTreeMap;

use crate::{Content, ToolError};

/// One argument of a [`Prompt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name, the key in [`PromptArgs`].
    pub name: String,
    /// What to give.
    pub description: Option<String>,
    /// Whether `prompts/get` must have it (the SDK refuses the call without it).
    pub required: bool,
}

/// A prompt: a template of messages, filled in with its arguments by a handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// Unique within the plugin, `[a-zA-Z0-9_.-]{1,64}`.
    pub name: String,
    /// A human-readable name.
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
}

impl Prompt {
    /// A prompt called `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
        }
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds an argument the client must give.
    #[must_use]
    pub fn argument(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.arguments.push(PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required: true,
        });
        self
    }

    /// Adds an argument the client may leave out.
    #[must_use]
    pub fn optional_argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.arguments.push(PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required: false,
        });
        self
    }

    /// `ToolError::InvalidArguments` naming the first required argument that is missing.
    pub(crate) fn check(&self, args: &PromptArgs) -> Result<(), ToolError> {
        match self
            .arguments
            .iter()
            .find(|a| a.required && !args.contains_key(&a.name))
        {
            Some(missing) => Err(ToolError::invalid_arguments(format!(
                "prompt `{}` needs the argument `{}`",
                self.name, missing.name
            ))),
            None => Ok(()),
        }
    }
}

/// The arguments `prompts/get` was given, by name.
pub type PromptArgs = BTreeMap<String, String>;

/// Who says a [`PromptMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a filled-in prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: text, an image, audio or an embedded resource.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: impl Into<Content>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<Content>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// A filled-in prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptResult {
    /// A description of this filled-in prompt.
    pub description: Option<String>,
    /// Its messages.
    pub messages: Vec<PromptMessage>,
}

impl PromptResult {
    /// A prompt of these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
        }
    }
}

/// What a completion is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionRef {
    /// An argument of this plugin's prompt of that name.
    Prompt(String),
    /// A variable of this plugin's resource template of that URI template.
    ResourceTemplate(String),
}

/// Values a client may offer for an argument.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    /// At most 100 (the SDK keeps the first 100 and sets `has_more`).
    pub values: Vec<String>,
    /// How many values there are in all, when known.
    pub total: Option<u32>,
    /// There are more than `values`.
    pub has_more: bool,
}

impl Completion {
    /// The most values one completion may carry (MCP).
    pub const MAX_VALUES: usize = 100;

    /// The values of `candidates` that start with `prefix`, at most [`Self::MAX_VALUES`].
    pub fn matching<I, S>(candidates: I, prefix: &str) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let all: Vec<String> = candidates
            .into_iter()
            .map(Into::into)
            .filter(|c| c.starts_with(prefix))
            .collect();
        let total = u32::try_from(all.len()).ok();
        let has_more = all.len() > Self::MAX_VALUES;
        Self {
            values: all.into_iter().take(Self::MAX_VALUES).collect(),
            total,
            has_more,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_required_argument_is_named() {
        let p = Prompt::new("p")
            .argument("a", "A")
            .optional_argument("b", "B");
        let mut args = PromptArgs::new();
        args.insert("b".into(), "x".into());
        assert_eq!(
            p.check(&args),
            Err(ToolError::invalid_arguments(
                "prompt `p` needs the argument `a`"
            ))
        );
        args.insert("a".into(), "y".into());
        assert!(p.check(&args).is_ok());
    }

    #[test]
    fn matching_keeps_at_most_a_hundred() {
        let c = Completion::matching((0..300).map(|i| format!("v{i}")), "v1");
        assert_eq!(c.total, Some(111));
        assert_eq!(c.values.len(), 100);
        assert!(c.has_more);
        assert_eq!(Completion::matching(["ab", "b"], "a").values, ["ab"]);
    }
}
