//! Questions on the 2026-07-28 wire (SEP-2322 multi round-trip requests). The server may not
//! send requests to the client there: a call that asks ends its run with an
//! `InputRequiredResult` naming the questions, and the client's retry (with `inputResponses`
//! and the echoed `requestState`) runs the call again from the start, the plugin's earlier
//! asks now answered at once from the record, until it finishes or asks something new.
//!
//! Why a replay and not a call paused in memory: a paused call would hold the plugin's one
//! instance (every other call of that plugin waits behind it) for as long as a client that
//! may never come back takes, and would tie the retry to this process. The replay keeps
//! almost nothing on the server: the answers so far travel in `requestState`, sealed with a
//! per-process HMAC key, bound to the request (method, name, arguments, authenticated client)
//! and to a time limit, so the client can neither forge nor alter an answer, nor move it to
//! another request (-32602). Each state is good for one retry (its nonce is remembered until
//! it would expire), so answers cannot be replayed to run an approved call twice. The cost is the plugin's: what a tool does before an ask runs
//! again on the retry, so tools ask first and act after (the SDK's `ask` says so).
//!
//! A question whose capability the request did not declare fails the request with -32021
//! (MissingRequiredClientCapability), as the protocol says.
//!
//! A call of a task-supporting tool, from a client that declared tasks, may become a task
//! (SEP-2663): when the plugin calls `as-task`, or when it runs past [`Offer::after`]. The
//! request then ends with the task's handle ([`Step::Task`]) while the run goes on, and its
//! later asks wait in the task ([`super::parked`]). Asks before that point stay rounds of the
//! request, so a tool can gather input first and then go on in the background.

use super::parked::Parked;
use super::{ANSWER_TIMEOUT, answer, input_request, missing, unsupported};
use crate::runtime::asks::{APPROVAL_KEY, Answers, AskFailure, ClientRequests, Questions};
use futures::future::BoxFuture;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    ClientCapabilities, InputRequests, InputRequiredResult, InputResponses, RequestStateCodec,
    SealOptions,
};
use serde::{Deserialize, Serialize};
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The most a `requestState` may carry (the answers so far), in bytes once sealed.
const MAX_STATE: usize = 256 * 1024;

/// What the client carries between rounds.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    /// Fresh for each state handed out: a state is good for one retry, so a client cannot
    /// run an approved call again by sending the same answers twice.
    nonce: u64,
    /// The answers of each ask the call made, in order.
    answered: Vec<Answers>,
    /// The ask that waits for the client: its questions, and the answers a retry already
    /// brought for some of them.
    pending: Questions,
    given: Answers,
}

impl Record {
    fn unanswered(&self) -> impl Iterator<Item = &(String, crate::runtime::asks::Question)> {
        self.pending
            .iter()
            .filter(|(key, _)| !self.given.iter().any(|(k, _)| k == key))
    }
}

/// What a run of the call tells the request that drives it.
enum Signal {
    /// New questions: the run ends here, the client is asked.
    Ask(Questions),
    /// The first ask was answered by answers the request brought unasked.
    Answered(Answers),
    /// The call needs a capability the request did not declare.
    Missing(ClientCapabilities),
    /// The call became a task.
    Task,
}

/// Where a run stands towards the request that drives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Its asks are rounds of the request.
    Request,
    /// It asked something new: the request ends with the questions, the run cannot become a
    /// task any more.
    Asked,
    /// It is a task: its asks wait in [`Parked`].
    Task,
}

/// The client of one stateless request, as the call sees it: earlier asks are answered from
/// the record, a new one ends the run.
struct Replayer {
    recorded: Mutex<VecDeque<Answers>>,
    /// `inputResponses` of a request without `requestState`: answers to the first ask if
    /// they answer all of it (never the host's approval, which must really be asked).
    unasked: Mutex<Option<InputResponses>>,
    signals: mpsc::UnboundedSender<Signal>,
    declared: Option<ClientCapabilities>,
    /// Whether the call may become a task.
    offered: bool,
    mode: Mutex<Mode>,
    parked: Arc<Parked>,
}

