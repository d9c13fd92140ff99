//! Reading an answer from a server Warden does not control (a registry, an identity
//! provider's JWKS, a search backend, a remote browser's `/json/version`, a page the fast
//! path fetches): never more than a bound, never past a deadline. A `Content-Length` over the
//! bound is refused before a byte is read, and reading stops at the first byte over it
//! otherwise (a server may send no length, or lie about it). The deadline covers the whole
//! body, so a server that trickles a byte a minute ends at the deadline like a silent one.
//!
//! [`Body`] hands out chunks for callers that do something with each (hash it, write it to a
//! file); [`read`] holds the whole body; [`head`] keeps the start of an error's text and
//! leaves the rest unread.

use bytes::Bytes;
use tokio::time::Instant;

/// Why a bounded read did not give the body.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// Longer than the bound: said so by `Content-Length`, or sent so.
    #[error("larger than {max} bytes")]
    Over { max: u64 },
    /// The deadline passed before the body ended.
    #[error("not complete in time")]
    Deadline,
    /// The transfer failed (reset, the client's own timeout, a decoding error).
    #[error("the transfer failed: {}", super::chain::request_error(.0))]
    Transfer(reqwest::Error),
}

impl BodyError {
    /// A transfer that ended on reqwest's own timeout is a deadline too.
    fn from_transfer(e: reqwest::Error) -> Self {
        if e.is_timeout() {
            Self::Deadline
        } else {
            Self::Transfer(e)
        }
    }
}

/// The body of one response, read in chunks, at most `max` bytes, until `deadline`.
pub struct Body<'a> {
    response: &'a mut reqwest::Response,
    max: u64,
    got: u64,
    deadline: Instant,
}

impl<'a> Body<'a> {
    /// The body of `response`; refused at once when its `Content-Length` is over `max`.
    pub fn new(
        response: &'a mut reqwest::Response,
        max: u64,
        deadline: Instant,
    ) -> Result<Self, BodyError> {
        if response.content_length().is_some_and(|n| n > max) {
            return Err(BodyError::Over { max });
        }
        Ok(Self {
            response,
            max,
            got: 0,
            deadline,
        })
    }

    /// The next chunk, `None` at the end; [`BodyError::Over`] as soon as the chunk that
    /// crosses the bound arrives (it is not handed out).
    pub async fn chunk(&mut self) -> Result<Option<Bytes>, BodyError> {
        let next = tokio::time::timeout_at(self.deadline, self.response.chunk())
            .await
            .map_err(|_| BodyError::Deadline)?
            .map_err(BodyError::from_transfer)?;
        let Some(chunk) = next else {
            return Ok(None);
        };
        self.got = self.got.saturating_add(chunk.len() as u64);
        if self.got > self.max {
            return Err(BodyError::Over { max: self.max });
        }
        Ok(Some(chunk))
    }

    /// Bytes handed out so far.
    pub fn got(&self) -> u64 {
        self.got
    }
}

