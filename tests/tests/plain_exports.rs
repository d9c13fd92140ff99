//! Components written for other hosts: plain exported functions as tools (schemas derived
//! from the WIT types, arguments checked against them, results and errors), granted
//! directories attacked as a hostile plugin would (escapes, links, renames, writes to a
//! read-only grant, every way to grow past the quota), and environment variables. Each is
//! asserted on the result, the audit log and the files on disk.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use warden::app::App;
use warden::capabilities::conversation::Conversation;
use warden::runtime::CallContext;
use warden::runtime::bindings::{ContentBlock, ToolError};
use warden::runtime::plugin::CallFailure;
use warden_tests::{FILES_HOSTILE_WASM, GREETER_WASM, HOLDER_WASM, NOTES_WASM, SHAPES_WASM};

/// A manifest in a fresh directory with `body` after the `[server]` section.
struct Fixture {
    dir: tempfile::TempDir,
    app: App,
}

async fn load(dir: &tempfile::TempDir, body: &str) -> Result<App, String> {
    let text = format!("[server]\naudit_log = \"audit.jsonl\"\ncache_dir = \"cache\"\n\n{body}");
    let path = dir.path().join("warden.toml");
    std::fs::write(&path, text).expect("write manifest");
    App::load(Some(&path)).await.map_err(|e| format!("{e:#}"))
}

/// What a call returned: its text and structured content, or the failure.
struct Answer {
    text: String,
    structured: Option<Value>,
}

impl Fixture {
    async fn new(body: impl FnOnce(&Path) -> String) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let body = body(dir.path());
        let app = load(&dir, &body).await.expect("manifest loads");
        Self { dir, app }
    }

    async fn call(&self, tool: &str, args: Value) -> Result<Answer, CallFailure> {
        let report = self
            .app
            .registry
            .call(tool, &args.to_string(), CallContext::default())
            .await
            .expect("the tool is routed");
        report.result.map(|out| Answer {
            text: out
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect(),
            structured: out
                .structured
                .map(|s| serde_json::from_str(&s).expect("structured content is JSON")),
        })
    }

    async fn ok(&self, tool: &str, args: Value) -> Answer {
        match self.call(tool, args.clone()).await {
            Ok(a) => a,
            Err(e) => panic!("{tool}({args}) failed: {}", e.message("p")),
        }
    }

    /// The failure message of a call that must fail.
    async fn fails(&self, tool: &str, args: Value) -> (CallFailure, String) {
        match self.call(tool, args.clone()).await {
            Ok(a) => panic!("{tool}({args}) answered {}", a.text),
            Err(e) => {
                let m = e.message("p");
                (e, m)
            }
        }
    }

    fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("audit lines are JSON"))
            .collect()
    }

    fn denials(&self, needle: &str) -> Vec<Value> {
        self.audit()
            .into_iter()
            .filter(|l| {
                l["event"] == "capability_denied"
                    && l["reason"].as_str().is_some_and(|r| r.contains(needle))
            })
            .collect()
    }

    fn schema(&self, tool: &str) -> (Value, Option<Value>, String) {
        let entry = self.app.registry.tool(tool).unwrap_or_else(|| {
            panic!(
                "no tool {tool}; tools: {:?}",
                self.app
                    .registry
                    .tools()
                    .iter()
                    .map(|t| &t.public_name)
                    .collect::<Vec<_>>()
            )
        });
        (
            serde_json::from_str(&entry.info.input_schema).expect("input schema is JSON"),
            entry
                .info
                .output_schema
                .as_ref()
                .map(|s| serde_json::from_str(s).expect("output schema is JSON")),
            entry.info.description.clone(),
        )
    }
}

