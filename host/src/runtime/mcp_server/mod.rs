//! The third kind of component (`kinds.rs`): an MCP server compiled to a component, as
//! wasmcp composes them or any MCP server built for `wasm32-wasip2` is. The host speaks MCP
//! to it in-process, as a client: over `wasi:http/incoming-handler` (an HTTP request per
//! message, streamable HTTP) or over `wasi:cli/run` (its stdin and stdout). Every call runs
//! in an instance of its own, which begins with `initialize`, as every plugin's call runs;
//! so the server's imports pass the same grants, limits and audit as any plugin's, and what
//! it writes is bounded before it is held.
//!
//! | file | job |
//! |------|-----|
//! | `session.rs` | the MCP conversation: `initialize`, requests matched to answers, notifications |
//! | `convert.rs` | the server's answers as the `warden:plugin` types |
//! | `wire.rs` | the two transports behind one interface |
//! | `intake.rs` | what a server writes, counted against its bounds and read as JSON-RPC messages |
//! | `http_wire.rs` | messages as incoming HTTP requests |
//! | `stdio_wire.rs` | messages as lines on stdin and stdout |
//! | `frames.rs` | lines and server-sent events, bounded |
//! | `fault.rs` | what can go wrong, as the agent reads it |

mod convert;
mod fault;
pub mod frames;
mod http_wire;
mod intake;
mod session;
mod stdio_wire;
mod wire;

use super::bindings::ToolError;
use super::entry::{Entry, Exit};
use super::store_data::PluginState;
use crate::runtime::budget::EventBudget;
use intake::{Bounds, Tally};
pub use stdio_wire::{GuestStdio, StdioWire};
use wasmtime::Store;
use wasmtime::component::{Component, InstancePre};
use wasmtime_wasi::p2::bindings::{Command, CommandIndices};
use wasmtime_wasi_http::p2::bindings::{Proxy, ProxyIndices};
use wire::Wire;

/// How long a stdio server gets, once its `run` returned, to have its last answer read.
const LAST_WORDS: std::time::Duration = std::time::Duration::from_millis(200);

/// An MCP server component, linked.
pub struct McpPre {
    transport: Transport,
    bounds: Bounds,
}

enum Transport {
    Http(ProxyIndices),
    Stdio(CommandIndices),
}

/// One instance of an MCP server component.
pub enum McpBound {
    Http(Proxy, Bounds),
    /// The command, and the host's ends of its pipes (taken by the call).
    Stdio(Command, Option<StdioWire>),
}

impl McpPre {
    /// The component as an HTTP MCP server, if it exports `wasi:http/incoming-handler`.
    pub fn http(pre: &InstancePre<PluginState>, output_limit: u64) -> Option<Self> {
        let indices = ProxyIndices::new(pre).ok()?;
        Some(Self {
            transport: Transport::Http(indices),
            bounds: Bounds::from_output_limit(output_limit),
        })
    }

    /// The component as a stdio MCP server, if it exports `wasi:cli/run`.
    pub fn stdio(pre: &InstancePre<PluginState>, output_limit: u64) -> Option<Self> {
        let indices = CommandIndices::new(pre).ok()?;
        Some(Self {
            transport: Transport::Stdio(indices),
            bounds: Bounds::from_output_limit(output_limit),
        })
    }

