//! The component's exports (tools, resources, prompts, completions) for the plugin a
//! user's `export_plugin!` builds; the glue behind the macro, not a public API.

use std::marker::PhantomData;

use crate::{Plugin, ToolError};

use crate::bindings::exports::warden::plugin::{completions, groups, prompts, resources, tools};
use crate::bindings::warden::plugin::types as wit;
use crate::prompt::{CompletionRef, PromptArgs, Role};

/// Gives access to the plugin built by the user's closure.
pub trait PluginRoot {
    fn plugin() -> &'static Plugin;
}

/// Implements the component's exports for a [`PluginRoot`].
pub struct Export<T>(PhantomData<T>);

pub fn leak(plugin: Plugin) -> &'static Plugin {
    Box::leak(Box::new(plugin))
}

impl<T: PluginRoot> tools::Guest for Export<T> {
    fn list_tools() -> Vec<wit::ToolInfo> {
        T::plugin()
            .tools()
            .iter()
            .map(|tool| {
                let a = tool.get_annotations();
                wit::ToolInfo {
                    name: tool.name().to_owned(),
                    title: tool.get_title().map(str::to_owned),
                    description: tool.get_description().to_owned(),
                    input_schema: tool.input_schema().as_value().to_string(),
                    output_schema: tool.output_schema().map(|s| s.as_value().to_string()),
                    annotations: wit::Annotations {
                        read_only: a.read_only,
                        destructive: a.destructive,
                        idempotent: a.idempotent,
                        open_world: a.open_world,
                    },
                    task: match tool.get_task() {
                        crate::TaskSupport::Never => wit::TaskSupport::Never,
                        crate::TaskSupport::Optional => wit::TaskSupport::Optional,
                        crate::TaskSupport::Required => wit::TaskSupport::Required,
                    },
                }
            })
            .collect()
    }

    fn call_tool(name: String, arguments: String) -> Result<wit::ToolOutput, wit::ToolError> {
        T::plugin()
            .call(&name, &arguments)
            .map(Into::into)
            .map_err(Into::into)
    }
}

impl<T: PluginRoot> groups::Guest for Export<T> {
    fn groups() -> Vec<groups::ToolGroup> {
        let plugin = T::plugin();
        plugin
            .groups()
            .iter()
            .map(|g| groups::ToolGroup {
                name: g.name.clone(),
                summary: g.summary.clone(),
                tools: plugin.group_tools(g),
                needs: g
                    .needs
                    .iter()
                    .map(|k| match k {
                        crate::Capability::Browser => groups::CapabilityKind::Browser,
                        crate::Capability::CaptureHttp => groups::CapabilityKind::CaptureHttp,
                        crate::Capability::CapturePage => groups::CapabilityKind::CapturePage,
                        crate::Capability::Http => groups::CapabilityKind::Http,
                        crate::Capability::Terminal => groups::CapabilityKind::Terminal,
                        crate::Capability::Sftp => groups::CapabilityKind::Sftp,
                        crate::Capability::Rdp => groups::CapabilityKind::Rdp,
                        crate::Capability::Files => groups::CapabilityKind::Files,
                    })
                    .collect(),
            })
            .collect()
    }
}

impl<T: PluginRoot> resources::Guest for Export<T> {
    fn list_resources() -> Vec<resources::ResourceInfo> {
        T::plugin()
            .resources
            .iter()
            .map(|(r, _)| resources::ResourceInfo {
                uri: r.uri.clone(),
                name: r.name.clone(),
                description: r.description.clone(),
                mime_type: r.mime_type.clone(),
            })
            .collect()
    }

    fn list_templates() -> Vec<resources::ResourceTemplate> {
        T::plugin()
            .templates
            .iter()
            .map(|(t, _)| resources::ResourceTemplate {
                uri_template: t.uri_template.clone(),
                name: t.name.clone(),
                description: t.description.clone(),
                mime_type: t.mime_type.clone(),
            })
            .collect()
    }

    fn read_resource(uri: String) -> Result<Vec<wit::EmbeddedResource>, wit::ToolError> {
        T::plugin()
            .read_resource(&uri)
            .map(|list| list.into_iter().map(Into::into).collect())
            .map_err(|e: ToolError| e.into())
    }
}

impl<T: PluginRoot> prompts::Guest for Export<T> {
    fn list_prompts() -> Vec<prompts::PromptInfo> {
        T::plugin()
            .prompts()
            .map(|p| prompts::PromptInfo {
                name: p.name.clone(),
                title: p.title.clone(),
                description: p.description.clone(),
                arguments: p
                    .arguments
                    .iter()
                    .map(|a| prompts::PromptArgument {
                        name: a.name.clone(),
                        description: a.description.clone(),
                        required: a.required,
                    })
                    .collect(),
            })
            .collect()
    }

    fn get_prompt(
        name: String,
        arguments: Vec<(String, String)>,
    ) -> Result<prompts::Prompt, wit::ToolError> {
        let args: PromptArgs = arguments.into_iter().collect();
        let filled = T::plugin()
            .get_prompt(&name, &args)
            .map_err(|e: ToolError| wit::ToolError::from(e))?;
        Ok(prompts::Prompt {
            description: filled.description,
            messages: filled
                .messages
                .into_iter()
                .map(|m| prompts::PromptMessage {
                    role: match m.role {
                        Role::User => prompts::Role::User,
                        Role::Assistant => prompts::Role::Assistant,
                    },
                    content: m.content.into(),
                })
                .collect(),
        })
    }
}

impl<T: PluginRoot> completions::Guest for Export<T> {
    fn complete(
        target: completions::CompletionRef,
        argument: String,
        value: String,
        context: Vec<(String, String)>,
    ) -> Result<completions::Completion, wit::ToolError> {
        let target = match target {
            completions::CompletionRef::Prompt(p) => CompletionRef::Prompt(p),
            completions::CompletionRef::ResourceTemplate(t) => CompletionRef::ResourceTemplate(t),
        };
        let context: PromptArgs = context.into_iter().collect();
        let done = T::plugin()
            .complete(&target, &argument, &value, &context)
            .map_err(|e: ToolError| wit::ToolError::from(e))?;
        Ok(completions::Completion {
            values: done.values,
            total: done.total,
            has_more: done.has_more,
        })
    }
}
