//! One MCP conversation with a server component, as a client: `initialize`, then the
//! requests one way into the plugin needs ([`Entry`]), each answer matched to its request by
//! id. What the server sends besides its answers is handled here too: its log messages and
//! progress pass on to the caller under the call's budgets (`notify.rs`), and its own
//! requests (sampling, elicitation, roots) are answered with an error, since the host does
//! not forward them.

use super::convert;
use super::fault::Fault;
use super::wire::Wire;
use crate::runtime::bindings::{CompletionRef, ToolError};
use crate::runtime::budget::EventBudget;
use crate::runtime::call::{CallEvents, LogLevel};
use crate::runtime::entry::{Entry, Exit, Listing};
use serde_json::{Value, json};
use std::sync::Arc;

/// The MCP revision asked for; a server answers with the one it speaks, which is used from then on.
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// Pages of one list (`tools/list`, ...) read at most: a server whose cursors never end
/// must not keep the load going.
const MAX_PAGES: usize = 64;

/// Where the server's notifications go.
pub struct Notes {
    pub plugin: String,
    pub events: Option<Arc<dyn CallEvents>>,
    pub budget: EventBudget,
}

pub struct Session<'w> {
    wire: Wire<'w>,
    next_id: u64,
    /// `capabilities` of the server's answer to `initialize`.
    capabilities: Value,
    notes: Notes,
}

