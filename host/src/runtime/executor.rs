//! The guarded executor: every client request that enters a plugin (`tools/call`,
//! `resources/read`, `prompts/get`, `completion/complete`) comes through here and gets the same treatment: routed to the one plugin
//! that owns the name or URI, run by [`WasmPlugin::enter`] (an instance of its own per call, serving one conversation only, up to
//! `limits.concurrency` at once, time limit, cancellation), its output held to `limits.output`, and one audit
//! line written before the answer goes back to any transport.

use super::approval::{self, Approval, ApprovalRequest};
use super::bindings::{
    Completion, CompletionRef, ContentBlock, EmbeddedResource, Prompt, ResourceBody, ToolOutput,
};
use super::call::CallContext;
use super::entry::{Entry, Exit};
use super::native;
use super::plugin::CallFailure;
use super::registry::{Backend, LoadedPlugin, Registry};
use crate::audit::{self, Outcome, Record};
use std::sync::Arc;
use std::time::Instant;

/// The result of one routed tool call.
pub struct CallReport {
    pub plugin: String,
    pub result: Result<ToolOutput, CallFailure>,
}

/// The result of one routed resource read.
pub struct ReadReport {
    pub plugin: String,
    pub result: Result<Vec<EmbeddedResource>, CallFailure>,
}

/// The result of one routed `prompts/get`.
pub struct PromptReport {
    pub plugin: String,
    pub result: Result<Prompt, CallFailure>,
}

/// The result of one routed `completion/complete`.
pub struct CompletionReport {
    pub plugin: String,
    pub result: Result<Completion, CallFailure>,
}

/// What a completion is asked for, as the client names it.
#[derive(Debug, Clone, Copy)]
pub enum CompletionTarget<'a> {
    /// A prompt, by its public name.
    Prompt(&'a str),
    /// A resource template, by its URI template.
    ResourceTemplate(&'a str),
}

/// The most values a completion carries (MCP).
const MAX_COMPLETIONS: usize = 100;

/// What the audit line of an entry says.
struct Audited<'a> {
    event: &'static str,
    /// The public tool name, or `resources/read`.
    tool: &'a str,
    /// What the digest covers: the arguments, or the URI.
    input: &'a str,
    target: Option<&'a str>,
}

/// Who a person is asked to approve a call for, as the approval's audit line names them.
struct Caller {
    client: Option<Arc<str>>,
    session: Option<Arc<str>>,
    role: Option<String>,
}

