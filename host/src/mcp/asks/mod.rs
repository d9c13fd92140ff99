//! Answering a call's questions ([`crate::runtime::asks`]) over MCP, one way per wire:
//! requests to the client on 2025-11-25 sessions ([`peer`]), `InputRequiredResult` rounds on
//! 2026-07-28 ([`rounds`]). Both build the same MCP requests and read the same results here.

pub mod parked;
pub mod peer;
pub mod rounds;

use crate::runtime::asks::{Answer, AskFailure, FormAnswer, Question};
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, ListRootsResult,
};
use serde_json::{Value, json};
use std::time::Duration;

/// How long the user (or the client's model) has to answer one question.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// The elicitation modes a client declared: (form, URL). A bare `elicitation: {}` means form
/// only (the 2025-06-18 shape).
pub fn elicitation_modes(caps: &ClientCapabilities) -> (bool, bool) {
    match &caps.elicitation {
        None => (false, false),
        Some(e) if e.form.is_none() && e.url.is_none() => (true, false),
        Some(e) => (e.form.is_some(), e.url.is_some()),
    }
}

/// The MCP method that asks `question`.
fn method(question: &Question) -> &'static str {
    match question {
        Question::Elicit { .. } | Question::ElicitUrl { .. } => "elicitation/create",
        Question::Sample(_) => "sampling/createMessage",
        Question::ListRoots => "roots/list",
    }
}

/// The params of the MCP request for `question`, checked against the MCP schema so a
/// malformed question fails in the plugin's call, with the reason.
fn params(question: &Question) -> Result<Value, AskFailure> {
    match question {
        Question::Elicit { message, schema } => {
            let requested: ElicitationSchema = serde_json::from_str(schema).map_err(|e| {
                AskFailure::Failed(format!(
                    "the requested schema is not an elicitation form (an object of string, number, boolean or enum properties): {e}"
                ))
            })?;
            Ok(json!({ "message": message, "requestedSchema": requested }))
        }
        // 2026-07-28 dropped `elicitationId` (the input round names the request); the
        // 2025-11-25 request adds one ([`peer`]).
        Question::ElicitUrl { message, url } => {
            Ok(json!({ "mode": "url", "message": message, "url": url }))
        }
        Question::Sample(request) => {
            let params: CreateMessageRequestParams =
                serde_json::from_str(request).map_err(|e| {
                    AskFailure::Failed(format!(
                        "the request is not sampling/createMessage params (messages, maxTokens, ...): {e}"
                    ))
                })?;
            serde_json::to_value(params)
                .map_err(|e| AskFailure::Failed(format!("cannot encode the request: {e}")))
        }
        Question::ListRoots => Ok(json!({})),
    }
}

/// `question` as an entry of an `InputRequiredResult`.
fn input_request(question: &Question) -> Result<InputRequest, AskFailure> {
    let request = json!({ "method": method(question), "params": params(question)? });
    serde_json::from_value(request)
        .map_err(|e| AskFailure::Failed(format!("cannot encode the request: {e}")))
}

/// A client's answer that is not a result of the question it answers.
#[derive(Debug, thiserror::Error)]
enum BadAnswer {
    #[error("not an elicitation result (action, content): {0}")]
    Elicit(serde_json::Error),
    #[error("not an elicitation result (action): {0}")]
    ElicitUrl(serde_json::Error),
    #[error("not a sampling result (role, content, model): {0}")]
    Sample(serde_json::Error),
    #[error("not a roots/list result (roots): {0}")]
    Roots(serde_json::Error),
    /// The parsed answer could not be encoded again for the plugin.
    #[error("{0}")]
    Encode(serde_json::Error),
}

/// Read the client's `result` for `question`.
fn answer(question: &Question, result: Value) -> Result<Answer, BadAnswer> {
    match question {
        Question::Elicit { .. } => {
            let result: ElicitResult = serde_json::from_value(result).map_err(BadAnswer::Elicit)?;
            Ok(Answer::Elicit(match result.action {
                ElicitationAction::Accept => FormAnswer::Accept(
                    result
                        .content
                        .map_or_else(|| "{}".to_string(), |c| c.to_string()),
                ),
                ElicitationAction::Decline => FormAnswer::Decline,
                _ => FormAnswer::Cancel,
            }))
        }
        Question::ElicitUrl { .. } => {
            let result: ElicitResult =
                serde_json::from_value(result).map_err(BadAnswer::ElicitUrl)?;
            Ok(Answer::Elicit(match result.action {
                ElicitationAction::Accept => FormAnswer::Opened,
                ElicitationAction::Decline => FormAnswer::Decline,
                _ => FormAnswer::Cancel,
            }))
        }
        Question::Sample(_) => {
            let result: CreateMessageResult =
                serde_json::from_value(result).map_err(BadAnswer::Sample)?;
            serde_json::to_string(&result)
                .map(Answer::Sample)
                .map_err(BadAnswer::Encode)
        }
        Question::ListRoots => {
            let result: ListRootsResult =
                serde_json::from_value(result).map_err(BadAnswer::Roots)?;
            serde_json::to_string(&result.roots)
                .map(Answer::Roots)
                .map_err(BadAnswer::Encode)
        }
    }
}

