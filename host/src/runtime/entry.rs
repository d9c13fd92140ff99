//! The ways into a plugin ([`Entry`]) and what comes out ([`Exit`]), shared by the loaded
//! plugin (`plugin.rs`) and the kinds of component it calls (`kinds.rs`).

use super::bindings::{
    Completion, CompletionRef, EmbeddedResource, Prompt, PromptInfo, ResourceInfo,
    ResourceTemplate, ToolInfo, ToolOutput,
};

/// A way into a plugin.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    /// `tools/call` of the plugin's own tool name.
    Tool { name: &'a str, arguments: &'a str },
    /// `resources/read`.
    ReadResource { uri: &'a str },
    /// `prompts/get` of the plugin's own prompt name.
    GetPrompt {
        name: &'a str,
        arguments: &'a [(String, String)],
    },
    /// `completion/complete`.
    Complete {
        target: &'a CompletionRef,
        argument: &'a str,
        value: &'a str,
        context: &'a [(String, String)],
    },
    /// The load-time listing of tools, resources and templates.
    Describe,
}

impl Entry<'_> {
    /// How audit lines and logs name the entry.
    pub fn label(&self) -> String {
        match self {
            Self::Tool { name, .. } => (*name).to_string(),
            Self::ReadResource { uri } => format!("resources/read {uri}"),
            Self::GetPrompt { name, .. } => format!("prompts/get {name}"),
            Self::Complete { .. } => "completion/complete".to_string(),
            Self::Describe => "list-tools".to_string(),
        }
    }
}

/// What came out of a plugin.
pub enum Exit {
    Tool(ToolOutput),
    Resource(Vec<EmbeddedResource>),
    Prompt(Prompt),
    Completion(Completion),
    Listing(Box<Listing>),
}

/// Everything a plugin serves, as it listed it at load.
pub struct Listing {
    pub tools: Vec<ToolInfo>,
    pub resources: Vec<ResourceInfo>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts: Vec<PromptInfo>,
    /// The plugin's tool groups (`warden:plugin/groups`); empty when it exports none.
    pub groups: Vec<super::group_bindings::ToolGroup>,
}
