//! The capture capability's [`HandOff`] for one call: a login that waits for the user is
//! asked as an elicitation form when an answer can come back while the call waits (a
//! 2025-11-25 session, or a call running as a task), and otherwise told as a log message
//! to the client. A 2026-07-28 request is not asked: its ask would end the run (input rounds
//! replay the call), closing the login page the user is meant to use.

use super::asks::{Answer, ClientRequests, FormAnswer, LOGIN_KEY, Question};
use super::call::{CallEvents, LogLevel};
use crate::audit::{GuestScope, Used};
use crate::capabilities::capture::handoff::{HandOff, Told};
use futures::future::BoxFuture;
use std::sync::Arc;

pub struct CallHandOff {
    pub plugin: String,
    pub client: Option<Arc<dyn ClientRequests>>,
    /// Whether the client declared elicitation.
    pub elicitation: bool,
    pub events: Option<Arc<dyn CallEvents>>,
    pub scope: GuestScope,
}

impl HandOff for CallHandOff {
    fn tell(&self, message: String) -> BoxFuture<'static, Told> {
        let asked = self
            .client
            .clone()
            .filter(|c| self.elicitation && c.waits());
        let events = self.events.clone();
        let plugin = self.plugin.clone();
        if asked.is_some() {
            self.scope.used(&Used {
                capability: "client.elicit",
                target: "the client",
                bytes: Some(message.len() as u64),
                ..Used::default()
            });
        }
        Box::pin(async move {
            if let Some(client) = asked {
                let form = Question::Elicit {
                    message: message.clone(),
                    schema: r#"{"type":"object","properties":{"done":{"type":"boolean","title":"I have logged in"}}}"#.into(),
                };
                match client.ask(vec![(LOGIN_KEY.to_string(), form)]).await {
                    Ok(answers) => {
                        return match answers.first() {
                            Some((_, Answer::Elicit(FormAnswer::Accept(_)))) => Told::Done,
                            _ => Told::Refused,
                        };
                    }
                    Err(e) => tracing::debug!(plugin, "could not ask about the login: {e:?}"),
                }
            }
            if let Some(events) = events {
                events.log(&plugin, LogLevel::Warning, message).await;
            }
            futures::future::pending().await
        })
    }
}