/// The capabilities `questions` need that `declared` lacks, as MCP's
/// `requiredCapabilities` object; `None` when all are declared.
fn missing(
    declared: Option<&ClientCapabilities>,
    questions: &[(String, Question)],
) -> Option<ClientCapabilities> {
    let mut required = serde_json::Map::new();
    for (_, question) in questions {
        let modes = declared.map(elicitation_modes).unwrap_or_default();
        let has = declared.is_some_and(|caps| match question {
            Question::Elicit { .. } => modes.0,
            Question::ElicitUrl { .. } => modes.1,
            Question::Sample(_) => caps.sampling.is_some(),
            Question::ListRoots => caps.roots.is_some(),
        });
        if !has {
            let entry = required
                .entry(question.capability().to_string())
                .or_insert_with(|| json!({}));
            // A client that declared elicitation lacks only the mode.
            let mode = match question {
                Question::Elicit { .. } if declared.is_some_and(|c| c.elicitation.is_some()) => {
                    Some("form")
                }
                Question::ElicitUrl { .. } => Some("url"),
                _ => None,
            };
            if let (Some(mode), Some(object)) = (mode, entry.as_object_mut()) {
                object.insert(mode.into(), json!({}));
            }
        }
    }
    if required.is_empty() {
        return None;
    }
    serde_json::from_value(Value::Object(required)).ok()
}

/// What the plugin hears when the client lacks a capability.
fn unsupported(required: &ClientCapabilities) -> AskFailure {
    // `elicitation` with a mode in it names the mode: a client may declare forms only.
    let names = serde_json::to_value(required)
        .ok()
        .and_then(|v| {
            v.as_object().map(|o| {
                o.iter()
                    .map(|(name, modes)| match modes.as_object() {
                        Some(m) if !m.is_empty() => {
                            let modes: Vec<&str> = m.keys().map(String::as_str).collect();
                            format!("{name} ({} mode)", modes.join(", "))
                        }
                        _ => name.clone(),
                    })
                    .collect::<Vec<_>>()
            })
        })
        .unwrap_or_default();
    AskFailure::Unsupported(format!(
        "the client did not declare the {} capability",
        names.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_question_needs_the_url_mode() {
        let link = vec![(
            "link".to_string(),
            Question::ElicitUrl {
                message: "Sign in".into(),
                url: "https://example.com/".into(),
            },
        )];
        let forms_only: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}})).expect("caps");
        let required = missing(Some(&forms_only), &link).expect("url mode is missing");
        assert_eq!(
            serde_json::to_value(&required).expect("json"),
            json!({"elicitation": {"url": {}}})
        );
        assert_eq!(
            unsupported(&required),
            AskFailure::Unsupported(
                "the client did not declare the elicitation (url mode) capability".into()
            )
        );
        let both: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}})).expect("caps");
        assert!(missing(Some(&both), &link).is_none());
        assert_eq!(
            input_request(&link[0].1)
                .map(|r| serde_json::to_value(r).expect("json"))
                .expect("a request")["params"]["mode"],
            "url"
        );
    }

    #[test]
    fn questions_become_the_requests_mcp_defines() {
        let elicit = Question::Elicit {
            message: "Name?".into(),
            schema:
                r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#
                    .into(),
        };
        let json = serde_json::to_value(input_request(&elicit).expect("valid")).expect("json");
        assert_eq!(json["method"], "elicitation/create");
        assert_eq!(json["params"]["message"], "Name?");
        assert_eq!(
            serde_json::to_value(input_request(&Question::ListRoots).expect("valid"))
                .expect("json")["method"],
            "roots/list"
        );
        let bad = Question::Elicit {
            message: "x".into(),
            schema: "[1]".into(),
        };
        assert!(matches!(input_request(&bad), Err(AskFailure::Failed(_))));
    }

    #[test]
    fn answers_are_read_by_kind_and_bad_ones_refused() {
        let elicit = Question::Elicit {
            message: String::new(),
            schema: String::new(),
        };
        let ok = answer(
            &elicit,
            json!({"action": "accept", "content": {"name": "Ada"}}),
        );
        assert_eq!(
            ok.ok(),
            Some(Answer::Elicit(FormAnswer::Accept(
                r#"{"name":"Ada"}"#.into()
            )))
        );
        assert!(answer(&elicit, json!({"nope": 1})).is_err());
        let roots = answer(
            &Question::ListRoots,
            json!({"roots": [{"uri": "file:///r", "name": "R"}]}),
        );
        assert!(matches!(roots, Ok(Answer::Roots(r)) if r.contains("file:///r")));
    }

    #[test]
    fn missing_capabilities_are_named_as_mcp_does() {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}})).expect("caps");
        let qs = vec![
            ("a".to_string(), Question::Sample("{}".into())),
            (
                "b".to_string(),
                Question::Elicit {
                    message: String::new(),
                    schema: String::new(),
                },
            ),
        ];
        let required = missing(Some(&caps), &qs).expect("sampling is missing");
        let json = serde_json::to_value(&required).expect("json");
        assert!(json.get("sampling").is_some() && json.get("elicitation").is_none());
        assert!(missing(Some(&caps), &qs[1..]).is_none());
    }
}
