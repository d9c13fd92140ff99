"""A large component's first start, Warden against Wassette, side by side in one run: the
same component file served by each over stdio, timed from the process start to the first
`tools/list` that names its tools. A first start has nothing compiled (Warden: an empty
`WARDEN_CACHE_DIR`; Wassette: a new plugin directory and home); a second start is timed too
(Warden then loads the compiled component from its cache). Runs alternate between the two
servers, so a busy spell of the machine falls on both.

    node tests/guests/weather-js/build.mjs -o /tmp/weather.wasm     # the 11.5 MiB JavaScript component
    .venv/bin/python tests/bench/first_start_bench.py --warden target/release/warden \\
        --wassette /path/to/wassette --component /tmp/weather.wasm [--runs 3]

Prints a table (median of `--runs`, and the ratio Warden/Wassette) for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

#: How long a start may take before the run is called a failure.
HANG = 300


async def time_to_tools(command: str, args: list[str], env: dict[str, str], cwd: Path, log: Path) -> float:
    """Seconds from spawning `command` to a `tools/list` with at least one tool."""
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))
    start = time.perf_counter()
    with open(log, "w") as errlog, anyio.fail_after(HANG):
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while True:
                    tools = (await session.list_tools()).tools
                    if tools:
                        return time.perf_counter() - start
                    await anyio.sleep(0.01)


def warden_env(tmp: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "RUST_LOG": "info", "XDG_STATE_HOME": str(tmp / "state"), "WARDEN_CACHE_DIR": str(cache)}


async def warden_starts(warden: str, component: Path, tmp: Path) -> tuple[float, float]:
    tmp.mkdir(parents=True)
    manifest = tmp / "warden.toml"
    manifest.write_text(
        f'[[plugin]]\nname = "bench"\nsource = "{component}"\nlimits = {{ memory = "256MiB" }}\n'
    )
    cache = tmp / "cache"
    args = ["serve", "--manifest", str(manifest)]
    first = await time_to_tools(warden, args, warden_env(tmp, cache), tmp, tmp / "first.log")
    second = await time_to_tools(warden, args, warden_env(tmp, cache), tmp, tmp / "second.log")
    return first, second


async def wassette_starts(wassette: str, component: Path, tmp: Path) -> tuple[float, float]:
    plugins = tmp / "plugins"
    plugins.mkdir(parents=True)
    shutil.copy(component, plugins / component.name)
    # A home of its own: nothing another run left behind is found.
    env = {**os.environ, "HOME": str(tmp / "home"), "XDG_CACHE_HOME": str(tmp / "cache"),
           "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config"), "RUST_LOG": "info"}
    args = ["serve", "--stdio", "--plugin-dir", str(plugins)]
    first = await time_to_tools(wassette, args, env, tmp, tmp / "first.log")
    second = await time_to_tools(wassette, args, env, tmp, tmp / "second.log")
    return first, second


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warden", required=True)
    parser.add_argument("--wassette", required=True)
    parser.add_argument("--component", required=True, type=Path)
    parser.add_argument("--runs", type=int, default=3)
    opts = parser.parse_args()
    component = opts.component.resolve()
    warden, wassette = (str(Path(p).resolve()) if "/" in p else p for p in (opts.warden, opts.wassette))
    rows: dict[str, list[tuple[float, float]]] = {"warden": [], "wassette": []}
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(opts.runs):
            base = Path(scratch) / f"run{run}"
            rows["warden"].append(await warden_starts(warden, component, base / "warden"))
            rows["wassette"].append(await wassette_starts(wassette, component, base / "wassette"))
            print(f"run {run + 1}: warden {rows['warden'][-1]}, wassette {rows['wassette'][-1]}", flush=True)
    size = component.stat().st_size / (1 << 20)
    med = {name: (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
           for name, runs in rows.items()}
    print(f"\n{component.name}, {size:.1f} MiB, {opts.runs} runs, median (min-max):\n")
    print("| server | first start to tools/list | second start to tools/list |")
    print("|---|---|---|")
    for name, runs in rows.items():
        first = [r[0] for r in runs]
        second = [r[1] for r in runs]
        print(f"| {name} | {med[name][0]:.2f} s ({min(first):.2f}-{max(first):.2f}) "
              f"| {med[name][1]:.2f} s ({min(second):.2f}-{max(second):.2f}) |")
    print(f"| Warden / Wassette | {med['warden'][0] / med['wassette'][0]:.2f}x "
          f"| {med['warden'][1] / med['wassette'][1]:.2f}x |")


if __name__ == "__main__":
    anyio.run(main)
