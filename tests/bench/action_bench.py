"""Action latency benchmark: Warden's browse_* tools against Playwright MCP, side by side, on
the web-app pages of tests/e2e/webapp_site.py (a div-built single-page app with hash routes,
a form, a select, dialogs and a link that opens a new tab), served by this script, in one run.

    .venv/bin/python tests/bench/action_bench.py [--runs 10]

Needs target/release/warden (cargo build --release -p warden), /usr/bin/chromium, and the
pinned Playwright MCP in tests/bench/node_modules (npm ci there; see browser_bench.py).

Each round, on both servers: navigate to a form page and to the app (two page loads), click a hash-route link (and back), fill a
text field, select an option, click a button that opens confirm() and answer the dialog,
click a link that opens a new tab, switch to it and back, close it, take a screenshot. The
snapshots that find the refs are not timed. Prints p50 and p95 per action type, in ms.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import anyio
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_bench import CHROMIUM, REPO, playwright_params, session, timed, wd_ref  # noqa: E402

sys.path.insert(0, str(REPO / "tests" / "e2e"))
from webapp_site import start_webapp_site  # noqa: E402

ACTIONS = ["navigate", "click", "fill", "select", "dialog", "tab switch", "tab close", "screenshot"]


def warden_params(tmp: Path, origin: str) -> StdioServerParameters:
    manifest = tmp / "warden-actions.toml"
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
    return StdioServerParameters(
        command=str(REPO / "target" / "release" / "warden"),
        args=["serve", "--manifest", str(manifest)],
        env={**os.environ, "RUST_LOG": "warn"},
        cwd=str(tmp),
    )


def pw_ref(snapshot: str, role: str, name: str) -> str:
    m = re.search(rf'{role} "{re.escape(name)}"[^\n]*\[ref=([\w-]+)\]', snapshot)
    if not m:
        raise RuntimeError(f'no {role} "{name}" in the Playwright snapshot:\n{snapshot[:3000]}')
    return m.group(1)


async def warden_round(s, site, times: dict[str, list[float]]) -> None:
    async def t(kind: str, tool: str, args: dict) -> str:
        text, dt = await timed(s, tool, args)
        times[kind].append(dt)
        return text

    await t("navigate", "browse_navigate", {"url": site.url("/support")})
    await t("navigate", "browse_navigate", {"url": site.url("/app#/inbox")})
    snap, _ = await timed(s, "browse_snapshot", {})
    await t("click", "browse_click", {"ref": wd_ref(snap, "link", "Reports")})
    await t("click", "browse_click", {"ref": wd_ref(snap, "link", "Inbox")})
    snap, _ = await timed(s, "browse_snapshot", {})
    await t("fill", "browse_fill", {"ref": wd_ref(snap, "textbox", "Note"), "value": "Toner low"})
    await t("select", "browse_select", {"ref": wd_ref(snap, "combobox", "Priority"), "values": ["High"]})
    out = await t("click", "browse_click", {"ref": wd_ref(snap, "button", "Delete ticket")})
    if "DIALOG [confirm]" not in out:
        raise RuntimeError(f"Warden did not report the confirm: {out[:300]}")
    await t("dialog", "browse_dialog", {"accept": True})
    out = await t("click", "browse_click", {"ref": wd_ref(snap, "link", "Help center")})
    if "A new tab opened: [2]" not in out:
        raise RuntimeError(f"Warden did not report the new tab: {out[:300]}")
    await t("tab switch", "browse_tabs", {"action": "switch", "tab": 2})
    await t("tab switch", "browse_tabs", {"action": "switch", "tab": 1})
    await t("tab close", "browse_tabs", {"action": "close", "tab": 2})
    await t("screenshot", "browse_screenshot", {})


async def playwright_round(s, site, times: dict[str, list[float]]) -> None:
    async def t(kind: str, tool: str, args: dict) -> str:
        text, dt = await timed(s, tool, args)
        times[kind].append(dt)
        return text

    await t("navigate", "browser_navigate", {"url": site.url("/support")})
    await t("navigate", "browser_navigate", {"url": site.url("/app#/inbox")})
    snap, _ = await timed(s, "browser_snapshot", {})
    await t("click", "browser_click", {"element": "Reports", "target": pw_ref(snap, "link", "Reports")})
    await t("click", "browser_click", {"element": "Inbox", "target": pw_ref(snap, "link", "Inbox")})
    snap, _ = await timed(s, "browser_snapshot", {})
    await t("fill", "browser_type", {"element": "Note", "target": pw_ref(snap, "textbox", "Note"), "text": "Toner low"})
    await t("select", "browser_select_option", {"element": "Priority", "target": pw_ref(snap, "combobox", "Priority"), "values": ["High"]})
    out = await t("click", "browser_click", {"element": "Delete ticket", "target": pw_ref(snap, "button", "Delete ticket")})
    if "confirm" not in out:
        raise RuntimeError(f"Playwright did not report the confirm: {out[:300]}")
    await t("dialog", "browser_handle_dialog", {"accept": True})
    await t("click", "browser_click", {"element": "Help center", "target": pw_ref(snap, "link", "Help center")})
    await t("tab switch", "browser_tabs", {"action": "select", "index": 1})
    await t("tab switch", "browser_tabs", {"action": "select", "index": 0})
    await t("tab close", "browser_tabs", {"action": "close", "index": 1})
    await t("screenshot", "browser_take_screenshot", {})


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def main(runs: int) -> None:
    site = start_webapp_site()
    wd_times: dict[str, list[float]] = defaultdict(list)
    pw_times: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        async with session(warden_params(tmp, site.origin)) as wd, session(playwright_params(tmp)) as pw:
            # A first round on each starts the browsers: not counted.
            await warden_round(wd, site, defaultdict(list))
            await playwright_round(pw, site, defaultdict(list))
            for _ in range(runs):
                await warden_round(wd, site, wd_times)
                await playwright_round(pw, site, pw_times)
    site.close()
    print(f"{runs} rounds; times in ms")
    print(f"{'action':<12} {'n':>3} {'warden p50':>10} {'p95':>6} {'pw p50':>7} {'p95':>6}")
    for kind in ACTIONS:
        w, p = wd_times[kind], pw_times[kind]
        print(
            f"{kind:<12} {len(w):>3} {pct(w, 0.5):>10.0f} {pct(w, 0.95):>6.0f}"
            f" {pct(p, 0.5):>7.0f} {pct(p, 0.95):>6.0f}"
        )
    all_w = [x for k in ACTIONS for x in wd_times[k]]
    all_p = [x for k in ACTIONS for x in pw_times[k]]
    print(f"{'all':<12} {len(all_w):>3} {statistics.median(all_w) * 1000:>10.0f} {pct(all_w, 0.95):>6.0f}"
          f" {statistics.median(all_p) * 1000:>7.0f} {pct(all_p, 0.95):>6.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    anyio.run(main, parser.parse_args().runs)