impl Replayer {
    /// Make the call a task unless it already asked the request something new.
    fn escalate(&self) -> bool {
        if !self.offered {
            return false;
        }
        let mut mode = self.mode.lock().unwrap_or_else(|p| p.into_inner());
        match *mode {
            Mode::Task => true,
            Mode::Asked => false,
            Mode::Request => {
                *mode = Mode::Task;
                let _ = self.signals.send(Signal::Task);
                true
            }
        }
    }
}

impl ClientRequests for Replayer {
    fn ask(&self, questions: Questions) -> BoxFuture<'static, Result<Answers, AskFailure>> {
        let signals = self.signals.clone();
        let required = missing(self.declared.as_ref(), &questions);
        let recorded = self
            .recorded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front();
        let unasked = self
            .unasked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .and_then(|responses| answered_unasked(&questions, &responses));
        let tasked = recorded.is_none() && {
            let mut mode = self.mode.lock().unwrap_or_else(|p| p.into_inner());
            if *mode == Mode::Request && unasked.is_none() {
                *mode = Mode::Asked;
            }
            *mode == Mode::Task
        };
        if tasked {
            let parked = self.parked.clone();
            return Box::pin(async move { parked.ask(questions).await });
        }
        Box::pin(async move {
            if let Some(required) = required {
                let failure = unsupported(&required);
                let _ = signals.send(Signal::Missing(required));
                return Err(failure);
            }
            if let Some(answers) = recorded {
                let same = answers.len() == questions.len()
                    && answers
                        .iter()
                        .zip(&questions)
                        .all(|((a, _), (q, _))| a == q);
                return if same {
                    Ok(answers)
                } else {
                    Err(AskFailure::Failed(
                        "the call asked other questions than on its earlier run, so the client's answers do not fit; a tool must ask the same questions in the same order when run again".into(),
                    ))
                };
            }
            if let Some(answers) = unasked {
                let _ = signals.send(Signal::Answered(answers.clone()));
                return Ok(answers);
            }
            for (_, question) in &questions {
                input_request(question)?;
            }
            let _ = signals.send(Signal::Ask(questions));
            Err(AskFailure::Failed(
                "the client is being asked; this run of the call ends here and the call runs again with the answers".into(),
            ))
        })
    }

    fn as_task(&self) -> bool {
        self.escalate()
    }

    fn waits(&self) -> bool {
        *self.mode.lock().unwrap_or_else(|p| p.into_inner()) == Mode::Task
    }
}

/// What a stateless request gets: the call's own result, questions for the client, or a
/// task that goes on without it.
pub enum Step<T> {
    Done(T),
    Input(InputRequiredResult),
    Task(Escalated<T>),
}

/// A call that became a task: its run, where its asks wait, and its cancellation.
pub struct Escalated<T> {
    pub run: JoinHandle<T>,
    pub parked: Arc<Parked>,
    pub cancel: CancellationToken,
}

/// A call that may become a task, and how long it runs before it becomes one by itself.
#[derive(Debug, Clone, Copy)]
pub struct Offer {
    pub after: Duration,
}

/// States spent at most at once (each expires with its TTL); past this, new rounds are
/// refused until some expire.
const MAX_SPENT: usize = 100_000;

/// Seals and opens the request state of this server, and remembers the spent ones.
pub struct Rounds {
    codec: RequestStateCodec,
    /// Nonces of states already used, until their TTL would have expired them anyway.
    spent: Mutex<Spent>,
}

/// Spent nonces, and when each may be forgotten. Every nonce is kept for the same time, so
/// insertion order is expiry order and forgetting is popping from the front.
#[derive(Default)]
struct Spent {
    nonces: HashSet<u64>,
    expiry: VecDeque<(Instant, u64)>,
}