impl Registry {
    /// Run tool `name` (public name). `None` when no plugin serves it.
    pub async fn call(&self, name: &str, arguments: &str, call: CallContext) -> Option<CallReport> {
        if let Some((plugin, refusal)) = self.tool_refused(name, &call.access) {
            let audited = Audited {
                event: "tool_call",
                tool: name,
                input: arguments,
                target: None,
            };
            let result = Err(self.refuse_role(&plugin, &audited, refusal, &call));
            return Some(CallReport { plugin, result });
        }
        if let Some((plugin, refused)) = self.not_served(name, call.groups.as_ref()) {
            // Refused before any instance runs, with its own audit line.
            let reason = refused.message(plugin);
            self.services().audit.write(&Record {
                ts: audit::now(),
                event: "tool_call",
                plugin,
                tool: name,
                args_sha256: Some(audit::digest(arguments.as_bytes())),
                args_bytes: Some(arguments.len()),
                duration_ms: Some(0),
                decision: "denied",
                outcome: refused.outcome(),
                reason: Some(&reason),
                client: call.client.as_deref(),
                session: call.session.as_deref(),
                role: call.access.role(),
                ..Record::default()
            });
            return Some(CallReport {
                plugin: plugin.to_string(),
                result: Err(refused),
            });
        }
        let (plugin, local) = self.route(name)?;
        let limit = plugin.config.limits.output;
        let audited = Audited {
            event: "tool_call",
            tool: name,
            input: arguments,
            target: None,
        };
        // The plugin's rule, else the caller's role's: the refusal names the one that asked.
        let asked_by = if plugin.config.require_approval.is_match(local) {
            Some(format!("require_approval of plugin '{}'", plugin.name()))
        } else if call.access.needs_approval(name) {
            Some(format!(
                "require_approval of role '{}'",
                call.access.role().unwrap_or_default()
            ))
        } else {
            None
        };
        let approval = asked_by.map(|rule| {
            (
                call.client_requests.clone(),
                Caller {
                    client: call.client.clone(),
                    session: call.session.clone(),
                    role: call.access.role().map(str::to_string),
                },
                rule,
            )
        });
        let result = self
            .execute(plugin, &audited, call, |backend, call| async move {
                if let Some((asker, caller, asked_by)) = approval {
                    let request = ApprovalRequest {
                        plugin: plugin.name().to_string(),
                        tool: name.to_string(),
                        arguments: arguments.to_string(),
                    };
                    let rule = plugin.config.remember_approval.as_ref();
                    let who = format!(
                        "{}\n{}",
                        caller.session.as_deref().unwrap_or(""),
                        caller.client.as_deref().unwrap_or("")
                    );
                    let remembered = approval::Memory::key(rule, &request, &who);
                    let answer = match &remembered {
                        Some(key) if self.approvals.covers(key) => Approval::Remembered,
                        _ => {
                            let _waiting = call.wait.wait();
                            approval::ask(asker.as_ref(), &request).await
                        }
                    };
                    if let (Approval::Approved, Some(key), Some(rule)) = (&answer, remembered, rule) {
                        self.approvals.remember(key, rule.window);
                    }
                    self.audit_approval(plugin, name, &answer, &caller);
                    match answer {
                        Approval::Approved | Approval::Remembered => {}
                        Approval::Refused(why) | Approval::Unavailable(why) => {
                            return Err(CallFailure::NotApproved(format!(
                                "{name} needs the user's approval for each call ({asked_by} in the manifest), and it was not given: {why}"
                            )));
                        }
                    }
                }
                let w = match backend {
                    Backend::Wasm(w) => w,
                    // The native test plugin has no instance to guard; it only echoes.
                    Backend::Native => return native::echo(arguments).map_err(CallFailure::Tool),
                };
                match w
                    .enter(
                        Entry::Tool {
                            name: local,
                            arguments,
                        },
                        call,
                    )
                    .await?
                {
                    Exit::Tool(out) => cap_output(out, limit),
                    _ => Err(mismatch()),
                }
            })
            .await;
        Some(CallReport {
            plugin: plugin.name().to_string(),
            result,
        })
    }

    /// Read resource `uri` from the plugin that owns it. `None` when no plugin serves it.
    pub async fn read_resource(&self, uri: &str, call: CallContext) -> Option<ReadReport> {
        let plugin = self.resource_owner(uri)?;
        let limit = plugin.config.limits.output;
        let audited = Audited {
            event: "resource_read",
            tool: "resources/read",
            input: uri,
            target: Some(uri),
        };
        if let Some((name, refusal)) = self.resource_refused(uri, &call.access) {
            let result = Err(self.refuse_role(&name, &audited, refusal, &call));
            return Some(ReadReport {
                plugin: name,
                result,
            });
        }
        let result = self
            .execute(plugin, &audited, call, |backend, call| async move {
                let Backend::Wasm(w) = backend else {
                    return Err(mismatch());
                };
                match w.enter(Entry::ReadResource { uri }, call).await? {
                    Exit::Resource(list) => cap_resources(list, limit),
                    _ => Err(mismatch()),
                }
            })
            .await;
        Some(ReadReport {
            plugin: plugin.name().to_string(),
            result,
        })
    }

