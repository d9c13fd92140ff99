//! `terminal-bench`: the terminal and SFTP capabilities against OpenSSH, same machine, same
//! run, one fresh sshd on 127.0.0.1.
//!
//! 1. `terminal_execute "echo hi"` on a warm session (MCP over stdio, as an agent sees it)
//!    against `ssh -p PORT 127.0.0.1 echo hi` (a new connection per command, as a
//!    session-less tool does it), alternating; p50 and the ratio.
//! 2. SFTP 100 MB read and write: Warden's provider (russh-sftp on the pooled connection,
//!    the code behind `sftp_read`/`sftp_write`) against OpenSSH's `sftp` client, alternating;
//!    MB/s and the ratio. Plus `sftp_read` over MCP in 4 MiB base64 pieces, for the cost of
//!    the protocol on top.
//!
//! Run: `cargo run --release -p warden-tests --bin terminal-bench` (needs /usr/sbin/sshd,
//! ssh, sftp and ssh-keygen; after `cargo build --release -p warden`).

use base64::Engine;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use warden::capabilities::sftp::{client::SftpPool, transfer};
use warden::capabilities::terminal::ssh::SshPool;
use warden::manifest::{SshAddress, SshHostConfig};
use warden::runtime::bindings::warden::sftp::sftp::WriteMode;

const MB: usize = 1_000_000;

struct Sshd {
    dir: PathBuf,
    port: u16,
    child: Child,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen runs")
        .success();
    assert!(ok, "ssh-keygen failed");
}

fn start_sshd(dir: &Path) -> Sshd {
    let sshd = Path::new("/usr/sbin/sshd");
    assert!(
        sshd.is_file(),
        "{} is missing: apt-get install openssh-server",
        sshd.display()
    );
    let _ = std::fs::create_dir_all("/run/sshd");
    keygen(&dir.join("host_key"));
    keygen(&dir.join("id_ed25519"));
    std::fs::copy(dir.join("id_ed25519.pub"), dir.join("authorized_keys")).expect("copy");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let host_pub = std::fs::read_to_string(dir.join("host_key.pub")).expect("host key");
    let host_pub: Vec<&str> = host_pub.split_whitespace().take(2).collect();
    std::fs::write(
        dir.join("known_hosts"),
        format!("[127.0.0.1]:{port} {}\n", host_pub.join(" ")),
    )
    .expect("known_hosts");
    let d = dir.display();
    std::fs::write(
        dir.join("sshd_config"),
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nStrictModes no\n\
             UsePAM no\nSubsystem sftp internal-sftp\n"
        ),
    )
    .expect("sshd_config");
    let child = Command::new(sshd)
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stderr(Stdio::null())
        .spawn()
        .expect("sshd starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "sshd did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    Sshd {
        dir: dir.to_path_buf(),
        port,
        child,
    }
}

impl Sshd {
    /// OpenSSH client options: our key and known_hosts, nothing from ~/.ssh.
    fn client_args(&self, port_flag: &str) -> Vec<String> {
        let d = self.dir.display();
        vec![
            port_flag.into(),
            self.port.to_string(),
            "-i".into(),
            format!("{d}/id_ed25519"),
            "-o".into(),
            format!("UserKnownHostsFile={d}/known_hosts"),
            "-o".into(),
            "BatchMode=yes".into(),
            "-F".into(),
            "/dev/null".into(),
        ]
    }
}

struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Mcp {
    fn spawn(bin: &Path, manifest: &Path) -> Self {
        let mut child = Command::new(bin)
            .args(["serve", "--manifest"])
            .arg(manifest)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("warden starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut mcp = Self {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "terminal-bench", "version": "1"}}),
        );
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).expect("read") > 0,
                "warden closed stdout"
            );
            let message: Value = serde_json::from_str(&line).expect("json");
            if message.get("id") == Some(&json!(id)) {
                assert!(message.get("error").is_none(), "{method} failed: {message}");
                return message["result"].clone();
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(result["isError"] != json!(true), "{tool} failed: {result}");
        result["structuredContent"].clone()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn p50(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / MB as f64 / d.as_secs_f64()
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = std::env::var_os("WARDEN_BIN")
        .map_or_else(|| repo.join("target/release/warden"), PathBuf::from);
    assert!(
        bin.is_file(),
        "{} is missing: cargo build --release -p warden",
        bin.display()
    );
    let calls = env_usize("BENCH_CALLS", 50);
    let size_mb = env_usize("BENCH_MB", 100);
    let rounds = env_usize("BENCH_ROUNDS", 3);

    let work = std::env::temp_dir().join(format!("warden-terminal-bench-{}", std::process::id()));
    std::fs::create_dir_all(work.join("root")).expect("work dir");
    let sshd = start_sshd(&work);
    let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
    let d = work.display();
    let manifest = work.join("warden.toml");
    std::fs::write(
        &manifest,
        format!(
            "[server]\naudit_log = \"{d}/audit.jsonl\"\n\n[ssh.hosts.box]\naddress = \"127.0.0.1:{}\"\n\
             user = \"{user}\"\nidentity_file = \"{d}/id_ed25519\"\nknown_hosts = \"{d}/known_hosts\"\n\n\
             [[plugin]]\nname = \"terminal\"\nsource = \"builtin:terminal\"\n\
             grants.terminal = {{ ssh_hosts = [\"box\"] }}\n\n\
             [[plugin]]\nname = \"sftp\"\nsource = \"builtin:sftp\"\n\
             limits = {{ output = \"16MiB\" }}\n\
             grants.sftp = {{ hosts = [\"box\"], roots = [\"{d}/root\"], write = true }}\n",
            sshd.port
        ),
    )
    .expect("manifest");

    // 1. echo hi: warm terminal session vs a fresh `ssh` per command.
    let mut mcp = Mcp::spawn(&bin, &manifest);
    let sid = mcp.call("terminal_open", json!({"host": "box"}))["id"]
        .as_str()
        .expect("session id")
        .to_string();
    let exec = |mcp: &mut Mcp| {
        let out = mcp.call(
            "terminal_execute",
            json!({"session_id": sid, "command": "echo hi"}),
        );
        assert_eq!(out["output"], "hi", "{out}");
    };
    let mut ssh_cmd = Command::new("ssh");
    ssh_cmd
        .args(sshd.client_args("-p"))
        .args(["127.0.0.1", "echo", "hi"]);
    let ssh_once = |cmd: &mut Command| {
        let out = cmd.output().expect("ssh runs");
        assert!(
            out.status.success(),
            "ssh failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hi");
    };
    for _ in 0..5 {
        exec(&mut mcp);
        ssh_once(&mut ssh_cmd);
    }
    let (mut warden_t, mut ssh_t) = (Vec::new(), Vec::new());
    for _ in 0..calls {
        let t = Instant::now();
        exec(&mut mcp);
        warden_t.push(t.elapsed());
        let t = Instant::now();
        ssh_once(&mut ssh_cmd);
        ssh_t.push(t.elapsed());
    }
    let (w, s) = (p50(warden_t), p50(ssh_t));
    println!("## echo hi ({calls} runs each, alternating)");
    println!("| how | p50 |\n|---|---|");
    println!(
        "| `terminal_execute` on a warm session (MCP stdio) | {} |",
        ms(w)
    );
    println!("| `ssh -p PORT 127.0.0.1 echo hi` | {} |", ms(s));
    println!(
        "| ratio ssh / terminal_execute | {:.1}x faster |\n",
        s.as_secs_f64() / w.as_secs_f64()
    );

    // 2. SFTP throughput: Warden's provider vs OpenSSH's sftp, alternating.
    let size = size_mb * MB;
    let data: Vec<u8> = (0..size)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let local = work.join("local.bin");
    std::fs::write(&local, &data).expect("local file");
    let remote_dir = work.join("root");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let mut hosts = BTreeMap::new();
    hosts.insert(
        "box".to_string(),
        SshHostConfig {
            address: SshAddress::Fixed(format!("127.0.0.1:{}", sshd.port)),
            user: user.clone(),
            identity_file: Some(work.join("id_ed25519")),
            identity_passphrase: None,
            agent: false,
            known_hosts: Some(work.join("known_hosts")),
            certificate: None,
            via: Vec::new(),
        },
    );
    let pool = SftpPool::new(Arc::new(SshPool::new(hosts)));
    let remote = rt.block_on(pool.remote("box")).expect("sftp subsystem");
    let sftp_batch = |batch: &str| {
        let file = work.join("batch");
        std::fs::write(&file, batch).expect("batch");
        let mut cmd = Command::new("sftp");
        cmd.args(sshd.client_args("-P"))
            .arg("-q")
            .arg("-b")
            .arg(&file)
            .arg("127.0.0.1");
        let t = Instant::now();
        let out = cmd.output().expect("sftp runs");
        let took = t.elapsed();
        assert!(
            out.status.success(),
            "sftp failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        took
    };
    let (mut w_write, mut w_read, mut o_write, mut o_read) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let path = format!("{}/warden.bin", remote_dir.display());
        let t = Instant::now();
        let n = rt
            .block_on(transfer::write_file(
                &remote,
                path.clone(),
                &data,
                WriteMode::Truncate,
            ))
            .expect("write");
        w_write.push(t.elapsed());
        assert_eq!(n as usize, size);
        let t = Instant::now();
        let back = rt
            .block_on(transfer::read_range(&remote, path, 0, size as u64))
            .expect("read");
        w_read.push(t.elapsed());
        assert!(back == data, "read back differs");

        let target = format!("{}/openssh.bin", remote_dir.display());
        o_write.push(sftp_batch(&format!("put {} {target}\n", local.display())));
        o_read.push(sftp_batch(&format!(
            "get {target} {}\n",
            work.join("got.bin").display()
        )));
        assert_eq!(
            std::fs::metadata(work.join("got.bin")).expect("got").len() as usize,
            size
        );
    }
    let (ww, wr, ow, or) = (p50(w_write), p50(w_read), p50(o_write), p50(o_read));
    println!("## SFTP {size_mb} MB ({rounds} rounds each, alternating; median)");
    println!(
        "| transfer | Warden provider | OpenSSH `sftp` | ratio Warden / OpenSSH |\n|---|---|---|---|"
    );
    println!(
        "| write (put) | {:.0} MB/s | {:.0} MB/s | {:.2}x |",
        mbps(size, ww),
        mbps(size, ow),
        ow.as_secs_f64() / ww.as_secs_f64()
    );
    println!(
        "| read (get) | {:.0} MB/s | {:.0} MB/s | {:.2}x |\n",
        mbps(size, wr),
        mbps(size, or),
        or.as_secs_f64() / wr.as_secs_f64()
    );

    // 3. The same read through MCP: sftp_read in 4 MiB base64 pieces.
    let piece = 4 * 1024 * 1024;
    let t = Instant::now();
    let mut offset = 0;
    let mut got = 0;
    while offset < size {
        let out = mcp.call(
            "sftp_read",
            json!({"host": "box", "path": "warden.bin", "offset": offset, "max_bytes": piece, "encoding": "base64"}),
        );
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(out["content"].as_str().expect("content"))
            .expect("base64");
        got += bytes.len();
        offset += piece;
    }
    let took = t.elapsed();
    assert_eq!(got, size);
    println!(
        "## sftp_read over MCP: {size_mb} MB in 4 MiB base64 pieces: {:.0} MB/s ({:.2} s)",
        mbps(size, took),
        took.as_secs_f64()
    );
    drop(mcp);
    drop(sshd);
    let _ = std::fs::remove_dir_all(&work);
}
