"""Throughput and latency of a trivial tool (`echo`) through HAProxy with 1, 2 and 3 Warden
replicas, and directly to one replica (the load balancer's own overhead), in one run.

    cargo build --release -p warden -p warden-tests
    .venv/bin/python tests/bench/replicas_bench.py [--clients 1,16] [--seconds 8]

Each client is one MCP session (2025-11-25 wire, raw JSON-RPC over streamable HTTP) that
calls `echo` back to back; the load generator, HAProxy and the replicas share the machine.
Needs haproxy (Debian package) and target/release/warden.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from ops_helpers import free_port, haproxy, serve  # noqa: E402

WARDEN = Path(os.environ.get("WARDEN_BIN", REPO / "target" / "release" / "warden"))
ECHO = REPO / "target" / "wasm" / "wasm32-wasip2" / "wasm-component" / "warden_guest_echo.wasm"
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "Mcp-Protocol-Version": "2025-11-25",
}
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


async def one_client(url: str, until: float, latencies: list[float]) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        r = await http.post(url, json=INIT, headers=HEADERS)
        assert r.status_code == 200, r.text
        headers = {**HEADERS, "Mcp-Session-Id": r.headers["mcp-session-id"]}
        r = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        assert r.status_code == 202, r.text
        n = 0
        while time.monotonic() < until:
            n += 1
            call = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}
            started = time.perf_counter()
            r = await http.post(url, json=call, headers=headers)
            latencies.append(time.perf_counter() - started)
            assert r.status_code == 200 and '"isError":false' in r.text.replace(" ", ""), r.text
        await http.delete(url, headers=headers)


async def measure(url: str, clients: int, seconds: float) -> tuple[float, float, float]:
    latencies: list[float] = []
    # Warm-up: the first calls instantiate the plugin.
    await asyncio.gather(*(one_client(url, time.monotonic() + 1, []) for _ in range(clients)))
    started = time.monotonic()
    until = started + seconds
    await asyncio.gather(*(one_client(url, until, latencies) for _ in range(clients)))
    elapsed = time.monotonic() - started
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000  # noqa: E731
    return len(latencies) / elapsed, p(0.50), p(0.99)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", default="1,16", help="concurrent sessions, comma-separated")
    ap.add_argument("--seconds", type=float, default=8)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        dir = Path(tmp)
        env = {"WARDEN_CACHE_DIR": str(dir / "cache"), "RUST_LOG": "warn,warden=info"}
        ports = [(free_port(), free_port()) for _ in range(3)]
        with contextlib.ExitStack() as replicas:
            for i, (mcp, admin) in enumerate(ports):
                manifest = dir / f"r{i + 1}.toml"
                manifest.write_text(
                    f'[server]\naudit_log = "r{i + 1}.jsonl"\n\n[[plugin]]\nname = "echo"\nsource = "{ECHO}"\n'
                )
                replicas.enter_context(serve(WARDEN, manifest, env, f"127.0.0.1:{mcp}", admin=f"127.0.0.1:{admin}"))
            counts = [int(c) for c in args.clients.split(",")]
            for clients in counts:
                direct = asyncio.run(measure(f"http://127.0.0.1:{ports[0][0]}/mcp", clients, args.seconds))
                rows.append((clients, "direct, 1 replica", *direct))
            for n in (1, 2, 3):
                lb = free_port()
                lb_dir = dir / f"lb{n}"
                lb_dir.mkdir()
                with haproxy(lb_dir, lb, ports[:n]):
                    for clients in counts:
                        result = asyncio.run(measure(f"http://127.0.0.1:{lb}/mcp", clients, args.seconds))
                        rows.append((clients, f"HAProxy, {n} replica{'s' if n > 1 else ''}", *result))
    print(f"echo through each path for {args.seconds:g} s; load average {os.getloadavg()[0]:.1f}\n")
    print("| sessions | path | calls/s | p50 | p99 |")
    print("|---|---|---|---|---|")
    for clients, name, rate, p50, p99 in sorted(rows, key=lambda r: r[0]):
        print(f"| {clients} | {name} | {rate:,.0f} | {p50:.1f} ms | {p99:.1f} ms |")

if __name__ == "__main__":
    main()
