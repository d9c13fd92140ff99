//! [`Plugin`]: the tools and resources one plugin serves.

use std::collections::BTreeMap;
use std::fmt;

use crate::prompt::{Completion, CompletionRef, Prompt, PromptArgs, PromptResult};
use crate::{EmbeddedResource, Tool, ToolError, ToolOutput};

/// A static resource that clients can list and read, such as `sessions://list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// A short name.
    pub name: String,
    /// What the resource holds.
    pub description: Option<String>,
    /// Its media type.
    pub mime_type: Option<String>,
}

impl Resource {
    /// A resource at `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the media type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// A family of resources named by an RFC 6570 URI template, such as `sessions://{id}/info`.
///
/// The SDK matches URIs against simple templates: `{name}` matches a non-empty run of
/// characters without `/`, and `{+name}` a non-empty run that may contain `/`. The reader
/// gets the matched values by name (not percent-decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// A short name.
    pub name: String,
    /// What the resources hold.
    pub description: Option<String>,
    /// Their media type.
    pub mime_type: Option<String>,
}

impl ResourceTemplate {
    /// A template called `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the media type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// Values of a URI template's variables, by name.
pub type TemplateVars = BTreeMap<String, String>;

type ResourceReader = Box<dyn Fn(&str) -> Result<Vec<EmbeddedResource>, ToolError>>;
type PromptFiller = Box<dyn Fn(&PromptArgs) -> Result<PromptResult, ToolError>>;
type Completer =
    Box<dyn Fn(&CompletionRef, &str, &str, &PromptArgs) -> Result<Completion, ToolError>>;
type TemplateReader = Box<dyn Fn(&str, &TemplateVars) -> Result<Vec<EmbeddedResource>, ToolError>>;

/// Everything one plugin serves: its tools and, optionally, resources. Build it in the
/// closure given to [`export_plugin!`](crate::export_plugin); it is built once, on the
/// first call from the host.
#[derive(Default)]
pub struct Plugin {
    pub(crate) tools: Vec<Tool>,
    pub(crate) resources: Vec<(Resource, ResourceReader)>,
    pub(crate) templates: Vec<(ResourceTemplate, TemplateReader)>,
    pub(crate) prompts: Vec<(Prompt, PromptFiller)>,
    pub(crate) completer: Option<Completer>,
    pub(crate) groups: Vec<crate::Group>,
}

impl fmt::Debug for Plugin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plugin")
            .field("tools", &self.tools)
            .field(
                "resources",
                &self.resources.iter().map(|(r, _)| r).collect::<Vec<_>>(),
            )
            .field(
                "templates",
                &self.templates.iter().map(|(t, _)| t).collect::<Vec<_>>(),
            )
            .field(
                "prompts",
                &self.prompts.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Plugin {
    /// A plugin with no tools and no resources.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool.
    ///
    /// # Panics
    ///
    /// When a tool of the same name was already added.
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        assert!(
            self.tool_named(tool.name()).is_none(),
            "two tools are named `{}`",
            tool.name()
        );
        self.tools.push(tool);
        self
    }

    /// Adds a group of tools (added before or after it): the manifest lists a plugin's
    /// tools by group (`tools = { groups = [...] }`). A tool in no group is in `default`.
    /// A group given no tools takes every tool that no other group names.
    ///
    /// # Panics
    ///
    /// When a group of the same name was already added, or when two groups are given no
    /// tools (which of them would take the rest?).
    #[must_use]
    pub fn group(mut self, group: crate::Group) -> Self {
        assert!(
            !self.groups.iter().any(|g| g.name == group.name),
            "two groups are named `{}`",
            group.name
        );
        if group.tools.is_empty()
            && let Some(other) = self.groups.iter().find(|g| g.tools.is_empty())
        {
            panic!(
                "groups `{}` and `{}` are both given no tools, so both would take the tools no other group names: list the tools of one of them",
                other.name, group.name
            );
        }
        self.groups.push(group);
        self
    }

    /// The groups, in the order they were added, as declared (see
    /// [`group_tools`](Self::group_tools) for the tools of one).
    pub fn groups(&self) -> &[crate::Group] {
        &self.groups
    }

    /// The tools of `group`: the ones it names, or, for a group given none, every tool of
    /// the plugin that no other group names.
    pub fn group_tools(&self, group: &crate::Group) -> Vec<String> {
        if !group.tools.is_empty() {
            return group.tools.clone();
        }
        self.tools
            .iter()
            .map(|t| t.name().to_owned())
            .filter(|name| !self.groups.iter().any(|g| g.tools.contains(name)))
            .collect()
    }

    /// Adds a resource; `read` gets the URI and returns its contents.
    #[must_use]
    pub fn resource<F>(mut self, resource: Resource, read: F) -> Self
    where
        F: Fn(&str) -> Result<Vec<EmbeddedResource>, ToolError> + 'static,
    {
        self.resources.push((resource, Box::new(read)));
        self
    }

    /// Adds a resource template; `read` gets the URI and the values of the template's
    /// variables.
    #[must_use]
    pub fn resource_template<F>(mut self, template: ResourceTemplate, read: F) -> Self
    where
        F: Fn(&str, &TemplateVars) -> Result<Vec<EmbeddedResource>, ToolError> + 'static,
    {
        self.templates.push((template, Box::new(read)));
        self
    }

    /// Adds a prompt; `fill` gets the arguments (required ones checked present) and returns
    /// the messages.
    ///
    /// # Panics
    ///
    /// When a prompt of the same name was already added.
    #[must_use]
    pub fn prompt<F>(mut self, prompt: Prompt, fill: F) -> Self
    where
        F: Fn(&PromptArgs) -> Result<PromptResult, ToolError> + 'static,
    {
        assert!(
            self.prompts.iter().all(|(p, _)| p.name != prompt.name),
            "two prompts are named `{}`",
            prompt.name
        );
        self.prompts.push((prompt, Box::new(fill)));
        self
    }

    /// Sets what completes prompt arguments and template variables: it gets what is
    /// completed, the argument's name, the value typed so far and the arguments already
    /// chosen. Without it, every completion is empty.
    #[must_use]
    pub fn completion<F>(mut self, complete: F) -> Self
    where
        F: Fn(&CompletionRef, &str, &str, &PromptArgs) -> Result<Completion, ToolError> + 'static,
    {
        self.completer = Some(Box::new(complete));
        self
    }

    /// The prompts, in the order they were added.
    pub fn prompts(&self) -> impl Iterator<Item = &Prompt> {
        self.prompts.iter().map(|(p, _)| p)
    }

    /// Fills prompt `name` with `args`, exactly as the host's `get-prompt` does.
    pub fn get_prompt(&self, name: &str, args: &PromptArgs) -> Result<PromptResult, ToolError> {
        let (prompt, fill) = self
            .prompts
            .iter()
            .find(|(p, _)| p.name == name)
            .ok_or_else(|| ToolError::not_found(format!("this plugin has no prompt `{name}`")))?;
        prompt.check(args)?;
        fill(args)
    }

    /// Completes `argument` of `target` from `value`, as the host's `complete` does.
    pub fn complete(
        &self,
        target: &CompletionRef,
        argument: &str,
        value: &str,
        context: &PromptArgs,
    ) -> Result<Completion, ToolError> {
        let Some(complete) = &self.completer else {
            return Ok(Completion::default());
        };
        let mut completion = complete(target, argument, value, context)?;
        if completion.values.len() > Completion::MAX_VALUES {
            completion.values.truncate(Completion::MAX_VALUES);
            completion.has_more = true;
        }
        Ok(completion)
    }

    /// The tools, in the order they were added.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool called `name`.
    pub fn tool_named(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Runs tool `name` on `arguments` (JSON text), exactly as the host's `call-tool` does;
    /// handy in native unit tests of a plugin.
    pub fn call(&self, name: &str, arguments: &str) -> Result<ToolOutput, ToolError> {
        let tool = self
            .tool_named(name)
            .ok_or_else(|| ToolError::not_found(format!("this plugin has no tool `{name}`")))?;
        let arguments: serde_json::Value = if arguments.trim().is_empty() {
            serde_json::Value::Object(serde_json::Map::new())
        } else {
            serde_json::from_str(arguments).map_err(|e| {
                ToolError::invalid_arguments(format!("the arguments are not valid JSON: {e}"))
            })?
        };
        tool.call(arguments)
    }

    /// Reads the resource at `uri`: a static resource with that exact URI, else the first
    /// template that matches.
    pub fn read_resource(&self, uri: &str) -> Result<Vec<EmbeddedResource>, ToolError> {
        if let Some((_, read)) = self.resources.iter().find(|(r, _)| r.uri == uri) {
            return read(uri);
        }
        for (template, read) in &self.templates {
            if let Some(vars) = match_template(&template.uri_template, uri) {
                return read(uri, &vars);
            }
        }
        Err(ToolError::not_found(format!(
            "this plugin has no resource `{uri}`"
        )))
    }
}

/// Matches `uri` against a template made of literals, `{name}` and `{+name}`.
fn match_template(template: &str, uri: &str) -> Option<TemplateVars> {
    let mut vars = TemplateVars::new();
    match_from(template, uri, &mut vars).then_some(vars)
}

fn match_from(template: &str, uri: &str, vars: &mut TemplateVars) -> bool {
    let Some(open) = template.find('{') else {
        return template == uri;
    };
    let (literal, rest) = template.split_at(open);
    let Some(uri) = uri.strip_prefix(literal) else {
        return false;
    };
    let Some(close) = rest.find('}') else {
        return false;
    };
    let (name, reserved) = match rest[1..close].strip_prefix('+') {
        Some(name) => (name, true),
        None => (&rest[1..close], false),
    };
    let rest = &rest[close + 1..];
    // Values are non-empty; try the shortest first.
    let ends = uri
        .char_indices()
        .map(|(i, _)| i)
        .skip(1)
        .chain([uri.len()]);
    for end in ends.filter(|&end| end > 0) {
        let value = &uri[..end];
        if !reserved && value.contains('/') {
            break;
        }
        if match_from(rest, &uri[end..], vars) {
            vars.insert(name.to_owned(), value.to_owned());
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Capability, Group, NoArgs};

    fn tool(name: &str) -> Tool {
        Tool::new(name, |_: NoArgs| Ok(""))
    }

    #[test]
    fn a_group_given_no_tools_takes_the_rest() {
        let plugin = Plugin::new()
            .group(Group::new("all", "the rest").needs([Capability::Sftp]))
            .tool(tool("a"))
            .group(Group::new("pick", "one").tools(["b"]))
            .tool(tool("b"))
            .tool(tool("c"));
        let [all, pick] = plugin.groups() else {
            panic!("two groups")
        };
        assert_eq!(plugin.group_tools(all), ["a", "c"]);
        assert_eq!(plugin.group_tools(pick), ["b"]);
    }

    #[test]
    fn a_tool_named_twice_is_one_tool_of_the_group() {
        let plugin = Plugin::new()
            .group(Group::new("pick", "one").tools(["a", "a"]).tools(["a"]))
            .tool(tool("a"));
        let [pick] = plugin.groups() else {
            panic!("one group")
        };
        assert_eq!(plugin.group_tools(pick), ["a"]);
    }

    #[test]
    #[should_panic(expected = "groups `a` and `b` are both given no tools")]
    fn two_groups_cannot_both_take_the_rest() {
        let _ = Plugin::new()
            .group(Group::new("a", "x"))
            .group(Group::new("b", "y"));
    }

    #[test]
    fn templates() {
        let m = |t, u| match_template(t, u);
        let vars = m("sessions://{id}/info", "sessions://abc/info").expect("match");
        assert_eq!(vars["id"], "abc");
        assert!(m("sessions://{id}/info", "sessions:///info").is_none());
        assert!(m("sessions://{id}/info", "sessions://a/b/info").is_none());
        let vars = m("file://{+path}", "file:///etc/hosts").expect("match");
        assert_eq!(vars["path"], "/etc/hosts");
        let vars = m("x://{a}-{b}", "x://1-2-3").expect("match");
        assert_eq!((vars["a"].as_str(), vars["b"].as_str()), ("1", "2-3"));
        assert!(m("x://fixed", "x://fixed").is_some());
        assert!(m("x://fixed", "x://fixed2").is_none());
    }
}
