"""How long workers take to start and answer in Warden's browser, against plain headless
Chromium on the same page in the same run: the workers page of the parity suite
(tests/e2e/worker_site.py), which starts every kind of worker and times each job from its
start to its report, and the whole page from its navigation until every job settled (the
page's own `performance.now()`, so the two browsers are timed alike).

    .venv/bin/python tests/bench/worker_bench.py [--warden target/release/warden] [--runs 9]

Warden attaches every worker paused and lets it run once it has seen it (one DevTools round
trip); the reference starts them unwatched. Each figure is the median of `--runs` loads; the
two browsers alternate load by load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from parity import DevToolsChromium  # noqa: E402
from worker_site import KINDS, start_worker_sites  # noqa: E402

CHROMIUM = os.environ.get("WARDEN_CHROMIUM", "/usr/bin/chromium")


def text(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@contextlib.asynccontextmanager
async def warden(binary: str, tmp: Path, app: str, api: str):
    manifest = tmp / "warden.toml"
    manifest.write_text(f"""
[server]
audit_log = "audit.jsonl"

[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{app}"], resource_origins = ["{api}"], eval_js = true }}
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


async def warden_load(s: ClientSession, url: str) -> dict:
    await s.call_tool("browse_navigate", {"url": url})
    while json.loads(text(await s.call_tool("browse_eval_js", {"expression": "window.__parityDone === true"}))) is not True:
        await anyio.sleep(0.02)
    return json.loads(text(await s.call_tool("browse_eval_js", {"expression": "window.__timings"})))


def reference_load(ref: DevToolsChromium, url: str) -> dict:
    ref.send("Page.navigate", url=url)
    ref.wait("window.__parityDone === true", 30)
    return ref.eval("window.__timings")


def median(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--warden", default=str(REPO / "target" / "release" / "warden"))
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    sites = start_worker_sites()
    rows = ("settled", *KINDS)
    jobs: dict[str, dict[str, list[float]]] = {who: {k: [] for k in rows} for who in ("reference", "warden")}
    with tempfile.TemporaryDirectory() as tmp:
        ref = DevToolsChromium(Path(tmp) / "reference")
        try:
            async with warden(args.warden, Path(tmp), sites.app.origin, sites.api.origin) as s:
                # One load each first: the browsers' own start is not what is measured.
                reference_load(ref, sites.url("warm"))
                await warden_load(s, sites.url("warm"))
                for run in range(args.runs):
                    for who in ("reference", "warden"):
                        url = sites.url(f"{who}-{run}")
                        timings = reference_load(ref, url) if who == "reference" else await warden_load(s, url)
                        for row in rows:
                            jobs[who][row].append(timings.get(row, float("nan")))
        finally:
            ref.close()
            sites.close()
    print(f"workers page, median of {args.runs} loads (ms)")
    print(f"{'':16} {'reference':>10} {'warden':>10}")
    for row in rows:
        print(f"{row:16} {median(jobs['reference'][row]):>10} {median(jobs['warden'][row]):>10}")


if __name__ == "__main__":
    anyio.run(main)
