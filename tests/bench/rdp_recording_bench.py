"""What recording a remote desktop costs: `terminal_screenshot` (full size and scaled), pointer moves
and typing latency with `[audit] record = ["rdp"]` and without, side by side against the RDP test
desktop (FreeRDP's shadow server, tests/e2e/rdp_server.py), the two wardens alternating case by
case and round by round (so a neighbour's load hits both), and what the recording weighs.

    .venv/bin/python tests/bench/rdp_recording_bench.py [--calls 100] [--rounds 3] [--frame-rate 2]

Needs target/release/warden (or WARDEN_BIN) and the RDP test server's packages. Both wardens hold
a session on the same shadow desktop (it mirrors one X screen), so typing by either changes the
screen both see; the recording warden samples those changes too, the cost it pays in use. The
typing case types one character and erases it (a screen change each call). Prints p50 and p95 per
case, calls per second, the ratio recorded / not recorded, and the recording's size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

from bench_session import REPO, call, ms, warden

sys.path.insert(0, str(REPO / "tests" / "e2e"))
from rdp_server import start_rdp_server, stop_rdp_server  # noqa: E402

# A point inside the second xterm (rdp_server.XTERM_B), clear of its text.
IN_XTERM_B = (700, 520)

CASES = [
    ("screenshot 1024x768", "terminal_screenshot", [{}]),
    ("screenshot scale 0.5", "terminal_screenshot", [{"scale": 0.5}]),
    ("pointer move", "terminal_mouse", [{"action": "move", "x": 300, "y": 40, "wait_ms": 0},
                                        {"action": "move", "x": 310, "y": 40, "wait_ms": 0}]),
    ("type a character", "terminal_write", [{"text": "x", "wait_ms": 0}, {"keys": ["backspace"], "wait_ms": 0}]),
]


def manifest(tmp: Path, server, record: bool, frame_rate: int) -> Path:
    name = "on" if record else "off"
    path = tmp / f"warden-{name}.toml"
    audit = f'[audit]\nrecord = ["rdp"]\nframe_rate = {frame_rate}\ndir = "recordings-{name}"\n\n' if record else ""
    path.write_text(
        f'[server]\naudit_log = "audit-{name}.jsonl"\n\n{audit}'
        + server.host_block()
        + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'limits = { call_timeout = "120s", output = "8MiB" }\n'
        'grants.rdp = { hosts = ["desk"] }\n'
    )
    return path


async def main(calls: int, rounds: int, frame_rate: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        server = start_rdp_server(tmp / "server")
        try:
            async with (
                warden(manifest(tmp, server, False, frame_rate), tmp) as off,
                warden(manifest(tmp, server, True, frame_rate), tmp) as on,
            ):
                sides = {"off": off, "on": on}
                sessions = {}
                for side, s in sides.items():
                    r = await s.call_tool("terminal_open", {"rdp": "desk"})
                    sessions[side] = r.structured_content["id"]
                    # Let the first frame arrive before timing anything.
                    await s.call_tool("terminal_wait", {"session_id": sessions[side], "until": "still", "still_ms": 500})
                await off.call_tool(
                    "terminal_mouse", {"session_id": sessions["off"], "action": "click", "x": IN_XTERM_B[0], "y": IN_XTERM_B[1]}
                )
                times: dict[tuple[str, str], list[float]] = {}
                walls: dict[tuple[str, str], float] = {}
                started = time.perf_counter()
                for _ in range(rounds):
                    for label, tool, variants in CASES:
                        for side, s in sides.items():
                            key = (label, side)
                            t0 = time.perf_counter()
                            for i in range(calls):
                                args = {"session_id": sessions[side], **variants[i % len(variants)]}
                                times.setdefault(key, []).append(await call(s, tool, args))
                            walls[key] = walls.get(key, 0.0) + time.perf_counter() - t0
                active = time.perf_counter() - started
                for side, s in sides.items():
                    await s.call_tool("terminal_close", {"session_id": sessions[side]})
            files = list((tmp / "recordings-on").rglob("*.jsonl"))
            recorded = sum(p.stat().st_size for p in files)
            lines = [line for p in files for line in p.read_text().splitlines()[1:]]
        finally:
            stop_rdp_server(server)

    codes = {c: sum(1 for line in lines if f', "{c}", ' in line) for c in "kdi"}
    print(
        f"{calls} calls per case x {rounds} rounds, frame_rate {frame_rate}; recorded {recorded / 1e6:.2f} MB in "
        f"{active:.0f} s ({recorded / 1e3 / active:.0f} kB/s): {codes['k']} keyframes, {codes['d']} change lines, "
        f"{codes['i']} inputs\n"
    )
    print("| case | p50 off | p50 on | p95 off | p95 on | calls/s off | calls/s on | p50 on / off |")
    print("|---|---|---|---|---|---|---|---|")
    for label, _, _ in CASES:
        off_t, on_t = times[label, "off"], times[label, "on"]
        p50 = (statistics.median(off_t), statistics.median(on_t))
        p95 = (statistics.quantiles(off_t, n=20)[18], statistics.quantiles(on_t, n=20)[18])
        rate = (len(off_t) / walls[label, "off"], len(on_t) / walls[label, "on"])
        print(
            f"| {label} | {ms(p50[0])} | {ms(p50[1])} | {ms(p95[0])} | {ms(p95[1])} "
            f"| {rate[0]:.0f} | {rate[1]:.0f} | {p50[1] / p50[0]:.2f}x |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--frame-rate", type=int, default=2)
    args = parser.parse_args()
    anyio.run(main, args.calls, args.rounds, args.frame_rate)
