//! What a tool returns: [`ToolOutput`], made of [`Content`] blocks and optional structured JSON.

use serde::Serialize;

use crate::ToolError;
use crate::bindings::warden::plugin::types as wit;

/// One MCP content block of a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Plain text (or Markdown).
    Text(String),
    /// An image; the host base64-encodes `data`.
    Image {
        /// Such as `image/png`.
        mime_type: String,
        /// The encoded image file.
        data: Vec<u8>,
    },
    /// Audio; the host base64-encodes `data`.
    Audio {
        /// Such as `audio/wav`.
        mime_type: String,
        /// The encoded audio file.
        data: Vec<u8>,
    },
    /// A resource embedded in the result.
    Resource(EmbeddedResource),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(text.into())
    }

    /// An image block.
    pub fn image(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Self::Image {
            mime_type: mime_type.into(),
            data: data.into(),
        }
    }

    /// An audio block.
    pub fn audio(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Self::Audio {
            mime_type: mime_type.into(),
            data: data.into(),
        }
    }
}

impl From<EmbeddedResource> for Content {
    fn from(resource: EmbeddedResource) -> Self {
        Self::Resource(resource)
    }
}

/// The body of an [`EmbeddedResource`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes; the host base64-encodes them.
    Blob(Vec<u8>),
}

/// A resource embedded in a tool result, or returned when a client reads a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedResource {
    /// The resource's URI.
    pub uri: String,
    /// Its media type, if known.
    pub mime_type: Option<String>,
    /// Its contents.
    pub body: ResourceBody,
}

impl EmbeddedResource {
    /// A text resource.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// A binary resource.
    pub fn blob(uri: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(data.into()),
        }
    }

    /// Sets the media type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// A successful tool result: content blocks for the model, and optionally structured JSON
/// (MCP `structuredContent`, always a JSON object).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// Structured result; must be a JSON object, and must match the tool's output schema
    /// when it declares one.
    pub structured: Option<serde_json::Value>,
}

impl ToolOutput {
    /// A result with no content yet; add blocks with [`ToolOutput::with`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A result made of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new().with(Content::text(text))
    }

    /// A result made of one image block.
    pub fn image(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Self::new().with(Content::image(mime_type, data))
    }

    /// A result made of one audio block.
    pub fn audio(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Self::new().with(Content::audio(mime_type, data))
    }

    /// A result made of one embedded resource.
    pub fn resource(resource: EmbeddedResource) -> Self {
        Self::new().with(Content::Resource(resource))
    }

    /// A structured result: `value` becomes `structured`, and its pretty-printed JSON the
    /// text block (as MCP recommends for clients that ignore structured content).
    ///
    /// Fails when `value` does not serialize to a JSON object. To also declare an output
    /// schema, return [`Structured`](crate::Structured) from the tool instead.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        let value = to_object(value)?;
        let text = pretty(&value);
        Ok(Self {
            content: vec![Content::Text(text)],
            structured: Some(value),
        })
    }

    /// Appends a content block.
    #[must_use]
    pub fn with(mut self, block: impl Into<Content>) -> Self {
        self.content.push(block.into());
        self
    }

    /// Sets the structured result (keeping the content blocks as they are). Fails when
    /// `value` does not serialize to a JSON object.
    pub fn with_structured<T: Serialize + ?Sized>(mut self, value: &T) -> Result<Self, ToolError> {
        self.structured = Some(to_object(value)?);
        Ok(self)
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

pub(crate) fn to_object<T: Serialize + ?Sized>(value: &T) -> Result<serde_json::Value, ToolError> {
    let value = serde_json::to_value(value)
        .map_err(|e| ToolError::failed(format!("cannot serialize the structured result: {e}")))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(ToolError::failed(
            "the structured result must be a JSON object (a struct or a map), \
             as MCP requires for structuredContent",
        ))
    }
}

pub(crate) fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

impl From<ResourceBody> for wit::ResourceBody {
    fn from(body: ResourceBody) -> Self {
        match body {
            ResourceBody::Text(t) => Self::Text(t),
            ResourceBody::Blob(b) => Self::Blob(b),
        }
    }
}

impl From<EmbeddedResource> for wit::EmbeddedResource {
    fn from(r: EmbeddedResource) -> Self {
        Self {
            uri: r.uri,
            mime_type: r.mime_type,
            body: r.body.into(),
        }
    }
}

impl From<Content> for wit::ContentBlock {
    fn from(block: Content) -> Self {
        match block {
            Content::Text(t) => Self::Text(t),
            Content::Image { mime_type, data } => Self::Image(wit::Media { mime_type, data }),
            Content::Audio { mime_type, data } => Self::Audio(wit::Media { mime_type, data }),
            Content::Resource(r) => Self::Resource(r.into()),
        }
    }
}

impl From<ToolOutput> for wit::ToolOutput {
    fn from(output: ToolOutput) -> Self {
        Self {
            content: output.content.into_iter().map(Into::into).collect(),
            structured: output.structured.map(|v| v.to_string()),
        }
    }
}