impl Default for Rounds {
    fn default() -> Self {
        let key: [u8; 32] = rand::random();
        Self {
            codec: RequestStateCodec::new(key.to_vec()),
            spent: Mutex::default(),
        }
    }
}

/// What ties a `requestState` to its request.
pub struct Binding {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'static str,
    /// The tool or prompt name, or the URI.
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
    /// The authenticated HTTP client, if any.
    pub client: Option<String>,
}

impl Binding {
    fn text(&self) -> String {
        format!(
            "{}\n{}\n{}\n{}",
            self.method,
            self.name,
            self.arguments,
            self.client.as_deref().unwrap_or("")
        )
    }
}

/// The retry's part of a stateless request.
pub struct Retry<'a> {
    pub state: Option<&'a str>,
    pub responses: Option<&'a InputResponses>,
    pub declared: Option<ClientCapabilities>,
    /// The request's own cancellation.
    pub cancelled: CancellationToken,
    /// Whether the call may become a task.
    pub offer: Option<Offer>,
}

impl Rounds {
    /// Serve one stateless request: run the call with `start` (given the client to ask and
    /// the call's cancellation), answering its earlier asks from the request state.
    pub async fn serve<T, F>(
        &self,
        binding: Binding,
        retry: Retry<'_>,
        start: F,
    ) -> Result<Step<T>, McpError>
    where
        T: Send + 'static,
        F: FnOnce(Arc<dyn ClientRequests>, CancellationToken) -> BoxFuture<'static, T>,
    {
        let binding = binding.text();
        // A first request: any inputResponses it carries answer nothing yet.
        let mut record = match retry.state {
            Some(state) => self.open(&binding, state)?,
            None => Record::default(),
        };
        if !record.pending.is_empty() {
            take_answers(&mut record, retry.responses)?;
            self.spend(record.nonce)?;
            if record.unanswered().next().is_some() {
                // Ask again for what is still missing.
                return self.ask(&binding, record).map(Step::Input);
            }
            let given = std::mem::take(&mut record.given);
            let asked = std::mem::take(&mut record.pending);
            record.answered.push(in_order(&asked, given));
        }

        let (signals, mut receiver) = mpsc::unbounded_channel();
        let unasked = retry
            .state
            .is_none()
            .then(|| retry.responses.cloned())
            .flatten();
        let cancel = CancellationToken::new();
        let parked = Arc::new(Parked::new(retry.declared.clone(), cancel.clone()));
        let replayer = Arc::new(Replayer {
            recorded: Mutex::new(record.answered.iter().cloned().collect()),
            unasked: Mutex::new(unasked),
            signals,
            declared: retry.declared,
            offered: retry.offer.is_some(),
            mode: Mutex::new(Mode::Request),
            parked: parked.clone(),
        });
        let client: Arc<dyn ClientRequests> = replayer.clone();
        let mut done = tokio::spawn(start(client, cancel.clone()));
        let mut open = true;
        // A task-supporting call still running after this becomes a task by itself.
        let deadline =
            tokio::time::sleep(retry.offer.map_or(Duration::from_secs(86_400), |o| o.after));
        tokio::pin!(deadline);
        let mut waiting = retry.offer.is_some();
        loop {
            tokio::select! {
                // An ask is signalled before the plugin hears of it, so it wins over the run's
                // end (which follows from the error the plugin got).
                biased;
                signal = receiver.recv(), if open => match signal {
                    // The run goes on to its end in the background (the plugin got an error
                    // from its ask); its result is not wanted.
                    Some(Signal::Ask(questions)) => {
                        record.pending = questions;
                        return self.ask(&binding, record).map(Step::Input);
                    }
                    Some(Signal::Answered(answers)) => record.answered.push(answers),
                    Some(Signal::Missing(required)) => {
                        cancel.cancel();
                        return Err(McpError::missing_required_client_capability(required));
                    }
                    Some(Signal::Task) => {
                        return Ok(Step::Task(Escalated { run: done, parked, cancel }));
                    }
                    None => open = false,
                },
                result = &mut done => {
                    return result
                        .map(Step::Done)
                        .map_err(|e| McpError::internal_error(format!("the call failed: {e}"), None));
                }
                () = retry.cancelled.cancelled() => {
                    cancel.cancel();
                    return Err(McpError::internal_error("the request was cancelled", None));
                }
                // Escalating signals `Task`, which the next turn returns; a run that asked
                // first stays a request.
                () = &mut deadline, if waiting => {
                    waiting = false;
                    replayer.escalate();
                }
            }
        }
    }