fn shapes(_: &Path) -> String {
    format!("[[plugin]]\nname = \"shapes\"\nsource = \"{SHAPES_WASM}\"\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exported_functions_become_tools_with_schemas_from_their_types() {
    let f = Fixture::new(shapes).await;
    let mut names: Vec<&str> = f
        .app
        .registry
        .tools()
        .iter()
        .map(|t| t.public_name.as_str())
        .collect();
    names.sort_unstable();
    // `ping` is exported twice (world and interface): the interface's is qualified.
    assert_eq!(
        names,
        [
            "area",
            "check",
            "count_bytes",
            "count_cells",
            "count_points",
            "count_strings",
            "count_text",
            "describe",
            "echo",
            "maybe",
            "move_point",
            "next_char",
            "pack",
            "ping",
            "ratio",
            "reverse_bytes",
            "shapes_ping",
            "twice",
            "widths"
        ]
    );

    let (input, output, description) = f.schema("widths");
    let p = &input["properties"];
    assert_eq!(
        (p["a"]["minimum"].clone(), p["a"]["maximum"].clone()),
        (json!(0), json!(255))
    );
    assert_eq!(
        (p["b"]["minimum"].clone(), p["b"]["maximum"].clone()),
        (json!(-128), json!(127))
    );
    assert_eq!(p["g"]["maximum"], json!(u64::MAX));
    assert_eq!(p["f"]["minimum"], json!(i64::MIN));
    assert_eq!(
        input["required"],
        json!(["a", "b", "c", "d", "e", "f", "g"])
    );
    assert_eq!(input["additionalProperties"], json!(false));
    let out = output.expect("a result type has an output schema");
    assert_eq!(
        out["properties"]["result"]["prefixItems"]
            .as_array()
            .map(Vec::len),
        Some(7)
    );
    assert!(!description.is_empty());

    let (input, _, _) = f.schema("move_point");
    let point = &input["properties"]["p"];
    assert_eq!(point["type"], "object");
    assert_eq!(
        point["required"],
        json!(["x", "y"]),
        "an option field is not required"
    );
    assert_eq!(
        point["properties"]["label"]["anyOf"][1],
        json!({"type": "null"})
    );

    let (input, _, _) = f.schema("area");
    let cases = input["properties"]["s"]["oneOf"]
        .as_array()
        .expect("variant -> oneOf");
    let tags: Vec<&Value> = cases
        .iter()
        .map(|c| &c["properties"]["tag"]["const"])
        .collect();
    assert_eq!(tags, [&json!("circle"), &json!("rect"), &json!("dot")]);

    let (input, _, _) = f.schema("describe");
    assert_eq!(
        input["properties"]["c"]["enum"],
        json!(["red", "green", "blue"])
    );
    assert_eq!(input["properties"]["f"]["uniqueItems"], json!(true));
    assert_eq!(
        input["properties"]["f"]["items"]["enum"],
        json!(["read", "write", "exec"])
    );

    let (input, output, _) = f.schema("twice");
    assert_eq!(
        input["required"],
        json!([]),
        "an option parameter is not required"
    );
    assert!(output.is_some());
    let (input, _, _) = f.schema("next_char");
    assert_eq!(input["properties"]["c"]["maxLength"], json!(1));
    // `check` returns result<string, string>: its output is the ok side.
    let (_, output, _) = f.schema("check");
    assert_eq!(
        output.expect("output")["properties"]["result"],
        json!({"type": "string"})
    );
    // A function returning nothing has no output schema.
    assert!(f.schema("shapes_ping").1.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_of_every_type_go_in_and_come_back() {
    let f = Fixture::new(shapes).await;
    let moved = f
        .ok(
            "move_point",
            json!({"p": {"x": 1, "y": 2}, "dx": 3, "dy": -1}),
        )
        .await;
    assert_eq!(
        moved.structured,
        Some(json!({"result": {"x": 4, "y": 1, "label": null}}))
    );
    let labelled = f
        .ok(
            "move_point",
            json!({"p": {"x": 0, "y": 0, "label": "home"}, "dx": 0, "dy": 0}),
        )
        .await;
    assert_eq!(
        labelled.structured.expect("structured")["result"]["label"],
        "home"
    );

    let area = f
        .ok("area", json!({"s": {"tag": "rect", "val": [3, 4]}}))
        .await;
    assert_eq!(area.structured, Some(json!({"result": 12.0})));
    assert_eq!(area.text, "12.0");
    let dot = f.ok("area", json!({"s": {"tag": "dot"}})).await;
    assert_eq!(dot.structured, Some(json!({"result": 0.0})));

    let described = f
        .ok(
            "describe",
            json!({"c": "green", "f": ["exec", "read"], "tags": ["a", "b"]}),
        )
        .await;
    assert_eq!(described.text, "Color::Green [read,exec] a+b");

    let extremes = json!({"a": 255, "b": -128, "c": 65535, "d": -32768, "e": 4294967295u32,
        "f": i64::MIN, "g": u64::MAX});
    let widths = f.ok("widths", extremes).await;
    assert_eq!(
        widths.structured,
        Some(json!({"result": [255, -128, 65535, -32768, 4294967295u32,
            "-9223372036854775808", "18446744073709551615"]}))
    );

    assert_eq!(
        f.ok("twice", json!({})).await.structured,
        Some(json!({"result": null}))
    );
    assert_eq!(
        f.ok("twice", json!({"n": null})).await.structured,
        Some(json!({"result": null}))
    );
    assert_eq!(
        f.ok("twice", json!({"n": 21})).await.structured,
        Some(json!({"result": 42}))
    );
    assert_eq!(
        f.ok("next_char", json!({"c": "a", "flag": true}))
            .await
            .text,
        "b"
    );
    assert_eq!(
        f.ok("next_char", json!({"c": "é", "flag": false}))
            .await
            .text,
        "é"
    );
    assert_eq!(f.ok("ping", json!({})).await.text, "pong");
    let nothing = f.ok("shapes_ping", json!({})).await;
    assert!(nothing.structured.is_none());

    assert_eq!(f.ok("check", json!({"message": ""})).await.text, "fine");
    // `result::err` is a tool error whose message is the payload.
    let (failure, message) = f.fails("check", json!({"message": "the sky fell"})).await;
    assert!(
        matches!(failure, CallFailure::Tool(ToolError::Failed(ref m)) if m == "the sky fell"),
        "{message}"
    );
    let line = f
        .audit()
        .into_iter()
        .rfind(|l| l["event"] == "tool_call" && l["tool"] == "check")
        .expect("the call is audited");
    assert_eq!(line["outcome"], "tool_error");
}

/// Values JSON has no exact form for: bytes, 64-bit integers beyond 2^53, floats that are
/// not numbers, options of options; each has one shape both ways, its schema says so, and
/// what comes out goes back in unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_json_cannot_hold_plainly_have_one_exact_form() {
    let f = Fixture::new(shapes).await;
    // list<u8> is base64, both ways; an empty one is "" (not []).
    let (input, output, _) = f.schema("reverse_bytes");
    assert_eq!(input["properties"]["data"]["type"], "string");
    assert_eq!(input["properties"]["data"]["contentEncoding"], "base64");
    assert_eq!(
        output.expect("output")["properties"]["result"]["prefixItems"][0]["contentEncoding"],
        "base64"
    );
    let reversed = f.ok("reverse_bytes", json!({"data": "AAEC/w=="})).await;
    assert_eq!(
        reversed.structured,
        Some(json!({"result": ["/wIBAA==", 4]}))
    );
    let unpadded = f.ok("reverse_bytes", json!({"data": "AAEC/w"})).await;
    assert_eq!(unpadded.structured, reversed.structured);
    let empty = f.ok("reverse_bytes", json!({"data": ""})).await;
    assert_eq!(empty.structured, Some(json!({"result": ["", 0]})));

    // s64/u64: exact numbers up to 2^53-1; beyond, decimal strings both ways.
    let (input, _, _) = f.schema("widths");
    assert_eq!(
        input["properties"]["g"]["type"],
        json!(["integer", "string"])
    );
    let small = json!({"a": 0, "b": 0, "c": 0, "d": 0, "e": 0,
        "f": -9_007_199_254_740_991_i64, "g": 9_007_199_254_740_991_u64});
    let answer = f.ok("widths", small).await.structured.expect("structured");
    assert_eq!(answer["result"][5], json!(-9_007_199_254_740_991_i64));
    assert_eq!(answer["result"][6], json!(9_007_199_254_740_991_u64));
    let big = json!({"a": 0, "b": 0, "c": 0, "d": 0, "e": 0,
        "f": "-9007199254740993", "g": "18446744073709551615"});
    let answer = f.ok("widths", big).await.structured.expect("structured");
    assert_eq!(answer["result"][5], json!("-9007199254740993"));
    assert_eq!(answer["result"][6], json!("18446744073709551615"));
    // A JSON integer beyond 2^53 is read exactly too (its digits, never a double).
    let exact = json!({"a": 0, "b": 0, "c": 0, "d": 0, "e": 0,
        "f": 0, "g": 9_007_199_254_740_993_u64});
    let answer = f.ok("widths", exact).await.structured.expect("structured");
    assert_eq!(answer["result"][6], json!("9007199254740993"));

    // Floats that are not numbers are named; the output schema allows the names.
    let (_, output, _) = f.schema("ratio");
    assert_eq!(
        output.expect("output")["properties"]["result"]["anyOf"][1]["enum"],
        json!(["NaN", "Infinity", "-Infinity"])
    );
    for (a, b, out) in [
        (json!(0), json!(0), json!("NaN")),
        (json!(1), json!(0), json!("Infinity")),
        (json!(-1), json!(0), json!("-Infinity")),
        (json!(1), json!(0.5), json!(2.0)),
        (json!("Infinity"), json!(2), json!("Infinity")),
    ] {
        let r = f.ok("ratio", json!({"a": a, "b": b})).await;
        assert_eq!(r.structured, Some(json!({"result": out})), "{a} / {b}");
    }

    // option<option<T>>: none is null, some(none) {"some": null}, some(some(x)) {"some": x}.
    for (v, said) in [
        (json!(null), "none"),
        (json!({"some": null}), "some(none)"),
        (json!({"some": "x"}), "some(some(x))"),
    ] {
        let r = f.ok("maybe", json!({"v": v})).await;
        assert_eq!(
            r.structured,
            Some(json!({"result": [said, v]})),
            "{v} goes in and comes back"
        );
    }
    assert_eq!(
        f.ok("maybe", json!({})).await.structured,
        Some(json!({"result": ["none", null]}))
    );

    // Nested: flags and bytes in a record, options of options of u64 in a list.
    let packet = json!({"perms": ["read"], "payload": "AQI=",
        "notes": [null, {"some": null}, {"some": 7}, {"some": "18446744073709551615"}]});
    let r = f.ok("pack", json!({"p": packet})).await;
    assert_eq!(
        r.structured,
        Some(
            json!({"result": {"perms": ["read", "exec"], "payload": "AgM=",
            "notes": [null, {"some": null}, {"some": 7}, {"some": "18446744073709551615"}]}})
        )
    );
    let (input, _, _) = f.schema("pack");
    let notes = &input["properties"]["p"]["properties"]["notes"]["items"];
    assert_eq!(notes["anyOf"][0]["required"], json!(["some"]), "{notes}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_do_not_fit_the_types_are_refused_naming_the_field() {
    let f = Fixture::new(shapes).await;
    let all = json!({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1});
    let with = |key: &str, value: Value| {
        let mut v = all.clone();
        v[key] = value;
        v
    };
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "widths",
            with("a", json!(256)),
            "a: expected an integer from 0 to 255, got 256",
        ),
        (
            "widths",
            with("b", json!(-129)),
            "b: expected an integer from -128 to 127",
        ),
        (
            "widths",
            with("e", json!(-1)),
            "e: expected an integer from 0 to 4294967295",
        ),
        ("widths", with("g", json!(1.5)), "g: expected an integer"),
        (
            "widths",
            with("g", json!("12x")),
            "g: expected an integer from 0 to 18446744073709551615 (or its decimal digits as a string), got a string",
        ),
        (
            "widths",
            with("f", json!("-9223372036854775809")),
            "f: expected an integer from -9223372036854775808",
        ),
        (
            "reverse_bytes",
            json!({"data": [1, 2]}),
            "data: expected bytes as a base64 string, got an array",
        ),
        (
            "reverse_bytes",
            json!({"data": "not base64!"}),
            "data: expected bytes as a base64 string: ",
        ),
        (
            "maybe",
            json!({"v": "x"}),
            "v: expected null or {\"some\": ...}",
        ),
        (
            "ratio",
            json!({"a": "one", "b": 1}),
            "a: expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), got a string",
        ),
        (
            "widths",
            with("c", json!("7")),
            "c: expected an integer from 0 to 65535, got a string",
        ),
        ("widths", json!({"a": 1}), "b: required argument missing"),
        ("widths", with("z", json!(1)), "z: unknown argument"),
        (
            "move_point",
            json!({"p": {"x": "1", "y": 2}, "dx": 0, "dy": 0}),
            "p.x: expected an integer",
        ),
        (
            "move_point",
            json!({"p": {"x": 1}, "dx": 0, "dy": 0}),
            "p.y: required field missing",
        ),
        (
            "move_point",
            json!({"p": {"x": 1, "y": 2, "z": 3}, "dx": 0, "dy": 0}),
            "p.z: unknown field",
        ),
        (
            "move_point",
            json!({"p": [1, 2], "dx": 0, "dy": 0}),
            "p: expected an object, got an array",
        ),
        (
            "area",
            json!({"s": {"tag": "hexagon"}}),
            "s.tag: unknown case; the cases are circle, rect, dot",
        ),
        (
            "area",
            json!({"s": {"tag": "rect", "val": [3]}}),
            "s.val: expected 2 items, got 1",
        ),
        (
            "area",
            json!({"s": {"tag": "circle"}}),
            "s.val: required for this case",
        ),
        (
            "area",
            json!({"s": {"tag": "dot", "val": 1}}),
            "s.val: this case carries no value",
        ),
        (
            "describe",
            json!({"c": "purple", "f": [], "tags": []}),
            "c: expected one of red, green, blue",
        ),
        (
            "describe",
            json!({"c": "red", "f": ["read", "read"], "tags": []}),
            "f[1]: \"read\" is set twice",
        ),
        (
            "describe",
            json!({"c": "red", "f": ["fly"], "tags": []}),
            "f[0]: expected one of read, write, exec",
        ),
        (
            "describe",
            json!({"c": "red", "f": [], "tags": ["a", 2]}),
            "tags[1]: expected a string",
        ),
        (
            "next_char",
            json!({"c": "ab", "flag": true}),
            "c: expected exactly one character, got 2",
        ),
        (
            "next_char",
            json!({"c": "a", "flag": "yes"}),
            "flag: expected a boolean, got a string",
        ),
        (
            "twice",
            json!({"n": 70000}),
            "n: expected an integer from 0 to 65535",
        ),
        (
            "ping",
            json!([1]),
            "arguments: expected an object, got an array",
        ),
    ];
    for (tool, args, expected) in cases {
        let (failure, message) = f.fails(tool, args.clone()).await;
        assert!(
            matches!(failure, CallFailure::Tool(ToolError::InvalidArguments(_))),
            "{tool}({args}): {message}"
        );
        assert!(
            message.contains(expected),
            "{tool}({args}): {message:?} lacks {expected:?}"
        );
    }
    // The plugin still answers.
    assert_eq!(f.ok("ping", json!({})).await.text, "pong");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_parameter_or_no_export_at_all_is_refused_at_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let err = load(
        &dir,
        &format!("[[plugin]]\nname = \"holder\"\nsource = \"{HOLDER_WASM}\"\n"),
    )
    .await
    .err()
    .expect("a resource parameter is refused");
    assert!(err.contains("peek"), "{err}");
    assert!(err.contains("resource handle (borrow)"), "{err}");
    assert!(
        err.contains("warden.toml:6"),
        "the manifest line is named: {err}"
    );

    let empty = dir.path().join("empty.wasm");
    std::fs::write(&empty, wat::parse_str("(component)").expect("wat")).expect("write");
    let err = load(
        &dir,
        &format!(
            "[[plugin]]\nname = \"empty\"\nsource = \"{}\"\n",
            empty.display()
        ),
    )
    .await
    .err()
    .expect("a component without exports is refused");
    assert!(err.contains("exports no tools"), "{err}");
    assert!(
        err.contains("export fetch: func"),
        "it says what to export: {err}"
    );
}

// ---------------------------------------------------------------------------- directories

/// The directory tree under `root` (symlinks not followed): bytes of its files and every
/// path in it.
fn tree(root: &Path) -> (u64, Vec<PathBuf>) {
    let mut bytes = 0;
    let mut paths = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("read dir")
            .map_while(Result::ok)
        {
            let meta = entry.path().symlink_metadata().expect("stat");
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                bytes += meta.len();
            }
            paths.push(entry.path());
        }
    }
    (bytes, paths)
}

