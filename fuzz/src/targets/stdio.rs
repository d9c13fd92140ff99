//! MCP over stdio end to end in-process: the line framing (oversized, blank, non-JSON
//! lines), then JSON-RPC dispatch by rmcp and Warden's handlers, down to real plugins (the
//! echo and conformance test guests). Whatever the client sends, every line the server
//! writes is one JSON-RPC message, and the session ends when the input does.

use crate::Target;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use warden::app::App;
use warden::mcp::WardenServer;
use warden::runtime::registry::Registry;

pub const TARGET: Target = Target {
    name: "stdio",
    about: "stdio framing + JSON-RPC dispatch into tools, resources, prompts, completion, logging",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"\"jsonrpc\":\"2.0\"",
        b"\"id\":",
        b"\"method\":",
        b"tools/call",
        b"tools/list",
        b"resources/read",
        b"resources/templates/list",
        b"resources/subscribe",
        b"prompts/get",
        b"completion/complete",
        b"logging/setLevel",
        b"notifications/cancelled",
        b"ping",
        b"initialize",
        b"\"_meta\"",
        b"\"progressToken\"",
        b"\"cursor\"",
        b"test://",
        b"echo",
    ],
    contained: &[],
    run,
};

const INIT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

struct Fixture {
    runtime: tokio::runtime::Runtime,
    registry: Arc<Registry>,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = format!(
            "[server]\naudit_log = \"audit.jsonl\"\ncache_dir = \"cache\"\n\n\
             [[plugin]]\nname = \"echo\"\nsource = \"{}\"\nlimits = {{ call_timeout = \"2s\" }}\n\n\
             [[plugin]]\nname = \"conformance\"\nsource = \"{}\"\nlimits = {{ call_timeout = \"2s\" }}\n",
            warden_tests::ECHO_WASM,
            warden_tests::CONFORMANCE_WASM,
        );
        let path = dir.path().join("warden.toml");
        std::fs::write(&path, text).expect("write the manifest");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let app = runtime
            .block_on(App::load(Some(&path)))
            .expect("the fuzz manifest loads");
        Fixture {
            runtime,
            registry: app.registry,
            _dir: dir,
        }
    })
}

fn run(input: &[u8]) -> u64 {
    let f = fixture();
    let mut bytes = Vec::new();
    // Most inputs start a session first, so that they reach dispatch; `RAW` ones do not.
    match input.strip_prefix(b"RAW\n") {
        Some(raw) => bytes.extend_from_slice(raw),
        None => {
            bytes.extend_from_slice(INIT.as_bytes());
            bytes.extend_from_slice(input);
        }
    }
    let server = WardenServer::new(f.registry.clone());
    let out = f.runtime.block_on(async move {
        let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut from_server) = tokio::io::duplex(1 << 16);
        let serve = tokio::spawn(warden::mcp::stdio::serve_on(server, server_in, server_out));
        let write = tokio::spawn(async move {
            let _ = to_server.write_all(&bytes).await;
            let _ = to_server.shutdown().await;
        });
        let mut out = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(20), from_server.read_to_end(&mut out));
        let ended = read.await.is_ok();
        let _ = write.await;
        assert!(
            ended,
            "the session did not end within 20 s of its input's end"
        );
        let _ = serve.await;
        out
    });
    let mut summary = 0u64;
    for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let msg: serde_json::Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "the server wrote a line that is not JSON ({e}): {}",
                String::from_utf8_lossy(line)
            )
        });
        assert_eq!(msg["jsonrpc"], "2.0", "not JSON-RPC 2.0: {msg}");
        let code = msg["error"]["code"].as_i64().unwrap_or(0);
        summary = summary
            .wrapping_mul(31)
            .wrapping_add(code.unsigned_abs() + u64::from(msg["result"].is_object()));
    }
    summary
}

const SEEDS: &[&str] = &[
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{\"steps\":3},\"_meta\":{\"progressToken\":\"p\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/templates/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":{\"uri\":\"test://static-text\"}}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\",\"params\":{\"name\":\"test_prompt_with_arguments\",\"arguments\":{\"arg1\":\"a\",\"arg2\":\"b\"}}}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"test_prompt_with_arguments\"},\"argument\":{\"name\":\"arg1\",\"value\":\"a\"}}}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}\n{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://static-text\"}}\n{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":\"test://static-text\"}}\n",
    "not json\n\n   \n{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"nope\"}\n[{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\"}]\n",
    "RAW\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n",
    "RAW\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\"}\n",
];
