//! `warden-bench`: start-up and per-call cost of Warden, measured over real stdio MCP.
//!
//! 1. Start: spawn `warden serve` and time spawn -> first `tools/list` response, with a warm
//!    component cache and with an empty one (cold), for two small plugins and for the four
//!    built-in plugins.
//! 2. Per-call latency: the same `echo` tool as a WASM plugin, as a plain exported function
//!    of a component without the `warden:plugin` world (the dynamic call path), and as the
//!    host-native baseline (`native:echo`), over stdio in the same run, call by call in
//!    turn; p50, p99 and the ratios.
//! 3. The cost of roles: the same `echo` call with no roles, under a role (the check on
//!    every call), and under a role that narrows the plugin's grants (the call runs in an
//!    instance made with the narrower grants), call by call in turn.
//!
//! `BENCH_PART=roles` runs part 3 alone.
//! Run: `cargo run --release -p warden-tests --bin warden-bench` (after a release build).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn spawn(bin: &Path, manifest: &Path, cache: &Path) -> Self {
        let mut child = Command::new(bin)
            .args(["serve", "--manifest"])
            .arg(manifest)
            .env("WARDEN_CACHE_DIR", cache)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Self {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .expect("write to warden");
        self.stdin.flush().expect("flush to warden");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read from warden");
            assert!(n > 0, "warden closed stdout while answering {method}");
            let message: Value = serde_json::from_str(&line).expect("warden wrote JSON");
            if message.get("id") == Some(&json!(id)) {
                if let Some(error) = message.get("error") {
                    panic!("{method} failed: {error}");
                }
                return message["result"].clone();
            }
        }
    }

    fn initialize(&mut self) {
        self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "warden-bench", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn start_to_tools_list(bin: &Path, manifest: &Path, cache: &Path) -> Duration {
    let started = Instant::now();
    let mut server = Server::spawn(bin, manifest, cache);
    server.initialize();
    let tools = server.request("tools/list", json!({}));
    let elapsed = started.elapsed();
    assert!(
        tools["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "tools/list was empty"
    );
    elapsed
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = std::env::var_os("WARDEN_BIN")
        .map_or_else(|| root.join("target/release/warden"), PathBuf::from);
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo build --release -p warden` first",
        bin.display()
    );
    let calls: usize = std::env::var("BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let starts: usize = std::env::var("BENCH_STARTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);

    let work = std::env::temp_dir().join(format!("warden-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("temp dir");
    let audit = work.join("audit.jsonl");
    let wasm_manifest = work.join("wasm.toml");
    let native_manifest = work.join("native.toml");
    let plain_manifest = work.join("plain.toml");
    let both_manifest = work.join("start.toml");
    let plugin = |name: &str, source: &str| {
        format!("[[plugin]]\nname = \"{name}\"\nsource = \"{source}\"\n")
    };
    let server = format!("[server]\naudit_log = \"{}\"\n", audit.display());
    std::fs::write(
        &wasm_manifest,
        format!("{server}{}", plugin("echo", warden_tests::ECHO_WASM)),
    )
    .expect("write");
    std::fs::write(
        &native_manifest,
        format!("{server}{}", plugin("echo", "native:echo")),
    )
    .expect("write");
    std::fs::write(
        &plain_manifest,
        format!("{server}{}", plugin("shapes", warden_tests::SHAPES_WASM)),
    )
    .expect("write");
    std::fs::write(
        &both_manifest,
        format!(
            "{server}{}{}",
            plugin("capture", "builtin:capture"),
            plugin("echo", warden_tests::ECHO_WASM)
        ),
    )
    .expect("write");

    let roles_only = std::env::var("BENCH_PART").is_ok_and(|p| p == "roles");
    if !roles_only {
        starts_and_calls(&bin, &work, &server, &plugin, starts, calls);
    }
    roles(&bin, &work, &audit, calls);
    let _ = std::fs::remove_dir_all(&work);
}

/// Parts 1 and 2: start-up, and per-call latency against the native baseline.
fn starts_and_calls(
    bin: &Path,
    work: &Path,
    server: &str,
    plugin: &dyn Fn(&str, &str) -> String,
    starts: usize,
    calls: usize,
) {
    let bin = bin.to_path_buf();
    let wasm_manifest = work.join("wasm.toml");
    let native_manifest = work.join("native.toml");
    let plain_manifest = work.join("plain.toml");
    let both_manifest = work.join("start.toml");
    // 1. Start-up.
    let builtins_manifest = work.join("builtins.toml");
    std::fs::write(
        &builtins_manifest,
        format!(
            "{server}{}{}{}{}",
            plugin("browser", "builtin:browser"),
            plugin("terminal", "builtin:terminal"),
            plugin("sftp", "builtin:sftp"),
            plugin("capture", "builtin:capture")
        ),
    )
    .expect("write");
    let cold_runs = 3;
    let mut cold_builtins: Vec<Duration> = (0..cold_runs)
        .map(|i| start_to_tools_list(&bin, &builtins_manifest, &work.join(format!("cold-{i}"))))
        .collect();
    cold_builtins.sort();
    let warm_builtins_cache = work.join("cold-0");
    let mut warm_builtins: Vec<Duration> = (0..starts)
        .map(|_| start_to_tools_list(&bin, &builtins_manifest, &warm_builtins_cache))
        .collect();
    warm_builtins.sort();
    println!("## Start to first tools/list (the four built-in plugins)\n");
    println!("| start | runs | p50 | min | max |\n|---|---|---|---|---|");
    for (name, runs) in [
        ("cold (empty cache)", &cold_builtins),
        ("warm (cache hit)", &warm_builtins),
    ] {
        println!(
            "| {name} | {} | {} | {} | {} |",
            runs.len(),
            ms(percentile(runs, 0.5)),
            ms(runs[0]),
            ms(runs[runs.len() - 1])
        );
    }
    println!();

    let cold_cache = work.join("cold-cache");
    let cold = start_to_tools_list(&bin, &both_manifest, &cold_cache);
    let warm_cache = work.join("warm-cache");
    start_to_tools_list(&bin, &both_manifest, &warm_cache);
    let mut warm: Vec<Duration> = (0..starts)
        .map(|_| start_to_tools_list(&bin, &both_manifest, &warm_cache))
        .collect();
    warm.sort();
    println!("## Start to first tools/list (2 plugins: builtin capture + echo component)\n");
    println!("| start | runs | p50 | min | max |\n|---|---|---|---|---|");
    println!(
        "| cold (empty cache: compiles both components) | 1 | {} | | |",
        ms(cold)
    );
    println!(
        "| warm (cache hit: compiles nothing) | {starts} | {} | {} | {} |\n",
        ms(percentile(&warm, 0.5)),
        ms(warm[0]),
        ms(warm[warm.len() - 1])
    );

    // 2. Per-call latency, WASM vs native.
    let cache = work.join("call-cache");
    let mut wasm = Server::spawn(&bin, &wasm_manifest, &cache);
    let mut native = Server::spawn(&bin, &native_manifest, &cache);
    let mut plain = Server::spawn(&bin, &plain_manifest, &cache);
    wasm.initialize();
    native.initialize();
    plain.initialize();
    let args = json!({"name": "echo", "arguments": {"text": "hello from the benchmark"}});
    for _ in 0..200 {
        wasm.request("tools/call", args.clone());
        native.request("tools/call", args.clone());
        plain.request("tools/call", args.clone());
    }
    let (mut w, mut n, mut p) = (
        Vec::with_capacity(calls),
        Vec::with_capacity(calls),
        Vec::with_capacity(calls),
    );
    for i in 0..calls * 3 {
        // In turn call by call (and which goes first) so drift and noise hit all alike.
        let (server, samples) = match (i + i / 3) % 3 {
            0 => (&mut wasm, &mut w),
            1 => (&mut native, &mut n),
            _ => (&mut plain, &mut p),
        };
        let t = Instant::now();
        let result = server.request("tools/call", args.clone());
        samples.push(t.elapsed());
        assert_eq!(result["isError"], json!(false), "echo failed: {result}");
    }
    w.sort();
    n.sort();
    p.sort();
    let ratio = |p| percentile(&w, p).as_secs_f64() / percentile(&n, p).as_secs_f64();
    println!(
        "## Per-call latency of `echo` over stdio ({} calls each)\n",
        w.len()
    );
    println!("| implementation | p50 | p99 |\n|---|---|---|");
    println!(
        "| WASM component (tests/guests/echo) | {} | {} |",
        us(percentile(&w, 0.5)),
        us(percentile(&w, 0.99))
    );
    println!(
        "| host-native (`native:echo`) | {} | {} |",
        us(percentile(&n, 0.5)),
        us(percentile(&n, 0.99))
    );
    println!(
        "| plain exported function (tests/guests/shapes, dynamic call) | {} | {} |",
        us(percentile(&p, 0.5)),
        us(percentile(&p, 0.99))
    );
    println!(
        "| ratio WASM / native | {:.2}x | {:.2}x |",
        ratio(0.5),
        ratio(0.99)
    );
    let plain_ratio = |q| percentile(&p, q).as_secs_f64() / percentile(&w, q).as_secs_f64();
    println!(
        "| ratio plain export / WASM world | {:.2}x | {:.2}x |",
        plain_ratio(0.5),
        plain_ratio(0.99)
    );
    drop(wasm);
    drop(native);
    drop(plain);
}

/// Part 3: the per-call cost of a role and of a narrowed grant, against no roles.
fn roles(bin: &Path, work: &Path, audit: &Path, calls: usize) {
    let echo = warden_tests::ECHO_WASM;
    let manifest = |name: &str, local: &str, grants: &str, roles: &str| {
        let path = work.join(name);
        std::fs::write(
            &path,
            format!(
                "[server]\naudit_log = \"{}\"\n{local}\n[[plugin]]\nname = \"echo\"\nsource = \"{echo}\"\n{grants}\n{roles}",
                audit.display()
            ),
        )
        .expect("write");
        path
    };
    let grants = "grants.http = { origins = [\"https://a.example\", \"https://b.example\"] }";
    let none = manifest("roles-none.toml", "", grants, "");
    let role = manifest(
        "roles-role.toml",
        "local_role = \"r\"",
        grants,
        "[roles.r]\ntools = [\"ec*\", \"count\"]\n",
    );
    let narrowed = manifest(
        "roles-narrowed.toml",
        "local_role = \"r\"",
        grants,
        "[roles.r]\nplugins = [\"echo\"]\nnarrow.echo.http = { origins = [\"https://a.example\"] }\n",
    );
    let cache = work.join("roles-cache");
    let mut servers: Vec<Server> = [&none, &role, &narrowed]
        .iter()
        .map(|m| {
            let mut s = Server::spawn(bin, m, &cache);
            s.initialize();
            s
        })
        .collect();
    let args = json!({"name": "echo", "arguments": {"text": "hello from the benchmark"}});
    for _ in 0..200 {
        for s in &mut servers {
            s.request("tools/call", args.clone());
        }
    }
    let mut samples: Vec<Vec<Duration>> = (0..3).map(|_| Vec::with_capacity(calls)).collect();
    for i in 0..calls * 3 {
        let k = (i + i / 3) % 3;
        let t = Instant::now();
        let result = servers[k].request("tools/call", args.clone());
        samples[k].push(t.elapsed());
        assert_eq!(result["isError"], json!(false), "echo failed: {result}");
    }
    for s in &mut samples {
        s.sort();
    }
    println!("\n## The cost of roles: `echo` over stdio ({calls} calls each, in turn)\n");
    println!("| caller | p50 | p99 | p50 / no roles |\n|---|---|---|---|");
    for (name, s) in [
        "no roles",
        "a role (checked on every call)",
        "a role that narrows `grants.http`",
    ]
    .iter()
    .zip(&samples)
    {
        println!(
            "| {name} | {} | {} | {:.2}x |",
            us(percentile(s, 0.5)),
            us(percentile(s, 0.99)),
            percentile(s, 0.5).as_secs_f64() / percentile(&samples[0], 0.5).as_secs_f64()
        );
    }
}
