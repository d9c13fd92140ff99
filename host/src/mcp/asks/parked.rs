//! Questions of a call that runs as a task (the 2026-07-28 tasks extension). There the client
//! polls: the task parks in `input_required`, `tasks/get` shows the questions not yet
//! answered, and `tasks/update` answers them, all at once or a few at a time. The call waits
//! in memory meanwhile (unlike the replayed rounds of a request, [`super::rounds`]): a task
//! is a call the client chose to leave running, and it is bounded by the answer timeout and
//! by `tasks/cancel`.

use super::{ANSWER_TIMEOUT, answer, input_request, missing, unsupported};
use crate::runtime::asks::{Answers, AskFailure, Questions};
use rmcp::ErrorData as McpError;
use rmcp::model::{ClientCapabilities, InputRequests, InputResponses};
use std::sync::Mutex;
use std::time::SystemTime;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// The questions a task waits on.
struct Waiting {
    questions: Questions,
    given: Answers,
    reply: oneshot::Sender<Answers>,
}

/// Where a task's asks wait for the client.
pub struct Parked {
    /// What the request that made the task declared it can be asked.
    declared: Option<ClientCapabilities>,
    waiting: Mutex<Option<Waiting>>,
    /// The task's cancellation: a parked ask gives up at once.
    cancel: CancellationToken,
    /// When the questions last changed (asked, partly or wholly answered).
    changed: Mutex<Option<SystemTime>>,
}

impl Parked {
    pub fn new(declared: Option<ClientCapabilities>, cancel: CancellationToken) -> Self {
        Self {
            declared,
            waiting: Mutex::default(),
            cancel,
            changed: Mutex::default(),
        }
    }

    fn touch(&self) {
        *self.changed.lock().unwrap_or_else(|p| p.into_inner()) = Some(SystemTime::now());
    }

