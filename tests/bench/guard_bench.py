"""What the browser's network guard costs: page load and snapshot latency of the same pages
through two warden binaries, side by side in one run, the two alternating page by page.

    .venv/bin/python tests/bench/guard_bench.py --guard target/release/warden \
        --base /path/to/warden-before-the-guard [--runs 9]

The pages are the fixture site of tests/e2e/browser_site.py (served here on 127.0.0.1): /news
(a typical site) and /big (3,000 rows). Load time is `browse_navigate` (waits for `load`,
answers with the snapshot) measured by the client; snapshot time is `browse_snapshot` on the
loaded page. Each figure is the median of `--runs` runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from browser_site import start_site  # noqa: E402

CHROMIUM = os.environ.get("WARDEN_CHROMIUM", "/usr/bin/chromium")
PAGES = ["/news", "/big"]


@contextlib.asynccontextmanager
async def warden(binary: str, tmp: Path, origin: str):
    tmp.mkdir(parents=True, exist_ok=True)
    manifest = tmp / "warden.toml"
    manifest.write_text(f"""
[server]
audit_log = "audit.jsonl"

[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{origin}"] }}
""")
    params = StdioServerParameters(
        command=binary,
        args=["serve", "--manifest", str(manifest)],
        env={**os.environ, "RUST_LOG": "warn", "XDG_STATE_HOME": str(tmp / "state")},
        cwd=str(tmp),
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


async def timed(s: ClientSession, tool: str, args: dict) -> float:
    start = time.perf_counter()
    result = await s.call_tool(tool, args)
    elapsed = (time.perf_counter() - start) * 1000
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--guard", required=True, help="warden with the network guard")
    parser.add_argument("--base", required=True, help="warden before the network guard")
    parser.add_argument("--runs", type=int, default=9)
    opts = parser.parse_args()
    site = start_site()
    results: dict[tuple[str, str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        async with (
            warden(opts.guard, Path(tmp) / "guard", site.origin) as guard,
            warden(opts.base, Path(tmp) / "base", site.origin) as base,
        ):
            servers = {"guard": guard, "base": base}
            # Warm up: start both browsers, load each page once.
            for s in servers.values():
                for p in PAGES:
                    await timed(s, "browse_navigate", {"url": site.url(p)})
            for _ in range(opts.runs):
                for p in PAGES:
                    for name, s in servers.items():
                        load = await timed(s, "browse_navigate", {"url": site.url(p)})
                        snap = await timed(s, "browse_snapshot", {})
                        results.setdefault((p, name, "load"), []).append(load)
                        results.setdefault((p, name, "snap"), []).append(snap)
    site.close()
    print("| page | load, guard (ms) | load, before (ms) | load cost | snapshot, guard (ms) | snapshot, before (ms) |")
    print("|---|---|---|---|---|---|")
    for p in PAGES:
        med = {k[1:]: statistics.median(v) for k, v in results.items() if k[0] == p}
        g, b = med[("guard", "load")], med[("base", "load")]
        print(
            f"| {p} | {g:.1f} | {b:.1f} | {(g - b) / b * 100:+.1f} % "
            f"| {med[('guard', 'snap')]:.1f} | {med[('base', 'snap')]:.1f} |"
        )


if __name__ == "__main__":
    anyio.run(main)
