"""Calls side by side: how Warden serves many clients at once, against a baseline build run in
the same benchmark (the commit before instance-per-call, for the before/after table).

    cargo build --release -p warden -p warden-tests
    .venv/bin/python tests/bench/concurrency_bench.py [--seconds 6] \
        [--baseline BASE/target/release/warden --baseline-echo BASE/target/wasm/wasm32-wasip2/wasm-component/warden_guest_echo.wasm]

Measures, for each binary:
- `echo` calls/s, p50 and p99 with 1, 4, 16 and 64 concurrent clients over HTTP (the stateless
  2026-07-28 wire, one request per call, driven by wrk when it is installed, else by Python)
  and over one stdio connection (calls pipelined on the one pipe);
- the p99 of a fast call while 15 other clients each run 2-second calls (`progress` of 100
  steps of 20 ms, which both builds' echo guest has);
- resident memory with 100 idle MCP sessions that each made one call.

Needs target/release/warden and the echo test guest (built by warden-tests); wrk (Debian
package) for the HTTP figures, else a slower Python load generator is used and said so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
import psutil

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from ops_helpers import free_port, serve  # noqa: E402

WARDEN = Path(os.environ.get("WARDEN_BIN", REPO / "target" / "release" / "warden"))
ECHO = REPO / "target" / "wasm" / "wasm32-wasip2" / "wasm-component" / "warden_guest_echo.wasm"
MODERN = "2026-07-28"
LEVELS = (1, 4, 16, 64)


def stateless_call(tool: str, arguments: dict, request_id: int = 1) -> tuple[dict, dict]:
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}},
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }
    return body, headers


def percentile(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


# ----------------------------------------------------------------------------- HTTP


WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = [[{body}]]
{headers}
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %f %f %f\\n", summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
"""


def http_with_wrk(url: str, clients: int, seconds: float) -> tuple[float, float, float]:
    body, headers = stateless_call("echo", {"text": "x"})
    lines = "\n".join(f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items())
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(WRK_SCRIPT.format(body=json.dumps(body), headers=lines))
    try:
        out = subprocess.run(
            ["wrk", "-t1", f"-c{clients}", f"-d{max(1, round(seconds))}s", "-s", f.name, url],
            capture_output=True, text=True, timeout=seconds + 60, check=True,
        ).stdout
    finally:
        os.unlink(f.name)
    line = next(line for line in out.splitlines() if line.startswith("RESULT"))
    _, n, duration, p50, p99 = line.split()
    if "Non-2xx" in out:
        raise SystemExit(f"wrk saw errors:\n{out}")
    return int(n) / float(duration), float(p50), float(p99)


async def http_with_python(url: str, clients: int, seconds: float) -> tuple[float, float, float]:
    body, headers = stateless_call("echo", {"text": "x"})
    latencies: list[float] = []
    until = time.monotonic() + seconds

    async def client() -> None:
        async with httpx2.AsyncClient(timeout=30) as http:
            while time.monotonic() < until:
                started = time.perf_counter()
                r = await http.post(url, json=body, headers=headers)
                latencies.append((time.perf_counter() - started) * 1000)
                assert r.status_code == 200, r.text

    started = time.monotonic()
    await asyncio.gather(*(client() for _ in range(clients)))
    elapsed = time.monotonic() - started
    latencies.sort()
    return len(latencies) / elapsed, percentile(latencies, 0.5), percentile(latencies, 0.99)


async def fast_beside_slow(url: str, seconds: float) -> tuple[float, float, int]:
    """p50/p99 of `echo` from one client while 15 others run `sleep 2000` back to back."""
    echo, echo_headers = stateless_call("echo", {"text": "x"})
    sleep, sleep_headers = stateless_call("progress", {"steps": 100})
    until = time.monotonic() + seconds
    latencies: list[float] = []
    slow_done = 0

    async def slow() -> None:
        nonlocal slow_done
        async with httpx2.AsyncClient(timeout=60) as http:
            while time.monotonic() < until:
                r = await http.post(url, json=sleep, headers=sleep_headers)
                assert r.status_code == 200 and "done" in r.text, r.text
                slow_done += 1

    async def fast() -> None:
        await asyncio.sleep(0.5)
        async with httpx2.AsyncClient(timeout=60) as http:
            while time.monotonic() < until:
                started = time.perf_counter()
                r = await http.post(url, json=echo, headers=echo_headers)
                latencies.append((time.perf_counter() - started) * 1000)
                assert r.status_code == 200, r.text
                await asyncio.sleep(0.01)

    await asyncio.gather(fast(), *(slow() for _ in range(15)))
    latencies.sort()
    return percentile(latencies, 0.5), percentile(latencies, 0.99), slow_done


async def idle_sessions_memory(url: str, pid: int, sessions: int = 100) -> tuple[float, float]:
    """Resident MiB before and after `sessions` MCP sessions each made one call and stayed open."""
    proc = psutil.Process(pid)
    before = proc.memory_info().rss / 2**20
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    async with httpx2.AsyncClient(timeout=30) as http:
        for i in range(sessions):
            r = await http.post(url, json=init, headers=headers)
            sid = {**headers, "Mcp-Session-Id": r.headers["mcp-session-id"]}
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=sid)
            call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count", "arguments": {}}}
            r = await http.post(url, json=call, headers=sid)
            assert r.status_code == 200, r.text
        await asyncio.sleep(1)
        return before, proc.memory_info().rss / 2**20


# ----------------------------------------------------------------------------- stdio


