//! Why a browser operation failed; `wit/` maps it onto the WIT error variant.

/// Why a command failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    #[error("the browser connection is closed (the browser exited or was killed)")]
    Closed,
    #[error("the browser refused {method}: {message}")]
    Protocol { method: String, message: String },
    #[error("unexpected answer to {method}: {message}")]
    Decode { method: String, message: String },
}

/// Why a browser operation failed.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error("{0}")]
    Denied(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Timeout(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Io(String),
    /// An element handle points at a node that is gone from the page.
    #[error("{0}")]
    Stale(String),
    /// The browser behind a handle has exited.
    #[error("{0}")]
    Gone(String),
}

impl BrowserError {
    /// The kind, for audit lines.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Denied(_) => "access_denied",
            Self::NotFound(_) => "not_found",
            Self::Timeout(_) => "timeout",
            Self::Invalid(_) => "invalid_argument",
            Self::Io(_) => "io",
            Self::Stale(_) => "stale_element",
            Self::Gone(_) => "gone",
        }
    }
}

impl From<CdpError> for BrowserError {
    fn from(e: CdpError) -> Self {
        match e {
            CdpError::Closed => Self::Io(
                "the browser exited during this call (it crashed or was killed); the next call starts a fresh browser, without this session's tabs and cookies".into(),
            ),
            other => Self::Io(other.to_string()),
        }
    }
}

pub type Result<T> = std::result::Result<T, BrowserError>;
