//! The three kinds of component behind `WasmPlugin::enter`: one that exports the
//! `warden:plugin/plugin` world (called through its generated bindings), one that exports
//! plain functions (`exports/`, called through wasmtime's dynamic interface), and an MCP
//! server compiled to a component (`mcp_server/`, spoken to as an MCP client). All are made,
//! limited, timed, cancelled and audited the same way; only the last step, the call into
//! the instance, differs.

use super::bindings::{Plugin as PluginWorld, PluginIndices, ToolError};
use super::entry::{Entry, Exit, Listing};
use super::exports::PlainExports;
use super::group_bindings::{ToolGroups, ToolGroupsIndices};
use super::mcp_server::{GuestStdio, McpBound, McpPre, StdioWire};
use super::store_data::PluginState;
use std::sync::Arc;
use wasmtime::Store;
use wasmtime::component::{Component, Instance, InstancePre};

/// A plugin's component, linked and ready to instantiate.
pub enum Pre {
    /// The world, and its optional `warden:plugin/groups` export.
    World(
        InstancePre<PluginState>,
        PluginIndices,
        Option<ToolGroupsIndices>,
    ),
    Exports(InstancePre<PluginState>, Arc<PlainExports>),
    Mcp(InstancePre<PluginState>, McpPre),
}

/// One instance of any kind.
pub enum Bound {
    World(PluginWorld, Option<ToolGroups>),
    Exports(Instance, Arc<PlainExports>),
    Mcp(McpBound),
}

impl Pre {
    /// The kind of `component`: the world if it exports it; else an MCP server on
    /// `wasi:http/incoming-handler`; else its plain functions; else an MCP server on
    /// `wasi:cli/run` (a command that exports functions too is taken for its functions). A
    /// component that exports none of these is refused with what to export. `output_limit`
    /// (`limits.output`) bounds what an MCP server may write.
    pub fn new(
        pre: InstancePre<PluginState>,
        component: &Component,
        engine: &wasmtime::Engine,
        bytes: &[u8],
        output_limit: u64,
    ) -> Result<Self, String> {
        let world_error = match PluginIndices::new(&pre) {
            Ok(world) => {
                // Optional: a component of the `plugin` world alone has one group.
                let groups = ToolGroupsIndices::new(&pre).ok();
                return Ok(Self::World(pre, world, groups));
            }
            Err(e) => e,
        };
        let exports_world = component
            .component_type()
            .exports(engine)
            .any(|(name, _)| name.starts_with("warden:plugin/"));
        if exports_world {
            return Err(format!(
                "does not export the warden:plugin/plugin world: {world_error}"
            ));
        }
        if let Some(server) = McpPre::http(&pre, output_limit) {
            return Ok(Self::Mcp(pre, server));
        }
        let plain = PlainExports::discover(component, engine, bytes).map_err(|e| e.to_string())?;
        if !plain.is_empty() {
            return Ok(Self::Exports(pre, Arc::new(plain)));
        }
        if let Some(server) = McpPre::stdio(&pre, output_limit) {
            return Ok(Self::Mcp(pre, server));
        }
        if super::mcp_server::exports_either(component, engine) {
            return Err("exports wasi:http/incoming-handler or wasi:cli/run of a WASI version this host does not link: build the MCP server against WASI 0.2".into());
        }
        Err("exports no tools: export the warden:plugin/plugin world (warden-sdk, or `warden plugin new`, does that), plain functions, as `export fetch: func(url: string) -> result<string, string>;` in its world or in an exported interface, or serve MCP (an MCP server built as a component, on wasi:http/incoming-handler or wasi:cli/run)".into())
    }

    /// What kind of component it is, for the log and `warden check`; `None` for the world.
    pub fn served_as(&self) -> Option<&'static str> {
        match self {
            Self::World(..) => None,
            Self::Exports(..) => Some("plain exported functions, one tool each"),
            Self::Mcp(_, server) => Some(server.describe()),
        }
    }

    /// For a stdio MCP server, the pipes of its next instance.
    pub fn pipes(&self) -> Option<(GuestStdio, StdioWire)> {
        match self {
            Self::Mcp(_, server) => server.pipes(),
            _ => None,
        }
    }

    /// For a component of plain exported functions: each tool's name and the function it
    /// calls; `None` for the world.
    pub fn plain_functions(&self) -> Option<Vec<(String, String)>> {
        match self {
            Self::World(..) | Self::Mcp(..) => None,
            Self::Exports(_, plain) => Some(plain.signatures()),
        }
    }

    /// A new instance in `store`; `pipes`, the host's ends of a stdio server's stdin and
    /// stdout, whose guest ends are in the store's WASI context ([`Self::pipes`]).
    pub async fn instantiate(
        &self,
        store: &mut Store<PluginState>,
        pipes: Option<StdioWire>,
    ) -> wasmtime::Result<Bound> {
        Ok(match self {
            Self::World(pre, world, groups) => {
                let instance = pre.instantiate_async(&mut *store).await?;
                let groups = match groups {
                    Some(g) => Some(g.load(&mut *store, &instance)?),
                    None => None,
                };
                Bound::World(world.load(&mut *store, &instance)?, groups)
            }
            Self::Exports(pre, plain) => {
                Bound::Exports(pre.instantiate_async(store).await?, plain.clone())
            }
            Self::Mcp(pre, server) => Bound::Mcp(server.instantiate(pre, store, pipes).await?),
        })
    }
}