    /// Fill prompt `name` (public name). `None` when no plugin serves it.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &[(String, String)],
        call: CallContext,
    ) -> Option<PromptReport> {
        let (plugin, local) = self.prompt_route(name)?;
        let limit = plugin.config.limits.output;
        let input = serde_json::to_string(arguments).unwrap_or_default();
        let audited = Audited {
            event: "prompt_get",
            tool: name,
            input: &input,
            target: None,
        };
        if let Some((plugin, refusal)) = self.prompt_refused(name, &call.access) {
            let result = Err(self.refuse_role(&plugin, &audited, refusal, &call));
            return Some(PromptReport { plugin, result });
        }
        let result = self
            .execute(plugin, &audited, call, |backend, call| async move {
                let Backend::Wasm(w) = backend else {
                    return Err(mismatch());
                };
                match w
                    .enter(
                        Entry::GetPrompt {
                            name: local,
                            arguments,
                        },
                        call,
                    )
                    .await?
                {
                    Exit::Prompt(prompt) => cap_prompt(prompt, limit),
                    _ => Err(mismatch()),
                }
            })
            .await;
        Some(PromptReport {
            plugin: plugin.name().to_string(),
            result,
        })
    }

    /// Complete `argument` of a prompt or resource template. `None` when no plugin serves it.
    pub async fn complete(
        &self,
        target: CompletionTarget<'_>,
        argument: &str,
        value: &str,
        context: &[(String, String)],
        call: CallContext,
    ) -> Option<CompletionReport> {
        let (plugin, local, shown) = match target {
            CompletionTarget::Prompt(name) => {
                let (plugin, local) = self.prompt_route(name)?;
                (plugin, CompletionRef::Prompt(local.to_string()), name)
            }
            CompletionTarget::ResourceTemplate(template) => {
                let plugin = self
                    .plugins()
                    .iter()
                    .find(|p| p.serves_template(template))?;
                (
                    plugin,
                    CompletionRef::ResourceTemplate(template.to_string()),
                    template,
                )
            }
        };
        let limit = plugin.config.limits.output;
        let input = format!("{argument}={value}");
        let audited = Audited {
            event: "completion",
            tool: "completion/complete",
            input: &input,
            target: Some(shown),
        };
        let refused = match target {
            CompletionTarget::Prompt(name) => self.prompt_refused(name, &call.access),
            CompletionTarget::ResourceTemplate(_) => call
                .access
                .resources_of(plugin.name(), "the resource templates")
                .err()
                .map(|r| (plugin.name().to_string(), r)),
        };
        if let Some((name, refusal)) = refused {
            let result = Err(self.refuse_role(&name, &audited, refusal, &call));
            return Some(CompletionReport {
                plugin: name,
                result,
            });
        }
        let local = &local;
        let result = self
            .execute(plugin, &audited, call, |backend, call| async move {
                let Backend::Wasm(w) = backend else {
                    return Err(mismatch());
                };
                let entry = Entry::Complete {
                    target: local,
                    argument,
                    value,
                    context,
                };
                match w.enter(entry, call).await? {
                    Exit::Completion(done) => cap_completion(done, limit),
                    _ => Err(mismatch()),
                }
            })
            .await;
        Some(CompletionReport {
            plugin: plugin.name().to_string(),
            result,
        })
    }

    /// The refusal of an entry the caller's role does not include, audited with the role and
    /// the rule before any instance runs.
    fn refuse_role(
        &self,
        plugin: &str,
        audited: &Audited<'_>,
        refusal: Box<crate::manifest::RoleRefusal>,
        call: &CallContext,
    ) -> CallFailure {
        let rule = refusal.rule();
        self.services().audit.write(&Record {
            ts: audit::now(),
            event: audited.event,
            plugin,
            tool: audited.tool,
            args_sha256: Some(audit::digest(audited.input.as_bytes())),
            args_bytes: Some(audited.input.len()),
            duration_ms: Some(0),
            decision: "denied",
            outcome: Outcome::Denied,
            target: audited.target,
            reason: Some(&rule),
            client: call.client.as_deref(),
            session: call.session.as_deref(),
            role: call.access.role(),
            ..Record::default()
        });
        CallFailure::NotInRole(refusal)
    }

    /// One line per approval asked: who answered what, for which tool.
    fn audit_approval(
        &self,
        plugin: &LoadedPlugin,
        tool: &str,
        answer: &Approval,
        caller: &Caller,
    ) {
        let (decision, outcome, reason) = match answer {
            Approval::Approved => ("allowed", Outcome::Ok, None),
            Approval::Remembered => (
                "allowed",
                Outcome::Ok,
                Some(
                    "remembered: the user approved this tool for this session within remember_approval",
                ),
            ),
            Approval::Refused(why) | Approval::Unavailable(why) => {
                ("denied", Outcome::Denied, Some(why.as_str()))
            }
        };
        self.services().audit.write(&Record {
            ts: audit::now(),
            event: "approval",
            plugin: plugin.name(),
            tool,
            decision,
            outcome,
            reason,
            client: caller.client.as_deref(),
            session: caller.session.as_deref(),
            role: caller.role.as_deref(),
            ..Record::default()
        });
    }

    /// Run `work` on `plugin` and write the entry's audit line.
    async fn execute<'a, T, F, Fut>(
        &self,
        plugin: &'a Arc<LoadedPlugin>,
        audited: &Audited<'_>,
        call: CallContext,
        work: F,
    ) -> Result<T, CallFailure>
    where
        F: FnOnce(&'a Backend, CallContext) -> Fut,
        Fut: Future<Output = Result<T, CallFailure>>,
    {
        let client = call.client.clone();
        let session = call.session.clone();
        let role = call.access.role().map(str::to_string);
        let trace = call.trace;
        let started = Instant::now();
        let result = work(&plugin.backend, call).await;
        let outcome = match &result {
            Ok(_) => Outcome::Ok,
            Err(f) => f.outcome(),
        };
        let limit = match &result {
            Err(CallFailure::Timeout(_)) => Some("call_timeout"),
            Err(CallFailure::MemoryLimit(_)) => Some("memory"),
            Err(CallFailure::OutputTooLarge(..)) => Some("output"),
            Err(CallFailure::Busy(..)) => Some("plugin_concurrency"),
            _ => None,
        };
        if let Some(limit) = limit {
            crate::metrics::limit_hit(limit, plugin.name());
        }
        self.services().audit.write(&Record {
            ts: audit::now(),
            event: audited.event,
            plugin: plugin.name(),
            tool: audited.tool,
            args_sha256: Some(audit::digest(audited.input.as_bytes())),
            args_bytes: Some(audited.input.len()),
            decision: if matches!(result, Err(CallFailure::Busy(..))) {
                "denied"
            } else {
                "allowed"
            },
            outcome,
            duration_ms: Some(audit::millis(started.elapsed())),
            capability: None,
            target: audited.target,
            reason: match &result {
                Err(CallFailure::Busy(..)) => Some("limits.concurrency"),
                _ => None,
            },
            client: client.as_deref(),
            session: session.as_deref(),
            role: role.as_deref(),
            error: None,
            tabs_opened: None,
            tabs_open: None,
            trace,
            ..Record::default()
        });
        result
    }
}

