"""What Warden's walls around a launched browser cost: the same build and page, with Warden
as root (the browser in a network namespace of its own whose only way out is the guard, as
an unprivileged user; a persistent profile's browser as a user of its own) and with Warden
as an unprivileged user (none of those walls: the browser shares the host's network and
Warden's user). Chromium's own sandbox is on in both.

    sudo .venv/bin/python tests/bench/walls_bench.py [--runs 15]

Needs root, target/release/warden and /usr/bin/chromium. Per mode it prints the time of the
first navigation (it launches the browser), of a profile session's first navigation (a
second browser on a persistent profile), the median of later navigations, and the memory
of the browser's processes (RSS and PSS summed, from /proc/PID/smaps_rollup).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from isolation_bench import CHROMIUM, PAGE, REPO, memory, serve, warden_pid  # noqa: E402

#: The unprivileged user Warden runs as for "walls off" (no account needed).
PLAIN_ID = 61_900


@contextlib.asynccontextmanager
async def warden(tmp: Path, origin: str, as_root: bool):
    manifest = tmp / "warden.toml"
    manifest.write_text(f"""
[browser]
executable = "{CHROMIUM}"

[browser.profiles.crm]
user_data_dir = "{tmp / 'crm'}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{origin}"], profiles = ["crm"] }}
""")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "RUST_LOG": "warn", "HOME": str(tmp),
           "XDG_STATE_HOME": str(tmp / "state"), "XDG_CACHE_HOME": str(tmp / "cache")}
    command, args = str(REPO / "target" / "release" / "warden"), ["serve", "--manifest", str(manifest)]
    if not as_root:
        for path in [tmp, *tmp.rglob("*")]:
            os.chown(path, PLAIN_ID, PLAIN_ID)
        command, args = "setpriv", [f"--reuid={PLAIN_ID}", f"--regid={PLAIN_ID}", "--clear-groups", command, *args]
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(tmp))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


async def timed(s: ClientSession, tool: str, args: dict) -> float:
    t0 = time.perf_counter()
    r = await s.call_tool(tool, args)
    dt = time.perf_counter() - t0
    if r.is_error:
        text = "".join(getattr(b, "text", "") for b in r.content)
        raise RuntimeError(f"{tool} failed: {text[:300]}")
    return dt * 1000


async def run(mode: str, as_root: bool, url: str, origin: str, runs: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="walls-bench-", dir="/tmp"))
    tmp.chmod(0o755)
    try:
        async with warden(tmp, origin, as_root) as s:
            first = await timed(s, "browse_navigate", {"url": url})
            navs = [await timed(s, "browse_navigate", {"url": f"{url}?n={i}"}) for i in range(runs)]
            await anyio.sleep(1.0)
            procs, rss, pss = memory(warden_pid())
            await timed(s, "browse_session", {"action": "create", "name": "crm", "profile": "crm"})
            profile_first = await timed(s, "browse_navigate", {"url": url})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"mode": mode, "first": first, "profile": profile_first, "nav": statistics.median(navs),
            "procs": procs, "rss": rss, "pss": pss}


async def main(runs: int) -> None:
    if os.geteuid() != 0:
        sys.exit("run as root: the walls are made only when Warden is root")
    frames = '<div class="card">Orders</div>' * 40
    server = serve("127.0.0.1", PAGE.format(frames=frames))
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    rows = [await run("walls on (Warden as root)", True, origin + "/", origin, runs),
            await run("walls off (Warden unprivileged)", False, origin + "/", origin, runs)]
    print("| mode | first navigation, launch included (ms) | profile's first navigation (ms) | navigation median (ms) "
          "| Chromium processes | RSS (MiB) | PSS (MiB) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['first']:.0f} | {r['profile']:.0f} | {r['nav']:.1f} | {r['procs']} | "
              f"{r['rss'] / 2**20:.0f} | {r['pss'] / 2**20:.0f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    anyio.run(main, parser.parse_args().runs)