impl Bound {
    /// Whether the instance may serve its conversation's next call. An MCP server's may not:
    /// its call began with `initialize`, and a stdio server's `run` was left where the answer
    /// came.
    pub fn reusable(&self) -> bool {
        !matches!(self, Self::Mcp(_))
    }

    /// Run `entry` in this instance. The outer error is a trap.
    pub async fn call(
        &mut self,
        store: &mut Store<PluginState>,
        entry: Entry<'_>,
    ) -> wasmtime::Result<Result<Exit, ToolError>> {
        match self {
            Self::World(world, groups) => call_world(world, groups.as_ref(), store, entry).await,
            Self::Mcp(server) => Ok(server
                .call(store, entry)
                .await?
                .map_err(|e| with_hints(e, store.data()))),
            Self::Exports(instance, plain) => match entry {
                Entry::Tool { name, arguments } => Ok(plain
                    .call(instance, &mut *store, name, arguments)
                    .await?
                    .map(Exit::Tool)
                    .map_err(|e| with_hints(e, store.data()))),
                // Plain functions are tools only: they list no resources or prompts, so
                // the registry routes none of these here.
                Entry::ReadResource { .. } | Entry::GetPrompt { .. } | Entry::Complete { .. } => {
                    Ok(Err(ToolError::NotFound(
                        "this plugin serves tools only (plain exported functions)".into(),
                    )))
                }
                Entry::Describe => Ok(Ok(Exit::Listing(Box::new(Listing {
                    tools: plain.tools(),
                    resources: Vec::new(),
                    templates: Vec::new(),
                    prompts: Vec::new(),
                    groups: Vec::new(),
                })))),
            },
        }
    }
}

async fn call_world(
    world: &PluginWorld,
    groups: Option<&ToolGroups>,
    store: &mut Store<PluginState>,
    entry: Entry<'_>,
) -> wasmtime::Result<Result<Exit, ToolError>> {
    match entry {
        Entry::Tool { name, arguments } => world
            .warden_plugin_tools()
            .call_call_tool(store, name, arguments)
            .await
            .map(|r| r.map(Exit::Tool)),
        Entry::ReadResource { uri } => world
            .warden_plugin_resources()
            .call_read_resource(store, uri)
            .await
            .map(|r| r.map(Exit::Resource)),
        Entry::GetPrompt { name, arguments } => world
            .warden_plugin_prompts()
            .call_get_prompt(store, name, arguments)
            .await
            .map(|r| r.map(Exit::Prompt)),
        Entry::Complete {
            target,
            argument,
            value,
            context,
        } => world
            .warden_plugin_completions()
            .call_complete(store, target, argument, value, context)
            .await
            .map(|r| r.map(Exit::Completion)),
        Entry::Describe => describe_world(world, groups, store).await.map(Ok),
    }
}

async fn describe_world(
    world: &PluginWorld,
    groups: Option<&ToolGroups>,
    store: &mut Store<PluginState>,
) -> wasmtime::Result<Exit> {
    let tools = world
        .warden_plugin_tools()
        .call_list_tools(&mut *store)
        .await?;
    let resources = world
        .warden_plugin_resources()
        .call_list_resources(&mut *store)
        .await?;
    let templates = world
        .warden_plugin_resources()
        .call_list_templates(&mut *store)
        .await?;
    let prompts = world
        .warden_plugin_prompts()
        .call_list_prompts(&mut *store)
        .await?;
    let groups = match groups {
        Some(g) => g.warden_plugin_groups().call_groups(&mut *store).await?,
        None => Vec::new(),
    };
    Ok(Exit::Listing(Box::new(Listing {
        tools,
        resources,
        templates,
        prompts,
        groups,
    })))
}

/// A failed call of a component written for another host, told (and audited) which grant
/// it may have lacked. Such a component reports a refusal in its own words (`HttpRequestDenied`,
/// `permission denied`), so the host adds its own: the first refusal of the call (already
/// audited, naming the grant to add), or, when the guest looked for directories or
/// environment variables and was given none (a lookup the host cannot refuse, so nothing
/// was audited yet), what to grant.
fn with_hints(error: ToolError, state: &PluginState) -> ToolError {
    // Arguments refused by the host never reached the guest.
    if matches!(error, ToolError::InvalidArguments(_)) {
        return error;
    }
    let mut hints: Vec<String> = Vec::new();
    if let Some((capability, reason)) = state.scope.first_denial() {
        hints.push(format!("the host refused its {capability} use: {reason}"));
    }
    let mut unaudited = Vec::new();
    if let Some(hint) = state.files.hint() {
        unaudited.push(("wasi:filesystem", "granted directories", hint));
    }
    if state.env_without_grant {
        unaudited.push(("wasi:cli/environment", "environment", "the plugin read its environment and no variable is granted: if it needs one, add grants.env = { vars = { NAME = \"value\" } } (or from_host = [\"NAME\"]) to its [[plugin]] in the manifest"));
    }
    for (capability, target, hint) in unaudited {
        state.scope.denied(capability, target, hint);
        hints.push(hint.to_string());
    }
    if hints.is_empty() {
        return error;
    }
    let add = |mut m: String| {
        for hint in &hints {
            m.push_str("; ");
            m.push_str(hint);
        }
        m
    };
    match error {
        ToolError::InvalidArguments(m) => ToolError::InvalidArguments(add(m)),
        ToolError::AccessDenied(m) => ToolError::AccessDenied(add(m)),
        ToolError::NotFound(m) => ToolError::NotFound(add(m)),
        ToolError::Timeout(m) => ToolError::Timeout(add(m)),
        ToolError::Failed(m) => ToolError::Failed(add(m)),
    }
}