const SECRET: &str = "host secret 7f3a";

/// A data directory (read-write, 1 MiB quota), a read-only one and another read-write one,
/// with a secret file beside them and symlinks the admin planted inside.
fn hostile_dirs(root: &Path) -> String {
    for d in ["data", "ro", "other"] {
        std::fs::create_dir(root.join(d)).expect("mkdir");
    }
    std::fs::write(root.join("secret.txt"), SECRET).expect("secret");
    std::fs::write(root.join("ro/kept.txt"), "kept").expect("ro file");
    std::fs::write(root.join("data/mine.txt"), "mine").expect("data file");
    std::os::unix::fs::symlink("../secret.txt", root.join("data/rel-link")).expect("symlink");
    std::os::unix::fs::symlink(root.join("secret.txt"), root.join("data/abs-link"))
        .expect("symlink");
    std::os::unix::fs::symlink("/etc", root.join("data/etc")).expect("symlink");
    format!(
        "[[plugin]]\nname = \"fh\"\nsource = \"{FILES_HOSTILE_WASM}\"\n\
         limits = {{ call_timeout = \"20s\" }}\n\
         grants.files = [\n  {{ host = \"data\", guest = \"/data\", mode = \"read-write\", quota = \"1MiB\" }},\n  \
         {{ host = \"ro\", guest = \"/ro\" }},\n  \
         {{ host = \"other\", guest = \"/other\", mode = \"read-write\", quota = \"1MiB\" }},\n]\n"
    )
}

