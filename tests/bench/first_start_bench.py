"""A large component's first start, Warden against Wassette, side by side in one run: the
same component file served by each over stdio, timed from the process start to the first
`tools/list` that names its tools, then a `tools/call` answered. A first start has nothing
compiled (Warden: an empty `WARDEN_CACHE_DIR`; Wassette: a new plugin directory and home). Warden
is run twice: as it ships (`[server] quick_start`: baseline code first, the optimized code
compiled in the background; the first server stays up until that is in use, as a session
would, and the time is printed) and with `quick_start = "off"` (the optimized code before the
first call). A second start is timed too (Warden then loads the optimized code from its cache).
Runs alternate between the servers, so a busy spell of the machine falls on all.

    node tests/guests/weather-js/build.mjs -o /tmp/weather.wasm     # the 12.2 MiB JavaScript component
    .venv/bin/python tests/bench/first_start_bench.py --warden target/release/warden \\
        --wassette /path/to/wassette --component /tmp/weather.wasm [--runs 3]

Prints a table (median of `--runs`, and the ratio to Wassette) for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

#: How long a start may take before the run is called a failure.
HANG = 300


@dataclass
class Start:
    tools: float
    """Seconds from the spawn to a `tools/list` with a tool."""
    call: float
    """Seconds from the spawn to the first `tools/call` answered."""
    optimized: float | None = None
    """Warden on two tiers: seconds from the spawn to its optimized code in use."""


async def start(command: str, args: list[str], env: dict[str, str], cwd: Path, log: Path,
                wait_for: str | None = None) -> Start:
    """Spawn `command`, list its tools and call one (its failure is an answer too); with
    `wait_for`, stay connected until that line is in the server's log."""
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))
    begun = time.perf_counter()
    with open(log, "w") as errlog, anyio.fail_after(HANG):
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while not (tools := (await session.list_tools()).tools):
                    await anyio.sleep(0.01)
                listed = time.perf_counter() - begun
                # A tool that takes no arguments, so that the component's code runs.
                bare = [t for t in tools if not (t.input_schema or {}).get("required")]
                await session.call_tool((bare or tools)[0].name, {})
                called = time.perf_counter() - begun
                optimized = None
                if wait_for:
                    while wait_for not in log.read_text(errors="replace"):
                        await anyio.sleep(0.05)
                    optimized = time.perf_counter() - begun
                return Start(listed, called, optimized)


def warden_env(tmp: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "RUST_LOG": "info", "XDG_STATE_HOME": str(tmp / "state"), "WARDEN_CACHE_DIR": str(cache)}


async def warden_starts(warden: str, component: Path, tmp: Path, quick_start: str | None) -> tuple[Start, Start]:
    tmp.mkdir(parents=True)
    manifest = tmp / "warden.toml"
    server = f'[server]\nquick_start = "{quick_start}"\n\n' if quick_start else ""
    manifest.write_text(
        f'{server}[[plugin]]\nname = "bench"\nsource = "{component}"\nlimits = {{ memory = "256MiB" }}\n'
    )
    cache = tmp / "cache"
    args = ["serve", "--manifest", str(manifest)]
    wait_for = "plugin 'bench': optimized code in use" if quick_start is None else None
    first = await start(warden, args, warden_env(tmp, cache), tmp, tmp / "first.log", wait_for)
    second = await start(warden, args, warden_env(tmp, cache), tmp, tmp / "second.log")
    return first, second


async def wassette_starts(wassette: str, component: Path, tmp: Path) -> tuple[Start, Start]:
    plugins = tmp / "plugins"
    plugins.mkdir(parents=True)
    shutil.copy(component, plugins / component.name)
    # A home of its own: nothing another run left behind is found.
    env = {**os.environ, "HOME": str(tmp / "home"), "XDG_CACHE_HOME": str(tmp / "cache"),
           "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config"), "RUST_LOG": "info"}
    args = ["serve", "--stdio", "--plugin-dir", str(plugins)]
    first = await start(wassette, args, env, tmp, tmp / "first.log")
    second = await start(wassette, args, env, tmp, tmp / "second.log")
    return first, second


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warden", required=True)
    parser.add_argument("--wassette", required=True)
    parser.add_argument("--component", required=True, type=Path)
    parser.add_argument("--runs", type=int, default=3)
    opts = parser.parse_args()
    component = opts.component.resolve()
    warden, wassette = (str(Path(p).resolve()) if "/" in p else p for p in (opts.warden, opts.wassette))
    servers = {
        "Warden (baseline code first)": lambda base: warden_starts(warden, component, base / "warden", None),
        'Warden, quick_start = "off"': lambda base: warden_starts(warden, component, base / "warden-off", "off"),
        "Wassette": lambda base: wassette_starts(wassette, component, base / "wassette"),
    }
    rows: dict[str, list[tuple[Start, Start]]] = {name: [] for name in servers}
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(opts.runs):
            base = Path(scratch) / f"run{run}"
            for name, starts in servers.items():
                rows[name].append(await starts(base))
                first, second = rows[name][-1]
                print(f"run {run + 1}: {name}: first {first}, second {second}", flush=True)
    size = component.stat().st_size / (1 << 20)
    print(f"\n{component.name}, {size:.1f} MiB, {opts.runs} runs, median (min-max):\n")
    print("| server | first start to tools/list | to the first call answered | optimized code in use | second start to tools/list |")
    print("|---|---|---|---|---|")
    peer = statistics.median(r[0].tools for r in rows["Wassette"])
    peer_second = statistics.median(r[1].tools for r in rows["Wassette"])
    for name, runs in rows.items():
        optimized = [r[0].optimized for r in runs if r[0].optimized is not None]
        print(f"| {name} | {_cell([r[0].tools for r in runs])} | {_cell([r[0].call for r in runs])} "
              f"| {_cell(optimized) if optimized else '-'} | {_cell([r[1].tools for r in runs])} |")
    for name, runs in rows.items():
        if name != "Wassette":
            first = statistics.median(r[0].tools for r in runs) / peer
            second = statistics.median(r[1].tools for r in runs) / peer_second
            print(f"| {name} / Wassette | {first:.2f}x | | | {second:.2f}x |")


if __name__ == "__main__":
    anyio.run(main)
