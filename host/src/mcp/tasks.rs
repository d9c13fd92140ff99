//! Tool calls that run as tasks. On the 2026-07-28 tasks extension (SEP-2663) the client got a
//! task handle instead of the result and polls `tasks/get`, answers the task's questions with
//! `tasks/update`, or stops it with `tasks/cancel`. The experimental tasks of 2025-11-25
//! sessions ([`super::session_tasks`]) keep their calls here too: same ids, owners and limits.
//!
//! A task id is 128 random bits, and a task answers only the authenticated HTTP client that
//! started it (to anyone else it is unknown, -32602), so a handle is neither guessable nor
//! usable by another client. Finished tasks are kept for [`TTL`] after they end, and at most
//! [`MAX_TASKS`] at once: past that, calls answer in their own request instead of becoming
//! tasks, so a client cannot grow the server without bound.

use crate::mcp::asks::parked::Parked;
use crate::mcp::asks::rounds::Escalated;
use crate::runtime::asks::WaitClock;
use rmcp::ErrorData as McpError;
use rmcp::model::{DetailedTask, InputResponses, JsonObject, Task, TaskPayload};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::watch;
use tokio::task::JoinError;
use tokio_util::sync::CancellationToken;

/// How long a finished task's result stays readable (and at least this long after it starts).
pub const TTL: Duration = Duration::from_secs(15 * 60);
/// How often a client should poll.
const POLL_INTERVAL: Duration = Duration::from_millis(500);
/// Tasks kept at once, running or finished.
pub const MAX_TASKS: usize = 1024;

/// How a task's call ended.
pub enum Finished {
    /// The call's result (a tool error too: `isError` in the result).
    Completed(JsonObject),
    /// The call could not produce a result (the plugin crashed): a JSON-RPC error object.
    Failed(JsonObject),
}

enum State {
    Running,
    Done(Finished),
    Cancelled,
}

struct Entry {
    /// The authenticated HTTP client that started it, if any.
    owner: Option<String>,
    created: SystemTime,
    state: Mutex<(State, SystemTime, Option<Instant>)>,
    parked: Arc<Parked>,
    cancel: CancellationToken,
    /// A 2025-11-25 task's wait for its client: it is `input_required` while the call's
    /// requests to the client are out.
    asking: Option<Arc<WaitClock>>,
    /// True once the task ended (`tasks/result` waits for it).
    ended: watch::Sender<bool>,
}

impl Entry {
    fn new(
        owner: Option<String>,
        parked: Arc<Parked>,
        cancel: CancellationToken,
        asking: Option<Arc<WaitClock>>,
    ) -> Self {
        let now = SystemTime::now();
        Self {
            owner,
            created: now,
            state: Mutex::new((State::Running, now, None)),
            parked,
            cancel,
            asking,
            ended: watch::channel(false).0,
        }
    }

    fn expired(&self, now: Instant) -> bool {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.2.is_some_and(|until| until <= now)
    }

    /// Settle the task, unless it was cancelled first.
    fn settle(&self, next: State) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if matches!(state.0, State::Running) {
            *state = (next, SystemTime::now(), Some(Instant::now() + TTL));
            self.ended.send_replace(true);
        }
    }

    fn detail(&self, id: &str) -> DetailedTask {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let updated = match self.parked.changed() {
            Some(changed) if changed > state.1 => changed,
            _ => state.1,
        };
        let payload = match &state.0 {
            State::Running => match self.parked.requests() {
                Some(input_requests) if !input_requests.is_empty() => {
                    TaskPayload::InputRequired { input_requests }
                }
                // A session's task asks by requests to the client, not in the task.
                _ if self.asking.as_ref().is_some_and(|a| a.is_waiting()) => {
                    TaskPayload::InputRequired {
                        input_requests: Default::default(),
                    }
                }
                _ => TaskPayload::Working,
            },
            State::Done(Finished::Completed(result)) => TaskPayload::Completed {
                result: result.clone(),
            },
            State::Done(Finished::Failed(error)) => TaskPayload::Failed {
                error: error.clone(),
            },
            State::Cancelled => TaskPayload::Cancelled,
        };
        let task = Task::new(
            id,
            payload.status(),
            timestamp(self.created),
            timestamp(updated),
        )
        .with_ttl_ms(millis(TTL))
        .with_poll_interval_ms(millis(POLL_INTERVAL));
        DetailedTask::new(task, payload)
    }
}