fn mismatch() -> CallFailure {
    CallFailure::Crashed("the plugin answered with the wrong kind of result".into())
}

/// Bytes an output will take on the wire (before base64), for the output cap.
pub fn output_size(output: &ToolOutput) -> u64 {
    let blocks: usize = output
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => t.len(),
            ContentBlock::Image(m) | ContentBlock::Audio(m) => m.data.len(),
            ContentBlock::Resource(r) => body_size(&r.body),
        })
        .sum();
    (blocks + output.structured.as_ref().map_or(0, String::len)) as u64
}

fn body_size(body: &ResourceBody) -> usize {
    match body {
        ResourceBody::Text(t) => t.len(),
        ResourceBody::Blob(b) => b.len(),
    }
}

fn block_size(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(t) => t.len(),
        ContentBlock::Image(m) | ContentBlock::Audio(m) => m.data.len(),
        ContentBlock::Resource(r) => body_size(&r.body),
    }
}

/// Enforce `limits.output` on a filled-in prompt: whole or not at all.
fn cap_prompt(prompt: Prompt, limit: u64) -> Result<Prompt, CallFailure> {
    let size = prompt
        .messages
        .iter()
        .map(|m| block_size(&m.content))
        .sum::<usize>() as u64;
    if size > limit {
        return Err(CallFailure::OutputTooLarge(size, limit));
    }
    Ok(prompt)
}

