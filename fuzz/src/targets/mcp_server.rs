//! What an MCP server component writes, read by the host as its client: the stdio framing,
//! JSON-RPC matching of answers to requests, notifications and the server's own requests,
//! and the conversion of every answer (listings, tool results, prompts, reads,
//! completions) into the plugin types; and the server-sent events of an HTTP server's
//! response. Whatever the server writes, the host ends with an answer, a tool error or a
//! fault, never holds a message past its bound, and never panics.

use crate::Target;
use std::sync::OnceLock;
use warden::runtime::bindings::CompletionRef;
use warden::runtime::entry::{Entry, Exit};
use warden::runtime::mcp_server::{frames, replay};

pub const TARGET: Target = Target {
    name: "mcp_server",
    about: "an MCP server component's output: stdio lines, SSE events, JSON-RPC answers into plugin types",
    seeds: || super::support::seeds(SEEDS),
    dict: &[
        b"\"jsonrpc\":\"2.0\"",
        b"\"id\":",
        b"\"result\":",
        b"\"error\":",
        b"\"method\":",
        b"\"capabilities\":",
        b"\"tools\":",
        b"\"prompts\":",
        b"\"resources\":",
        b"\"inputSchema\":{\"type\":\"object\"}",
        b"\"content\":",
        b"\"structuredContent\":",
        b"\"isError\":true",
        b"\"nextCursor\":",
        b"notifications/progress",
        b"notifications/message",
        b"sampling/createMessage",
        b"\"type\":\"image\"",
        b"\"data\":\"AAEC\"",
        b"data: ",
        b"\n\n",
    ],
    contained: &[],
    run,
};

/// The bound of the replays: small, so that floods are cheap to reach.
const OUTPUT_LIMIT: u64 = 4096;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{},"resources":{},"completions":{}}}}"#;

const SEEDS: &[&str] = &[
    // mode 0: the listing at load
    concat!(
        "0",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{},"resources":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":4,"result":{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}]}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":5,"result":{"resources":[{"uri":"a://b","name":"b"}]}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":6,"result":{"resourceTemplates":[{"uriTemplate":"a://{x}","name":"x"}]}}"#,
        "\n"
    ),
    // mode 1: a tool call
    concat!(
        "1",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"total":2}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"5"},{"type":"image","mimeType":"image/png","data":"AAEC"},{"type":"resource","resource":{"uri":"a://b","blob":"AA=="}}],"structuredContent":{"sum":5}}}"#,
        "\n"
    ),
    concat!(
        "1",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}"#,
        "\n"
    ),
    // modes 2-4: a read, a prompt, a completion
    concat!(
        "2",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}}}}"#,
        "\n",
        r#"[{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"a://b","text":"t"}]}}]"#,
        "\n"
    ),
    concat!(
        "3",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"prompts":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"result":{"messages":[{"role":"user","content":{"type":"resource_link","uri":"a://b","name":"b"}}]}}"#,
        "\n"
    ),
    concat!(
        "4",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"completions":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"result":{"completion":{"values":["Ada"],"total":1,"hasMore":false}}}"#,
        "\n"
    ),
    // mode 5: server-sent events
    "5: ping\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1}\n\nretry: 3\n\ndata: x",
];

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

fn run(input: &[u8]) -> u64 {
    let Some((&mode, output)) = input.split_first() else {
        return 0;
    };
    if mode == b'5' {
        return events(output);
    }
    let pairs = [("who".to_string(), "Ada".to_string())];
    let target = CompletionRef::Prompt("greet".into());
    let entry = match mode {
        b'0' => Entry::Describe,
        b'1' => Entry::Tool {
            name: "add",
            arguments: r#"{"a":2,"b":3}"#,
        },
        b'2' => Entry::ReadResource { uri: "a://b" },
        b'3' => Entry::GetPrompt {
            name: "greet",
            arguments: &pairs,
        },
        _ => Entry::Complete {
            target: &target,
            argument: "who",
            value: "A",
            context: &pairs,
        },
    };
    // A stdio server's output always starts somewhere: without the `initialize` answer
    // every mutant would end at the first request.
    let output = if output.is_empty() {
        format!("{INIT}\n").into_bytes()
    } else {
        output.to_vec()
    };
    let outcome = runtime().block_on(async {
        tokio::time::timeout(
            std::time::Duration::from_secs(2),
            replay(output, entry, OUTPUT_LIMIT),
        )
        .await
        .expect("a replay ends when the output does")
    });
    match outcome {
        Ok(Ok(Exit::Listing(l))) => {
            1 + (l.tools.len() + l.prompts.len() + l.resources.len() + l.templates.len()) as u64
        }
        Ok(Ok(Exit::Tool(t))) => 100 + t.content.len() as u64,
        Ok(Ok(_)) => 200,
        Ok(Err(_)) => 300,
        Err(fault) => 400 + (fault.len() as u64 % 50),
    }
}

/// Server-sent events: every event within the bound, none lost when the stream ends.
fn events(stream: &[u8]) -> u64 {
    const BOUND: usize = 256;
    let mut events = frames::Events::new(BOUND);
    let mut seen = 0u64;
    for piece in stream.chunks(7) {
        if events.feed(piece).is_err() {
            return 1000;
        }
        loop {
            match events.next_event() {
                Ok(Some(data)) => {
                    assert!(data.len() <= BOUND, "an event past the bound was kept");
                    seen += 1;
                }
                Ok(None) => break,
                Err(_) => return 1001,
            }
        }
    }
    seen + u64::from(events.finish().is_some()) * 10
}
