//! Test guest `hostile`: tools that misbehave on purpose, to test Warden's sandbox and limits.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use warden_sdk::capture::{self, HttpRequest};
use warden_sdk::context;
use warden_sdk::prelude::*;

const MIB: usize = 1 << 20;

fn spin(_: NoArgs) -> Result<String, ToolError> {
    loop {
        std::hint::black_box(());
    }
}

fn spin_checking(_: NoArgs) -> Result<String, ToolError> {
    while !context::cancelled() {
        std::hint::black_box(());
    }
    Ok("stopped".into())
}

fn alloc_bomb(_: NoArgs) -> Result<String, ToolError> {
    let mut memory: Vec<u8> = Vec::new();
    loop {
        // `resize` writes every new byte, so the pages are really touched.
        memory.resize(memory.len() + MIB, 0xA5);
        std::hint::black_box(&memory);
    }
}

fn panic(_: NoArgs) -> Result<String, ToolError> {
    panic!("boom")
}

static COUNT: AtomicU64 = AtomicU64::new(0);

fn count(_: NoArgs) -> Result<String, ToolError> {
    Ok((COUNT.fetch_add(1, Ordering::Relaxed) + 1).to_string())
}

/// The last caller's text, kept in the instance's memory on purpose: a plugin that would
/// hand one client what another sent if an instance ever served two calls.
static LAST: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

#[derive(Deserialize, JsonSchema)]
struct RememberArgs {
    /// What to keep.
    text: String,
}

fn remember(args: RememberArgs) -> Result<String, ToolError> {
    let previous = LAST
        .lock()
        .map_err(|_| ToolError::failed("poisoned"))?
        .replace(args.text);
    Ok(previous.unwrap_or_else(|| "(nothing)".into()))
}

#[derive(Deserialize, JsonSchema)]
struct PathArgs {
    /// The file to read.
    path: String,
}

fn read_file(args: PathArgs) -> Result<String, ToolError> {
    std::fs::read_to_string(&args.path).map_err(ToolError::failed)
}

#[derive(Deserialize, JsonSchema)]
struct AddrArgs {
    /// `host:port` to connect to.
    addr: String,
}

fn connect(args: AddrArgs) -> Result<String, ToolError> {
    match std::net::TcpStream::connect(&args.addr) {
        Ok(_) => Ok(format!("connected to {}", args.addr)),
        Err(e) => Err(ToolError::failed(format!("connect {}: {e}", args.addr))),
    }
}

#[derive(Deserialize, JsonSchema)]
struct SayArgs {
    /// What to write to stderr and to the host's log, as it is.
    text: String,
}

/// Hand the host text to print: a plugin forging log lines and terminal escapes.
fn say(args: SayArgs) -> Result<String, ToolError> {
    context::log(context::Level::Warning, &args.text);
    let mut stderr = std::io::stderr().lock();
    stderr
        .write_all(args.text.as_bytes())
        .and_then(|()| stderr.write_all(b"\n"))
        .map_err(ToolError::failed)?;
    Ok(args.text)
}

#[derive(Deserialize, JsonSchema)]
struct EnvArgs {
    /// The environment variable to read.
    name: String,
}

fn read_env(args: EnvArgs) -> Result<String, ToolError> {
    Ok(std::env::var(&args.name).unwrap_or_else(|_| "unset".into()))
}

#[derive(Deserialize, JsonSchema)]
struct UrlArgs {
    /// The URL to fetch.
    url: String,
    /// Request headers to send, as name and value pairs.
    #[serde(default)]
    headers: Vec<(String, String)>,
}

fn fetch(args: UrlArgs) -> Result<String, ToolError> {
    let request = args
        .headers
        .into_iter()
        .fold(HttpRequest::get(args.url), |r, (name, value)| {
            r.header(name, value)
        });
    let response = capture::http_get(request)?;
    Ok(format!("{}\n{}", response.status, response.text()))
}

#[derive(Deserialize, JsonSchema)]
struct BytesArgs {
    /// How many bytes to produce.
    bytes: u64,
}

fn flood(args: BytesArgs) -> Result<String, ToolError> {
    let bytes = usize::try_from(args.bytes).map_err(ToolError::invalid_arguments)?;
    Ok("x".repeat(bytes))
}

fn stderr_flood(args: BytesArgs) -> Result<String, ToolError> {
    let chunk = [b'e'; 64 * 1024];
    let mut left = args.bytes;
    let mut stderr = std::io::stderr().lock();
    while left > 0 {
        let n = usize::try_from(left).map_or(chunk.len(), |l| l.min(chunk.len()));
        stderr.write_all(&chunk[..n]).map_err(ToolError::failed)?;
        left -= n as u64;
    }
    Ok("done".into())
}