fn timestamp(at: SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The tasks of this server.
#[derive(Default)]
pub struct Tasks {
    entries: Mutex<HashMap<String, Arc<Entry>>>,
}

impl Tasks {
    /// Whether another task fits.
    pub fn has_room(&self) -> bool {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        entries.retain(|_, e| !e.expired(now));
        entries.len() < MAX_TASKS
    }

    /// Keep a call that became a task; `finish` turns its run's end into the task's result.
    /// The task is readable when this returns, before its handle reaches the client.
    pub fn start<T, F>(
        self: &Arc<Self>,
        owner: Option<String>,
        escalated: Escalated<T>,
        finish: F,
    ) -> Task
    where
        T: Send + 'static,
        F: FnOnce(Result<T, JoinError>) -> Finished + Send + 'static,
    {
        let entry = Entry::new(owner, escalated.parked, escalated.cancel, None);
        self.keep(new_id(), entry, escalated.run, finish).task
    }

    /// Keep a call of a 2025-11-25 session that runs as a task from its start. `id` is from
    /// [`new_id`] (the call's requests to the client name it); `asking` is the call's wait
    /// clock; `cancel` cancels the call.
    pub fn start_session<T, F>(
        self: &Arc<Self>,
        id: String,
        owner: Option<String>,
        run: tokio::task::JoinHandle<T>,
        (cancel, asking): (CancellationToken, Arc<WaitClock>),
        finish: F,
    ) -> DetailedTask
    where
        T: Send + 'static,
        F: FnOnce(Result<T, JoinError>) -> Finished + Send + 'static,
    {
        let parked = Arc::new(Parked::new(None, cancel.clone()));
        let entry = Entry::new(owner, parked, cancel, Some(asking));
        self.keep(id, entry, run, finish)
    }

    fn keep<T, F>(
        &self,
        id: String,
        entry: Entry,
        run: tokio::task::JoinHandle<T>,
        finish: F,
    ) -> DetailedTask
    where
        T: Send + 'static,
        F: FnOnce(Result<T, JoinError>) -> Finished + Send + 'static,
    {
        let entry = Arc::new(entry);
        let detail = entry.detail(&id);
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, entry.clone());
        tokio::spawn(async move {
            let ended = run.await;
            entry.settle(State::Done(finish(ended)));
        });
        detail
    }

    fn find(&self, owner: Option<&str>, id: &str) -> Result<Arc<Entry>, McpError> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .get(id)
            .filter(|e| e.owner.as_deref() == owner && !e.expired(Instant::now()))
            .cloned()
            .ok_or_else(|| {
                // Still -32602 (the revisions name no other code), with where it belongs.
                let message = crate::replica::elsewhere(id).map_or_else(
                    || format!(
                        "unknown task \"{id}\": it never existed, belongs to another client, or ended more than {} minutes ago",
                        TTL.as_secs() / 60
                    ),
                    |e| e.to_string(),
                );
                McpError::invalid_params(message, None)
            })
    }

    /// `tasks/get`.
    pub fn get(&self, owner: Option<&str>, id: &str) -> Result<DetailedTask, McpError> {
        Ok(self.find(owner, id)?.detail(id))
    }

    /// `tasks/update`: answers to the task's questions.
    pub fn update(
        &self,
        owner: Option<&str>,
        id: &str,
        responses: &InputResponses,
    ) -> Result<(), McpError> {
        self.find(owner, id)?.parked.answer(responses)
    }

    /// `tasks/cancel`: the call is cancelled and the task is `cancelled` from now on; a task
    /// that already ended stays as it was.
    pub fn cancel(&self, owner: Option<&str>, id: &str) -> Result<(), McpError> {
        let entry = self.find(owner, id)?;
        entry.settle(State::Cancelled);
        entry.cancel.cancel();
        Ok(())
    }

    /// 2025-11-25 `tasks/cancel`: like [`Self::cancel`], but a task that already ended is
    /// refused (-32602), as that revision says; the cancelled task otherwise.
    pub fn cancel_running(&self, owner: Option<&str>, id: &str) -> Result<DetailedTask, McpError> {
        let entry = self.find(owner, id)?;
        {
            let state = entry.state.lock().unwrap_or_else(|p| p.into_inner());
            if !matches!(state.0, State::Running) {
                return Err(McpError::invalid_params(
                    format!("task \"{id}\" already ended; only a running task can be cancelled"),
                    None,
                ));
            }
        }
        entry.settle(State::Cancelled);
        entry.cancel.cancel();
        Ok(entry.detail(id))
    }

    /// The task once it ended (2025-11-25 `tasks/result` blocks until then).
    pub async fn ended(&self, owner: Option<&str>, id: &str) -> Result<DetailedTask, McpError> {
        let entry = self.find(owner, id)?;
        let mut ended = entry.ended.subscribe();
        // The sender lives in the entry we hold, so the wait cannot fail for want of one.
        let _ = ended.wait_for(|ended| *ended).await;
        Ok(entry.detail(id))
    }

    /// One page of `owner`'s tasks, oldest first (2025-11-25 `tasks/list`): the tasks after
    /// the one `cursor` names, and the cursor of the next page if there is one. A cursor is
    /// the id of the last task of its page; one that names no task of `owner` is refused.
    pub fn list(
        &self,
        owner: Option<&str>,
        cursor: Option<&str>,
        page: usize,
    ) -> Result<(Vec<DetailedTask>, Option<String>), McpError> {
        let now = Instant::now();
        let mut mine: Vec<(SystemTime, String, Arc<Entry>)> = self
            .entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(_, e)| e.owner.as_deref() == owner && !e.expired(now))
            .map(|(id, e)| (e.created, id.clone(), e.clone()))
            .collect();
        mine.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let start = match cursor {
            None => 0,
            Some(cursor) => {
                mine.iter()
                    .position(|(_, id, _)| id == cursor)
                    .ok_or_else(|| {
                        McpError::invalid_params(
                            "unknown cursor: send tasks/list without one to start again",
                            None,
                        )
                    })?
                    + 1
            }
        };
        let rest = mine.get(start..).unwrap_or_default();
        let taken = &rest[..rest.len().min(page)];
        let next = (rest.len() > page)
            .then(|| taken.last().map(|(_, id, _)| id.clone()))
            .flatten();
        let tasks = taken.iter().map(|(_, id, e)| e.detail(id)).collect();
        Ok((tasks, next))
    }
}

