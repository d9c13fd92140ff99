//! Approvals: a tool the manifest lists under `require_approval` runs only after the user says
//! yes to that very call. The host asks the client (a form with one `approve` checkbox) before
//! the plugin is entered, so the plugin cannot skip it and the agent cannot answer it.

use super::asks::{APPROVAL_KEY, Answer, AskFailure, ClientRequests, FormAnswer, Question};
use crate::manifest::RememberApproval;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Approvals remembered at once; past this the oldest are forgotten (and asked again).
const REMEMBERED: usize = 10_000;

/// Arguments shown in the question, at most this many bytes.
const SHOWN_ARGUMENTS: usize = 2048;

/// A tool call that needs the user's approval.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    pub plugin: String,
    /// The public tool name.
    pub tool: String,
    /// The arguments as JSON text, as the plugin would get them.
    pub arguments: String,
}

/// What the user answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Approved,
    /// An earlier approval still covers this call (`remember_approval`); nobody was asked.
    Remembered,
    /// The user declined or cancelled (the text says which).
    Refused(String),
    /// The client cannot ask its user (no elicitation), or did not answer in time.
    Unavailable(String),
}

/// Approvals that cover later calls (`remember_approval`), per plugin, tool, client session
/// and (optionally) one argument's value. Kept with the registry: a manifest reload forgets
/// them all.
#[derive(Debug, Default)]
pub struct Memory {
    until: Mutex<HashMap<String, Instant>>,
}

impl Memory {
    /// The key `request` is remembered under, or `None` when the plugin remembers nothing.
    pub fn key(
        rule: Option<&RememberApproval>,
        request: &ApprovalRequest,
        who: &str,
    ) -> Option<String> {
        let rule = rule?;
        let value = match &rule.per {
            Some(arg) => {
                let args: serde_json::Value = serde_json::from_str(&request.arguments).ok()?;
                // A call without the argument is not covered by anyone's approval.
                format!("{arg}={}", args.get(arg)?)
            }
            None => String::new(),
        };
        Some(format!(
            "{}\n{}\n{who}\n{value}",
            request.plugin, request.tool
        ))
    }

    /// True while an approval under `key` still counts.
    pub fn covers(&self, key: &str) -> bool {
        let until = self.until.lock().unwrap_or_else(|p| p.into_inner());
        until.get(key).is_some_and(|t| Instant::now() < *t)
    }

    /// Remember an approval under `key` for `window`.
    pub fn remember(&self, key: String, window: Duration) {
        let mut until = self.until.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        until.retain(|_, t| *t > now);
        if until.len() >= REMEMBERED
            && let Some(oldest) = until
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone())
        {
            until.remove(&oldest);
        }
        until.insert(key, now + window);
    }
}

/// Ask `client` (if any) to approve `request`.
pub async fn ask(client: Option<&Arc<dyn ClientRequests>>, request: &ApprovalRequest) -> Approval {
    let Some(client) = client else {
        return Approval::Unavailable(
            "the call came from no MCP client, so nobody can approve it".into(),
        );
    };
    let form = Question::Elicit {
        message: question(request),
        schema: serde_json::json!({
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": "Run this call now, once"
                }
            },
            "required": ["approve"]
        })
        .to_string(),
    };
    let answers = match client.ask(vec![(APPROVAL_KEY.to_string(), form)]).await {
        Ok(answers) => answers,
        Err(AskFailure::Unsupported(why) | AskFailure::Failed(why)) => {
            return Approval::Unavailable(why);
        }
    };
    match answers.into_iter().next().map(|(_, a)| a) {
        Some(Answer::Elicit(FormAnswer::Accept(content))) => {
            let approved = serde_json::from_str::<serde_json::Value>(&content)
                .ok()
                .and_then(|c| c.get("approve").and_then(serde_json::Value::as_bool))
                == Some(true);
            if approved {
                Approval::Approved
            } else {
                Approval::Refused("the user did not tick approve".into())
            }
        }
        Some(Answer::Elicit(FormAnswer::Decline)) => Approval::Refused("the user declined".into()),
        Some(Answer::Elicit(FormAnswer::Cancel)) => Approval::Refused("the user cancelled".into()),
        _ => Approval::Unavailable("the client answered something other than the form".into()),
    }
}

/// What the user reads: which plugin, which tool, with what.
fn question(request: &ApprovalRequest) -> String {
    let mut shown = request.arguments.clone();
    if shown.len() > SHOWN_ARGUMENTS {
        let mut cut = SHOWN_ARGUMENTS;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        shown.truncate(cut);
        shown.push_str(" ...");
    }
    format!(
        "Warden: plugin '{}' wants to run {} with {}. Approve this call?",
        request.plugin, request.tool, shown
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(arguments: &str) -> ApprovalRequest {
        ApprovalRequest {
            plugin: "ops".into(),
            tool: "terminal_execute".into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn a_remembered_approval_covers_the_same_session_and_argument_only() {
        let rule = RememberApproval {
            window: Duration::from_secs(60),
            per: Some("session_id".into()),
        };
        let memory = Memory::default();
        let key = Memory::key(
            Some(&rule),
            &request(r#"{"session_id":"a","command":"ls"}"#),
            "s1",
        )
        .expect("key");
        assert!(!memory.covers(&key));
        memory.remember(key.clone(), rule.window);
        assert!(memory.covers(&key));
        let same = Memory::key(
            Some(&rule),
            &request(r#"{"session_id":"a","command":"rm"}"#),
            "s1",
        );
        assert_eq!(
            same.as_deref(),
            Some(key.as_str()),
            "the command may differ"
        );
        let other_session =
            Memory::key(Some(&rule), &request(r#"{"session_id":"b"}"#), "s1").expect("key");
        assert!(!memory.covers(&other_session));
        let other_client =
            Memory::key(Some(&rule), &request(r#"{"session_id":"a"}"#), "s2").expect("key");
        assert!(!memory.covers(&other_client));
        assert!(
            Memory::key(Some(&rule), &request("{}"), "s1").is_none(),
            "no argument, no memory"
        );
        assert!(Memory::key(None, &request("{}"), "s1").is_none());
        memory.remember(key.clone(), Duration::ZERO);
        assert!(!memory.covers(&key), "expired");
    }

    #[test]
    fn the_question_names_plugin_tool_and_arguments_bounded() {
        let q = question(&ApprovalRequest {
            plugin: "ops".into(),
            tool: "terminal_execute".into(),
            arguments: format!(r#"{{"command": "{}"}}"#, "é".repeat(3000)),
        });
        assert!(
            q.starts_with("Warden: plugin 'ops' wants to run terminal_execute with {\"command\"")
        );
        assert!(q.len() < SHOWN_ARGUMENTS + 200 && q.contains(" ..."));
    }
}
