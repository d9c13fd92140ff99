"""Hostile test of issue 30, class 4: each plugin's capture pages are judged by that plugin's
grants alone, though every capture shares the one persistent profile.

Plugin x is granted origin A only, plugin y origin B only. While x holds a capture open on A
(a login that waits for a human), y captures a page of B that tries to reach A every way a
page can: an image, an iframe, fetch, a beacon, a WebSocket, a form post, and a navigation.
A's server records every request; none may come from y's page. Then y captures again once
x is done, to show the profile still serves it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from browser_helpers import CHROMIUM, ok
from conftest import check_audit_line, text_of
from local_site import LocalSite, QuietHandler

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

MARK = "/from-y"


class Recorder(LocalSite):
    """A site that answers every path with a page (or `pages[path]`) and records the paths."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.paths: list[str] = []
        recorder = self

        class Handler(QuietHandler):
            def _answer(self) -> None:
                recorder.paths.append(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                path = self.path.split("?")[0]
                body = pages.get(path, f"<!doctype html><title>{path}</title><h1>Page {path}</h1>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            do_GET = _answer  # noqa: N815
            do_POST = _answer  # noqa: N815

        super().__init__(Handler)

    def from_y(self) -> list[str]:
        return [p for p in list(self.paths) if p.startswith(MARK)]


def attack_page(a: str) -> str:
    """A page of B (y's) that reaches for A in every way a page can, then navigates there."""
    return f"""<!doctype html><html><head><meta charset=utf-8><title>Team wiki</title>
<link rel=stylesheet href="{a}{MARK}/style.css"></head>
<body><div class=layout><div class=nav style="position:fixed;left:0;top:0;width:180px">Spaces</div>
<div class=content style="margin-left:200px"><h1>Release notes</h1>
<img src="{a}{MARK}/pixel.png" alt="">
<iframe src="{a}{MARK}/frame"></iframe>
<form id=f method=post action="{a}{MARK}/form" target=sink><input name=q value=1></form><iframe name=sink></iframe>
</div></div>
<script>
fetch('{a}{MARK}/fetch', {{ mode: 'no-cors', credentials: 'include' }}).catch(() => {{}});
navigator.sendBeacon('{a}{MARK}/beacon', 'x');
try {{ new WebSocket('{a.replace("http", "ws")}{MARK}/socket'); }} catch (e) {{}}
document.getElementById('f').submit();
setTimeout(() => {{ location.href = '{a}{MARK}/navigate'; }}, 1200);
</script></body></html>"""


@pytest.fixture()
def sites() -> Iterator[tuple[Recorder, Recorder]]:
    a = Recorder({})
    b = Recorder({"/wiki": attack_page(a.origin)})
    yield a, b
    a.close()
    b.close()


def manifest(write_manifest, tmp_path: Path, a: Recorder, b: Recorder) -> object:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "x"
source = "builtin:capture"
tool_prefix = "x_"
limits = {{ call_timeout = "60s" }}
grants.capture = {{ origins = ["{a.origin}"] }}

[[plugin]]
name = "y"
source = "builtin:capture"
tool_prefix = "y_"
limits = {{ call_timeout = "60s" }}
grants.capture = {{ origins = ["{b.origin}"] }}
""")


async def test_a_capture_page_reaches_only_its_own_plugins_origins(start_warden, write_manifest, tmp_path,
                                                                   sites) -> None:
    a, b = sites
    m = manifest(write_manifest, tmp_path, a, b)
    async with start_warden(m) as w:
        results: dict[str, object] = {}

        async def x_waits_on_a() -> None:
            # A login nobody completes: x's tab stays open on A for the whole wait.
            results["x"] = await w.call("x_ensure_login", {
                "url": a.url("/dashboard"), "until_url": "*/never-logged-in*", "timeout_ms": 6000,
            }, timeout=60)

        async with anyio.create_task_group() as tg:
            tg.start_soon(x_waits_on_a)
            # y starts once x's page is up on A, and has time enough to outlast x's wait.
            with anyio.fail_after(30):
                while "/dashboard" not in a.paths:
                    await anyio.sleep(0.1)
            results["y"] = await w.call("y_capture_page", {
                "url": b.url("/wiki"), "wait_until": "network_idle", "timeout_ms": 30000,
            }, timeout=60)
            await anyio.sleep(2.5)

        assert "not logged in" in text_of(results["x"]), text_of(results["x"])
        # y's page did load (after x's capture), and was judged by y's grants alone.
        assert "/wiki" in b.paths, b.paths
        assert "busy" not in text_of(results["y"]), text_of(results["y"])
        # Once x is done, y's captures of its own origin still work on the same profile.
        again = await ok(w, "y_capture_page", {"url": b.url("/plain"), "timeout_ms": 8000})
        assert "Page /plain" in again, again
    assert a.from_y() == [], f"y's page reached x's origin A: {a.from_y()}"
    denials = [l for l in m.audit_lines() if l["event"] == "capability_denied" and l.get("plugin") == "y"]
    assert denials, m.audit_lines()
    for line in denials:
        check_audit_line(line)
    assert any(a.origin.split("//")[1] in (line.get("target") or "") for line in denials), denials