/// The whole body of `response`, at most `max` bytes, read before `deadline`.
pub async fn read(
    response: &mut reqwest::Response,
    max: u64,
    deadline: Instant,
) -> Result<Vec<u8>, BodyError> {
    let mut body = Body::new(response, max, deadline)?;
    let mut out = Vec::new();
    while let Some(chunk) = body.chunk().await? {
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// The first `max` bytes of the body of `response` (an error's text: the rest is not read),
/// or what arrived of them before `deadline` or a failed transfer.
pub async fn head(response: &mut reqwest::Response, max: usize, deadline: Instant) -> Vec<u8> {
    let mut out = Vec::new();
    while out.len() < max {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                let room = max - out.len();
                out.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
            }
            Ok(Ok(None) | Err(_)) | Err(_) => break,
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// How a test server answers, after its status line and headers.
    #[derive(Clone, Copy)]
    pub(crate) enum Answer {
        /// `n` bytes with a true `Content-Length`.
        Exact(usize),
        /// A `Content-Length` of `said`, then `sent` bytes (a liar), closing after.
        Lying { said: usize, sent: usize },
        /// No length: 1 MiB chunks until the client hangs up (at most `cap` bytes).
        Endless { cap: usize },
        /// No length: one byte every `every`, `n` times.
        Trickle { every: Duration, n: usize },
        /// The status line, then its headers one byte every `every`, never ending them.
        TrickleHead { every: Duration },
    }

    /// A server on loopback that answers every request with `answer`; it counts the body
    /// bytes it managed to write, so a test asserts on what it could send before the client
    /// hung up, not on what the client says.
    pub(crate) struct Server {
        pub url: String,
        pub sent: Arc<AtomicU64>,
    }

    pub(crate) fn serve(answer: Answer, status: &'static str) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let sent = Arc::new(AtomicU64::new(0));
        let counter = sent.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let counter = counter.clone();
                std::thread::spawn(move || {
                    let mut buf = [0u8; 4096];
                    let _ = conn.read(&mut buf);
                    let length = match answer {
                        Answer::Exact(n) => format!("content-length: {n}\r\n"),
                        Answer::Lying { said, .. } => format!("content-length: {said}\r\n"),
                        Answer::Endless { .. }
                        | Answer::Trickle { .. }
                        | Answer::TrickleHead { .. } => String::new(),
                    };
                    let head = match answer {
                        Answer::TrickleHead { .. } => format!("HTTP/1.1 {status}\r\n"),
                        _ => format!("HTTP/1.1 {status}\r\n{length}connection: close\r\n\r\n"),
                    };
                    if conn.write_all(head.as_bytes()).is_err() {
                        return;
                    }
                    let mut write = |bytes: &[u8]| {
                        let ok = conn.write_all(bytes).is_ok() && conn.flush().is_ok();
                        if ok {
                            counter.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                        }
                        ok
                    };
                    let mib = vec![b'x'; 1 << 20];
                    match answer {
                        Answer::Exact(n) | Answer::Lying { sent: n, .. } => {
                            let _ = write(&vec![b'x'; n]);
                        }
                        Answer::Endless { cap } => {
                            let mut left = cap;
                            while left > 0 && write(&mib[..left.min(mib.len())]) {
                                left = left.saturating_sub(mib.len());
                            }
                        }
                        Answer::Trickle { every, n } => {
                            for _ in 0..n {
                                if !write(b"x") {
                                    break;
                                }
                                std::thread::sleep(every);
                            }
                        }
                        Answer::TrickleHead { every } => {
                            let _ = write(b"x-slow: ");
                            while write(b"x") {
                                std::thread::sleep(every);
                            }
                        }
                    }
                });
            }
        });
        Server {
            url: format!("http://{addr}/"),
            sent,
        }
    }

    async fn get(url: &str) -> reqwest::Response {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client")
            .get(url)
            .send()
            .await
            .expect("answered")
    }

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    #[tokio::test]
    async fn an_honest_body_is_read_whole() {
        let server = serve(Answer::Exact(3000), "200 OK");
        let mut resp = get(&server.url).await;
        let body = read(&mut resp, 3000, soon(5000)).await.expect("read");
        assert_eq!(body.len(), 3000);
    }

    #[tokio::test]
    async fn a_declared_length_over_the_bound_is_refused_before_reading() {
        let server = serve(
            Answer::Lying {
                said: 400 << 20,
                sent: 0,
            },
            "200 OK",
        );
        let mut resp = get(&server.url).await;
        assert!(matches!(
            Body::new(&mut resp, 1 << 20, soon(5000)),
            Err(BodyError::Over { max }) if max == 1 << 20
        ));
    }

    #[tokio::test]
    async fn an_endless_body_stops_at_the_first_byte_over() {
        let server = serve(Answer::Endless { cap: 400 << 20 }, "200 OK");
        let mut resp = get(&server.url).await;
        let err = read(&mut resp, 1 << 20, soon(20_000))
            .await
            .expect_err("over");
        assert!(matches!(err, BodyError::Over { .. }), "{err}");
        drop(resp);
        // What the server could write before the client hung up: its socket buffers' worth,
        // far below the 400 MiB it meant to send.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let sent = server.sent.load(Ordering::Relaxed);
        assert!(sent < 32 << 20, "the server sent {} MiB", sent >> 20);
    }

    #[tokio::test]
    async fn a_trickle_ends_at_the_deadline() {
        let server = serve(
            Answer::Trickle {
                every: Duration::from_millis(50),
                n: 10_000,
            },
            "200 OK",
        );
        let mut resp = get(&server.url).await;
        let started = std::time::Instant::now();
        let err = read(&mut resp, 1 << 20, soon(500))
            .await
            .expect_err("deadline");
        assert!(matches!(err, BodyError::Deadline), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(resp);
        // The server learns of the hang-up on its next write: it stops well short of 10,000.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let sent = server.sent.load(Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(server.sent.load(Ordering::Relaxed), sent, "still sending");
    }

    #[tokio::test]
    async fn the_head_of_an_error_keeps_the_start_and_reads_no_further() {
        let server = serve(
            Answer::Endless { cap: 400 << 20 },
            "500 Internal Server Error",
        );
        let mut resp = get(&server.url).await;
        let text = head(&mut resp, 8192, soon(5000)).await;
        assert_eq!(text.len(), 8192);
        let server = serve(
            Answer::Trickle {
                every: Duration::from_millis(50),
                n: 10_000,
            },
            "500 Internal Server Error",
        );
        let mut resp = get(&server.url).await;
        let text = head(&mut resp, 8192, soon(300)).await;
        assert!(text.len() < 8192 && !text.is_empty(), "{}", text.len());
    }
}
