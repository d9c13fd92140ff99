//! Approvals: a tool the manifest lists under `require_approval` runs only after the user says
//! yes to that very call. The host asks the client (a form with one `approve` checkbox) before
//! the plugin is entered, so the plugin cannot skip it and the agent cannot answer it.

use super::asks::{APPROVAL_KEY, Answer, AskFailure, ClientRequests, FormAnswer, Question};
use std::sync::Arc;

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
    /// The user declined or cancelled (the text says which).
    Refused(String),
    /// The client cannot ask its user (no elicitation), or did not answer in time.
    Unavailable(String),
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