async fn attack(f: &Fixture, kind: &str, arg: &str) -> String {
    f.ok("attack", json!({"kind": kind, "arg": arg})).await.text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_and_links_do_not_leave_a_granted_directory() {
    let f = Fixture::new(hostile_dirs).await;
    let root = f.dir.path();
    assert!(
        attack(&f, "read", "mine.txt")
            .await
            .contains("Ok(\"mine\")")
    );
    for path in [
        "../secret.txt",
        "../../../../etc/passwd",
        "/etc/passwd",
        "rel-link",
        "abs-link",
        "etc/passwd",
        "./../data/../secret.txt",
    ] {
        for kind in ["read", "read-nofollow"] {
            let out = attack(&f, kind, path).await;
            assert!(out.starts_with("Err("), "{kind} {path}: {out}");
            assert!(
                !out.contains(SECRET) && !out.contains("root:"),
                "{kind} {path} leaked: {out}"
            );
        }
    }
    // A symlink the plugin plants, relative or absolute, reads nothing outside either.
    for target in [
        "../secret.txt",
        "/etc/passwd",
        &root.join("secret.txt").display().to_string(),
    ] {
        let out = attack(&f, "plant", target).await;
        assert!(
            !out.contains(SECRET) && !out.contains("root:"),
            "plant {target}: {out}"
        );
        assert!(out.contains("read Err("), "plant {target}: {out}");
        let _ = std::fs::remove_file(root.join("data/planted"));
    }
    // Hard links: not into another grant, not above the directory, not from outside it.
    let out = attack(&f, "hardlink", "mine.txt").await;
    assert!(
        out.contains("across Err(ErrorCode { code: 36, name: \"cross-device\""),
        "{out}"
    );
    assert!(
        out.contains("up Err(") && out.contains("from outside Err("),
        "{out}"
    );
    assert!(
        !root.join("linked").exists()
            && !root.join("ro/linked").exists()
            && !root.join("other/linked").exists()
    );
    assert!(!root.join("data/passwd").exists());
    // Renames: not into another grant (its own quota), not above the directory.
    let out = attack(&f, "rename", "mine.txt").await;
    assert!(
        out.contains("across Err(ErrorCode { code: 36, name: \"cross-device\"")
            && out.contains("up Err("),
        "{out}"
    );
    assert!(
        root.join("data/mine.txt").exists()
            && !root.join("moved").exists()
            && !root.join("other/moved").exists()
    );
    assert_eq!(
        std::fs::read_to_string(root.join("secret.txt")).expect("secret"),
        SECRET
    );
    assert!(
        !f.denials("outside the granted directory").is_empty(),
        "escapes are audited"
    );
    assert!(
        !f.denials("between two granted directories").is_empty(),
        "cross-grant moves are audited"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_grant_takes_no_write_of_any_kind() {
    let f = Fixture::new(hostile_dirs).await;
    let root = f.dir.path();
    let before = tree(&root.join("ro"));
    let out = attack(&f, "write-ro", "kept.txt").await;
    for door in [
        "create Err(",
        "open for write Err(",
        "mkdir Err(",
        "unlink Err(",
    ] {
        assert!(out.contains(door), "{door}: {out}");
    }
    assert_eq!(
        tree(&root.join("ro")),
        before,
        "the read-only directory is unchanged"
    );
    let denied = f.denials("is granted read-only");
    assert!(denied.len() >= 4, "each refusal is audited: {denied:?}");
    assert!(
        denied[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("mode = \"read-write\"")),
        "{denied:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_way_of_writing_grows_a_directory_past_its_quota() {
    let f = Fixture::new(hostile_dirs).await;
    let data = f.dir.path().join("data");
    let quota = 1024 * 1024;
    for how in ["write", "stream", "append"] {
        let out = attack(&f, "fill", &format!("{} {how}", 4 * quota)).await;
        assert!(out.contains("stopped"), "{how}: {out}");
        let (bytes, _) = tree(&data);
        assert!(
            bytes <= quota,
            "{how}: the directory holds {bytes} bytes, over its quota of {quota}"
        );
        assert!(
            bytes > quota / 2,
            "{how}: only {bytes} bytes went in: {out}"
        );
        // Room for the next way in (the count finds the space freed outside it).
        std::fs::remove_file(data.join(format!("fill-{how}.bin"))).expect("remove");
    }
    let out = attack(&f, "grow", &(1u64 << 30).to_string()).await;
    let refused = "Err(ErrorCode { code: 23, name: \"insufficient-space\"";
    assert!(out.contains(&format!("set-size {refused}")), "{out}");
    assert!(
        out.contains(&format!("write at {}: {refused}", 1u64 << 30)),
        "{out}"
    );
    let out = attack(&f, "many", "100000").await;
    assert!(
        out.contains("stopped: ErrorCode { code: 23, name: \"insufficient-space\""),
        "{out}"
    );
    let (bytes, paths) = tree(&data);
    assert!(bytes <= quota, "the directory holds {bytes} bytes");
    assert!(
        paths.len() <= 300,
        "{} entries: empty files count against the quota too",
        paths.len()
    );
    let denied = f.denials("quota:");
    assert!(!denied.is_empty(), "quota refusals are audited");
    assert!(
        denied[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("raise quota")),
        "{denied:?}"
    );
    // Writes are audited once per file per call, with their bytes.
    let writes: Vec<Value> = f
        .audit()
        .into_iter()
        .filter(|l| l["event"] == "capability_used" && l["capability"] == "wasi:filesystem")
        .collect();
    let stream = writes
        .iter()
        .find(|l| l["target"] == "/data/fill-stream.bin")
        .expect("the stream's writes are audited");
    assert!(
        stream["bytes"]
            .as_u64()
            .is_some_and(|b| b > 0 && b <= quota),
        "{stream}"
    );
    assert_eq!(
        writes
            .iter()
            .filter(|l| l["target"] == "/data/fill-stream.bin")
            .count(),
        1,
        "one line per file per call"
    );
}

/// Two conversations fill one granted directory at once, each in an instance of its own
/// (on the stateless wire's conversations, one per client). The quota's count belongs to
/// the directory, not to an instance: one per canonical path in the process, and every
/// write reserves its growth in it before it runs (`runtime/files/quota.rs`). So together
/// they stop at the quota, not at twice it; had one started after the other was done, it
/// would have found the directory full and written nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_conversations_filling_one_quota_at_once_stop_at_it_together() {
    let quota: u64 = 8 * 1024 * 1024;
    let f = Fixture::new(|root| {
        std::fs::create_dir(root.join("data")).expect("mkdir");
        format!(
            "[[plugin]]\nname = \"fh\"\nsource = \"{FILES_HOSTILE_WASM}\"\n\
             limits = {{ call_timeout = \"60s\" }}\n\
             grants.files = [{{ host = \"data\", guest = \"/data\", mode = \"read-write\", quota = \"8MiB\" }}]\n"
        )
    })
    .await;
    let fill = |client: &'static str| {
        let f = &f;
        async move {
            let args =
                json!({"kind": "fill", "arg": format!("{} write fill-{client}.bin", 2 * quota)});
            let context = CallContext {
                conversation: Conversation::client(Some(client)),
                ..CallContext::default()
            };
            let report = f
                .app
                .registry
                .call("attack", &args.to_string(), context)
                .await
                .expect("routed");
            let out = report.result.map_err(|e| e.message("fh")).expect("answers");
            out.content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(t.clone()),
                    _ => None,
                })
                .collect::<String>()
        }
    };
    let (a, b) = tokio::join!(fill("a"), fill("b"));
    let written = |out: &str| -> u64 {
        assert!(out.contains("stopped"), "{out}");
        out.split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{out}"))
    };
    let (wa, wb) = (written(&a), written(&b));
    assert!(
        wa > 0 && wb > 0,
        "both wrote at once: {wa} and {wb} bytes ({a}; {b})"
    );
    assert!(wa + wb <= quota, "{wa} + {wb} bytes went in, over {quota}");
    let data = f.dir.path().join("data");
    let (bytes, paths) = tree(&data);
    assert!(
        bytes <= quota,
        "the directory holds {bytes} bytes, over {quota}"
    );
    assert!(bytes > quota / 2, "only {bytes} bytes went in");
    assert_eq!(paths.len(), 2, "{paths:?}");
    // Each call's writes are audited under its own client, with what it wrote.
    let lines: Vec<Value> = f
        .audit()
        .into_iter()
        .filter(|l| l["event"] == "capability_used" && l["capability"] == "wasi:filesystem")
        .collect();
    for (file, wrote) in [("/data/fill-a.bin", wa), ("/data/fill-b.bin", wb)] {
        let line = lines.iter().find(|l| l["target"] == file).expect("audited");
        assert_eq!(line["bytes"], json!(wrote), "{line}");
    }
    assert!(!f.denials("quota:").is_empty(), "the stops are audited");
}