    /// Mark a state's nonce used; refuse a state used before.
    fn spend(&self, nonce: u64) -> Result<(), McpError> {
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        while let Some(&(until, old)) = spent.expiry.front()
            && until <= now
        {
            spent.expiry.pop_front();
            spent.nonces.remove(&old);
        }
        if spent.nonces.contains(&nonce) {
            return Err(McpError::invalid_params(
                "requestState was already used; send the request again without requestState and inputResponses",
                None,
            ));
        }
        if spent.nonces.len() >= MAX_SPENT {
            return Err(McpError::internal_error(
                "too many input rounds in flight; try again in a few minutes",
                None,
            ));
        }
        spent.nonces.insert(nonce);
        spent.expiry.push_back((now + ANSWER_TIMEOUT, nonce));
        Ok(())
    }

    /// The result that asks the client for the pending questions not yet answered.
    fn ask(&self, binding: &str, mut record: Record) -> Result<InputRequiredResult, McpError> {
        record.nonce = rand::random();
        let mut requests = InputRequests::new();
        for (key, question) in record.unanswered() {
            let request = input_request(question).map_err(|e| {
                McpError::internal_error(format!("cannot encode a question: {e:?}"), None)
            })?;
            requests.insert(key.clone(), request);
        }
        let state = self
            .codec
            .seal_json_with(
                &record,
                &SealOptions::new()
                    .associated_data(binding.as_bytes())
                    .ttl(ANSWER_TIMEOUT),
            )
            .map_err(|e| {
                McpError::internal_error(format!("cannot seal the request state: {e}"), None)
            })?;
        if state.len() > MAX_STATE {
            return Err(McpError::internal_error(
                format!(
                    "the answers of this call so far exceed {} KiB, too much to carry between rounds; ask for less",
                    MAX_STATE / 1024
                ),
                None,
            ));
        }
        // Under the replica's name, like a session handle: the retry must reach the process
        // whose key sealed it.
        let state = crate::replica::handle(state);
        Ok(InputRequiredResult::new(Some(requests), Some(state)))
    }

    /// The record a retry's `requestState` carries, if this server sealed it for this request.
    fn open(&self, binding: &str, state: &str) -> Result<Record, McpError> {
        if let Some(e) = crate::replica::elsewhere(state) {
            return Err(McpError::invalid_params(
                format!(
                    "requestState was sealed by replica \"{}\", and this is replica \"{}\": the retry reached the wrong replica, or \"{}\" stopped; send the request again without requestState and inputResponses",
                    e.owner, e.me, e.owner
                ),
                None,
            ));
        }
        self.codec
            .open_json_with(crate::replica::local(state), binding.as_bytes())
            .map_err(|e| {
                McpError::invalid_params(
                    format!(
                        "requestState is not one this server issued for this request ({e}); send the request again without requestState and inputResponses"
                    ),
                    None,
                )
            })
    }
}

/// Read the retry's answers to the pending questions; extra keys are ignored, a malformed
/// answer is refused.
fn take_answers(record: &mut Record, responses: Option<&InputResponses>) -> Result<(), McpError> {
    let Some(responses) = responses else {
        return Ok(());
    };
    let mut taken = Vec::new();
    for (key, question) in record.unanswered() {
        let Some(result) = responses.get(key) else {
            continue;
        };
        let answer = answer(question, result.clone()).map_err(|why| {
            McpError::invalid_params(
                format!("inputResponses.{key} is {why}; retry with a valid answer and the same requestState"),
                None,
            )
        })?;
        taken.push((key.clone(), answer));
    }
    record.given.extend(taken);
    Ok(())
}

