//! Bodies bounded while they stream: the request body stops at the first byte over
//! `grants.http.max_request_body` (nothing over it is sent), the response body at the first
//! byte over `max_response_body` or at the request's deadline, and a response is decoded
//! ([`super::coding`]: its decoded size capped by `max_response_body` too) and scrubbed of the
//! credentials the plugin's requests carry before the plugin reads a byte of it.

use super::coding::{CodingError, Decoder};
use super::exchange::Exchange;
use super::services::Slot;
use crate::scrub::Scrubber;
use bytes::Bytes;
use futures::Stream;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use wasmtime_wasi_http::{Error, WasiBody};

/// How long a request body the host will not send is still read (and thrown away) for a
/// plugin that keeps writing it.
const DRAIN_FOR: std::time::Duration = std::time::Duration::from_secs(30);

/// The plugin's request body until the host has read it to its end.
///
/// Dropped before that (a refusal, a failed connection, the cap), it is not closed but read
/// to its end and thrown away: the plugin may still be writing it, and a write to a closed
/// body is an error a JavaScript plugin's event loop cannot recover from (componentize-js
/// aborts the whole instance). The plugin then learns why from the response, as it should.
/// Nothing read is kept; the reading stops when the plugin finishes or drops its body (at the
/// latest with its instance), or after [`DRAIN_FOR`].
pub struct UnreadBody(Option<WasiBody>);

impl UnreadBody {
    pub fn new(body: WasiBody) -> Self {
        Self(Some(body))
    }

    /// The body once it has ended: nothing is left to drain.
    fn ended(&mut self) {
        self.0 = None;
    }
}

impl Drop for UnreadBody {
    fn drop(&mut self) {
        let Some(mut body) = self.0.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let drain = async { while let Some(Ok(_)) = body.frame().await {} };
            let _ = tokio::time::timeout(DRAIN_FOR, drain).await;
        });
    }
}

/// The plugin's request body as a stream of data for the client, capped at `max` bytes.
pub struct RequestBody {
    body: UnreadBody,
    max: u64,
    sent: Arc<AtomicU64>,
    /// Set when the body went over `max`: the send error is then "request body too large".
    over: Arc<AtomicBool>,
}

impl RequestBody {
    pub fn new(body: UnreadBody, max: u64, sent: Arc<AtomicU64>, over: Arc<AtomicBool>) -> Self {
        Self {
            body,
            max,
            sent,
            over,
        }
    }
}

impl Stream for RequestBody {
    type Item = Result<Bytes, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            let Some(body) = self.body.0.as_mut() else {
                return Poll::Ready(None);
            };
            let frame = match Pin::new(body).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => {
                    self.body.ended();
                    return Poll::Ready(None);
                }
                Poll::Ready(Some(Err(e))) => {
                    self.body.ended();
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(Some(Ok(frame))) => frame,
            };
            // Trailers are not sent: the client writes a plain body.
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
            let before = self.sent.load(Ordering::Relaxed);
            if before.saturating_add(len) > self.max {
                self.over.store(true, Ordering::Relaxed);
                return Poll::Ready(Some(Err(Error::HttpRequestBodySize(Some(self.max)))));
            }
            self.sent.store(before + len, Ordering::Relaxed);
            return Poll::Ready(Some(Ok(data)));
        }
    }
}

/// The response body as the plugin reads it: capped, timed, decoded, scrubbed, counted; its
/// end (or its drop) writes the request's audit line and frees its slot. Trailers are not
/// passed on: the plugin reads data only, so no trailer can carry a credential to it.
pub struct ResponseBody {
    inner: reqwest::Body,
    max: u64,
    deadline: Pin<Box<tokio::time::Sleep>>,
    /// The response's content codings undone, when it is scrubbed.
    decoder: Option<Decoder>,
    scrubber: Option<Scrubber>,
    exchange: Exchange,
    done: bool,
    _slot: Slot,
}

impl ResponseBody {
    pub fn new(
        inner: reqwest::Body,
        max: u64,
        deadline: tokio::time::Instant,
        decoder: Option<Decoder>,
        scrubber: Option<Scrubber>,
        exchange: Exchange,
        slot: Slot,
    ) -> Self {
        Self {
            inner,
            max,
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            decoder,
            scrubber,
            exchange,
            done: false,
            _slot: slot,
        }
    }

    fn end(&mut self) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let decoded = match self.decoder.as_mut().map(Decoder::finish) {
            Some(Err(e)) => return self.undecodable(&e),
            Some(Ok(rest)) => rest,
            None => Vec::new(),
        };
        self.done = true;
        let rest = match self.scrubber.as_mut() {
            Some(s) => {
                let mut rest = s.feed(&decoded).to_vec();
                rest.extend_from_slice(&s.finish());
                Bytes::from(rest)
            }
            None => Bytes::from(decoded),
        };
        if rest.is_empty() {
            Poll::Ready(None)
        } else {
            Poll::Ready(Some(Ok(Frame::data(rest))))
        }
    }

    /// The body could not be decoded, or decoded past the cap: nothing more reaches the plugin.
    fn undecodable(&mut self, e: &CodingError) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let detail = e.to_string();
        match e {
            CodingError::Over(max) => {
                let max = *max;
                self.fail(
                    "body_too_large",
                    &format!("{detail} (grants.http.max_response_body); the rest was not read"),
                    Error::HttpResponseBodySize(Some(max)),
                )
            }
            CodingError::Unknown(_) | CodingError::Corrupt { .. } => {
                let coding = match e {
                    CodingError::Corrupt { coding, .. } => (*coding).to_string(),
                    CodingError::Unknown(c) => c.clone(),
                    CodingError::Over(_) => String::new(),
                };
                self.fail(
                    "content_coding",
                    &detail,
                    Error::HttpResponseContentCoding(Some(coding)),
                )
            }
        }
    }

    fn fail(
        &mut self,
        kind: &'static str,
        detail: &str,
        error: Error,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        self.done = true;
        self.exchange.fail(kind, detail);
        Poll::Ready(Some(Err(error)))
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            return this.fail(
                "timeout",
                "the response body did not end within grants.http.timeout",
                Error::HttpResponseTimeout,
            );
        }
        loop {
            let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return this.end(),
                Poll::Ready(Some(Err(e))) => {
                    let detail = crate::net::chain::request_error(&e);
                    return this.fail("io", &detail, Error::HttpResponseIncomplete);
                }
                Poll::Ready(Some(Ok(frame))) => frame,
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
            if this.exchange.received.saturating_add(len) > this.max {
                let max = this.max;
                return this.fail(
                    "body_too_large",
                    &format!("the response body went over grants.http.max_response_body ({max} bytes); the rest was not read"),
                    Error::HttpResponseBodySize(Some(max)),
                );
            }
            this.exchange.received += len;
            let data = match this.decoder.as_mut().map(|d| d.feed(&data)) {
                Some(Err(e)) => return this.undecodable(&e),
                Some(Ok(decoded)) => Bytes::from(decoded),
                None => data,
            };
            let out = match this.scrubber.as_mut() {
                Some(s) => s.feed(&data),
                None => data,
            };
            if out.is_empty() {
                continue;
            }
            return Poll::Ready(Some(Ok(Frame::data(out))));
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        // Scrubbing may change the length: no exact size is promised.
        SizeHint::default()
    }
}