    /// When the questions last changed, if they ever did.
    pub fn changed(&self) -> Option<SystemTime> {
        *self.changed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Park the task on `questions` until the client answers them all.
    pub async fn ask(&self, questions: Questions) -> Result<Answers, AskFailure> {
        if let Some(required) = missing(self.declared.as_ref(), &questions) {
            return Err(unsupported(&required));
        }
        for (_, question) in &questions {
            input_request(question)?;
        }
        let (reply, answered) = oneshot::channel();
        {
            let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
            if waiting.is_some() {
                return Err(AskFailure::Failed(
                    "this task already waits for the client's answers; ask one thing at a time"
                        .into(),
                ));
            }
            *waiting = Some(Waiting {
                questions,
                given: Vec::new(),
                reply,
            });
        }
        self.touch();
        let outcome = tokio::select! {
            answers = answered => answers.map_err(|_| AskFailure::Failed("the task ended".into())),
            () = tokio::time::sleep(ANSWER_TIMEOUT) => Err(AskFailure::Failed(format!(
                "the client did not answer within {} s (tasks/update)",
                ANSWER_TIMEOUT.as_secs()
            ))),
            () = self.cancel.cancelled() => Err(AskFailure::Failed("the task was cancelled".into())),
        };
        if outcome.is_err() {
            *self.waiting.lock().unwrap_or_else(|p| p.into_inner()) = None;
            self.touch();
        }
        outcome
    }

    /// The questions not answered yet, as the task's `inputRequests`; `None` when it waits
    /// for nothing.
    pub fn requests(&self) -> Option<InputRequests> {
        let waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        let waiting = waiting.as_ref()?;
        let mut requests = InputRequests::new();
        for (key, question) in &waiting.questions {
            if waiting.given.iter().any(|(k, _)| k == key) {
                continue;
            }
            if let Ok(request) = input_request(question) {
                requests.insert(key.clone(), request);
            }
        }
        Some(requests)
    }

    /// Take the client's answers (`tasks/update`); the call goes on once all are in. Keys the
    /// task does not wait for are ignored; a malformed answer is refused and nothing taken.
    pub fn answer(&self, responses: &InputResponses) -> Result<(), McpError> {
        let mut slot = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        let Some(waiting) = slot.as_mut() else {
            return Ok(());
        };
        let mut taken = Vec::new();
        for (key, question) in &waiting.questions {
            if waiting.given.iter().any(|(k, _)| k == key) {
                continue;
            }
            let Some(result) = responses.get(key) else {
                continue;
            };
            let answer = answer(question, result.clone()).map_err(|why| {
                McpError::invalid_params(
                    format!(
                        "inputResponses.{key} is {why}; send tasks/update again with a valid answer"
                    ),
                    None,
                )
            })?;
            taken.push((key.clone(), answer));
        }
        if taken.is_empty() {
            return Ok(());
        }
        waiting.given.extend(taken);
        if waiting.given.len() == waiting.questions.len()
            && let Some(done) = slot.take()
        {
            let Waiting {
                questions,
                mut given,
                reply,
            } = done;
            let in_order = questions
                .iter()
                .filter_map(|(key, _)| {
                    let at = given.iter().position(|(k, _)| k == key)?;
                    Some(given.swap_remove(at))
                })
                .collect();
            // The call may have given up (timeout, cancel) a moment ago; nothing is lost then.
            let _ = reply.send(in_order);
        }
        drop(slot);
        self.touch();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::asks::{Answer, FormAnswer, Question};
    use serde_json::json;
    use std::sync::Arc;

    fn form(name: &str) -> (String, Question) {
        (
            name.into(),
            Question::Elicit {
                message: format!("{name}?"),
                schema: r#"{"type":"object","properties":{"v":{"type":"string"}}}"#.into(),
            },
        )
    }

    fn declared() -> Option<ClientCapabilities> {
        Some(ClientCapabilities::builder().enable_elicitation().build())
    }

    #[tokio::test]
    async fn a_task_waits_until_every_question_is_answered_one_at_a_time() {
        let parked = Arc::new(Parked::new(declared(), CancellationToken::new()));
        let asking = tokio::spawn({
            let parked = parked.clone();
            async move { parked.ask(vec![form("a"), form("b")]).await }
        });
        while parked.requests().is_none() {
            tokio::task::yield_now().await;
        }
        let mut first = InputResponses::new();
        first.insert("b".into(), json!({"action": "decline"}));
        first.insert("nobody-asked".into(), json!({"anything": 1}));
        parked.answer(&first).expect("valid");
        let left: Vec<String> = parked
            .requests()
            .expect("still waiting")
            .into_keys()
            .collect();
        assert_eq!(left, ["a"]);
        let mut bad = InputResponses::new();
        bad.insert("a".into(), json!({"action": 3}));
        assert!(parked.answer(&bad).is_err());
        let mut second = InputResponses::new();
        second.insert("a".into(), json!({"action": "cancel"}));
        parked.answer(&second).expect("valid");
        let answers = asking.await.expect("joined").expect("answered");
        assert_eq!(answers[0], ("a".into(), Answer::Elicit(FormAnswer::Cancel)));
        assert_eq!(
            answers[1],
            ("b".into(), Answer::Elicit(FormAnswer::Decline))
        );
        assert!(parked.requests().is_none());
    }

    #[tokio::test]
    async fn cancelling_the_task_ends_its_wait() {
        let cancel = CancellationToken::new();
        let parked = Arc::new(Parked::new(declared(), cancel.clone()));
        let asking = tokio::spawn({
            let parked = parked.clone();
            async move { parked.ask(vec![form("a")]).await }
        });
        while parked.requests().is_none() {
            tokio::task::yield_now().await;
        }
        cancel.cancel();
        assert!(asking.await.expect("joined").is_err());
        assert!(parked.requests().is_none());
    }

    #[tokio::test]
    async fn a_question_the_client_cannot_answer_is_refused() {
        let parked = Parked::new(None, CancellationToken::new());
        let failure = parked.ask(vec![form("a")]).await.expect_err("undeclared");
        assert!(matches!(failure, AskFailure::Unsupported(_)));
    }
}
