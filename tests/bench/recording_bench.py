"""What recording a terminal costs: `terminal_execute` and `terminal_write` latency and calls per
second with `[audit] record = ["terminal"]` and without, side by side, against one real sshd and
on a local PTY, the two wardens alternating round by round (so a neighbour's load hits both).

    .venv/bin/python tests/bench/recording_bench.py [--calls 200] [--rounds 3]

Needs target/release/warden (cargo build --release -p warden) and /usr/sbin/sshd. Cases per
target: `echo hi` (a short command), `seq 1 100000` (about 590 KB of output per call, the
recorder's heavy case) and `terminal_write` of a short line. Prints p50 and p95 per case, calls
per second, and the ratio recorded / not recorded.
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
from sshd import start_sshd, stop_sshd  # noqa: E402

CASES = [
    ("execute `echo hi`", "terminal_execute", {"command": "echo hi"}),
    ("execute `seq 1 100000`", "terminal_execute", {"command": "seq 1 100000", "max_output_bytes": 4096}),
    ("write `true`", "terminal_write", {"text": "true\n", "wait_ms": 0}),
]


def manifest(tmp: Path, sshd, record: bool) -> Path:
    name = "on" if record else "off"
    path = tmp / f"warden-{name}.toml"
    audit = f'[audit]\nrecord = ["terminal"]\ndir = "recordings-{name}"\n\n' if record else ""
    path.write_text(
        f'[server]\naudit_log = "audit-{name}.jsonl"\n\n{audit}'
        + sshd.host_block()
        + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'limits = { call_timeout = "120s" }\n'
        'grants.terminal = { ssh_hosts = ["box"], local = true }\n'
    )
    return path


async def main(calls: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        sshd = start_sshd(tmp / "sshd")
        try:
            async with warden(manifest(tmp, sshd, False), tmp) as off, warden(manifest(tmp, sshd, True), tmp) as on:
                sides = {"off": off, "on": on}
                sessions: dict[tuple[str, str], str] = {}
                for side, s in sides.items():
                    for target in ("ssh", "local"):
                        r = await s.call_tool("terminal_open", {"host": "box"} if target == "ssh" else {})
                        sessions[side, target] = r.structured_content["id"]
                times: dict[tuple[str, str, str], list[float]] = {}
                walls: dict[tuple[str, str, str], float] = {}
                for _ in range(rounds):
                    for target in ("ssh", "local"):
                        for label, tool, args in CASES:
                            n = calls if "echo" in label or "write" in label else max(calls // 10, 5)
                            for side, s in sides.items():
                                key = (target, label, side)
                                sid = sessions[side, target]
                                t0 = time.perf_counter()
                                for _ in range(n):
                                    times.setdefault(key, []).append(await call(s, tool, {"session_id": sid, **args}))
                                walls[key] = walls.get(key, 0.0) + time.perf_counter() - t0
                                if tool == "terminal_write":
                                    # Let the shell's prompts settle before the next case.
                                    await call(s, "terminal_execute", {"session_id": sid, "command": "true"})
                recorded = sum(p.stat().st_size for p in (tmp / "recordings-on").rglob("*.cast"))
        finally:
            stop_sshd(sshd)

    print(f"{calls} calls per case ({calls // 10} for seq) x {rounds} rounds; recorded {recorded / 1e6:.1f} MB\n")
    print("| target | case | p50 off | p50 on | p95 off | p95 on | calls/s off | calls/s on | p50 on / off |")
    print("|---|---|---|---|---|---|---|---|---|")
    for target in ("ssh", "local"):
        for label, _, _ in CASES:
            off_t, on_t = times[target, label, "off"], times[target, label, "on"]
            p50 = (statistics.median(off_t), statistics.median(on_t))
            p95 = (statistics.quantiles(off_t, n=20)[18], statistics.quantiles(on_t, n=20)[18])
            rate = (len(off_t) / walls[target, label, "off"], len(on_t) / walls[target, label, "on"])
            print(
                f"| {target} | {label} | {ms(p50[0])} | {ms(p50[1])} | {ms(p95[0])} | {ms(p95[1])} "
                f"| {rate[0]:.0f} | {rate[1]:.0f} | {p50[1] / p50[0]:.2f}x |"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    anyio.run(main, args.calls, args.rounds)