/// Answers to all of `questions` from responses nobody asked for, if they hold them all and
/// none is the host's approval.
fn answered_unasked(questions: &Questions, responses: &InputResponses) -> Option<Answers> {
    questions
        .iter()
        .map(|(key, question)| {
            if key == APPROVAL_KEY {
                return None;
            }
            let a = answer(question, responses.get(key)?.clone()).ok()?;
            Some((key.clone(), a))
        })
        .collect()
}

/// `given` in the order the questions were asked.
fn in_order(asked: &Questions, mut given: Answers) -> Answers {
    asked
        .iter()
        .filter_map(|(key, _)| {
            let at = given.iter().position(|(k, _)| k == key)?;
            Some(given.swap_remove(at))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::asks::{Answer, FormAnswer, Question};
    use serde_json::json;

    fn binding() -> String {
        "tools/call\nt\n{}\n".into()
    }

    fn form() -> Question {
        Question::Elicit {
            message: "Name?".into(),
            schema: r#"{"type":"object","properties":{"name":{"type":"string"}}}"#.into(),
        }
    }

    #[test]
    fn a_sealed_record_opens_only_for_its_own_request_and_unaltered() {
        let rounds = Rounds::default();
        let record = Record {
            pending: vec![("user_name".into(), form())],
            ..Record::default()
        };
        let result = rounds.ask(&binding(), record).expect("sealed");
        let state = result.request_state.expect("state");
        assert!(rounds.open(&binding(), &state).is_ok());
        assert!(rounds.open("tools/call\nother\n{}\n", &state).is_err());
        let mut tampered = state.clone();
        tampered.insert(tampered.len() / 2, 'x');
        assert!(rounds.open(&binding(), &tampered).is_err());
        assert!(
            Rounds::default().open(&binding(), &state).is_err(),
            "another process's key"
        );
    }

    #[test]
    fn a_state_is_good_for_one_retry() {
        let rounds = Rounds::default();
        let record = Record {
            pending: vec![("user_name".into(), form())],
            ..Record::default()
        };
        let state = rounds
            .ask(&binding(), record)
            .expect("sealed")
            .request_state
            .expect("state");
        let opened = rounds.open(&binding(), &state).expect("opens");
        assert!(rounds.spend(opened.nonce).is_ok());
        let again = rounds.open(&binding(), &state).expect("still authentic");
        assert!(rounds.spend(again.nonce).is_err(), "replayed");
    }

    #[test]
    fn answers_are_taken_by_key_extra_ones_ignored_bad_ones_refused() {
        let mut record = Record {
            pending: vec![("a".into(), form()), ("b".into(), Question::ListRoots)],
            ..Record::default()
        };
        let mut responses = InputResponses::new();
        responses.insert("b".into(), json!({"roots": []}));
        responses.insert("extra".into(), json!({"anything": true}));
        take_answers(&mut record, Some(&responses)).expect("valid");
        let left: Vec<_> = record.unanswered().map(|(k, _)| k.clone()).collect();
        assert_eq!(left, ["a"]);
        let mut bad = InputResponses::new();
        bad.insert("a".into(), json!({"action": 7}));
        assert!(take_answers(&mut record, Some(&bad)).is_err());
        let mut good = InputResponses::new();
        good.insert("a".into(), json!({"action": "decline"}));
        take_answers(&mut record, Some(&good)).expect("valid");
        let answers = in_order(&record.pending, record.given.clone());
        assert_eq!(
            answers[0],
            ("a".into(), Answer::Elicit(FormAnswer::Decline))
        );
        assert_eq!(answers[1].0, "b");
    }
}
