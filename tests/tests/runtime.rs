//! The runtime's containment rules, tested without a transport: hostile guests are loaded
//! through the registry (as `warden serve` loads them) and each rule is asserted on the
//! result, the audit log and the process itself.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use warden::app::App;
use warden::capabilities::conversation::Conversation;
use warden::runtime::LogLevel;
use warden::runtime::bindings::{ContentBlock, ResourceBody, ToolError};
use warden::runtime::plugin::CallFailure;
use warden::runtime::{CallContext, CallEvents};
use warden_tests::{ECHO_WASM, HOSTILE_WASM, RESOURCES_WASM};

type Boxed = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A manifest in a fresh directory: echo (its `count` denied) and hostile with tight limits.
struct Fixture {
    dir: tempfile::TempDir,
    app: App,
}

impl Fixture {
    async fn new(extra: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = format!(
            "[server]\naudit_log = \"audit.jsonl\"\ncache_dir = \"cache\"\n\n\
             [[plugin]]\nname = \"echo\"\nsource = \"{ECHO_WASM}\"\ntools = {{ deny = [\"count\"] }}\n\n\
             [[plugin]]\nname = \"hostile\"\nsource = \"{HOSTILE_WASM}\"\n\
             limits = {{ call_timeout = \"2s\", memory = \"64MiB\", output = \"64KiB\" }}\n{extra}\n\n\
             [[plugin]]\nname = \"resources\"\nsource = \"{RESOURCES_WASM}\"\n\
             limits = {{ call_timeout = \"2s\", output = \"64KiB\" }}\n"
        );
        let path = dir.path().join("warden.toml");
        std::fs::write(&path, text).expect("write manifest");
        let app = App::load(Some(&path)).await.expect("manifest loads");
        Self { dir, app }
    }

    async fn call(&self, tool: &str, args: &str) -> Result<String, CallFailure> {
        self.call_with(tool, args, CallContext::default()).await
    }

    async fn call_with(
        &self,
        tool: &str,
        args: &str,
        call: CallContext,
    ) -> Result<String, CallFailure> {
        let report = self
            .app
            .registry
            .call(tool, args, call)
            .await
            .expect("the tool is routed");
        report.result.map(|out| {
            out.content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect()
        })
    }

    async fn echo_answers(&self) {
        let out = self.call("echo", r#"{"text": "still here"}"#).await;
        assert!(
            matches!(&out, Ok(t) if t.contains("still here")),
            "echo: {out:?}"
        );
    }

    fn audit(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(self.dir.path().join("audit.jsonl")).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).expect("audit lines are JSON"))
            .collect()
    }

    fn lines(&self, event: &str, tool: &str) -> Vec<serde_json::Value> {
        self.audit()
            .into_iter()
            .filter(|l| l["event"] == event && l["tool"] == tool)
            .collect()
    }
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_are_refused_audited_and_cost_no_descriptor() {
    let f = Fixture::new("").await;
    let before = open_fds();
    let out = f
        .call("sockets", r#"{"count": 20000}"#)
        .await
        .expect("the tool runs");
    assert_eq!(out, "opened 0, refused 20000");
    let after = open_fds();
    assert!(
        after <= before + 4,
        "open descriptors grew from {before} to {after}"
    );
    let denied = f.lines("capability_denied", "sockets");
    assert!(!denied.is_empty(), "socket refusals are audited");
    assert!(
        denied.len() <= 21,
        "20,000 refusals wrote {} lines; they are summed up after 20",
        denied.len()
    );
    assert!(denied.iter().all(|d| d["capability"] == "wasi:sockets"
        || d["target"].as_str().is_some_and(|t| t.ends_with("more"))));
    f.echo_answers().await;
}

/// Counts what reaches the client.
#[derive(Default)]
struct Counter {
    logs: AtomicUsize,
    progress: AtomicUsize,
    last_done: std::sync::Mutex<f64>,
}

impl CallEvents for Counter {
    fn progress(&self, done: f64, _total: Option<f64>, _message: Option<String>) -> Boxed {
        self.progress.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut last) = self.last_done.lock() {
            *last = done;
        }
        Box::pin(async {})
    }

    fn log(&self, _plugin: &str, _level: LogLevel, _message: String) -> Boxed {
        self.logs.fetch_add(1, Ordering::Relaxed);
        Box::pin(async {})
    }
}