#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    /// How many times.
    count: u32,
}

/// Sockets this instance managed to open, kept open on purpose.
static KEPT: std::sync::Mutex<Vec<std::net::TcpStream>> = std::sync::Mutex::new(Vec::new());

fn sockets(args: CountArgs) -> Result<String, ToolError> {
    let (mut opened, mut refused) = (0, 0);
    for _ in 0..args.count {
        match std::net::TcpStream::connect("127.0.0.1:9") {
            Ok(s) => {
                opened += 1;
                if let Ok(mut kept) = KEPT.lock() {
                    kept.push(s);
                }
            }
            Err(_) => refused += 1,
        }
    }
    Ok(format!("opened {opened}, refused {refused}"))
}

#[derive(Deserialize, JsonSchema)]
struct FloodArgs {
    /// How many messages.
    count: u32,
    /// Bytes per message.
    bytes: u32,
}

fn log_flood(args: FloodArgs) -> Result<String, ToolError> {
    let message = "l".repeat(args.bytes as usize);
    for _ in 0..args.count {
        context::log(context::Level::Info, &message);
    }
    Ok("done".into())
}

fn progress_flood(args: CountArgs) -> Result<String, ToolError> {
    for i in 0..args.count {
        context::progress(f64::from(i), Some(f64::from(args.count)), Some("step"));
    }
    context::progress(
        f64::from(args.count),
        Some(f64::from(args.count)),
        Some("end"),
    );
    Ok("done".into())
}

/// Create `count` WASI pollables and never drop them: each is an entry in the host's table.
fn handles(args: CountArgs) -> Result<String, ToolError> {
    for _ in 0..args.count {
        std::mem::forget(wasip2::clocks::monotonic_clock::subscribe_duration(
            1_000_000_000,
        ));
    }
    Ok(format!("kept {} handles", args.count))
}

/// Ask the user `count` times in one call.
fn ask_flood(args: CountArgs) -> Result<String, ToolError> {
    let schema = warden_sdk::serde_json::json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    let (mut asked, mut refused) = (0, 0);
    for _ in 0..args.count {
        match context::elicit("again?", &schema) {
            Ok(_) => asked += 1,
            Err(_) => refused += 1,
        }
    }
    Ok(format!("asked {asked}, refused {refused}"))
}

fn plugin() -> Plugin {
    Plugin::new()
        .tool(Tool::new("spin", spin).description("Loop forever without calling the host."))
        .tool(
            Tool::new("spin_checking", spin_checking)
                .description("Loop until the call is cancelled, then return \"stopped\"."),
        )
        .tool(
            Tool::new("alloc_bomb", alloc_bomb)
                .description("Allocate and touch memory in 1 MiB steps until it runs out."),
        )
        .tool(Tool::new("panic", panic).description("Panic with the message \"boom\"."))
        .tool(
            Tool::new("say", say)
                .description("Write `text` to stderr and the host log as it is, and return it."),
        )
        .tool(Tool::new("remember", remember).description(
            "Keep `text` in a global of the instance and return the text kept before it.",
        ))
        .tool(Tool::new("count", count).description(
            "Increment this instance's call counter and return it (\"1\", \"2\", ...).",
        ))
        .tool(
            Tool::new("read_file", read_file)
                .description("Read a file with std::fs (WASI filesystem) and return its text."),
        )
        .tool(
            Tool::new("connect", connect)
                .description("Open a TCP connection with std::net (WASI sockets)."),
        )
        .tool(
            Tool::new("read_env", read_env)
                .description("Return an environment variable's value, or \"unset\"."),
        )
        .tool(Tool::new("fetch", fetch).description(
            "Fetch a URL through the capture capability; returns the status and the body.",
        ))
        .tool(Tool::new("flood", flood).description("Return a text of `bytes` times the letter x."))
        .tool(
            Tool::new("stderr_flood", stderr_flood)
                .description("Write `bytes` bytes to stderr, then return \"done\"."),
        )
        .tool(
            Tool::new("sockets", sockets).description(
                "Try to open `count` TCP sockets with std::net and keep those that open.",
            ),
        )
        .tool(
            Tool::new("log_flood", log_flood)
                .description("Call context.log `count` times with `bytes` bytes each."),
        )
        .tool(
            Tool::new("ask_flood", ask_flood)
                .description("Ask the user (elicitation) `count` times in one call."),
        )
        .tool(Tool::new("handles", handles).description(
            "Create `count` WASI pollables and keep them (entries in the host's resource table).",
        ))
        .tool(
            Tool::new("progress_flood", progress_flood)
                .description("Report progress `count` times, then once more at the end."),
        )
}

warden_sdk::export_plugin!(plugin);
