//! The content codings of a response the host must scrub: decoded before the scrubber reads
//! them, so a credential the server echoed inside a compressed body is found, and the plugin
//! reads the decoded body (`Content-Encoding` and `Content-Length` removed). `gzip` and
//! `x-gzip` (several members too), `deflate` (zlib as RFC 9110 says, or raw deflate as some
//! servers send), `br`, `zstd`, and stacked codings (`gzip, br`: decoded `br` first), each
//! decoder writing into a sink that refuses a byte past the cap, so a small body that
//! decodes to gigabytes stops at the cap. `identity` is no coding. Any other coding
//! (`compress`, one the host does not know) cannot be scrubbed: [`Codings::parse`] refuses it.

use flate2::write::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
use std::io::Write;

/// The codings the host decodes, for `Accept-Encoding`.
pub const DECODED: [&str; 5] = ["gzip", "x-gzip", "deflate", "br", "zstd"];

/// zstd's largest window the host accepts: 8 MiB, the bound RFC 9659 sets for HTTP, so a
/// frame cannot make the decoder reserve more.
const ZSTD_WINDOW_LOG_MAX: u32 = 23;

/// Why a response body could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum CodingError {
    /// A coding the host cannot decode, so cannot scrub.
    #[error(
        "the response is in content coding \"{0}\", which the host cannot decode to scrub it of the plugin's credentials; ask the server for gzip, deflate, br, zstd or identity (Accept-Encoding)"
    )]
    Unknown(String),
    /// The decoded body went over the cap.
    #[error("the decoded response body went over {0} bytes")]
    Over(u64),
    /// The body is not valid in its coding.
    #[error("the response body is not valid {coding}: {why}")]
    Corrupt { coding: &'static str, why: String },
}

/// One coding of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Gzip,
    Deflate,
    Brotli,
    Zstd,
}

impl Coding {
    fn name(self) -> &'static str {
        match self {
            Self::Gzip => "gzip",
            Self::Deflate => "deflate",
            Self::Brotli => "br",
            Self::Zstd => "zstd",
        }
    }
}

/// The codings a response names, in the order they were applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Codings(Vec<Coding>);

impl Codings {
    /// The codings of every `Content-Encoding` header, in order; [`CodingError::Unknown`] for
    /// one the host cannot decode.
    pub fn parse(headers: &http::HeaderMap) -> Result<Self, CodingError> {
        let mut out = Vec::new();
        for value in headers.get_all(http::header::CONTENT_ENCODING) {
            let text = String::from_utf8_lossy(value.as_bytes());
            for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let coding = match name.to_ascii_lowercase().as_str() {
                    "identity" => continue,
                    "gzip" | "x-gzip" => Coding::Gzip,
                    "deflate" => Coding::Deflate,
                    "br" => Coding::Brotli,
                    "zstd" => Coding::Zstd,
                    _ => {
                        let shown: String =
                            name.chars().take(40).filter(|c| !c.is_control()).collect();
                        return Err(CodingError::Unknown(shown));
                    }
                };
                out.push(coding);
            }
        }
        Ok(Self(out))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A decoder of these codings whose output stops at `max` bytes.
    pub fn decoder(&self, max: u64) -> Result<Decoder, CodingError> {
        // Undone in the reverse order of their application: the last one applied first.
        let stages = self
            .0
            .iter()
            .rev()
            .map(|c| Stage::new(*c, max))
            .collect::<Result<_, _>>()?;
        Ok(Decoder {
            stages,
            max,
            out: 0,
        })
    }
}

