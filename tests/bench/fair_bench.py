"""Fair shares: how long one client's fast call takes while another client floods a plugin
with slow calls, on this build and (optionally) a baseline build.

    cargo build --release -p warden -p warden-tests
    .venv/bin/python tests/bench/fair_bench.py [--calls 20] \
        [--baseline BASE/target/release/warden --baseline-echo BASE/target/wasm/wasm32-wasip2/wasm-component/warden_guest_echo.wasm]

Two bearer clients on one `serve --http`, the stateless 2026-07-28 wire; the echo guest with
`limits.concurrency = 4` and `queue_timeout = "60s"`. alice keeps 40 `sleep 2000` calls in
flight; meanwhile bob makes `--calls` `echo` calls one after another. Reports bob's p50, p99
and worst latency, and how many were refused.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx2

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
sys.path.insert(0, str(REPO / "tests" / "bench"))
from concurrency_bench import percentile, stateless_call  # noqa: E402
from ops_helpers import free_port, serve  # noqa: E402

WARDEN = Path(os.environ.get("WARDEN_BIN", REPO / "target" / "release" / "warden"))
ECHO = REPO / "target" / "wasm" / "wasm32-wasip2" / "wasm-component" / "warden_guest_echo.wasm"
FLOOD = 40
PLACES = 4


async def measure(url: str, tokens: dict[str, str], calls: int) -> tuple[list[float], int]:
    sleep, sleep_headers = stateless_call("sleep", {"ms": 2000})
    echo, echo_headers = stateless_call("echo", {"text": "bob"})
    stop = asyncio.Event()
    flooding = asyncio.Event()
    in_flight = 0

    async def alice() -> None:
        nonlocal in_flight
        headers = {**sleep_headers, "Authorization": f"Bearer {tokens['alice']}"}
        async with httpx2.AsyncClient(timeout=120) as http:
            while not stop.is_set():
                in_flight += 1
                if in_flight >= FLOOD:
                    flooding.set()
                await http.post(url, json=sleep, headers=headers)
                in_flight -= 1

    latencies: list[float] = []
    refused = 0

    async def bob() -> None:
        nonlocal refused
        headers = {**echo_headers, "Authorization": f"Bearer {tokens['bob']}"}
        async with httpx2.AsyncClient(timeout=120) as http:
            await http.post(url, json=echo, headers=headers)  # warm-up
            await flooding.wait()
            await asyncio.sleep(0.5)  # alice's calls fill the places and her line
            for _ in range(calls):
                started = time.perf_counter()
                r = await http.post(url, json=echo, headers=headers)
                latencies.append((time.perf_counter() - started) * 1000)
                if "limit reached" in r.text:
                    refused += 1
        stop.set()

    await asyncio.gather(bob(), *(alice() for _ in range(FLOOD)))
    latencies.sort()
    return latencies, refused


def run(name: str, warden: Path, echo: Path, calls: int) -> None:
    tokens = {n: f"{n}-{os.urandom(8).hex()}" for n in ("alice", "bob")}
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "warden.toml"
        manifest.write_text(
            f'[server]\naudit_log = "{tmp}/audit.jsonl"\n\n'
            '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n'
            '[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n'
            f'[[plugin]]\nname = "echo"\nsource = "{echo}"\n'
            f'limits = {{ concurrency = {PLACES}, queue_timeout = "60s", call_timeout = "120s" }}\n'
        )
        env = {"ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"], "WARDEN_CACHE_DIR": f"{tmp}/cache"}
        port = free_port()
        with serve(warden, manifest, env, f"127.0.0.1:{port}"):
            latencies, refused = asyncio.run(measure(f"http://127.0.0.1:{port}/mcp", tokens, calls))
    print(
        f"{name}: bob's echo beside alice's {FLOOD} sleeping calls on {PLACES} places: "
        f"p50 {percentile(latencies, 0.5):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms, "
        f"worst {latencies[-1]:.1f} ms, refused {refused} of {len(latencies)}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--baseline-echo", type=Path)
    args = parser.parse_args()
    run("this build", WARDEN, ECHO, args.calls)
    if args.baseline:
        run("baseline", args.baseline, args.baseline_echo or ECHO, args.calls)


if __name__ == "__main__":
    main()