async def stdio_level(warden: Path, manifest: Path, env: dict, clients: int, seconds: float) -> tuple[float, float, float]:
    """`clients` callers sharing one stdio connection: each keeps one call in flight."""
    proc = await asyncio.create_subprocess_exec(
        str(warden), "serve", "--manifest", str(manifest), env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=2**24,
    )
    assert proc.stdin and proc.stdout
    pending: dict[int, asyncio.Future] = {}

    async def reader() -> None:
        assert proc.stdout
        while line := await proc.stdout.readline():
            message = json.loads(line)
            future = pending.pop(message.get("id"), None)
            if future is not None:
                future.set_result(message)

    async def request(request_id: int, method: str, params: dict) -> dict:
        future = asyncio.get_running_loop().create_future()
        pending[request_id] = future
        assert proc.stdin
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n").encode())
        return await future

    task = asyncio.create_task(reader())
    await request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    ids = iter(range(1, 10**9))
    latencies: list[float] = []
    until = time.monotonic() + seconds

    async def caller() -> None:
        while time.monotonic() < until:
            started = time.perf_counter()
            reply = await request(next(ids), "tools/call", {"name": "echo", "arguments": {"text": "x"}})
            latencies.append((time.perf_counter() - started) * 1000)
            assert reply["result"]["isError"] is False, reply

    started = time.monotonic()
    await asyncio.gather(*(caller() for _ in range(clients)))
    elapsed = time.monotonic() - started
    proc.stdin.close()
    await proc.wait()
    task.cancel()
    latencies.sort()
    return len(latencies) / elapsed, percentile(latencies, 0.5), percentile(latencies, 0.99)


# ----------------------------------------------------------------------------- driver


def run_binary(name: str, warden: Path, echo: Path, seconds: float, tmp: Path) -> dict:
    manifest = tmp / f"{name}.toml"
    # The build before knows no `concurrency` key.
    limits = "limits = { concurrency = 64 }\n" if name == "after" else ""
    manifest.write_text(
        f'[server]\naudit_log = "{tmp / (name + "-audit.jsonl")}"\n\n'
        f'[[plugin]]\nname = "echo"\nsource = "{echo}"\n{limits}'
    )
    env = {**os.environ, "WARDEN_CACHE_DIR": str(tmp / "cache"), "RUST_LOG": "warn,warden::mcp::http=info"}
    results: dict = {"http": {}, "stdio": {}}
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    wrk = shutil.which("wrk")
    with serve(warden, manifest, env, f"127.0.0.1:{port}") as proc:
        for clients in LEVELS:
            if wrk:
                results["http"][clients] = http_with_wrk(url, clients, seconds)
            else:
                results["http"][clients] = asyncio.run(http_with_python(url, clients, seconds))
            print(f"{name} http {clients:>2} clients: {results['http'][clients][0]:8.0f} calls/s  p50 {results['http'][clients][1]:7.2f} ms  p99 {results['http'][clients][2]:7.2f} ms", flush=True)
        results["beside_slow"] = asyncio.run(fast_beside_slow(url, max(seconds, 6)))
        print(f"{name} fast call beside 15 clients' 2 s calls: p50 {results['beside_slow'][0]:.1f} ms, p99 {results['beside_slow'][1]:.1f} ms ({results['beside_slow'][2]} slow calls done)", flush=True)
        results["idle"] = asyncio.run(idle_sessions_memory(url, proc.pid))
        print(f"{name} resident: {results['idle'][0]:.1f} MiB before, {results['idle'][1]:.1f} MiB with 100 idle sessions", flush=True)
    for clients in LEVELS:
        results["stdio"][clients] = asyncio.run(stdio_level(warden, manifest, env, clients, seconds))
        print(f"{name} stdio {clients:>2} callers: {results['stdio'][clients][0]:8.0f} calls/s  p50 {results['stdio'][clients][1]:7.2f} ms  p99 {results['stdio'][clients][2]:7.2f} ms", flush=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", type=Path, help="a warden binary to compare against (the build before)")
    ap.add_argument("--baseline-echo", type=Path, help="the echo test guest built with the baseline")
    ap.add_argument("--seconds", type=float, default=6)
    args = ap.parse_args()
    if not ECHO.is_file():
        raise SystemExit(f"{ECHO} is missing: cargo build --release -p warden-tests")
    if not shutil.which("wrk"):
        print("wrk is not installed (apt-get install wrk): HTTP load comes from Python, which saturates a core first")
    binaries = [("after", WARDEN, ECHO)]
    if args.baseline:
        if not args.baseline_echo:
            raise SystemExit("--baseline needs --baseline-echo: the echo guest built with it")
        binaries.append(("before", args.baseline, args.baseline_echo))
    with tempfile.TemporaryDirectory() as tmp:
        runs = {name: run_binary(name, path, echo, args.seconds, Path(tmp)) for name, path, echo in binaries}

    print("\n| wire | clients | " + " | ".join(f"{n} calls/s | {n} p50 | {n} p99" for n, _, _ in binaries) + " |")
    print("|---|---|" + "---|---|---|" * len(binaries))
    for wire in ("http", "stdio"):
        for clients in LEVELS:
            cells = " | ".join(
                f"{runs[n][wire][clients][0]:,.0f} | {runs[n][wire][clients][1]:.2f} ms | {runs[n][wire][clients][2]:.2f} ms"
                for n, _, _ in binaries
            )
            print(f"| {wire} | {clients} | {cells} |")
    for n, _, _ in binaries:
        one, sixteen = runs[n]["http"][1][0], runs[n]["http"][16][0]
        p50, p99, _ = runs[n]["beside_slow"]
        before, idle = runs[n]["idle"]
        print(
            f"{n}: 16 clients / 1 client over HTTP = {sixteen / one:.2f}x; fast call beside 15 slow clients p50 {p50:.1f} ms "
            f"p99 {p99:.1f} ms; resident {before:.1f} -> {idle:.1f} MiB with 100 idle sessions"
        )


if __name__ == "__main__":
    main()