/// Decoded bytes, at most a cap of them: past it every write fails, which stops the decoder.
#[derive(Debug, Default)]
struct Sink {
    buf: Vec<u8>,
    total: u64,
    max: u64,
}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.total = self.total.saturating_add(data.len() as u64);
        if self.total > self.max {
            return Err(std::io::Error::other(OverCap));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A [`Sink`] past its cap, as the error a decoder passes on: told from a decoding error by
/// its type.
#[derive(Debug, thiserror::Error)]
#[error("the decoded body went over its cap")]
struct OverCap;

enum Inner {
    Gzip(Box<MultiGzDecoder<Sink>>),
    Zlib(Box<ZlibDecoder<Sink>>),
    Raw(Box<DeflateDecoder<Sink>>),
    /// `deflate` before its first two bytes show whether a zlib header starts it.
    Undecided(Vec<u8>),
    Brotli(Box<brotli_decompressor::DecompressorWriter<Sink>>),
    Zstd(Box<zstd::stream::write::Decoder<'static, Sink>>),
}

struct Stage {
    coding: Coding,
    inner: Inner,
    max: u64,
    /// Whether any byte came in: an empty body (a `HEAD`, a 204) decodes to nothing.
    seen: bool,
}

impl Stage {
    fn new(coding: Coding, max: u64) -> Result<Self, CodingError> {
        let sink = Sink {
            max,
            ..Sink::default()
        };
        let inner = match coding {
            Coding::Gzip => Inner::Gzip(Box::new(MultiGzDecoder::new(sink))),
            Coding::Deflate => Inner::Undecided(Vec::new()),
            Coding::Brotli => Inner::Brotli(Box::new(
                brotli_decompressor::DecompressorWriter::new(sink, 16 * 1024),
            )),
            Coding::Zstd => {
                let mut d =
                    zstd::stream::write::Decoder::new(sink).map_err(|e| CodingError::Corrupt {
                        coding: "zstd",
                        why: e.to_string(),
                    })?;
                d.window_log_max(ZSTD_WINDOW_LOG_MAX)
                    .map_err(|e| CodingError::Corrupt {
                        coding: "zstd",
                        why: e.to_string(),
                    })?;
                Inner::Zstd(Box::new(d))
            }
        };
        Ok(Self {
            coding,
            inner,
            max,
            seen: false,
        })
    }

    fn error(&mut self, e: &std::io::Error) -> CodingError {
        let over = e.get_ref().is_some_and(|inner| inner.is::<OverCap>());
        if over || self.sink().is_some_and(|s| s.total > s.max) {
            CodingError::Over(self.max)
        } else {
            CodingError::Corrupt {
                coding: self.coding.name(),
                why: e.to_string(),
            }
        }
    }

    fn sink(&mut self) -> Option<&mut Sink> {
        Some(match &mut self.inner {
            Inner::Gzip(d) => d.get_mut(),
            Inner::Zlib(d) => d.get_mut(),
            Inner::Raw(d) => d.get_mut(),
            Inner::Brotli(d) => d.get_mut(),
            Inner::Zstd(d) => d.get_mut(),
            Inner::Undecided(_) => return None,
        })
    }

    /// `deflate` is zlib when its first two bytes are a zlib header (method 8, a checksum
    /// divisible by 31), raw deflate otherwise.
    fn decide(&mut self, force: bool) -> Result<(), CodingError> {
        let Inner::Undecided(start) = &mut self.inner else {
            return Ok(());
        };
        if start.len() < 2 && !force {
            return Ok(());
        }
        let start = std::mem::take(start);
        let zlib = start.len() >= 2
            && start[0] & 0x0F == 8
            && (u16::from(start[0]) << 8 | u16::from(start[1])) % 31 == 0;
        let sink = Sink {
            max: self.max,
            ..Sink::default()
        };
        self.inner = if zlib {
            Inner::Zlib(Box::new(ZlibDecoder::new(sink)))
        } else {
            Inner::Raw(Box::new(DeflateDecoder::new(sink)))
        };
        self.write(&start)
    }

    fn write(&mut self, data: &[u8]) -> Result<(), CodingError> {
        if data.is_empty() {
            return Ok(());
        }
        self.seen = true;
        let result = match &mut self.inner {
            Inner::Gzip(d) => d.write_all(data),
            Inner::Zlib(d) => d.write_all(data),
            Inner::Raw(d) => d.write_all(data),
            Inner::Brotli(d) => d.write_all(data),
            Inner::Zstd(d) => d.write_all(data),
            Inner::Undecided(start) => {
                start.extend_from_slice(data);
                return self.decide(false);
            }
        };
        result.map_err(|e| self.error(&e))
    }

    /// `data` decoded, as far as it goes.
    fn feed(&mut self, data: &[u8]) -> Result<Vec<u8>, CodingError> {
        self.write(data)?;
        Ok(self
            .sink()
            .map(|s| std::mem::take(&mut s.buf))
            .unwrap_or_default())
    }

    /// The end of the input: the rest, decoded; an error when the input stopped short.
    fn finish(&mut self) -> Result<Vec<u8>, CodingError> {
        if !self.seen {
            return Ok(Vec::new());
        }
        self.decide(true)?;
        let result = match &mut self.inner {
            Inner::Gzip(d) => d.try_finish(),
            Inner::Zlib(d) => d.try_finish(),
            Inner::Raw(d) => d.try_finish(),
            Inner::Brotli(d) => d.close(),
            Inner::Zstd(d) => d.do_finish(),
            Inner::Undecided(_) => Ok(()),
        };
        result.map_err(|e| self.error(&e))?;
        Ok(self
            .sink()
            .map(|s| std::mem::take(&mut s.buf))
            .unwrap_or_default())
    }
}

/// The codings of one response undone, stage after stage, while its body streams in.
pub struct Decoder {
    stages: Vec<Stage>,
    max: u64,
    out: u64,
}

/// Holds decoder state only; never prints what it decoded.
impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("stages", &self.stages.len())
            .finish_non_exhaustive()
    }
}

