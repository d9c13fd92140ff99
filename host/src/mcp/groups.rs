//! Tool groups a client turns on for itself: the host's `tool_groups` tool, listed when the
//! manifest offers a group (`tools.offer`), and what each conversation turned on. A choice
//! belongs to the conversation that made it (one MCP session, or a stateless client by its
//! token): another client's list never changes with it, and only the calling session is
//! told (`notifications/tools/list_changed`). The grants still check every call.

use crate::audit::{self, Outcome, Record};
use crate::capabilities::conversation::Conversation;
use crate::manifest::Access;
use crate::runtime::registry::{Chosen, GROUPS_TOOL, Registry, Served as GroupServed};
use rmcp::model;
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// What each open conversation turned on, as `plugin/group`.
#[derive(Default)]
pub struct GroupChoices {
    by_conversation: Mutex<HashMap<String, (Conversation, Chosen)>>,
}

impl GroupChoices {
    pub fn chosen(&self, conversation: &Conversation) -> Chosen {
        self.by_conversation
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(conversation.key())
            .map(|(_, chosen)| chosen.clone())
            .unwrap_or_default()
    }

    fn set(&self, conversation: &Conversation, chosen: BTreeSet<String>) {
        let mut all = self
            .by_conversation
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        // Sessions that ended take their choices with them.
        all.retain(|_, (c, _)| c.is_alive());
        all.insert(
            conversation.key().to_string(),
            (conversation.clone(), Arc::new(chosen)),
        );
    }
}

/// Every offered group of `registry` that the caller's role (`access`) reaches a tool of:
/// `plugin/group` and its summary.
fn offered(registry: &Registry, access: &Access) -> Vec<(String, String)> {
    registry
        .groups()
        .iter()
        .flat_map(|p| {
            let prefix = registry
                .plugins()
                .iter()
                .find(|l| l.name() == p.plugin)
                .map_or("", |l| l.config.tool_prefix.as_str());
            p.groups
                .iter()
                .filter(|g| g.served == GroupServed::Offered)
                .filter(move |g| {
                    g.tools.iter().any(|t| {
                        registry
                            .tool_refused(&format!("{prefix}{t}"), access)
                            .is_none()
                    })
                })
                .map(|g| (format!("{}/{}", p.plugin, g.name), g.summary.clone()))
        })
        .collect()
}

/// The `tool_groups` tool, when `registry` offers a group the caller's role reaches.
pub(super) fn tool(registry: &Registry, access: &Access) -> Option<model::Tool> {
    let offered = offered(registry, access);
    if offered.is_empty() {
        return None;
    }
    let names: Vec<&str> = offered.iter().map(|(n, _)| n.as_str()).collect();
    let list = offered
        .iter()
        .map(|(n, s)| format!("{n}: {s}"))
        .collect::<Vec<_>>()
        .join("; ");
    let items = serde_json::json!({ "type": "array", "items": { "enum": names } });
    let schema = serde_json::json!({
        "type": "object",
        "properties": { "enable": items, "disable": items },
    });
    let serde_json::Value::Object(schema) = schema else {
        return None;
    };
    Some(model::Tool::new(
        GROUPS_TOOL,
        format!("Turn on (or off) more tools for this conversation. Offered: {list}."),
        Arc::new(schema),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    #[serde(default)]
    enable: Vec<String>,
    #[serde(default)]
    disable: Vec<String>,
}

/// A `tool_groups` call: the new choice of `conversation`, and the result the agent reads.
/// The boolean says whether the conversation's tool list changed.
pub(super) fn call(
    registry: &Registry,
    choices: &GroupChoices,
    conversation: &Conversation,
    arguments: Option<&model::JsonObject>,
    who: (Option<&str>, Option<&str>),
    access: &Access,
) -> (model::CallToolResult, bool) {
    let offered = offered(registry, access);
    let text = arguments.map_or_else(
        || "{}".to_string(),
        |a| serde_json::Value::Object(a.clone()).to_string(),
    );
    let who = Who {
        client: who.0,
        session: who.1,
        arguments: &text,
    };
    let parsed = arguments.cloned().map(serde_json::Value::Object).map_or(
        Ok(Arguments {
            enable: Vec::new(),
            disable: Vec::new(),
        }),
        serde_json::from_value::<Arguments>,
    );
    let refuse = |message: String| {
        audit_line(registry, "denied", Outcome::Denied, &message, &who);
        (super::convert::error(message), false)
    };
    let args = match parsed {
        Ok(args) => args,
        Err(e) => {
            return refuse(format!(
                "invalid arguments: {e}; give {{\"enable\": [\"plugin/group\"]}} or {{\"disable\": [...]}}"
            ));
        }
    };
    let names: Vec<&str> = offered.iter().map(|(n, _)| n.as_str()).collect();
    if let Some(bad) = args
        .enable
        .iter()
        .chain(&args.disable)
        .find(|g| !names.contains(&g.as_str()))
    {
        return refuse(format!(
            "not enabled: \"{bad}\" is not a group this server offers; it offers: {} (an admin offers more with tools.offer in the manifest)",
            names.join(", ")
        ));
    }
    let before = choices.chosen(conversation);
    let mut now: BTreeSet<String> = before.iter().cloned().collect();
    now.extend(args.enable.iter().cloned());
    for g in &args.disable {
        now.remove(g);
    }
    let changed = now != *before;
    let on = now.iter().cloned().collect::<Vec<_>>();
    choices.set(conversation, now);
    let summary = format!(
        "turned on: {}",
        if on.is_empty() {
            "none".to_string()
        } else {
            on.join(", ")
        }
    );
    audit_line(registry, "allowed", Outcome::Ok, &summary, &who);
    let text = if changed {
        format!("{summary}. tools/list now shows their tools.")
    } else {
        format!("{summary}. Nothing changed.")
    };
    (
        model::CallToolResult::success(vec![model::ContentBlock::text(text)]),
        changed,
    )
}

/// Who called `tool_groups`, with what, for its audit line.
struct Who<'a> {
    client: Option<&'a str>,
    session: Option<&'a str>,
    arguments: &'a str,
}

/// A `tool_call` line of the host's own tool (no plugin), saying what is turned on now.
fn audit_line(
    registry: &Registry,
    decision: &'static str,
    outcome: Outcome,
    reason: &str,
    who: &Who<'_>,
) {
    registry.services().audit.write(&Record {
        ts: audit::now(),
        event: "tool_call",
        plugin: "",
        tool: GROUPS_TOOL,
        args_sha256: Some(audit::digest(who.arguments.as_bytes())),
        args_bytes: Some(who.arguments.len()),
        duration_ms: Some(0),
        decision,
        outcome,
        reason: Some(reason),
        client: who.client,
        session: who.session,
        ..Record::default()
    });
}