/// A fresh task id: 128 random bits, under this replica's name when it has one.
pub fn new_id() -> String {
    crate::replica::handle(format!("{:032x}", rand::random::<u128>()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::TaskStatus;

    fn escalated(run: tokio::task::JoinHandle<u32>, cancel: CancellationToken) -> Escalated<u32> {
        Escalated {
            run,
            parked: Arc::new(Parked::new(None, cancel.clone())),
            cancel,
        }
    }

    fn result(n: u32) -> Finished {
        let mut object = JsonObject::new();
        object.insert("n".into(), n.into());
        Finished::Completed(object)
    }

    #[tokio::test]
    async fn a_task_runs_to_its_result_and_only_its_owner_sees_it() {
        let tasks = Arc::new(Tasks::default());
        let (go, wait) = tokio::sync::oneshot::channel::<()>();
        let run = tokio::spawn(async move {
            let _ = wait.await;
            7
        });
        let task = tasks.start(
            Some("alice".into()),
            escalated(run, CancellationToken::new()),
            |ended| result(ended.unwrap_or(0)),
        );
        assert_eq!(task.status, TaskStatus::Working);
        assert_eq!(task.task_id.len(), 32);
        assert!(
            tasks.get(Some("bob"), &task.task_id).is_err(),
            "another client"
        );
        assert!(tasks.get(None, &task.task_id).is_err(), "no client");
        let _ = go.send(());
        loop {
            let detail = tasks.get(Some("alice"), &task.task_id).expect("known");
            if let TaskPayload::Completed { result } = detail.payload {
                assert_eq!(result["n"], 7);
                break;
            }
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn a_cancelled_task_stays_cancelled_and_its_call_is_told() {
        let tasks = Arc::new(Tasks::default());
        let cancel = CancellationToken::new();
        let told = cancel.clone();
        let run = tokio::spawn(async move {
            told.cancelled().await;
            1
        });
        let task = tasks.start(None, escalated(run, cancel.clone()), |_| result(1));
        tasks.cancel(None, &task.task_id).expect("known");
        assert!(cancel.is_cancelled());
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        let detail = tasks.get(None, &task.task_id).expect("known");
        assert_eq!(detail.status(), TaskStatus::Cancelled);
        tasks
            .cancel(None, &task.task_id)
            .expect("cancelling again is fine");
        assert!(tasks.cancel(None, "0123").is_err(), "unknown");
    }

    #[tokio::test]
    async fn a_session_task_is_listed_in_pages_read_when_it_ends_and_cancelled_once() {
        let tasks = Arc::new(Tasks::default());
        let asking = Arc::new(WaitClock::default());
        let (go, wait) = tokio::sync::oneshot::channel::<()>();
        let first = tasks.start_session(
            new_id(),
            Some("alice\ns1".into()),
            tokio::spawn(async move {
                let _ = wait.await;
                3
            }),
            (CancellationToken::new(), asking.clone()),
            |ended| result(ended.unwrap_or(0)),
        );
        let id = first.task.task_id.clone();
        {
            let _asking = asking.wait();
            let shown = tasks.get(Some("alice\ns1"), &id).expect("known");
            assert_eq!(shown.status(), TaskStatus::InputRequired);
        }
        let mut others = Vec::new();
        for _ in 0..2 {
            let cancel = CancellationToken::new();
            let told = cancel.clone();
            let run = tokio::spawn(async move {
                told.cancelled().await;
                0
            });
            let task = tasks.start_session(
                new_id(),
                Some("alice\ns1".into()),
                run,
                (cancel, Arc::default()),
                |_| result(0),
            );
            others.push(task.task.task_id);
        }
        let owner = Some("alice\ns1");
        let (page, next) = tasks.list(owner, None, 2).expect("listed");
        assert_eq!(page.len(), 2);
        let (rest, none) = tasks.list(owner, next.as_deref(), 2).expect("listed");
        assert_eq!(rest.len(), 1);
        assert!(none.is_none());
        let mut seen: Vec<String> = page
            .iter()
            .chain(&rest)
            .map(|t| t.task.task_id.clone())
            .collect();
        seen.sort();
        let mut all = vec![id.clone(), others[0].clone(), others[1].clone()];
        all.sort();
        assert_eq!(seen, all);
        assert!(
            tasks
                .list(Some("alice\ns2"), None, 2)
                .expect("listed")
                .0
                .is_empty()
        );
        assert!(tasks.list(owner, Some("nonsense"), 2).is_err());

        let _ = go.send(());
        let ended = tasks.ended(owner, &id).await.expect("ended");
        assert!(matches!(ended.payload, TaskPayload::Completed { .. }));
        assert!(
            tasks.cancel_running(owner, &id).is_err(),
            "it already ended"
        );
        let cancelled = tasks.cancel_running(owner, &others[0]).expect("running");
        assert_eq!(cancelled.status(), TaskStatus::Cancelled);
        assert!(
            tasks.cancel_running(owner, &others[0]).is_err(),
            "cancelled once"
        );
        assert!(
            tasks.cancel_running(Some("bob\ns1"), &others[1]).is_err(),
            "not bob's"
        );
    }
}
