"""What recording a browser costs: the latency and calls per second of browser actions with
`[audit] record = ["browser"]` (snapshots, screenshots, actions, URLs), with that and a screencast
at 2 frames a second, and with nothing recorded, side by side on the same single-page app, the
three wardens taking turns case by case (so a neighbour's load hits all three).

    .venv/bin/python tests/bench/browser_recording_bench.py [--calls 30] [--rounds 3]

Needs target/release/warden and Chromium (WARDEN_CHROMIUM or /usr/bin/chromium). Prints p50 and
p95 per case and side, calls per second, the ratio to the unrecorded warden, and the bytes each
recording wrote.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

import anyio

from bench_session import REPO, call, ms, p50, p95, warden

sys.path.insert(0, str(REPO / "tests" / "e2e"))
from browser_helpers import CHROMIUM  # noqa: E402
from webapp_site import start_webapp_site  # noqa: E402

SIDES = {
    "off": "",
    "on": '[audit]\nrecord = ["browser"]\ndir = "rec-on"\n',
    "screencast": '[audit]\nrecord = ["browser"]\nscreencast = true\nframe_rate = 2\ndir = "rec-screencast"\n',
}


def manifest(tmp: Path, side: str, origin: str) -> Path:
    path = tmp / f"warden-{side}.toml"
    path.write_text(f"""
[server]
audit_log = "audit-{side}.jsonl"

{SIDES[side]}
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{origin}"] }}
""")
    return path


def ref(snapshot: str, role: str, name: str) -> int:
    m = re.search(rf"@e(\d+) \[{re.escape(role)}\] \"{re.escape(name)}\"", snapshot)
    if not m:
        raise RuntimeError(f'no [{role}] "{name}" in:\n{snapshot[:2000]}')
    return int(m.group(1))


async def main(calls: int, rounds: int) -> None:
    site = start_webapp_site()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        times: dict[tuple[str, str], list[float]] = {}
        walls: dict[tuple[str, str], float] = {}
        async with (
            warden(manifest(tmp, "off", site.origin), tmp) as off,
            warden(manifest(tmp, "on", site.origin), tmp) as on,
            warden(manifest(tmp, "screencast", site.origin), tmp) as cast,
        ):
            sides = {"off": off, "on": on, "screencast": cast}
            refs = {}
            for side, s in sides.items():
                r = await s.call_tool("browse_navigate", {"url": site.url("/app#/inbox")})
                text = r.content[0].text
                refs[side] = (ref(text, "link", "Reports"), ref(text, "link", "Inbox"))
            cases = [
                ("navigate", "browse_navigate", lambda side, i: {"url": site.url("/app#/inbox")}),
                ("snapshot", "browse_snapshot", lambda side, i: {}),
                ("click", "browse_click", lambda side, i: {"ref": refs[side][i % 2]}),
                ("screenshot", "browse_screenshot", lambda side, i: {}),
            ]
            for _ in range(rounds):
                for label, tool, args in cases:
                    for side, s in sides.items():
                        t0 = time.perf_counter()
                        for i in range(calls):
                            times.setdefault((label, side), []).append(await call(s, tool, args(side, i)))
                        walls[label, side] = walls.get((label, side), 0.0) + time.perf_counter() - t0
            written = {side: sum(p.stat().st_size for p in (tmp / f"rec-{side}").rglob("*.jsonl")) for side in ("on", "screencast")}
    site.close()

    print(f"{calls} calls per case and side x {rounds} rounds; recorded {written['on'] / 1e6:.1f} MB (on), "
          f"{written['screencast'] / 1e6:.1f} MB (with screencast)\n")
    print("| case | p50 off | p50 on | p50 screencast | p95 off | p95 on | p95 screencast | calls/s off | on | screencast | p50 on / off | screencast / off |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, _, _ in cases:
        t = {side: times[label, side] for side in SIDES}
        rate = {side: len(t[side]) / walls[label, side] for side in SIDES}
        print(
            f"| {label} | {ms(p50(t['off']))} | {ms(p50(t['on']))} | {ms(p50(t['screencast']))} "
            f"| {ms(p95(t['off']))} | {ms(p95(t['on']))} | {ms(p95(t['screencast']))} "
            f"| {rate['off']:.1f} | {rate['on']:.1f} | {rate['screencast']:.1f} "
            f"| {p50(t['on']) / p50(t['off']):.2f}x | {p50(t['screencast']) / p50(t['off']):.2f}x |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    anyio.run(main, args.calls, args.rounds)
