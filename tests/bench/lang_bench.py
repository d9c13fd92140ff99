"""What a plugin's language costs: the same `echo {text}` tool as a Rust, a JavaScript and a
Python component, each served alone by the same warden, measured in one run.

    .venv/bin/python tests/bench/lang_bench.py --warden target/release/warden \
        --rust target/wasm/wasm32-wasip2/wasm-component/warden_guest_echo.wasm \
        --js /tmp/js-fixture.wasm --python /tmp/python-fixture.wasm [--calls 300] [--starts 9]

Per component: its size; cold compile (`warden tools` with an empty cache: compile, instantiate,
list); warm start to the first `tools/list` over stdio (p50 of `--starts`); per-call latency of
`echo` (p50, p99 of `--calls`, after 20 warm-up calls); and the resident memory of a warden
serving only that plugin after the calls, and how much more than with the Rust one (a manifest
needs a plugin, so the Rust row is the baseline of what the host itself holds).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import psutil
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def manifest(tmp: Path, wasm: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    body = f'[server]\naudit_log = "audit.jsonl"\n\n[[plugin]]\nname = "bench"\nsource = "{wasm}"\n'
    body += 'limits = { memory = "256MiB" }\n'
    path = tmp / "warden.toml"
    path.write_text(body)
    return path


def env(tmp: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "RUST_LOG": "warn", "XDG_STATE_HOME": str(tmp / "state"), "WARDEN_CACHE_DIR": str(cache)}


def cold_compile(warden: str, tmp: Path, wasm: Path) -> float:
    cache = tmp / "cold-cache"
    start = time.perf_counter()
    done = subprocess.run(
        [warden, "tools", "--manifest", str(manifest(tmp, wasm))],
        env=env(tmp, cache), capture_output=True, text=True, timeout=300,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"warden tools failed for {wasm}: {done.stderr[-2000:]}")
    return elapsed


@contextlib.asynccontextmanager
async def serve(warden: str, tmp: Path, wasm: Path):
    params = StdioServerParameters(
        command=warden,
        args=["serve", "--manifest", str(manifest(tmp, wasm))],
        env=env(tmp, tmp / "cache"),
        cwd=str(tmp),
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


def warden_process(warden: str) -> psutil.Process:
    """The newest running process of this warden binary (the one just started)."""
    real = os.path.realpath(warden)
    mine = [p for p in psutil.process_iter(["exe", "create_time"]) if p.info["exe"] == real]
    return max(mine, key=lambda p: p.info["create_time"])


async def warm_start(warden: str, tmp: Path, wasm: Path) -> float:
    start = time.perf_counter()
    async with serve(warden, tmp, wasm) as s:
        await s.list_tools()
        return (time.perf_counter() - start) * 1000


async def calls(warden: str, tmp: Path, wasm: Path, n: int) -> tuple[list[float], int]:
    async with serve(warden, tmp, wasm) as s:
        for _ in range(20):
            await s.call_tool("echo", {"text": "warm"})
        times = []
        for i in range(n):
            start = time.perf_counter()
            result = await s.call_tool("echo", {"text": f"hello {i}"})
            times.append((time.perf_counter() - start) * 1000)
            if result.is_error:
                raise RuntimeError(f"echo failed: {result.content}")
        return times, warden_process(warden).memory_info().rss


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--warden", required=True)
    parser.add_argument("--rust", type=Path, required=True, help="a component with an echo {text} tool, in Rust")
    parser.add_argument("--js", type=Path, help="the same in JavaScript")
    parser.add_argument("--python", type=Path, help="the same in Python")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--starts", type=int, default=9)
    opts = parser.parse_args()
    opts.warden = os.path.abspath(opts.warden)
    langs = [(name, path.resolve()) for name, path in (("Rust", opts.rust), ("JavaScript", opts.js), ("Python", opts.python)) if path]
    rows = []
    with tempfile.TemporaryDirectory() as root:
        for name, wasm in langs:
            tmp = Path(root) / name
            cold = cold_compile(opts.warden, tmp, wasm)
            await warm_start(opts.warden, tmp, wasm)  # fills tmp/cache
            warm = [await warm_start(opts.warden, tmp, wasm) for _ in range(opts.starts)]
            times, rss = await calls(opts.warden, tmp, wasm, opts.calls)
            rows.append((name, wasm.stat().st_size, cold, statistics.median(warm), pct(times, 0.5), pct(times, 0.99), rss))
    base = rows[0][-1]
    print("| language | component | cold compile | warm start to tools/list (p50) | echo p50 | echo p99 | resident, serving it | more than Rust |")
    print("|---|---|---|---|---|---|---|---|")
    for name, size, cold, warm, p50, p99, rss in rows:
        print(
            f"| {name} | {size / 2**20:.1f} MiB | {cold:.2f} s | {warm:.0f} ms | {p50:.2f} ms | {p99:.2f} ms "
            f"| {rss / 2**20:.1f} MiB | {(rss - base) / 2**20:.1f} MiB |"
        )


if __name__ == "__main__":
    sys.exit(anyio.run(main))