impl<'w> Session<'w> {
    /// `initialize` and `notifications/initialized`.
    pub async fn open(wire: Wire<'w>, notes: Notes) -> Result<Self, Fault> {
        let mut session = Self {
            wire,
            next_id: 1,
            capabilities: Value::Null,
            notes,
        };
        let answer = session
            .request(
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "warden", "version": env!("CARGO_PKG_VERSION")},
                }),
            )
            .await?;
        let shape = |why: &str| Fault::Shape {
            method: "initialize".into(),
            why: why.into(),
        };
        let version = answer
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| shape("no protocolVersion"))?;
        session.wire.speaks(version);
        session.capabilities = answer
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
            .ok_or_else(|| shape("no capabilities object"))?;
        session
            .wire
            .send(
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                "notifications/initialized",
            )
            .await?;
        Ok(session)
    }

    fn declares(&self, capability: &str) -> bool {
        self.capabilities
            .get(capability)
            .is_some_and(Value::is_object)
    }

    /// Send a request and wait for its answer's `result`.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Fault> {
        let id = self.next_id;
        self.next_id += 1;
        self.wire
            .send(
                &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
                method,
            )
            .await?;
        loop {
            let message = self.wire.recv(method).await?;
            if message.get("method").is_some() {
                self.take_unasked(message, method).await?;
                continue;
            }
            if message.get("id").and_then(Value::as_u64) != Some(id) {
                // An answer to a request of an earlier call, or to none: not this one's.
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(Fault::Rpc {
                    method: method.to_string(),
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("(no message)")
                        .to_string(),
                });
            }
            return message.get("result").cloned().ok_or_else(|| Fault::Shape {
                method: method.to_string(),
                why: "its answer has neither result nor error".into(),
            });
        }
    }

    /// A notification or request the server sent while `method` waits for its answer.
    async fn take_unasked(&mut self, message: Value, method: &str) -> Result<(), Fault> {
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let notes = &mut self.notes;
        match (message.get("id"), message["method"].as_str()) {
            (None, Some("notifications/message")) => {
                let level = match params.get("level").and_then(Value::as_str) {
                    Some("debug") => LogLevel::Debug,
                    Some("info" | "notice") => LogLevel::Info,
                    Some("warning") => LogLevel::Warning,
                    _ => LogLevel::Error,
                };
                let text = match params.get("data") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                crate::runtime::notify::log(
                    &mut notes.budget,
                    notes.events.as_ref(),
                    &notes.plugin,
                    level,
                    text,
                )
                .await;
            }
            (None, Some("notifications/progress")) => {
                if let Some(done) = params.get("progress").and_then(Value::as_f64) {
                    let total = params.get("total").and_then(Value::as_f64);
                    let said = params
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    crate::runtime::notify::progress(
                        &mut notes.budget,
                        notes.events.as_ref(),
                        &notes.plugin,
                        (done, total),
                        said,
                    )
                    .await;
                }
            }
            (None, _) => {}
            (Some(id), asked) => {
                let asked = asked.unwrap_or("(no method)").to_string();
                let refusal = json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {
                        "code": -32601,
                        "message": format!("{asked}: Warden does not pass a server component's requests on to its client"),
                    },
                });
                tracing::debug!(plugin = %notes.plugin, "the MCP server asked {asked} while {method} waited; refused");
                self.wire.send(&refusal, method).await?;
            }
        }
        Ok(())
    }

    /// Every item of a paginated list.
    async fn list(&mut self, method: &str, key: &str) -> Result<Vec<Value>, Fault> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = self.request(method, params).await?;
            let (page, next) = convert::page(&result, key).map_err(|why| Fault::Shape {
                method: method.to_string(),
                why,
            })?;
            items.extend(page.iter().cloned());
            match next {
                Some(next) if Some(&next) != cursor.as_ref() => cursor = Some(next),
                _ => return Ok(items),
            }
        }
        Err(Fault::Shape {
            method: method.to_string(),
            why: format!("its list goes on past {MAX_PAGES} pages"),
        })
    }

    async fn describe(&mut self) -> Result<Listing, Fault> {
        fn each<T>(
            items: Vec<Value>,
            method: &str,
            convert: fn(&Value) -> Result<T, String>,
        ) -> Result<Vec<T>, Fault> {
            items
                .iter()
                .map(convert)
                .collect::<Result<_, _>>()
                .map_err(|why| Fault::Shape {
                    method: method.to_string(),
                    why,
                })
        }
        let mut listing = Listing {
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            groups: Vec::new(),
        };
        if self.declares("tools") {
            let items = self.list("tools/list", "tools").await?;
            listing.tools = each(items, "tools/list", convert::tool_info)?;
        }
        if self.declares("prompts") {
            let items = self.list("prompts/list", "prompts").await?;
            listing.prompts = each(items, "prompts/list", convert::prompt_info)?;
        }
        if self.declares("resources") {
            let items = self.list("resources/list", "resources").await?;
            listing.resources = each(items, "resources/list", convert::resource_info)?;
            let items = self
                .list("resources/templates/list", "resourceTemplates")
                .await?;
            listing.templates = each(
                items,
                "resources/templates/list",
                convert::resource_template,
            )?;
        }
        Ok(listing)
    }

    /// The answer to `method` converted by `convert`.
    async fn ask<T>(
        &mut self,
        method: &str,
        params: Value,
        convert: fn(&Value) -> Result<T, String>,
    ) -> Result<T, Fault> {
        let result = self.request(method, params).await?;
        convert(&result).map_err(|why| Fault::Shape {
            method: method.to_string(),
            why,
        })
    }

    /// Serve one way into the plugin.
    pub async fn serve(&mut self, entry: Entry<'_>) -> Result<Result<Exit, ToolError>, Fault> {
        let pairs = |pairs: &[(String, String)]| -> Value {
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        Ok(Ok(match entry {
            Entry::Describe => Exit::Listing(Box::new(self.describe().await?)),
            Entry::Tool { name, arguments } => {
                let arguments: Value = match serde_json::from_str(arguments) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => {
                        return Ok(Err(ToolError::InvalidArguments(
                            "the arguments must be a JSON object".into(),
                        )));
                    }
                };
                // A token, so that a server that reports progress only when asked does; the
                // host passes progress on to the caller when the caller asked for it.
                let params = json!({
                    "name": name,
                    "arguments": arguments,
                    "_meta": {"progressToken": "warden"},
                });
                match self.ask("tools/call", params, convert::tool_result).await? {
                    Ok(output) => Exit::Tool(output),
                    Err(error) => return Ok(Err(error)),
                }
            }
            Entry::ReadResource { uri } => {
                if !self.declares("resources") {
                    return Err(Fault::Undeclared("resources"));
                }
                let params = json!({"uri": uri});
                Exit::Resource(
                    self.ask("resources/read", params, convert::contents)
                        .await?,
                )
            }
            Entry::GetPrompt { name, arguments } => {
                if !self.declares("prompts") {
                    return Err(Fault::Undeclared("prompts"));
                }
                let params = json!({"name": name, "arguments": pairs(arguments)});
                Exit::Prompt(self.ask("prompts/get", params, convert::prompt).await?)
            }
            Entry::Complete {
                target,
                argument,
                value,
                context,
            } => {
                if !self.declares("completions") {
                    return Err(Fault::Undeclared("completions"));
                }
                let reference = match target {
                    CompletionRef::Prompt(name) => json!({"type": "ref/prompt", "name": name}),
                    CompletionRef::ResourceTemplate(uri) => {
                        json!({"type": "ref/resource", "uri": uri})
                    }
                };
                let params = json!({
                    "ref": reference,
                    "argument": {"name": argument, "value": value},
                    "context": {"arguments": pairs(context)},
                });
                Exit::Completion(
                    self.ask("completion/complete", params, convert::completion)
                        .await?,
                )
            }
        }))
    }
}
