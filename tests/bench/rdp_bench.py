"""Remote desktop figures: time to the first full frame after opening a session, Warden
(`terminal_open {"rdp": ...}` then screenshots until the frame is complete) against FreeRDP's
own client `xfreerdp` connecting to the same server in the same run (process start to its first
complete surface frame, from its debug log), and `terminal_screenshot` latency on a 1024x768
desktop.

    .venv/bin/python tests/bench/rdp_bench.py [--runs 10] [--shots 100]

Needs target/release/warden, the RDP test server's packages (tests/e2e/rdp_server.py) and
`xfreerdp` (Debian `freerdp2-x11`) on a second Xvfb display (without it, only Warden's side runs).
Warden runs with RemoteFX offered (the default) and with `remotefx = false` (bitmap updates).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from rdp_server import BACKGROUND, USER, _start_xvfb, start_rdp_server, stop_rdp_server  # noqa: E402
from test_rdp import near, pixel, png_rgb  # noqa: E402

WARDEN = Path(os.environ.get("WARDEN_BIN", REPO / "target" / "release" / "warden"))


SIZES: list[int] = []


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def complete(png: bytes) -> bool:
    _, _, rows = png_rgb(png)
    return near(pixel(rows, 20, 20), BACKGROUND) and near(pixel(rows, 400, 380), (255, 255, 255))


BYTES: dict[str, list[int]] = {}


async def warden_side(
    server, tmp: Path, runs: int, shots: int, remotefx: bool = True
) -> tuple[list[float], list[float]]:
    manifest = tmp / "warden.toml"
    manifest.write_text(
        f'[server]\naudit_log = "{tmp / "audit.jsonl"}"\n\n' + server.host_block(remotefx=remotefx)
        + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'limits = { output = "8MiB" }\ngrants.rdp = { hosts = ["desk"] }\n'
    )
    params = StdioServerParameters(
        command=str(WARDEN), args=["serve", "--manifest", str(manifest)],
        env={"WARDEN_CACHE_DIR": str(tmp / "cache"), "RUST_LOG": "warn", "PATH": os.environ["PATH"]},
    )
    first_frame, latency = [], []
    with open(tmp / "warden.log", "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for _ in range(runs):
                    start = time.perf_counter()
                    opened = await session.call_tool("terminal_open", {"rdp": "desk"})
                    sid = opened.structured_content["id"]
                    while True:
                        shot = await session.call_tool("terminal_screenshot", {"session_id": sid})
                        data = base64.b64decode(next(b for b in shot.content if b.type == "image").data)
                        if complete(data):
                            break
                    first_frame.append(time.perf_counter() - start)
                    info = json.loads((await session.read_resource(f"sessions://{sid}/info")).contents[0].text)
                    BYTES.setdefault(info["codec"], []).append(info["bytes_received"])
                    await session.call_tool("terminal_close", {"session_id": sid})
                sid = (await session.call_tool("terminal_open", {"rdp": "desk"})).structured_content["id"]
                for _ in range(shots):
                    start = time.perf_counter()
                    shot = await session.call_tool("terminal_screenshot", {"session_id": sid})
                    latency.append(time.perf_counter() - start)
                    data = base64.b64decode(next(b for b in shot.content if b.type == "image").data)
                    assert complete(data), "the screenshot is not the full frame"
                    SIZES.append(len(data))
                await session.call_tool("terminal_close", {"session_id": sid})
    return first_frame, latency


def xfreerdp_side(server, tmp: Path, runs: int) -> list[float]:
    if shutil.which("xfreerdp") is None:
        return []
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp), "XDG_CONFIG_HOME": str(tmp / "xdg")}
    xvfb, display = _start_xvfb(tmp, env)
    env["DISPLAY"] = display
    times = []
    try:
        for i in range(runs):
            log_path = tmp / f"xfreerdp-{i}.log"
            with open(log_path, "w") as log:
                start = time.time()
                proc = subprocess.Popen(
                    [shutil.which("xfreerdp") or "xfreerdp", f"/v:127.0.0.1:{server.port}", f"/u:{USER}",
                     f"/p:{server.password}", "/cert:ignore", "/sec:nla", "/size:1024x768", "/log-level:DEBUG"],
                    env=env, stdout=log, stderr=log,
                )
                found = None
                deadline = time.time() + 20
                while found is None and time.time() < deadline:
                    time.sleep(0.02)
                    for line in log_path.read_text(errors="replace").splitlines():
                        if "SurfaceFrameMarker: action: End" in line:
                            stamp = line[1:13]  # [HH:MM:SS:mmm]
                            t = datetime.strptime(stamp, "%H:%M:%S:%f")
                            now = datetime.fromtimestamp(start)
                            at = now.replace(hour=t.hour, minute=t.minute, second=t.second, microsecond=t.microsecond)
                            found = at.timestamp() - start
                            break
                proc.terminate()
                proc.wait(timeout=10)
            if found is not None:
                times.append(found)
    finally:
        xvfb.terminate()
        xvfb.wait()
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--shots", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        server = start_rdp_server(tmp / "server")
        try:
            time.sleep(1)
            # Alternate the two clients run by run, so load on the machine hits both.
            w_first, b_first, x_first, latency = [], [], [], []
            for _ in range(args.runs):
                f, _ = asyncio.run(warden_side(server, tmp, 1, 0))
                w_first += f
                f, _ = asyncio.run(warden_side(server, tmp, 1, 0, remotefx=False))
                b_first += f
                x_first += xfreerdp_side(server, tmp, 1)
            _, latency = asyncio.run(warden_side(server, tmp, 0, args.shots))
        finally:
            stop_rdp_server(server)
    ms = lambda v: f"{v * 1000:.0f} ms"  # noqa: E731
    print(f"time to first full frame, Warden (terminal_open + screenshots): p50 {ms(statistics.median(w_first))}, "
          f"min {ms(min(w_first))}, max {ms(max(w_first))} ({len(w_first)} runs)")
    print(f"  the same with remotefx = false: p50 {ms(statistics.median(b_first))}, "
          f"min {ms(min(b_first))}, max {ms(max(b_first))} ({len(b_first)} runs)")
    for codec, sizes in sorted(BYTES.items()):
        print(f"  bytes received up to the first full frame, {codec}: median {statistics.median(sizes) / 1024:.0f} KiB")
    if x_first:
        print(f"time to first full frame, xfreerdp (process start to first frame end): p50 "
              f"{ms(statistics.median(x_first))}, min {ms(min(x_first))}, max {ms(max(x_first))} ({len(x_first)} runs)")
    print(f"terminal_screenshot 1024x768 PNG: p50 {latency and ms(pct(latency, 50))}, p99 {ms(pct(latency, 99))} "
          f"({len(latency)} calls, PNG {statistics.median(SIZES) / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
