//! Approvals through the client: a tool the manifest lists under `require_approval` runs only
//! after the user says yes to that very call. Warden asks with an MCP elicitation (a form with
//! one `approve` checkbox); the plugin is not involved and cannot skip it.

use crate::runtime::state::{Approval, ApprovalRequest, Approver};
use futures::future::BoxFuture;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use std::time::Duration;

/// How long the user has to answer.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(300);

/// Arguments shown in the question, at most this many bytes.
const SHOWN_ARGUMENTS: usize = 2048;

/// Asks the user of one client.
pub struct ElicitApprover {
    pub peer: Peer<RoleServer>,
    /// A 2026-07-28 request: no server-to-client requests on that wire.
    pub stateless: bool,
}

impl Approver for ElicitApprover {
    fn ask(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        let peer = self.peer.clone();
        let stateless = self.stateless;
        Box::pin(async move {
            if stateless {
                return Approval::Unavailable(
                    "a 2026-07-28 request cannot ask the user in the middle of a call (multi-round-trip input is not supported yet); call it from a 2025-11-25 session whose client supports elicitation".into(),
                );
            }
            if !peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
            {
                return Approval::Unavailable(
                    "this client cannot ask its user (it did not declare the elicitation capability)".into(),
                );
            }
            let schema = match ElicitationSchema::builder()
                .required_bool_with("approve", |b| {
                    b.title("Approve").description("Run this call now, once")
                })
                .build()
            {
                Ok(schema) => schema,
                Err(e) => return Approval::Unavailable(format!("cannot build the question: {e}")),
            };
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question(&request),
                requested_schema: schema,
            };
            match peer
                .create_elicitation_with_timeout(params, Some(APPROVAL_TIMEOUT))
                .await
            {
                Ok(answer) => match answer.action {
                    ElicitationAction::Accept
                        if answer
                            .content
                            .as_ref()
                            .and_then(|c| c.get("approve"))
                            .and_then(serde_json::Value::as_bool)
                            == Some(true) =>
                    {
                        Approval::Approved
                    }
                    ElicitationAction::Accept => {
                        Approval::Refused("the user did not tick approve".into())
                    }
                    ElicitationAction::Decline => Approval::Refused("the user declined".into()),
                    _ => Approval::Refused("the user cancelled".into()),
                },
                Err(e) => Approval::Unavailable(format!("the client did not answer: {e}")),
            }
        })
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