/// At most [`MAX_COMPLETIONS`] values (the rest are cut, `has_more` set), within
/// `limits.output`.
fn cap_completion(mut done: Completion, limit: u64) -> Result<Completion, CallFailure> {
    if done.values.len() > MAX_COMPLETIONS {
        done.values.truncate(MAX_COMPLETIONS);
        done.has_more = true;
    }
    let size = done.values.iter().map(String::len).sum::<usize>() as u64;
    if size > limit {
        return Err(CallFailure::OutputTooLarge(size, limit));
    }
    Ok(done)
}

/// Enforce `limits.output` on a resource read: contents are returned whole or not at all
/// (a cut resource would be a different, corrupt resource).
fn cap_resources(
    list: Vec<EmbeddedResource>,
    limit: u64,
) -> Result<Vec<EmbeddedResource>, CallFailure> {
    let size = list
        .iter()
        .map(|r| body_size(&r.body) + r.uri.len())
        .sum::<usize>() as u64;
    if size > limit {
        return Err(CallFailure::OutputTooLarge(size, limit));
    }
    Ok(list)
}

/// Enforce `limits.output`: text is cut with a note that says how to get the rest; a result
/// with structured or binary content over the cap becomes an error (cutting would corrupt it).
fn cap_output(mut output: ToolOutput, limit: u64) -> Result<ToolOutput, CallFailure> {
    let size = output_size(&output);
    if size <= limit {
        return Ok(output);
    }
    let all_text = output.structured.is_none()
        && output
            .content
            .iter()
            .all(|c| matches!(c, ContentBlock::Text(_)));
    let note = format!(
        "\n[output cut: the plugin returned {} bytes, over its limit of {} (limits.output in the manifest); ask for less, e.g. a smaller range or page]",
        size, limit
    );
    if all_text {
        let mut room = usize::try_from(limit).unwrap_or(usize::MAX);
        for block in &mut output.content {
            if let ContentBlock::Text(t) = block {
                if t.len() > room {
                    let mut cut = room;
                    while !t.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    t.truncate(cut);
                }
                room -= t.len();
            }
        }
        output
            .content
            .retain(|c| !matches!(c, ContentBlock::Text(t) if t.is_empty()));
        output.content.push(ContentBlock::Text(note));
        Ok(output)
    } else {
        Err(CallFailure::OutputTooLarge(size, limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_keep_a_hundred_values() {
        let done = Completion {
            values: (0..150).map(|i| i.to_string()).collect(),
            total: None,
            has_more: false,
        };
        let capped = cap_completion(done, 1 << 20).expect("within the output cap");
        assert_eq!(capped.values.len(), 100);
        assert!(capped.has_more);
    }

    fn text(t: &str) -> ToolOutput {
        ToolOutput {
            content: vec![ContentBlock::Text(t.into())],
            structured: None,
        }
    }

    #[test]
    fn text_over_the_cap_is_cut_with_a_note() {
        let out = cap_output(text("héllo world"), 3).expect("text is cut, not refused");
        let ContentBlock::Text(first) = &out.content[0] else {
            panic!("text expected")
        };
        assert_eq!(first, "hé");
        assert!(matches!(&out.content[1], ContentBlock::Text(n) if n.contains("limits.output")));
    }

    #[test]
    fn structured_over_the_cap_is_refused() {
        let mut out = text("x");
        out.structured = Some("{\"a\": 1}".into());
        assert!(matches!(
            cap_output(out, 4),
            Err(CallFailure::OutputTooLarge(9, 4))
        ));
    }

    #[test]
    fn resources_over_the_cap_are_refused_whole() {
        let list = vec![EmbeddedResource {
            uri: "a://b".into(),
            mime_type: None,
            body: ResourceBody::Text("x".repeat(100)),
        }];
        assert!(cap_resources(list.clone(), 1000).is_ok());
        assert!(matches!(
            cap_resources(list, 50),
            Err(CallFailure::OutputTooLarge(105, 50))
        ));
    }
}
