"""Site isolation's cost: the same Warden build with Chromium's site isolation on (the
default) and off (the flags Warden used to launch with, given as `[browser] args`), on a
checkout page on 127.0.0.1 that frames four widgets of other sites (localhost, 127.0.0.2,
127.0.0.3, 127.0.0.4: five sites, five renderers with isolation on, one without).

    .venv/bin/python tests/bench/isolation_bench.py [--runs 15]

Needs target/release/warden and /usr/bin/chromium. Per mode it prints the browser's
processes and their memory once the page is shown (RSS and PSS summed over every Chromium
process under Warden, from /proc/PID/smaps_rollup), and the median time of a snapshot (every
frame ticks a clock, so each snapshot reads every frame again) and of a click on a button in
a cross-site frame.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import psutil
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("WARDEN_CHROMIUM", "/usr/bin/chromium")
# The launch flags that kept every frame in its page's process.
OFF = ["--disable-features=IsolateOrigins,site-per-process,Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
       "--disable-site-isolation-trials"]

WIDGET = """<!doctype html><html><head><title>{name}</title></head><body>
<div class="w" style="font-family:sans-serif"><div class="w-head">{name}</div>
<div class="w-body">{rows}</div>
<div class="w-foot"><span id="clock">0</span> <button id="b" onclick="this.textContent = 'Clicked ' + (++n)">Add {name}</button></div>
</div><script>let n = 0; setInterval(() => document.getElementById('clock').textContent = Date.now(), 50);</script>
</body></html>"""

PAGE = """<!doctype html><html><head><title>Checkout</title></head><body>
<div style="display:flex"><div style="position:fixed;width:160px">Cart<br>Orders</div>
<div style="margin-left:180px">{frames}</div></div></body></html>"""


def serve(bind: str, body: str) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer((bind, 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def memory(warden_pid: int) -> tuple[int, int, int]:
    """(processes, RSS bytes, PSS bytes) of the Chromium processes under Warden."""
    count = rss = pss = 0
    for p in psutil.Process(warden_pid).children(recursive=True):
        try:
            if "chrom" not in p.name():
                continue
            text = Path(f"/proc/{p.pid}/smaps_rollup").read_text()
        except (psutil.Error, OSError):
            continue
        fields = dict(re.findall(r"^(\w+):\s+(\d+) kB", text, re.M))
        count += 1
        rss += int(fields.get("Rss", 0)) * 1024
        pss += int(fields.get("Pss", 0)) * 1024
    return count, rss, pss


@contextlib.asynccontextmanager
async def warden(tmp: Path, origins: list[str], args: list[str]):
    manifest = tmp / "warden.toml"
    manifest.write_text(f"""
[browser]
executable = "{CHROMIUM}"
args = {args!r}

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = {origins!r} }}
""".replace("'", '"'))
    params = StdioServerParameters(command=str(REPO / "target" / "release" / "warden"),
                                   args=["serve", "--manifest", str(manifest)],
                                   env={**os.environ, "RUST_LOG": "warn"}, cwd=str(tmp))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


def warden_pid() -> int:
    me = psutil.Process()
    for p in me.children(recursive=True):
        if p.name() == "warden":
            return p.pid
    sys.exit("no warden process found")


async def call(s: ClientSession, tool: str, args: dict) -> tuple[str, float]:
    t0 = time.perf_counter()
    r = await s.call_tool(tool, args)
    dt = time.perf_counter() - t0
    text = "".join(getattr(b, "text", "") for b in r.content)
    if r.is_error:
        raise RuntimeError(f"{tool} failed: {text[:300]}")
    return text, dt


async def run(mode: str, args: list[str], url: str, origins: list[str], runs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        async with warden(Path(tmp), origins, args) as s:
            snap, _ = await call(s, "browse_navigate", {"url": url})
            await anyio.sleep(1.0)
            procs, rss, pss = memory(warden_pid())
            snaps, clicks = [], []
            for _ in range(runs):
                snap, dt = await call(s, "browse_snapshot", {})
                snaps.append(dt)
            if "Add Pay" not in snap or "opaque" in snap.lower():
                raise RuntimeError(f"the {mode} snapshot does not read the frames:\n{snap}")
            for _ in range(runs):
                snap, _ = await call(s, "browse_snapshot", {})
                m = re.search(r'@e(\d+) \[button\] "(?:Add Pay|Clicked \d+)"', snap)
                if not m:
                    raise RuntimeError(f"no button in:\n{snap}")
                _, dt = await call(s, "browse_click", {"ref": int(m.group(1))})
                clicks.append(dt)
    return {"mode": mode, "procs": procs, "rss": rss, "pss": pss,
            "snapshot": statistics.median(snaps) * 1000, "click": statistics.median(clicks) * 1000}


async def main(runs: int) -> None:
    widgets = [("localhost", "127.0.0.1", "Sign in"), ("127.0.0.2", "127.0.0.2", "Pay"),
               ("127.0.0.3", "127.0.0.3", "Chat"), ("127.0.0.4", "127.0.0.4", "Ads")]
    origins, frames = [], []
    for host, bind, name in widgets:
        rows = "".join(f'<div class="r"><span>{name} line {i}</span></div>' for i in range(40))
        server = serve(bind, WIDGET.format(name=name, rows=rows))
        origin = f"http://{host}:{server.server_address[1]}"
        origins.append(origin)
        frames.append(f'<div class="card"><iframe src="{origin}/" style="width:400px;height:220px"></iframe></div>')
    top = serve("127.0.0.1", PAGE.format(frames="".join(frames)))
    top_origin = f"http://127.0.0.1:{top.server_address[1]}"
    origins.append(top_origin)
    rows = [await run("isolation on", [], top_origin + "/", origins, runs),
            await run("isolation off", OFF, top_origin + "/", origins, runs)]
    print("| mode | Chromium processes | RSS (MiB) | PSS (MiB) | snapshot median (ms) | click median (ms) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['procs']} | {r['rss'] / 2**20:.0f} | {r['pss'] / 2**20:.0f} | "
              f"{r['snapshot']:.1f} | {r['click']:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    anyio.run(main, parser.parse_args().runs)
