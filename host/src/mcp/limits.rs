//! Per-client limits of the HTTP transport (`[server.http.clients.NAME]` `max_concurrent`
//! and `rate`). Each named client has its own permits and its own token bucket, so one
//! client over its limits is answered 429 with `Retry-After` while the others go on.
//! Requests without a client name (loopback without tokens) are not limited here.

use super::identity::ClientIdentity;
use crate::manifest::{ClientLimits, Rate};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// The limits of every named client that has any.
#[derive(Debug, Default)]
pub struct Limits(HashMap<String, ClientLimiter>);

#[derive(Debug)]
struct ClientLimiter {
    concurrent: Option<(Arc<Semaphore>, usize)>,
    rate: Option<(Mutex<Bucket>, Rate)>,
}

/// A token bucket: `capacity` tokens, refilled at `capacity / per`.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    /// Take one token, or say how long until one is there.
    fn take(&mut self, rate: Rate, now: Instant) -> Result<(), Duration> {
        let capacity = f64::from(rate.count);
        let per_second = capacity / rate.per.as_secs_f64();
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens = (self.tokens + elapsed * per_second).min(capacity);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / per_second))
        }
    }
}

impl Limits {
    pub fn new(config: &BTreeMap<String, ClientLimits>) -> Self {
        let now = Instant::now();
        Self(
            config
                .iter()
                .map(|(name, limits)| {
                    let limiter = ClientLimiter {
                        concurrent: limits
                            .max_concurrent
                            .map(|n| (Arc::new(Semaphore::new(n)), n)),
                        rate: limits.rate.map(|rate| {
                            let bucket = Bucket {
                                tokens: f64::from(rate.count),
                                last: now,
                            };
                            (Mutex::new(bucket), rate)
                        }),
                    };
                    (name.clone(), limiter)
                })
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn too_many(client: &str, retry_after: Duration, why: String) -> Response {
    let seconds = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "client '{client}' {why}; retry after {} s\n",
            seconds.max(1)
        ),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    // Refused before its body was read: hyper drops the connection then, so the client is
    // told not to send another request on it.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Middleware: apply the limits of the client the token check named.
pub async fn enforce(State(limits): State<Arc<Limits>>, request: Request, next: Next) -> Response {
    let Some(ClientIdentity(client)) = request.extensions().get::<ClientIdentity>().cloned() else {
        return next.run(request).await;
    };
    let Some(limiter) = limits.0.get(&*client) else {
        return next.run(request).await;
    };
    if let Some((bucket, rate)) = &limiter.rate {
        let taken = bucket
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take(*rate, Instant::now());
        if let Err(wait) = taken {
            crate::metrics::limit_hit("rate", &client);
            let per = if rate.per.as_secs() == 1 {
                "s"
            } else if rate.per.as_secs() == 60 {
                "min"
            } else {
                "h"
            };
            return too_many(
                &client,
                wait,
                format!(
                    "is over its rate limit of {}/{per} ([server.http.clients.{client}] rate)",
                    rate.count
                ),
            );
        }
    }
    // Only POSTs carry calls; the long-lived GET event stream and DELETE are not counted.
    let permit = match &limiter.concurrent {
        Some((permits, max)) if request.method() == Method::POST => {
            match permits.clone().try_acquire_owned() {
                Ok(p) => Some(p),
                Err(_) => {
                    crate::metrics::limit_hit("concurrency", &client);
                    return too_many(
                        &client,
                        Duration::from_secs(1),
                        format!(
                            "already has {max} requests in flight ([server.http.clients.{client}] max_concurrent)"
                        ),
                    );
                }
            }
        }
        _ => None,
    };
    let response = next.run(request).await;
    match permit {
        // A call's result streams in the body: the permit is held until the body is done.
        Some(permit) => response.map(|body| {
            Body::new(body.map_frame(move |frame| {
                let _held = &permit;
                frame
            }))
        }),
        None => response,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_allows_a_burst_then_says_when_to_retry() {
        let rate = Rate {
            count: 2,
            per: Duration::from_secs(1),
        };
        let start = Instant::now();
        let mut bucket = Bucket {
            tokens: 2.0,
            last: start,
        };
        assert!(bucket.take(rate, start).is_ok());
        assert!(bucket.take(rate, start).is_ok());
        let wait = bucket.take(rate, start).expect_err("over the limit");
        assert!(wait > Duration::from_millis(400) && wait <= Duration::from_millis(500));
        assert!(
            bucket
                .take(rate, start + Duration::from_millis(500))
                .is_ok()
        );
    }
}