impl Decoder {
    /// The next chunk of the body as it came: what it decodes to so far.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<u8>, CodingError> {
        let mut data = chunk.to_vec();
        for stage in &mut self.stages {
            data = stage.feed(&data)?;
        }
        self.count(data)
    }

    /// The end of the body: the rest it decodes to.
    pub fn finish(&mut self) -> Result<Vec<u8>, CodingError> {
        let mut data = Vec::new();
        for stage in &mut self.stages {
            let mut out = stage.feed(&data)?;
            out.extend(stage.finish()?);
            data = out;
        }
        self.count(data)
    }

    fn count(&mut self, data: Vec<u8>) -> Result<Vec<u8>, CodingError> {
        self.out = self.out.saturating_add(data.len() as u64);
        if self.out > self.max {
            return Err(CodingError::Over(self.max));
        }
        Ok(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codings(value: &str) -> Result<Codings, CodingError> {
        let mut h = http::HeaderMap::new();
        h.insert(
            http::header::CONTENT_ENCODING,
            http::HeaderValue::from_str(value).expect("a value"),
        );
        Codings::parse(&h)
    }

    fn decode(value: &str, body: &[u8], chunk: usize, max: u64) -> Result<Vec<u8>, CodingError> {
        let mut d = codings(value)?.decoder(max)?;
        let mut out = Vec::new();
        for part in body.chunks(chunk.max(1)) {
            out.extend(d.feed(part)?);
        }
        out.extend(d.finish()?);
        Ok(out)
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).expect("written");
        e.finish().expect("finished")
    }

    #[test]
    fn every_coding_and_a_stack_decode_in_any_chunking() {
        let text = b"{\"token\":\"tok-3f9a1c77e2\"}".repeat(50);
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zlib.write_all(&text).expect("written");
        let zlib = zlib.finish().expect("finished");
        let mut raw =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        raw.write_all(&text).expect("written");
        let raw = raw.finish().expect("finished");
        let zstd = zstd::stream::encode_all(&text[..], 3).expect("zstd");
        let stacked = zstd::stream::encode_all(&gzip(&text)[..], 3).expect("zstd");
        let cases: [(&str, Vec<u8>); 6] = [
            ("gzip", gzip(&text)),
            ("X-GZIP", gzip(&text)),
            ("deflate", zlib),
            ("deflate", raw),
            ("zstd", zstd),
            ("gzip, identity, zstd", stacked),
        ];
        for (coding, body) in &cases {
            for chunk in [1, 7, 4096] {
                let out = decode(coding, body, chunk, 1 << 20).expect(coding);
                assert_eq!(out, text, "{coding} in chunks of {chunk}");
            }
        }
        // Two gzip members, as `cat a.gz b.gz` makes.
        let mut two = gzip(b"first ");
        two.extend(gzip(b"second"));
        assert_eq!(decode("gzip", &two, 5, 100).expect("two"), b"first second");
    }

    #[test]
    fn a_bomb_stops_at_the_cap_and_bad_codings_are_refused() {
        let bomb = gzip(&vec![0u8; 64 << 20]);
        assert!(bomb.len() < 128 << 10, "{}", bomb.len());
        let err = decode("gzip", &bomb, 16 << 10, 256 << 10).expect_err("over");
        assert!(matches!(err, CodingError::Over(_)), "{err}");
        assert!(matches!(codings("compress"), Err(CodingError::Unknown(c)) if c == "compress"));
        assert!(matches!(
            codings("gzip, sdch"),
            Err(CodingError::Unknown(_))
        ));
        assert!(codings("identity").expect("identity").is_empty());
        assert!(decode("gzip", b"", 4, 100).expect("empty").is_empty());
        let err = decode("gzip", b"not gzip at all", 4, 100).expect_err("corrupt");
        assert!(matches!(err, CodingError::Corrupt { .. }), "{err}");
        let cut = gzip(b"hello world, hello world");
        let err = decode("gzip", &cut[..cut.len() - 6], 4, 100).expect_err("cut short");
        assert!(matches!(err, CodingError::Corrupt { .. }), "{err}");
    }
}
