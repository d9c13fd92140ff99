//! A plugin's places for calls (`limits.concurrency`), shared fairly among its clients.
//!
//! One first-come queue let a client that sent 40 slow calls hold another client's `ping`
//! behind all of them. Here every client (the [`Owner`] of a call's conversation: one
//! bearer token, or the one local client) has a line of its own:
//!
//! - A client's calls start in the order it sent them; its excess calls wait in its own line,
//!   never ahead of another client's.
//! - A place that frees goes to the waiting client that holds the fewest places, the one
//!   served longest ago among equals: round robin, and a client with nothing in flight comes
//!   before one that holds many.
//! - Idle places are not wasted: a client alone may hold all `concurrency` of them.
//! - No call is stopped to make room, so a newcomer would otherwise wait for someone else's
//!   call to end. Instead a client that holds less than its *fair share* (`concurrency`
//!   divided by the clients with calls running or waiting, rounded up) starts at once even
//!   when every place is taken, on a place lent beyond `concurrency`; at most `concurrency`
//!   more are ever lent, so a plugin runs at most twice `concurrency` calls. While any are
//!   lent, a place that frees is not handed on to a client at or over its share: the loan
//!   is paid back as calls end.
//!
//! So each client is guaranteed its fair share of calls running at once (at least one),
//! whatever the others hold, as long as fewer than twice `concurrency` run; the rest of its
//! calls wait in its line, for `limits.queue_timeout` at most.
//!
//! A waiter that is dropped (its client cancelled, its wait timed out) leaves its line; a
//! place handed to it in that moment is handed on.

use crate::capabilities::conversation::Owner;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// The places of one plugin and the lines of the clients that wait for them.
pub struct FairQueue {
    /// `limits.concurrency`.
    places: usize,
    lines: Mutex<Lines>,
}

#[derive(Default)]
struct Lines {
    /// Places held, lent ones included.
    running: usize,
    by_client: HashMap<Owner, Line>,
    /// Tickets issued, for their ids.
    issued: u64,
    /// Places handed out, for the round robin.
    turns: u64,
}

/// One client's line; gone when the client holds and waits for nothing.
#[derive(Default)]
struct Line {
    held: usize,
    waiting: VecDeque<Ticket>,
    /// Tickets handed a place whose waiter has not taken it yet.
    handed: Vec<u64>,
    /// The turn at which the client was last handed a place.
    served: u64,
}

impl Line {
    fn is_empty(&self) -> bool {
        self.held == 0 && self.waiting.is_empty() && self.handed.is_empty()
    }
}

struct Ticket {
    id: u64,
    wake: Arc<Notify>,
}

/// A place held by one call; given back when dropped.
pub struct Place<'a> {
    queue: &'a FairQueue,
    client: Owner,
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.queue.give_back(&self.client);
    }
}

/// A ticket in a line; leaves the line (and hands on a place given to it) when dropped
/// before its place was taken.
struct Waiting<'a> {
    queue: &'a FairQueue,
    client: Owner,
    id: u64,
    took: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.took {
            return;
        }
        let mut lines = self.queue.lock();
        let Some(line) = lines.by_client.get_mut(&self.client) else {
            return;
        };
        if let Some(at) = line.waiting.iter().position(|t| t.id == self.id) {
            line.waiting.remove(at);
        } else if let Some(at) = line.handed.iter().position(|id| *id == self.id) {
            // Handed a place in the moment it gave up: the place goes to the next in line.
            line.handed.swap_remove(at);
            line.held -= 1;
            lines.running -= 1;
        }
        lines.forget_if_empty(&self.client);
        // One waiter fewer may raise the others' fair share.
        self.queue.hand_out(&mut lines);
    }
}

impl Lines {
    fn forget_if_empty(&mut self, client: &Owner) {
        if self.by_client.get(client).is_some_and(Line::is_empty) {
            self.by_client.remove(client);
        }
    }
}

/// Calls running and waiting, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Census {
    pub running: usize,
    pub waiting: usize,
}