// ---------------------------------------------------------------------------- fixtures

fn notes(root: &Path, grant: bool) -> String {
    std::fs::create_dir_all(root.join("notes-dir")).expect("mkdir");
    let grant = if grant {
        "grants.files = [{ host = \"notes-dir\", guest = \"/data\", mode = \"read-write\", quota = \"1MiB\" }]\n"
    } else {
        ""
    };
    format!("[[plugin]]\nname = \"notes\"\nsource = \"{NOTES_WASM}\"\n{grant}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_component_for_another_host_reads_and_writes_its_granted_directory() {
    let f = Fixture::new(|root| notes(root, true)).await;
    let saved = f
        .ok("save_note", json!({"name": "todo", "text": "buy milk"}))
        .await;
    assert_eq!(saved.structured, Some(json!({"result": 8})));
    assert_eq!(
        std::fs::read_to_string(f.dir.path().join("notes-dir/notes/todo.txt")).expect("on disk"),
        "buy milk"
    );
    assert_eq!(
        f.ok("read_note", json!({"name": "todo"})).await.text,
        "buy milk"
    );
    assert_eq!(
        f.ok("list_notes", json!({})).await.structured,
        Some(json!({"result": ["todo"]}))
    );
    let write = f
        .audit()
        .into_iter()
        .find(|l| l["event"] == "capability_used" && l["target"] == "/data/notes/todo.txt")
        .expect("the write is audited");
    assert_eq!(
        (write["tool"].clone(), write["bytes"].clone()),
        (json!("save_note"), json!(8))
    );
    let description = f.schema("save_note").2;
    assert!(
        description.contains("Save a note") || description.contains("save-note("),
        "{description}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_its_directory_grant_a_component_is_told_the_grant_to_add() {
    let f = Fixture::new(|root| notes(root, false)).await;
    let (_, message) = f
        .fails("save_note", json!({"name": "todo", "text": "x"}))
        .await;
    assert!(message.contains("add grants.files"), "{message}");
    assert!(
        !f.denials("add grants.files").is_empty(),
        "the refusal is audited"
    );
    assert!(
        tree(&f.dir.path().join("notes-dir")).1.is_empty(),
        "nothing was written"
    );
}

fn greeter(env: &str) -> String {
    format!(
        "[[plugin]]\nname = \"greeter\"\nsource = \"{GREETER_WASM}\"\n{env}\n[plugin.settings]\ngreeting = \"Hello\"\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn environment_variables_are_only_those_the_admin_names() {
    let f = Fixture::new(|_| {
        greeter("grants.env = { vars = { API_BASE = \"https://api.example.test\", GREETER_LANG = \"en\" }, from_host = [\"PATH\"] }")
    })
    .await;
    assert_eq!(
        f.ok("greet", json!({"name": "Ada"})).await.text,
        "Hello, Ada! (en)"
    );
    assert_eq!(
        f.ok("api_base", json!({})).await.text,
        "https://api.example.test"
    );

    let bare = Fixture::new(|_| greeter("")).await;
    let (_, message) = bare.fails("api_base", json!({})).await;
    assert!(message.contains("API_BASE is not set"), "{message}");
    assert!(message.contains("add grants.env"), "{message}");
    assert!(
        !bare.denials("add grants.env").is_empty(),
        "the refusal is audited"
    );

    // A name that looks like a credential is refused at load, pointing to the host's own.
    let dir = tempfile::tempdir().expect("temp dir");
    let err = load(
        &dir,
        &greeter("grants.env = { from_host = [\"GITHUB_TOKEN\"] }"),
    )
    .await
    .err()
    .expect("refused");
    assert!(
        err.contains("looks like a credential") && err.contains("[credentials]"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn descriptions_come_from_the_components_wit_docs_when_it_carries_them() {
    // A component that keeps its WIT docs (wit-component's `package-docs` section) and one
    // function without any: the first is described by its doc comment, the second by its
    // signature.
    let docs =
        r#"{"worlds":{"w":{"func_exports":{"answer":{"docs":"The answer to everything."}}}}}"#;
    let text = format!(
        r#"(component
            (core module $m
                (func (export "answer") (result i32) i32.const 42)
                (func (export "double") (param i32) (result i32) local.get 0 i32.const 2 i32.mul))
            (core instance $i (instantiate $m))
            (func $answer (result u32) (canon lift (core func $i "answer")))
            (func $double (param "n" u32) (result u32) (canon lift (core func $i "double")))
            (export "answer" (func $answer))
            (export "double" (func $double))
            (@custom "package-docs" "\01{}")
        )"#,
        docs.replace('"', "\\\"")
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("docs.wasm");
    std::fs::write(&path, wat::parse_str(&text).expect("wat")).expect("write");
    let app = load(
        &dir,
        &format!(
            "[[plugin]]\nname = \"docs\"\nsource = \"{}\"\n",
            path.display()
        ),
    )
    .await
    .expect("loads");
    let describe = |name: &str| {
        app.registry
            .tool(name)
            .map(|t| t.info.description.clone())
            .unwrap_or_default()
    };
    assert_eq!(describe("answer"), "The answer to everything.");
    assert_eq!(
        describe("double"),
        "Calls `double(n: u32) -> u32`, exported by this component."
    );
    let out = app
        .registry
        .call("double", r#"{"n": 21}"#, CallContext::default())
        .await
        .expect("routed")
        .result
        .map_err(|e| e.message("docs"))
        .expect("answers");
    assert_eq!(out.structured.as_deref(), Some(r#"{"result":42}"#));
}

/// What the audit log says the call did to each file of the granted directory `/data`.
fn changes(f: &Fixture) -> Vec<(String, String)> {
    f.audit()
        .into_iter()
        .filter(|l| l["event"] == "capability_used" && l["capability"] == "wasi:filesystem")
        .map(|l| {
            (
                l["target"].as_str().unwrap_or_default().to_string(),
                l["detail"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_way_of_destroying_data_leaves_an_audit_line() {
    let f = Fixture::new(hostile_dirs).await;
    let data = f.dir.path().join("data");
    for name in ["t-open.txt", "t-size.txt", "gone.txt", "new.txt", "old.txt"] {
        std::fs::write(data.join(name), format!("contents of {name}")).expect("write");
    }
    std::fs::create_dir(data.join("empty-dir")).expect("mkdir");
    let out = attack(&f, "destroy", "").await;
    assert_eq!(
        out.matches("Ok(())").count(),
        5,
        "every operation ran: {out}"
    );
    // On disk: what each did.
    assert_eq!(
        std::fs::metadata(data.join("t-open.txt")).expect("t").len(),
        0
    );
    assert_eq!(
        std::fs::metadata(data.join("t-size.txt")).expect("t").len(),
        0
    );
    assert!(!data.join("gone.txt").exists() && !data.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(data.join("old.txt")).expect("old"),
        "contents of new.txt"
    );
    assert!(!data.join("empty-dir").exists());
    let changes = changes(&f);
    for (target, op) in [
        ("/data/t-open.txt", "truncate"),
        ("/data/t-size.txt", "truncate"),
        ("/data/gone.txt", "unlink"),
        ("/data/new.txt", "renamed to /data/old.txt"),
        ("/data/old.txt", "replaced by /data/new.txt"),
        ("/data/empty-dir", "remove-directory"),
    ] {
        let lines: Vec<_> = changes.iter().filter(|(t, _)| t == target).collect();
        assert_eq!(lines.len(), 1, "one line for {target}: {changes:?}");
        assert!(lines[0].1.contains(op), "{target}: {op} in {changes:?}");
    }
}

/// What `dir` holds by `du`, which walks by descriptors (a path past the system's limit
/// cannot be read by path).
fn du_bytes(dir: &Path) -> u64 {
    let out = std::process::Command::new("du")
        .args(["-s", "--apparent-size", "--block-size=1"])
        .arg(dir)
        .output()
        .expect("du runs");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("du prints a size")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_nested_past_the_path_limit_count_against_the_quota() {
    let f = Fixture::new(hostile_dirs).await;
    let quota = 1024 * 1024;
    let out = attack(&f, "deep", "40").await;
    assert!(out.contains("insufficient-space"), "{out}");
    let held = du_bytes(&f.dir.path().join("data"));
    assert!(
        held <= quota,
        "the directory holds {held} bytes past its quota of {quota}: {out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_in_a_granted_directory_holds_no_host_thread() {
    let f = Fixture::new(|root| {
        format!(
            "{}{}",
            hostile_dirs(root).replace("call_timeout = \"20s\"", "call_timeout = \"2s\""),
            greeter("grants.env = { vars = { GREETER_LANG = \"en\" } }")
        )
    })
    .await;
    let fifo = f.dir.path().join("data/pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let threads = || {
        std::fs::read_to_string("/proc/self/status")
            .expect("status")
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|n| n.trim().parse::<usize>().ok())
            .expect("a thread count")
    };
    let before = threads();
    // Each open of the FIFO used to hold a thread of the shared blocking pool for good:
    // 600 of them exhaust it (512), and the whole host stops answering.
    for round in 0..60 {
        for _ in 0..10 {
            let (_, message) = f
                .fails("attack", json!({"kind": "must-read", "arg": "pipe"}))
                .await;
            assert!(message.contains("not a regular file"), "{message}");
            assert!(message.contains("/data/pipe is a FIFO"), "{message}");
        }
        let started = std::time::Instant::now();
        let greeting = tokio::time::timeout(
            std::time::Duration::from_secs(1),
            f.ok("greet", json!({"name": "Ada"})),
        )
        .await
        .unwrap_or_else(|_| {
            panic!("the other plugin did not answer within a second (round {round})")
        });
        assert!(greeting.text.starts_with("Hello, Ada"), "{}", greeting.text);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }
    let after = threads();
    assert!(
        after < before + 64,
        "threads went from {before} to {after}: opens of a FIFO are holding threads"
    );
    assert!(!f.denials("is a FIFO").is_empty(), "the refusal is audited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hard_link_to_one_of_wardens_files_is_refused_at_open() {
    let f = Fixture::new(hostile_dirs).await;
    let root = f.dir.path();
    std::fs::hard_link(root.join("warden.toml"), root.join("data/innocent.txt")).expect("link");
    let (_, message) = f
        .fails(
            "attack",
            json!({"kind": "must-read", "arg": "innocent.txt"}),
        )
        .await;
    assert!(message.contains("one of Warden's own files"), "{message}");
    assert!(
        !message.contains("[[plugin]]"),
        "the manifest leaked: {message}"
    );
    assert!(!f.denials("one of Warden's own files").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_names_the_guest_path_never_the_host_directory() {
    let f = Fixture::new(hostile_dirs).await;
    let (_, message) = f
        .fails("attack", json!({"kind": "must-write-ro", "arg": "new.txt"}))
        .await;
    let host = f.dir.path().canonicalize().expect("canonical");
    assert!(message.contains("/ro"), "{message}");
    assert!(
        !message.contains(&host.display().to_string())
            && !message.contains(&f.dir.path().display().to_string()),
        "the agent was told the host's directory: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_that_reaches_wardens_own_files_does_not_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    for d in ["data", "keys", "conf"] {
        std::fs::create_dir(root.join(d)).expect("mkdir");
    }
    std::fs::write(root.join("keys/token"), "s3cret").expect("token");
    std::os::unix::fs::symlink(root, root.join("data/up")).expect("symlink");
    let plugin = |grant: &str| {
        format!(
            "[credentials.api]\nkind = \"bearer\"\nfile = \"keys/token\"\norigins = [\"https://api.example.test\"]\n\n\
             [[plugin]]\nname = \"fh\"\nsource = \"{FILES_HOSTILE_WASM}\"\n{grant}\n"
        )
    };
    for (grant, names) in [
        (
            "grants.files = [{ host = \".\", guest = \"/all\", mode = \"read-write\" }]",
            "the manifest",
        ),
        (
            "grants.files = [{ host = \"keys\", guest = \"/k\" }]",
            "credentials.api",
        ),
        (
            "grants.files = [{ host = \"data/up\", guest = \"/up\" }]",
            "the manifest",
        ),
        (
            "grants.browser = { origins = [\"https://a.example\"], download_dir = \".\" }",
            "grants.browser.download_dir",
        ),
        (
            "grants.browser = { origins = [\"https://a.example\"], upload_dirs = [\"keys\"] }",
            "credentials.api",
        ),
    ] {
        let error = match load(&dir, &plugin(grant)).await {
            Ok(_) => panic!("loaded with {grant}"),
            Err(e) => e,
        };
        assert!(error.contains(names), "{grant}: {error}");
        assert!(
            error.contains("holds none of Warden's files"),
            "{grant}: {error}"
        );
    }
    // A directory of its own beside them loads.
    load(
        &dir,
        &plugin("grants.files = [{ host = \"data\", guest = \"/data\" }]"),
    )
    .await
    .expect("a grant of a directory of its own loads");
}
