//! An MCP server compiled to `wasm32-wasip2` as a command (`wasi:cli/run`), speaking MCP's
//! stdio transport: one JSON-RPC message per line on stdin, its answers on stdout, its logs
//! on stderr. No Warden SDK, no Warden interface: only WASI, as any stdio MCP server built
//! for this target is.

#[path = "../../mcp-http/src/server.rs"]
mod server;

use serde_json::Value;
use server::{Mischief, Reply};
use std::io::{BufRead, Write};

fn main() {
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    eprintln!("fixture MCP server on stdio: ready");
    let mut line = String::new();
    loop {
        line.clear();
        if !matches!(input.read_line(&mut line), Ok(n) if n > 0) {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("not JSON: {e}");
                continue;
            }
        };
        let said = match server::reply(&message) {
            Reply::Nothing => Ok(()),
            Reply::Answer { notes, answer } => notes
                .iter()
                .chain([&answer])
                .try_for_each(|m| writeln!(out, "{m}")),
            Reply::Mischief(Mischief::Flood) => {
                let noise = server::noise();
                loop {
                    if writeln!(out, "{noise}").is_err() {
                        break Ok(());
                    }
                }
            }
            Reply::Mischief(Mischief::FloodOne) => {
                let chunk = [b'x'; 16 * 1024];
                loop {
                    if out.write_all(&chunk).is_err() {
                        break Ok(());
                    }
                }
            }
            Reply::Mischief(Mischief::Spin) => loop {
                std::hint::spin_loop();
            },
            Reply::Mischief(Mischief::Garbage) => writeln!(out, "this is not JSON-RPC"),
            Reply::Mischief(Mischief::AskFirst(answer)) => {
                writeln!(out, "{}", server::sampling_request()).and_then(|()| {
                    // The client's answer to the request comes first; then the tool answers.
                    let mut reply = String::new();
                    let _ = input.read_line(&mut reply);
                    eprintln!("the client answered the request: {}", reply.trim());
                    writeln!(out, "{answer}")
                })
            }
        };
        if said.and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}