impl FairQueue {
    /// `places`: `limits.concurrency` (at least 1).
    pub fn new(places: usize) -> Self {
        Self {
            places: places.max(1),
            lines: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Lines> {
        self.lines.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for a call of `client`: at once when the rules above allow, else when its turn
    /// comes. Dropping the future while it waits leaves the line.
    pub async fn acquire(&self, client: &Owner) -> Place<'_> {
        let wake = Arc::new(Notify::new());
        let id = {
            let mut lines = self.lock();
            lines.issued += 1;
            let id = lines.issued;
            lines
                .by_client
                .entry(client.clone())
                .or_default()
                .waiting
                .push_back(Ticket {
                    id,
                    wake: wake.clone(),
                });
            self.hand_out(&mut lines);
            id
        };
        let mut waiting = Waiting {
            queue: self,
            client: client.clone(),
            id,
            took: false,
        };
        loop {
            if self.take(client, id) {
                waiting.took = true;
                return Place {
                    queue: self,
                    client: client.clone(),
                };
            }
            // A place handed out before this await left a permit in `wake`: no wake-up is lost.
            wake.notified().await;
        }
    }

    /// Take the place handed to ticket `id`, if it was.
    fn take(&self, client: &Owner, id: u64) -> bool {
        let mut lines = self.lock();
        let Some(line) = lines.by_client.get_mut(client) else {
            return false;
        };
        match line.handed.iter().position(|h| *h == id) {
            Some(at) => {
                line.handed.swap_remove(at);
                true
            }
            None => false,
        }
    }

    fn give_back(&self, client: &Owner) {
        let mut lines = self.lock();
        if let Some(line) = lines.by_client.get_mut(client) {
            line.held = line.held.saturating_sub(1);
            lines.running = lines.running.saturating_sub(1);
        }
        lines.forget_if_empty(client);
        self.hand_out(&mut lines);
    }

    /// Hand free places to the lines whose turn it is, while the rules allow.
    fn hand_out(&self, lines: &mut Lines) {
        loop {
            let share = self.places.div_ceil(lines.by_client.len().max(1));
            let running = lines.running;
            let next = lines
                .by_client
                .iter()
                .filter(|(_, line)| !line.waiting.is_empty())
                .filter(|(_, line)| {
                    running < self.places || (line.held < share && running < 2 * self.places)
                })
                .min_by_key(|(_, line)| (line.held, line.served))
                .map(|(client, _)| client.clone());
            let Some(client) = next else {
                return;
            };
            lines.turns += 1;
            let turn = lines.turns;
            lines.running += 1;
            let Some(line) = lines.by_client.get_mut(&client) else {
                return;
            };
            let Some(ticket) = line.waiting.pop_front() else {
                return;
            };
            line.held += 1;
            line.served = turn;
            line.handed.push(ticket.id);
            ticket.wake.notify_one();
        }
    }

    /// Calls running and waiting now.
    pub fn census(&self) -> Census {
        let lines = self.lock();
        Census {
            running: lines.running,
            waiting: lines.by_client.values().map(|l| l.waiting.len()).sum(),
        }
    }

    /// Places `client` holds now.
    pub fn held_by(&self, client: &Owner) -> usize {
        self.lock().by_client.get(client).map_or(0, |l| l.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn who(name: &str) -> Owner {
        Owner::client(Some(name))
    }

    /// Poll `future` once: `Some` when it finished at once.
    fn now<F: std::future::Future>(future: F) -> Option<F::Output> {
        futures::executor::block_on(async {
            let mut future = std::pin::pin!(future);
            match futures::poll!(future.as_mut()) {
                std::task::Poll::Ready(out) => Some(out),
                std::task::Poll::Pending => None,
            }
        })
    }

    #[test]
    fn a_client_alone_uses_every_place_then_waits_in_its_own_line() {
        let q = FairQueue::new(3);
        let alice = who("alice");
        let held: Vec<_> = (0..3)
            .map(|_| now(q.acquire(&alice)).expect("a free place"))
            .collect();
        assert!(now(q.acquire(&alice)).is_none(), "a fourth call waits");
        assert_eq!(
            q.census(),
            Census {
                running: 3,
                waiting: 0
            },
            "a dropped waiter leaves the line"
        );
        drop(held);
        assert_eq!(q.census(), Census::default());
    }

    #[tokio::test]
    async fn a_newcomer_starts_at_once_up_to_its_share_while_another_holds_every_place() {
        let q = FairQueue::new(4);
        let (alice, bob) = (who("alice"), who("bob"));
        let mut alices: Vec<_> = (0..4).map(|_| q.acquire(&alice)).collect::<Vec<_>>();
        let mut held = Vec::new();
        for f in alices.drain(..) {
            held.push(f.await);
        }
        // Alice floods: her excess waits in her line.
        let mut flood = Vec::new();
        for _ in 0..20 {
            let mut f = Box::pin(q.acquire(&alice));
            assert!(futures::poll!(f.as_mut()).is_pending());
            flood.push(f);
        }
        // Bob's share is 2 of 4: both start at once, on lent places.
        let b1 = now(q.acquire(&bob)).expect("bob's first call starts at once");
        let b2 = now(q.acquire(&bob)).expect("bob's second call starts at once");
        let mut b3 = Box::pin(q.acquire(&bob));
        assert!(futures::poll!(b3.as_mut()).is_pending(), "over his share");
        assert_eq!(q.held_by(&bob), 2);
        assert_eq!(q.census().running, 6);
        // Alice's call ends: 5 run, more than the 4 places, and both are at their share:
        // nobody gets the place; the loan is paid back.
        held.pop();
        assert_eq!(q.census().running, 5);
        held.pop();
        // 4 run now: alice 2, bob 2. A place that frees goes to the one holding fewer:
        drop(b1);
        assert_eq!(
            q.held_by(&bob),
            2,
            "bob holds 1, alice 2: bob's waiting call"
        );
        let _b3 = tokio::time::timeout(Duration::from_secs(1), b3.as_mut())
            .await
            .expect("bob's third call got the place");
        drop(b2);
        assert_eq!(q.held_by(&alice), 3, "then alice's");
        drop(flood);
        drop(held);
    }

    #[tokio::test]
    async fn places_that_free_go_round_robin_to_the_client_holding_fewest() {
        let q = FairQueue::new(2);
        let (a, b, c) = (who("a"), who("b"), who("c"));
        let first = now(q.acquire(&a)).expect("free");
        let second = now(q.acquire(&a)).expect("free");
        // b and c start at once on lent places (their share is 1 of 2).
        let b1 = now(q.acquire(&b)).expect("b's share");
        let c1 = now(q.acquire(&c)).expect("c's share");
        // Then each waits in its own line; a waits too.
        let mut waiting: Vec<_> = [&a, &b, &c, &a, &b]
            .into_iter()
            .map(|w| Box::pin(q.acquire(w)))
            .collect();
        for f in &mut waiting {
            assert!(futures::poll!(f.as_mut()).is_pending());
        }
        drop((first, second, b1, c1));
        // As calls end, each client's first waiting call starts (one each: their share),
        // never a client's second before another's first.
        let mut order = Vec::new();
        let mut places = Vec::new();
        for (i, f) in waiting.iter_mut().enumerate() {
            if let std::task::Poll::Ready(place) = futures::poll!(f.as_mut()) {
                order.push(i);
                places.push(place);
            }
        }
        assert_eq!(order, [0, 1, 2]);
        assert_eq!(q.census().running, 3);
    }

    #[tokio::test]
    async fn a_waiter_dropped_as_it_is_handed_a_place_hands_it_on() {
        let q = FairQueue::new(1);
        let alice = who("alice");
        let held = now(q.acquire(&alice)).expect("free");
        let mut first = Box::pin(q.acquire(&alice));
        let mut second = Box::pin(q.acquire(&alice));
        assert!(futures::poll!(first.as_mut()).is_pending());
        assert!(futures::poll!(second.as_mut()).is_pending());
        // The place is handed to `first`, which gives up before it takes it.
        drop(held);
        drop(first);
        tokio::time::timeout(Duration::from_secs(1), second.as_mut())
            .await
            .expect("the place went on to the next in line");
        drop(second);
        assert_eq!(q.census(), Census::default(), "no place leaked");
    }

    #[tokio::test]
    async fn never_more_than_twice_the_places_run() {
        let q = FairQueue::new(2);
        let clients: Vec<Owner> = (0..10).map(|i| who(&format!("c{i}"))).collect();
        let mut held = Vec::new();
        for c in &clients {
            if let Some(p) = now(q.acquire(c)) {
                held.push(p);
            }
        }
        assert_eq!(held.len(), 4);
        assert_eq!(q.census().running, 4);
    }
}