    /// How the host talks to it, for the log and `warden check`.
    pub fn describe(&self) -> &'static str {
        match self.transport {
            Transport::Http(_) => {
                "an MCP server component over wasi:http/incoming-handler (streamable HTTP, in-process)"
            }
            Transport::Stdio(_) => "an MCP server component over wasi:cli/run (stdio, in-process)",
        }
    }

    /// For a stdio server, the pipes of a new instance: the guest's ends go into its WASI
    /// context, the host's into [`Self::instantiate`].
    pub fn pipes(&self) -> Option<(GuestStdio, StdioWire)> {
        matches!(self.transport, Transport::Stdio(_)).then(|| stdio_wire::pipes(self.bounds))
    }

    pub async fn instantiate(
        &self,
        pre: &InstancePre<PluginState>,
        store: &mut Store<PluginState>,
        pipes: Option<StdioWire>,
    ) -> wasmtime::Result<McpBound> {
        let instance = pre.instantiate_async(&mut *store).await?;
        Ok(match &self.transport {
            Transport::Http(indices) => {
                McpBound::Http(indices.load(&mut *store, &instance)?, self.bounds)
            }
            Transport::Stdio(indices) => {
                McpBound::Stdio(indices.load(&mut *store, &instance)?, pipes)
            }
        })
    }
}

/// Whether `component` exports either way in, for the message to a component that exports nothing usable.
pub fn exports_either(component: &Component, engine: &wasmtime::Engine) -> bool {
    component.component_type().exports(engine).any(|(name, _)| {
        name.starts_with("wasi:http/incoming-handler@") || name.starts_with("wasi:cli/run@")
    })
}

impl McpBound {
    /// Serve `entry` by a conversation with the server. The outer error is a trap.
    pub async fn call(
        &mut self,
        store: &mut Store<PluginState>,
        entry: Entry<'_>,
    ) -> wasmtime::Result<Result<Exit, ToolError>> {
        let notes = session::Notes {
            plugin: store.data().plugin().to_string(),
            events: store.data().call.events.clone(),
            budget: EventBudget::default(),
        };
        let outcome = match self {
            Self::Http(proxy, bounds) => {
                let wire = Wire::Http(http_wire::HttpWire::new(proxy, store, Tally::new(*bounds)));
                converse(wire, notes, entry).await
            }
            Self::Stdio(command, pipes) => {
                let Some(pipes) = pipes.as_mut() else {
                    return Ok(Err(ToolError::Failed(
                        "this instance of the MCP server was used already".into(),
                    )));
                };
                let talk = converse(Wire::Stdio(pipes), notes, entry);
                let run = command.wasi_cli_run().call_run(&mut *store);
                tokio::pin!(talk, run);
                tokio::select! {
                    outcome = &mut talk => outcome,
                    ran = &mut run => {
                        let failed = ran?.is_err();
                        // It may have answered before it returned: what it wrote is still
                        // in the pipe.
                        match tokio::time::timeout(LAST_WORDS, &mut talk).await {
                            Ok(outcome) => outcome,
                            Err(_) => Err(fault::Fault::Exited {
                                method: entry.label(),
                                detail: if failed {
                                    " (its run returned an error; its stderr is in the host log)".into()
                                } else {
                                    " (its run returned)".into()
                                },
                            }),
                        }
                    }
                }
            }
        };
        match outcome {
            Ok(result) => Ok(result),
            Err(fault) => fault.into_tool_error().map(Err),
        }
    }
}

async fn converse(
    wire: Wire<'_>,
    notes: session::Notes,
    entry: Entry<'_>,
) -> Result<Result<Exit, ToolError>, fault::Fault> {
    let mut session = session::Session::open(wire, notes).await?;
    session.serve(entry).await
}

/// What a conversation makes of a server's `output` (all it writes, as a stdio server would),
/// for `entry`, with `limits.output` of `output_limit`: the exit, the tool error, or the
/// fault. No instance runs; this is what the fuzz target drives (`fuzz/src/targets/mcp_server.rs`).
pub async fn replay(
    output: Vec<u8>,
    entry: Entry<'_>,
    output_limit: u64,
) -> Result<Result<Exit, ToolError>, String> {
    let mut wire = stdio_wire::scripted(output, Bounds::from_output_limit(output_limit));
    let notes = session::Notes {
        plugin: "replay".into(),
        events: None,
        budget: EventBudget::default(),
    };
    converse(Wire::Stdio(&mut wire), notes, entry)
        .await
        .map_err(|fault| fault.to_string())
}
