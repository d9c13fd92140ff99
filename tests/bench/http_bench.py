"""A plugin's wasi:http request against a native client doing the same request, and what the
grant check and the credential cost per request.

    .venv/bin/python tests/bench/http_bench.py [--n 300]

Needs target/release/warden and the test guest and example components (`cargo build --release
-p warden -p warden-tests`). One loopback HTTP server (Python's, keep-alive off, as every
request of the host opens its own pinned connection); one warden over stdio with the `http`
test guest loaded three times:

- `plain`: `grants.http` names the server; no credential.
- `bearer`: the same, with a bearer `[credentials]` bound to the server (injected, and the
  response scrubbed of it).
- `denied`: no `http` grant: the request is refused by the grant check, nothing is sent.

Each timing is one MCP `tools/call` measured by the client, so all three carry the same MCP
and instance costs; `native` is `http.client` doing the same GET on a new connection. The
figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WASM = REPO / "target" / "wasm" / "wasm32-wasip2" / "wasm-component"
BODY = json.dumps({"id": 1, "title": "Disk full", "labels": ["ops"] * 20}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        pass


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def summary(name: str, ms: list[float]) -> str:
    return f"| {name} | {statistics.median(ms):.2f} | {pct(ms, 99):.2f} |"


class Mcp:
    def __init__(self, manifest: Path, env: dict[str, str]) -> None:
        bin_ = os.environ.get("WARDEN_BIN", str(REPO / "target" / "release" / "warden"))
        self.proc = subprocess.Popen(
            [bin_, "serve", "--manifest", str(manifest)], cwd=manifest.parent, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self.next = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "http-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        assert self.proc.stdout
        for line in self.proc.stdout:
            message = json.loads(line)
            if message.get("id") == self.next:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]
        raise RuntimeError("warden closed stdout")

    def call(self, tool: str, args: dict) -> tuple[float, dict]:
        started = time.perf_counter()
        result = self.request("tools/call", {"name": tool, "arguments": args})
        return (time.perf_counter() - started) * 1000, result

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    origin = f"http://127.0.0.1:{port}"
    url = origin + "/items/1"

    native: list[float] = []
    for _ in range(args.n):
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", "/items/1", headers={"Authorization": "Bearer bench-token-0123456789"})
        assert conn.getresponse().read() == BODY
        conn.close()
        native.append((time.perf_counter() - started) * 1000)

    with tempfile.TemporaryDirectory() as tmp_:
        tmp = Path(tmp_)
        manifest = tmp / "warden.toml"
        guest = WASM / "warden_guest_http.wasm"
        manifest.write_text(f"""[server]
audit_log = "audit.jsonl"

[credentials.bench]
kind = "bearer"
env = "BENCH_TOKEN"
origins = ["{origin}"]

[[plugin]]
name = "plain"
source = "{guest}"
grants.http = {{ origins = ["{origin}"] }}

[[plugin]]
name = "bearer"
source = "{guest}"
tool_prefix = "bearer_"
grants.http = {{ origins = ["{origin}"], credentials = ["bench"] }}

[[plugin]]
name = "denied"
source = "{guest}"
tool_prefix = "denied_"
""")
        env = {**os.environ, "RUST_LOG": "warn", "WARDEN_CACHE_DIR": str(tmp / "cache"), "BENCH_TOKEN": "bench-token-0123456789"}
        mcp = Mcp(manifest, env)
        try:
            timings: dict[str, list[float]] = {"plain": [], "bearer": [], "denied": []}
            tools = {"plain": "request", "bearer": "bearer_request", "denied": "denied_request"}
            for name, tool in tools.items():
                for _ in range(20):  # warm the instances
                    mcp.call(tool, {"method": "GET", "url": url})
            for _ in range(args.n):
                for name, tool in tools.items():
                    ms, result = mcp.call(tool, {"method": "GET", "url": url})
                    assert bool(result.get("isError")) == (name == "denied"), result
                    timings[name].append(ms)
        finally:
            mcp.close()
    server.shutdown()

    print(f"n = {args.n} each, ms")
    print("| | p50 | p99 |")
    print("|---|---|---|")
    print(summary("native `http.client`, new connection", native))
    print(summary("plugin `wasi:http`, `grants.http` (tools/call)", timings["plain"]))
    print(summary("plugin `wasi:http` with a bearer credential (tools/call)", timings["bearer"]))
    print(summary("refused by the grant check (tools/call, nothing sent)", timings["denied"]))
    cost = statistics.median(timings["bearer"]) - statistics.median(timings["plain"])
    print(f"credential injection and scrubbing: {cost * 1000:.0f} µs per request (p50 difference)")


if __name__ == "__main__":
    sys.exit(main())