fn with_events(events: &Arc<Counter>) -> CallContext {
    CallContext {
        events: Some(events.clone() as Arc<dyn CallEvents>),
        ..CallContext::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_flood_is_bounded() {
    let f = Fixture::new("").await;
    let events = Arc::new(Counter::default());
    let out = f
        .call_with(
            "log_flood",
            r#"{"count": 100000, "bytes": 2000}"#,
            with_events(&events),
        )
        .await;
    assert_eq!(out.expect("the flood returns"), "done");
    let logs = events.logs.load(Ordering::Relaxed);
    // 200 MB asked for; the call's budget is 64 KiB of messages, plus one note.
    assert!(
        (2..=40).contains(&logs),
        "{logs} log notifications reached the client"
    );
    f.echo_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_progress_flood_is_bounded_and_the_end_still_arrives() {
    let f = Fixture::new("").await;
    let events = Arc::new(Counter::default());
    let out = f
        .call_with(
            "progress_flood",
            r#"{"count": 100000}"#,
            with_events(&events),
        )
        .await;
    assert_eq!(out.expect("the flood returns"), "done");
    let sent = events.progress.load(Ordering::Relaxed);
    assert!((2..=1_001).contains(&sent), "{sent} progress notifications");
    let last = events.last_done.lock().map(|l| *l).unwrap_or_default();
    assert!(
        (last - 100_000.0).abs() < f64::EPSILON,
        "last progress {last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_reads_are_capped_timed_out_cancelled_and_audited() {
    let f = Fixture::new("").await;
    let registry = &f.app.registry;

    let small = registry
        .read_resource("hostile://flood/100", CallContext::default())
        .await
        .expect("the hostile plugin owns hostile://");
    assert!(small.result.is_ok(), "a small read works");

    // Over limits.output (64 KiB): refused whole.
    let big = registry
        .read_resource("hostile://flood/8000000", CallContext::default())
        .await
        .expect("routed");
    assert!(
        matches!(
            big.result,
            Err(CallFailure::OutputTooLarge(size, 65_536)) if size >= 8_000_000
        ),
        "8 MB read: {:?}",
        big.result.as_ref().err()
    );

    // A read that never ends meets call_timeout (2 s).
    let started = Instant::now();
    let spin = registry
        .read_resource("hostile://spin", CallContext::default())
        .await
        .expect("routed");
    assert!(
        matches!(spin.result, Err(CallFailure::Timeout(_))),
        "{:?}",
        spin.result.as_ref().err()
    );
    assert!(started.elapsed() < Duration::from_secs(10));

    // ... and the client's cancellation.
    let call = CallContext::default();
    let cancel = call.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let cancelled = registry
        .read_resource("hostile://spin", call)
        .await
        .expect("routed");
    assert!(
        matches!(cancelled.result, Err(CallFailure::Cancelled)),
        "{:?}",
        cancelled.result.as_ref().err()
    );
    assert!(started.elapsed() < Duration::from_secs(1));

    // The plugin answers again with a fresh instance.
    let again = registry
        .read_resource("hostile://flood/10", CallContext::default())
        .await
        .expect("routed");
    assert!(again.result.is_ok());

    let outcomes: Vec<String> = f
        .lines("resource_read", "resources/read")
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                l["target"].as_str().unwrap_or(""),
                l["outcome"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            "hostile://flood/100 ok",
            "hostile://flood/8000000 tool_error",
            "hostile://spin timeout",
            "hostile://spin cancelled",
            "hostile://flood/10 ok",
        ]
    );
    f.echo_answers().await;
}

/// A call of `client`'s conversation (the stateless wire's: one per authenticated client).
fn of(client: &str) -> CallContext {
    CallContext {
        conversation: Conversation::client(Some(client)),
        ..CallContext::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_serves_one_conversation_and_never_another() {
    // Both guests keep the last text in a global and return the one kept before: through
    // a tool (`remember`) and through a resource read (`hostile://remember/{text}`).
    let f = Fixture::new("").await;
    let tool = |client: &'static str, text: &'static str| {
        let f = &f;
        async move {
            f.call_with("remember", &format!(r#"{{"text": "{text}"}}"#), of(client))
                .await
                .expect("remember answers")
        }
    };
    assert_eq!(tool("alice", "a1").await, "(nothing)");
    assert_eq!(
        tool("alice", "a2").await,
        "a1",
        "a conversation's instance is reused"
    );
    assert_eq!(tool("bob", "b1").await, "(nothing)");
    assert_eq!(tool("alice", "a3").await, "a2");
    assert_eq!(tool("bob", "b2").await, "b1");
    // A trap drops the conversation's instance; its next call starts from nothing.
    assert!(matches!(
        f.call_with("panic", "{}", of("alice")).await,
        Err(CallFailure::Crashed(_))
    ));
    assert_eq!(tool("alice", "a4").await, "(nothing)");
    assert_eq!(tool("bob", "b3").await, "b2");

    let read = |client: &'static str, text: &'static str| {
        let f = &f;
        async move {
            let report = f
                .app
                .registry
                .read_resource(&format!("hostile://remember/{text}"), of(client))
                .await
                .expect("routed");
            let contents = report.result.expect("remember reads");
            match &contents[..] {
                [resource] => match &resource.body {
                    ResourceBody::Text(text) => text.clone(),
                    ResourceBody::Blob(_) => panic!("a blob"),
                },
                other => panic!("{} resources", other.len()),
            }
        }
    };
    assert_eq!(read("alice", "ra1").await, "(nothing)");
    assert_eq!(read("bob", "rb1").await, "(nothing)");
    assert_eq!(read("alice", "ra2").await, "ra1");
    assert_eq!(read("bob", "rb2").await, "rb1");
    // The local client (stdio) is a conversation of its own too.
    assert_eq!(read("carol", "rc1").await, "(nothing)");
    let local = f
        .app
        .registry
        .read_resource("hostile://remember/local", CallContext::default())
        .await
        .expect("routed")
        .result
        .expect("remember reads");
    assert!(
        matches!(&local[0].body, ResourceBody::Text(text) if text == "(nothing)"),
        "{local:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_plugins_serving_one_uri_do_not_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = format!(
        "[server]\naudit_log = \"audit.jsonl\"\ncache_dir = \"cache\"\n\n\
         [[plugin]]\nname = \"first\"\nsource = \"{RESOURCES_WASM}\"\n\n\
         [[plugin]]\nname = \"second\"\nsource = \"{RESOURCES_WASM}\"\n"
    );
    let path: PathBuf = dir.path().join("warden.toml");
    std::fs::write(&path, text).expect("write manifest");
    let Err(error) = App::load(Some(Path::new(&path))).await else {
        panic!("two plugins claiming hostile:// loaded")
    };
    let message = format!("{error:#}");
    assert!(
        message.contains("'second'")
            && message.contains("'first'")
            && message.contains("hostile://"),
        "{message}"
    );
    assert!(
        message.contains("warden.toml:"),
        "the error names the manifest line: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_and_hop_by_hop_headers_are_the_hosts() {
    let server = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    server.set_nonblocking(true).expect("nonblocking");
    let port = server.local_addr().expect("address").port();
    let f = Fixture::new("grants.capture = { http_hosts = [\"127.0.0.1:*\"] }\n").await;
    for header in [
        "Host",
        "connection",
        "Transfer-Encoding",
        "Proxy-Authorization",
        "upgrade",
    ] {
        let args = format!(
            r#"{{"url": "http://127.0.0.1:{port}/", "headers": [["{header}", "admin.internal.example"]]}}"#
        );
        let out = f.call("fetch", &args).await;
        let Err(CallFailure::Tool(ToolError::AccessDenied(message))) = &out else {
            panic!("{header}: {out:?}")
        };
        assert!(message.contains("set by the host only"), "{message}");
    }
    assert!(
        server.accept().is_err(),
        "a request with a forbidden header reached the server"
    );
    let denied = f.lines("capability_denied", "fetch");
    assert_eq!(denied.len(), 5, "{denied:?}");
    assert!(denied.iter().all(|d| d["capability"] == "capture.http"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handles_are_capped_per_instance() {
    let f = Fixture::new("").await;
    let kept = f.call("handles", r#"{"count": 1000}"#).await;
    assert_eq!(kept.expect("a thousand handles fit"), "kept 1000 handles");
    let flood = f.call("handles", r#"{"count": 50000}"#).await;
    assert!(
        matches!(&flood, Err(CallFailure::Crashed(_))),
        "50,000 kept handles: {flood:?}"
    );
    // A fresh instance, and the other plugins, answer.
    let again = f.call("handles", r#"{"count": 10}"#).await;
    assert_eq!(again.expect("a fresh instance"), "kept 10 handles");
    f.echo_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_completions_go_through_the_executor_and_are_audited() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = format!(
        "[server]\naudit_log = \"audit.jsonl\"\ncache_dir = \"cache\"\n\n\
         [[plugin]]\nname = \"fixture\"\nsource = \"{}\"\ntool_prefix = \"c_\"\n",
        warden_tests::CONFORMANCE_WASM
    );
    let path = dir.path().join("warden.toml");
    std::fs::write(&path, text).expect("write manifest");
    let app = App::load(Some(&path)).await.expect("loads");
    let registry = &app.registry;
    assert!(
        registry
            .prompts()
            .iter()
            .any(|p| p.public_name == "c_test_simple_prompt"),
        "prompt names carry the tool prefix"
    );

    let args = [
        ("arg1".to_string(), "hello".to_string()),
        ("arg2".to_string(), "world".to_string()),
    ];
    let filled = registry
        .get_prompt(
            "c_test_prompt_with_arguments",
            &args,
            CallContext::default(),
        )
        .await
        .expect("routed")
        .result
        .expect("filled");
    assert!(matches!(
        &filled.messages[0].content,
        ContentBlock::Text(t) if t.contains("arg1='hello'")
    ));
    let missing = registry
        .get_prompt("c_test_prompt_with_arguments", &[], CallContext::default())
        .await
        .expect("routed")
        .result;
    assert!(
        matches!(&missing, Err(CallFailure::Tool(ToolError::InvalidArguments(m))) if m.contains("arg1")),
        "{:?}",
        missing.err()
    );
    assert!(
        registry
            .get_prompt("test_simple_prompt", &[], CallContext::default())
            .await
            .is_none(),
        "the unprefixed name is not served"
    );

    use warden::runtime::executor::CompletionTarget;
    let done = registry
        .complete(
            CompletionTarget::Prompt("c_test_prompt_with_arguments"),
            "arg1",
            "test",
            &[],
            CallContext::default(),
        )
        .await
        .expect("routed")
        .result
        .expect("completed");
    assert_eq!(done.values, ["test", "testing", "test-value"]);
    let by_template = registry
        .complete(
            CompletionTarget::ResourceTemplate("test://template/{id}/data"),
            "id",
            "1",
            &[],
            CallContext::default(),
        )
        .await
        .expect("routed to the template's owner")
        .result
        .expect("completed");
    assert_eq!(by_template.values, ["1", "123"]);

    let audit = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap_or_default();
    let events: Vec<String> = audit
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|l| {
            format!(
                "{} {}",
                l["event"].as_str().unwrap_or(""),
                l["outcome"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            "prompt_get ok",
            "prompt_get tool_error",
            "completion ok",
            "completion ok"
        ]
    );
}
