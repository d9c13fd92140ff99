//! Errors: [`ToolError`] (what a tool returns) and [`CapabilityError`] (what a host capability
//! returns; it converts into a [`ToolError`] with `?`).

use std::fmt;

use crate::bindings::warden;

/// Why a tool call failed. The host turns it into an MCP result with `isError: true` and a
/// text that starts with the kind, for example `invalid arguments: missing field `text``.
///
/// Write the message for the agent that called the tool: say what went wrong and what to do
/// about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// The arguments do not fit the tool's input schema or its rules.
    InvalidArguments(String),
    /// A capability call was refused by the manifest's grants.
    AccessDenied(String),
    /// The thing the tool was asked about does not exist.
    NotFound(String),
    /// The tool gave up waiting.
    Timeout(String),
    /// Anything else.
    Failed(String),
}

impl ToolError {
    /// [`ToolError::InvalidArguments`] with `message`.
    pub fn invalid_arguments(message: impl fmt::Display) -> Self {
        Self::InvalidArguments(message.to_string())
    }

    /// [`ToolError::AccessDenied`] with `message`.
    pub fn access_denied(message: impl fmt::Display) -> Self {
        Self::AccessDenied(message.to_string())
    }

    /// [`ToolError::NotFound`] with `message`.
    pub fn not_found(message: impl fmt::Display) -> Self {
        Self::NotFound(message.to_string())
    }

    /// [`ToolError::Timeout`] with `message`.
    pub fn timeout(message: impl fmt::Display) -> Self {
        Self::Timeout(message.to_string())
    }

    /// [`ToolError::Failed`] with `message`; `.map_err(ToolError::failed)` turns any error
    /// into a failure that carries its text.
    pub fn failed(message: impl fmt::Display) -> Self {
        Self::Failed(message.to_string())
    }

    /// The kind as the host prints it: `invalid arguments`, `access denied`, `not found`,
    /// `timeout` or `failed`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::InvalidArguments(_) => "invalid arguments",
            Self::AccessDenied(_) => "access denied",
            Self::NotFound(_) => "not found",
            Self::Timeout(_) => "timeout",
            Self::Failed(_) => "failed",
        }
    }

    /// An error of the same kind with another message: a caller that adds context (which
    /// step failed, what was already done) keeps the kind the agent acts on.
    pub fn with_message(&self, message: impl fmt::Display) -> Self {
        let message = message.to_string();
        match self {
            Self::InvalidArguments(_) => Self::InvalidArguments(message),
            Self::AccessDenied(_) => Self::AccessDenied(message),
            Self::NotFound(_) => Self::NotFound(message),
            Self::Timeout(_) => Self::Timeout(message),
            Self::Failed(_) => Self::Failed(message),
        }
    }

    /// The message without the kind.
    pub fn message(&self) -> &str {
        match self {
            Self::InvalidArguments(m)
            | Self::AccessDenied(m)
            | Self::NotFound(m)
            | Self::Timeout(m)
            | Self::Failed(m) => m,
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message())
    }
}

impl std::error::Error for ToolError {}

/// Why a call to a host capability (capture, browser, terminal, sftp) failed. Act on the case;
/// the message is for the agent.
///
/// `AccessDenied` and `LimitReached` messages come from the host and name the manifest key
/// that would allow the call; keep them intact when passing them on (`?` does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapabilityError {
    /// The manifest's grants do not allow the call.
    AccessDenied(String),
    /// A per-plugin limit (sessions, tabs, handles) is reached.
    LimitReached(String),
    /// The target (session, file, host alias, ...) does not exist.
    NotFound(String),
    /// An element handle from an earlier snapshot points at a node that is gone.
    StaleElement(String),
    /// The browser or session behind a handle has exited; open a new one.
    Gone(String),
    /// The host gave up waiting.
    Timeout(String),
    /// The host rejected an argument, such as a malformed URL.
    InvalidArgument(String),
    /// Network, protocol or other I/O failure.
    Io(String),
}

impl CapabilityError {
    /// The message without the kind.
    pub fn message(&self) -> &str {
        match self {
            Self::AccessDenied(m)
            | Self::LimitReached(m)
            | Self::NotFound(m)
            | Self::StaleElement(m)
            | Self::Gone(m)
            | Self::Timeout(m)
            | Self::InvalidArgument(m)
            | Self::Io(m) => m,
        }
    }
}

impl fmt::Display for CapabilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self {
            Self::AccessDenied(_) => "access denied",
            Self::LimitReached(_) => "limit reached",
            Self::NotFound(_) => "not found",
            Self::StaleElement(_) => "stale element",
            Self::Gone(_) => "gone",
            Self::Timeout(_) => "timeout",
            Self::InvalidArgument(_) => "invalid argument",
            Self::Io(_) => "i/o error",
        };
        write!(f, "{kind}: {}", self.message())
    }
}

impl std::error::Error for CapabilityError {}

/// `AccessDenied`, `NotFound` and `Timeout` keep their kind; a stale element or a gone
/// browser is `NotFound` to the agent; `InvalidArgument` becomes `InvalidArguments` (it is
/// almost always caused by the tool's own arguments, such as a bad URL); `LimitReached` and
/// `Io` become `Failed`. The message is kept as is.
impl From<CapabilityError> for ToolError {
    fn from(error: CapabilityError) -> Self {
        match error {
            CapabilityError::AccessDenied(m) => Self::AccessDenied(m),
            CapabilityError::NotFound(m)
            | CapabilityError::StaleElement(m)
            | CapabilityError::Gone(m) => Self::NotFound(m),
            CapabilityError::Timeout(m) => Self::Timeout(m),
            CapabilityError::InvalidArgument(m) => Self::InvalidArguments(m),
            CapabilityError::LimitReached(m) | CapabilityError::Io(m) => Self::Failed(m),
        }
    }
}

/// Every capability package returns the one `warden:types/errors.error`.
impl From<warden::types::errors::Error> for CapabilityError {
    fn from(error: warden::types::errors::Error) -> Self {
        use warden::types::errors::Error as E;
        match error {
            E::AccessDenied(m) => Self::AccessDenied(m),
            E::LimitReached(m) => Self::LimitReached(m),
            E::NotFound(m) => Self::NotFound(m),
            E::StaleElement(m) => Self::StaleElement(m),
            E::Gone(m) => Self::Gone(m),
            E::Timeout(m) => Self::Timeout(m),
            E::InvalidArgument(m) => Self::InvalidArgument(m),
            E::Io(m) => Self::Io(m),
        }
    }
}

impl From<ToolError> for warden::plugin::types::ToolError {
    fn from(error: ToolError) -> Self {
        match error {
            ToolError::InvalidArguments(m) => Self::InvalidArguments(m),
            ToolError::AccessDenied(m) => Self::AccessDenied(m),
            ToolError::NotFound(m) => Self::NotFound(m),
            ToolError::Timeout(m) => Self::Timeout(m),
            ToolError::Failed(m) => Self::Failed(m),
        }
    }
}
