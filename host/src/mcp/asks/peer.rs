//! Questions on the 2025-11-25 wire: each one is a request to the client of the session
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`), sent together and answered
//! within [`ANSWER_TIMEOUT`].

use super::{ANSWER_TIMEOUT, answer, method, missing, params, unsupported};
use crate::runtime::asks::{Answers, AskFailure, ClientRequests, Question, Questions};
use futures::future::BoxFuture;
use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};

/// The client of a session, asked directly.
pub struct PeerAsker {
    pub peer: Peer<RoleServer>,
}

impl ClientRequests for PeerAsker {
    fn ask(&self, questions: Questions) -> BoxFuture<'static, Result<Answers, AskFailure>> {
        let peer = self.peer.clone();
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
                async move {
                    let result = ask_one(&peer, &question).await?;
                    let answer = answer(&question, result).map_err(|e| {
                        AskFailure::Failed(format!("the client's answer to {key}: {e}"))
                    })?;
                    Ok((key, answer))
                }
            });
            futures::future::try_join_all(asks).await
        })
    }

    fn waits(&self) -> bool {
        true
    }
}

/// Send one question and return the client's result as JSON.
async fn ask_one(
    peer: &Peer<RoleServer>,
    question: &Question,
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
                meta: None,
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
                meta: None,
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
            let params: CreateMessageRequestParams =
                serde_json::from_value(params).map_err(|e| failed(&e))?;
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
