//! Questions on the 2025-11-25 wire: each one is a request to the client of the session
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`), sent together and answered
//! within [`ANSWER_TIMEOUT`]. A call that runs as a 2025-11-25 task asks the same way, its
//! requests naming the task in `_meta` (`io.modelcontextprotocol/related-task`).

use super::{ANSWER_TIMEOUT, answer, method, missing, params, unsupported};
use crate::runtime::asks::{Answers, AskFailure, ClientRequests, Question, Questions};
use futures::future::BoxFuture;
use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, MetaObject, RequestMetaObject};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};

/// The client of a session, asked directly.
pub struct PeerAsker {
    pub peer: Peer<RoleServer>,
    /// The 2025-11-25 task the call runs as, if it is one.
    pub task: Option<String>,
}

/// The `_meta` key that ties a request or result to its 2025-11-25 task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// `_meta` naming `task`.
pub fn related_task(task: &str) -> MetaObject {
    let mut meta = rmcp::model::JsonObject::new();
    meta.insert(RELATED_TASK.into(), serde_json::json!({ "taskId": task }));
    MetaObject(meta)
}

impl ClientRequests for PeerAsker {
    fn ask(&self, questions: Questions) -> BoxFuture<'static, Result<Answers, AskFailure>> {
        let peer = self.peer.clone();
        let meta = self
            .task
            .as_deref()
            .map(|task| RequestMetaObject(related_task(task)));
        Box::pin(async move {
            let declared = peer.peer_info().map(|info| info.capabilities.clone());
            if let Some(required) = missing(declared.as_ref(), &questions) {
                return Err(unsupported(&required));
            }
            let modes = peer.supported_elicitation_modes();
            for (_, question) in &questions {
                let (mode, name) = match question {
                    Question::Elicit { .. } => (ElicitationMode::Form, "form"),
                    Question::ElicitUrl { .. } => (ElicitationMode::Url, "URL"),
                    _ => continue,
                };
                if !modes.contains(&mode) {
                    return Err(AskFailure::Unsupported(format!(
                        "the client does not support {name} elicitation"
                    )));
                }
            }
            let asks = questions.into_iter().map(|(key, question)| {
                let peer = peer.clone();
                let meta = meta.clone();
                async move {
                    let result = ask_one(&peer, &question, meta).await?;
                    let answer = answer(&question, result).map_err(|e| {
                        AskFailure::Failed(format!("the client's answer to {key}: {e}"))
                    })?;
                    Ok((key, answer))
                }
            });
            futures::future::try_join_all(asks).await
        })
    }

    /// A 2025-11-25 task is one from its start (the plugin's `as-task` is audited all the same).
    fn as_task(&self) -> bool {
        self.task.is_some()
    }

    fn waits(&self) -> bool {
        true
    }
}

/// Send one question and return the client's result as JSON.
async fn ask_one(
    peer: &Peer<RoleServer>,
    question: &Question,
    meta: Option<RequestMetaObject>,
) -> Result<serde_json::Value, AskFailure> {
    let params = params(question)?;
    let failed = |e: &dyn std::fmt::Display| {
        AskFailure::Failed(format!(
            "the client did not answer {}: {e}",
            method(question)
        ))
    };
    let late = || {
        AskFailure::Failed(format!(
            "the client did not answer {} within {} s",
            method(question),
            ANSWER_TIMEOUT.as_secs()
        ))
    };
    let encode = |v: Result<serde_json::Value, serde_json::Error>| v.map_err(|e| failed(&e));
    match question {
        Question::Elicit { message, .. } => {
            let params = ElicitRequestParams::FormElicitationParams {
                meta,
                message: message.clone(),
                requested_schema: serde_json::from_value(params["requestedSchema"].clone())
                    .map_err(|e| failed(&e))?,
            };
            let result = peer
                .create_elicitation_with_timeout(params, Some(ANSWER_TIMEOUT))
                .await
                .map_err(|e| failed(&e))?;
            encode(serde_json::to_value(result))
        }
        Question::ElicitUrl { message, url } => {
            // The id lets the client match a later `notifications/elicitation/complete`.
            let params = ElicitRequestParams::UrlElicitationParams {
                meta,
                message: message.clone(),
                url: url.clone(),
                elicitation_id: format!("{:032x}", rand::random::<u128>()),
            };
            let result = peer
                .create_elicitation_with_timeout(params, Some(ANSWER_TIMEOUT))
                .await
                .map_err(|e| failed(&e))?;
            encode(serde_json::to_value(result))
        }
        Question::Sample(_) => {
            let mut params: CreateMessageRequestParams =
                serde_json::from_value(params).map_err(|e| failed(&e))?;
            if meta.is_some() {
                params.meta = meta;
            }
            #[allow(deprecated)]
            let result = tokio::time::timeout(ANSWER_TIMEOUT, peer.create_message(params))
                .await
                .map_err(|_| late())?
                .map_err(|e| failed(&e))?;
            encode(serde_json::to_value(result))
        }
        Question::ListRoots => {
            let result = tokio::time::timeout(ANSWER_TIMEOUT, peer.list_roots())
                .await
                .map_err(|_| late())?
                .map_err(|e| failed(&e))?;
            encode(serde_json::to_value(result))
        }
    }
}
