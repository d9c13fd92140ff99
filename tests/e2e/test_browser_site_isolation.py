"""Site isolation: a frame of another site runs in a renderer of its own (Chromium's
site-per-process), and Warden reads and drives it as it does a frame in the page's process.

A shop on `127.0.0.1` embeds two widgets of other sites, as checkout pages embed SSO and
payment widgets: a sign-in widget on `localhost` (the origin the secret is bound to) and a
newsletter widget on `127.0.0.2` (granted, no secret bound). `127.0.0.1`, `localhost` and
`127.0.0.2` are three sites, so the page runs in three renderers. Each widget's server records
what it is sent: the assertions are on what the servers received and on the renderer
processes read from `/proc`, not on Warden's word.

A project board frames a workspace of another site, which frames an uploader of a third: hover,
a native drag, an upload and a download work one and two out-of-process levels deep.
"""

from __future__ import annotations

import http.server
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import psutil
import pytest

from browser_helpers import CHROMIUM, browser_manifest, chromium_processes, err, ok, ref_of
from browser_site import PASSWORD, page
from conftest import text_of

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

ENV = {"WARDEN_TEST_SSO_PASSWORD": PASSWORD}

SHOP = """
<div class="layout" style="display:flex">
  <div class="sidebar" style="position:fixed;left:0;top:0;width:180px;height:100%;background:#f4f4f4">
    <div class="nav-item">Cart</div><div class="nav-item">Orders</div>
  </div>
  <div class="main" style="margin-left:200px;padding:12px">
    <div class="title-row"><div class="h">Checkout</div><div class="sub">Order 7731, 2 items</div></div>
    <div class="card" style="padding:8px">
      <div class="card-title">Sign in to pay</div>
      <iframe title="Acme ID" src="SSO/widget" style="width:420px;height:300px;border:1px solid #ccc"></iframe>
    </div>
    <div class="card" style="padding:8px">
      <div class="card-title">Stay in touch</div>
      <iframe title="Newsletter" src="NEWS/widget" style="width:420px;height:160px;border:1px solid #ccc"></iframe>
    </div>
  </div>
</div>
"""

SSO = """
<div class="sso" style="font-family:sans-serif;padding:6px">
  <div class="sso-head"><span class="logo">Acme ID</span></div>
  <form id="f">
    <div class="row"><label>Email <input id="email" autocomplete="username"></label></div>
    <div class="row"><label>Password <input id="pw" type="password"></label></div>
    <div class="row"><label>Region <select id="region"><option>Europe</option><option>Americas</option></select></label></div>
    <div class="row"><div class="btn" role="button" tabindex="0" id="go">Continue</div></div>
  </form>
  <div id="out">Not signed in</div>
  <div class="links"><span class="help" id="help">Need help?</span> <a href="ELSEWHERE/steal">Forgot password?</a></div>
</div>
<script>
const q = (id) => document.getElementById(id);
q('go').addEventListener('click', () => {
  const body = new URLSearchParams({ email: q('email').value, pw: q('pw').value, region: q('region').value });
  fetch('/signin?' + body).then(() => { q('out').textContent = 'Signed in as ' + q('email').value; });
});
q('help').addEventListener('click', () => alert('Acme ID support: 555-0100'));
</script>
"""

NEWS = """
<div class="nl" style="font-family:sans-serif;padding:6px">
  <div class="nl-head">Newsletter</div>
  <div class="row"><label>Account password <input type="password"></label></div>
</div>
"""


@dataclass
class Recorder:
    """A site that serves `pages` and keeps every path it was asked for."""

    host: str
    pages: dict[str, str]
    requests: list[str] = field(default_factory=list)
    server: http.server.ThreadingHTTPServer | None = None

    @property
    def origin(self) -> str:
        assert self.server is not None
        return f"http://{self.host}:{self.server.server_address[1]}"

    def queries(self, path: str) -> list[dict[str, list[str]]]:
        return [urllib.parse.parse_qs(urllib.parse.urlparse(r).query) for r in list(self.requests)
                if r.split("?")[0] == path]


def serve(host: str, bind: str, pages: dict[str, str]) -> Recorder:
    rec = Recorder(host, pages)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            rec.requests.append(self.path)
            body = rec.pages.get(self.path.split("?")[0], "ok").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    rec.server = http.server.ThreadingHTTPServer((bind, 0), Handler)
    rec.server.daemon_threads = True
    threading.Thread(target=rec.server.serve_forever, daemon=True).start()
    return rec


@pytest.fixture()
def sites() -> Iterator[tuple[Recorder, Recorder, Recorder, Recorder]]:
    elsewhere = serve("localhost", "127.0.0.1", {})
    sso = serve("localhost", "127.0.0.1", {"/widget": page("Acme ID", SSO.replace("ELSEWHERE", elsewhere.origin))})
    news = serve("127.0.0.2", "127.0.0.2", {"/widget": page("Newsletter", NEWS)})
    shop = serve("127.0.0.1", "127.0.0.1", {
        "/checkout": page("Checkout", SHOP.replace("SSO", sso.origin).replace("NEWS", news.origin)),
        "/plain": page("Plain", "<div>Nothing framed</div>"),
    })
    yield shop, sso, news, elsewhere
    for r in (shop, sso, news, elsewhere):
        assert r.server is not None
        r.server.shutdown()
        r.server.server_close()


def renderers(warden_pid: int) -> set[int]:
    out = set()
    for p in chromium_processes(warden_pid):
        try:
            if "--type=renderer" in p.cmdline():
                out.add(p.pid)
        except psutil.Error:
            pass
    return out


async def test_cross_site_frames_run_apart_and_are_driven_as_same_site_ones(start_warden, write_manifest,
                                                                             sites) -> None:
    shop, sso, news, elsewhere = sites
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
SSO_PASSWORD = {{ env = "WARDEN_TEST_SSO_PASSWORD", origins = ["{sso.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{shop.origin}", "{sso.origin}", "{news.origin}"], secrets = ["SSO_PASSWORD"] }}
""")
    async with start_warden(m, env=ENV) as w:
        await ok(w, "browse_navigate", {"url": shop.origin + "/plain"})
        alone = renderers(w.pid)
        snap = await ok(w, "browse_navigate", {"url": shop.origin + "/checkout"})
        # Two more renderers: one per site the page frames (read from /proc, not from Warden).
        framed = renderers(w.pid)
        assert len(framed - alone) >= 2, (alone, framed)

        # Text and refs of both frames, in the one snapshot.
        assert '[textbox] "Email" (frame 1)' in snap and '[password] "Account password" (frame 2)' in snap, snap
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Not signed in" in full and "- Newsletter" in full and "opaque" not in full.lower(), full

        # Fill, select and a click on an element with a listener alone: the widget's server
        # receives what was typed and chosen.
        await ok(w, "browse_fill", {"ref": ref_of(snap, "textbox", "Email"), "value": "ada@example.com"})
        await ok(w, "browse_select", {"ref": ref_of(snap, "combobox", "Region"), "values": ["Americas"]})
        snap = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Continue")})
        got = sso.queries("/signin")
        assert got and got[0]["email"] == ["ada@example.com"] and got[0]["region"] == ["Americas"], sso.requests
        assert "Signed in as ada@example.com" in await ok(w, "browse_snapshot", {"mode": "full"})
        found = await ok(w, "browse_find", {"query": "Signed in as"})
        assert "Signed in as ada@example.com" in found, found

        # A dialog the frame opens is answered.
        snap = await ok(w, "browse_snapshot")
        # (a span with a click listener alone: marked through the frame's own session)
        shown = await ok(w, "browse_click", {"ref": ref_of(snap, "generic", "Need help?")})
        assert 'DIALOG [alert] "Acme ID support: 555-0100"' in shown, shown
        await ok(w, "browse_dialog", {"accept": True})

        # A navigation of the frame to an origin not granted is refused by the origin guard;
        # that server sees nothing.
        snap = await ok(w, "browse_snapshot")
        result = await w.call("browse_click", {"ref": ref_of(snap, "link", "Forgot password?")}, timeout=60)
        assert "blocked" in text_of(result), text_of(result)
        assert not elsewhere.requests, elsewhere.requests
        denied = [l for l in m.audit_lines() if l["event"] == "capability_denied"
                  and elsewhere.origin in (l.get("target") or "")]
        assert denied, m.audit_lines()

        # The secret goes into its origin's frame, never into another site's frame.
        snap = await ok(w, "browse_snapshot")
        refused = await err(w, "browse_fill", {"ref": ref_of(snap, "password", "Account password"),
                                                "secret": "SSO_PASSWORD"})
        assert f"not to {news.origin}" in refused, refused
        assert any(l["event"] == "capability_denied" and "SSO_PASSWORD" in (l.get("target") or "")
                   for l in m.audit_lines()), m.audit_lines()
        await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "SSO_PASSWORD"})
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Continue")})
        assert any(q.get("pw") == [PASSWORD] for q in sso.queries("/signin")), sso.requests
        assert PASSWORD not in await ok(w, "browse_snapshot", {"mode": "full"})
        assert not any("pw=" in r for r in news.requests), news.requests


# A project board on 127.0.0.1 frames a workspace widget of another site (127.0.0.2), which
# frames an uploader of a third (localhost): the uploader is two out-of-process levels deep.
BOARD = """
<div class="app">
  <div class="sidebar" style="position:fixed;left:0;top:0;width:160px;height:100%;background:#eee">
    <div class="nav-item">Boards</div><div class="nav-item">People</div>
  </div>
  <div class="main" style="margin-left:180px">
    <div class="crumbs"><span>Boards</span> / <span>Launch</span></div>
    <iframe title="Workspace" src="WORKSPACE/workspace" style="width:640px;height:560px;border:0"></iframe>
  </div>
</div>
"""

WORKSPACE = """
<div class="ws" style="font-family:sans-serif">
  <div class="toolbar" style="height:40px">
    <div class="menu" id="menu" style="display:inline-block;padding:6px">
      <div class="menu-btn" role="button" tabindex="0">Actions</div>
      <div class="menu-items" id="items" style="display:none"><div class="item">Archive board</div></div>
    </div>
  </div>
  <div class="lane" id="lane" style="width:220px">
    <div class="card" draggable="true" data-id="alpha" style="height:36px">Alpha</div>
    <div class="card" draggable="true" data-id="beta" style="height:36px">Beta</div>
    <div class="card" draggable="true" data-id="gamma" style="height:36px">Gamma</div>
  </div>
  <iframe title="Uploader" src="UPLOADER/uploader" style="width:560px;height:220px;border:1px solid #ccc"></iframe>
</div>
<script>
const menu = document.getElementById('menu');
menu.addEventListener('mouseenter', () => {
  document.getElementById('items').style.display = 'block';
  fetch('/hovered');
});
const lane = document.getElementById('lane');
lane.addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', e.target.dataset.id));
lane.addEventListener('dragover', (e) => e.preventDefault());
lane.addEventListener('drop', (e) => {
  e.preventDefault();
  const moved = lane.querySelector(`[data-id="${e.dataTransfer.getData('text/plain')}"]`);
  const target = e.target.closest('.card');
  if (moved && target && moved !== target) lane.insertBefore(moved, target);
  fetch('/order?o=' + [...lane.children].map((c) => c.dataset.id).join(','));
});
</script>
"""

UPLOADER = """
<div class="up" style="font-family:sans-serif;padding:6px">
  <div class="row"><label>Attachment <input type="file" id="file"></label></div>
  <div id="status">No file</div>
  <div class="row"><a href="/report.csv" download="report.csv">Download report</a></div>
</div>
<script>
document.getElementById('file').addEventListener('change', async (e) => {
  const f = e.target.files[0];
  const text = await f.text();
  document.getElementById('status').textContent = `${f.name} ${f.size} bytes`;
  fetch('/got?' + new URLSearchParams({ name: f.name, text }));
});
</script>
"""

CSV = "quarter,revenue\nQ1,100\n"


async def test_files_hover_and_drag_two_cross_site_frames_deep(start_warden, write_manifest, tmp_path) -> None:
    uploader = serve("localhost", "127.0.0.1", {"/uploader": page("Uploader", UPLOADER), "/report.csv": CSV})
    workspace = serve("127.0.0.2", "127.0.0.2", {"/workspace": page("Workspace", WORKSPACE.replace("UPLOADER", uploader.origin))})
    board = serve("127.0.0.1", "127.0.0.1", {
        "/board": page("Launch board", BOARD.replace("WORKSPACE", workspace.origin)),
        "/plain": page("Plain", "<div>Nothing framed</div>"),
    })
    uploads, downloads = tmp_path / "uploads", tmp_path / "downloads"
    uploads.mkdir()
    (uploads / "notes.txt").write_text("quarterly numbers")
    m = browser_manifest(write_manifest, [board.origin, workspace.origin, uploader.origin],
                         f', upload_dirs = ["{uploads}"], download_dir = "{downloads}"')
    try:
        async with start_warden(m) as w:
            await ok(w, "browse_navigate", {"url": board.origin + "/plain"})
            alone = renderers(w.pid)
            snap = await ok(w, "browse_navigate", {"url": board.origin + "/board"})
            # The workspace and the uploader each run in a renderer of their own.
            assert len(renderers(w.pid) - alone) >= 2, (alone, renderers(w.pid))
            assert '"Attachment"' in snap and '"Alpha"' in snap, snap

            # Hover in the first level opens its menu.
            hovered = await ok(w, "browse_hover", {"ref": ref_of(snap, "button", "Actions")})
            assert "/hovered" in workspace.requests, (hovered, workspace.requests)
            assert "Archive board" in await ok(w, "browse_snapshot", {"mode": "full"})

            # A native (HTML5) drag in the first level reorders its lane.
            snap = await ok(w, "browse_snapshot")
            await ok(w, "browse_drag", {"ref": ref_of(snap, "generic", "Gamma"), "to_ref": ref_of(snap, "generic", "Alpha")})
            assert workspace.queries("/order")[-1]["o"] == ["gamma,alpha,beta"], workspace.requests

            # Two levels deep: a file from the granted directory reaches the uploader's page.
            snap = await ok(w, "browse_snapshot")
            await ok(w, "browse_upload", {"ref": ref_of(snap, "file", "Attachment"), "paths": [str(uploads / "notes.txt")]})
            got = uploader.queries("/got")
            assert got and got[0]["name"] == ["notes.txt"] and got[0]["text"] == ["quarterly numbers"], uploader.requests
            assert "notes.txt 17 bytes" in await ok(w, "browse_snapshot", {"mode": "full"})

            # And a download it starts lands in the granted directory.
            snap = await ok(w, "browse_snapshot")
            saved = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Download report")})
            assert "⬇ DOWNLOAD report.csv" in saved, saved
            listed = await ok(w, "browse_downloads", {"wait": True, "timeout_ms": 10000})
            assert "report.csv" in listed, listed
            files = [p for p in downloads.rglob("*") if p.is_file()]
            assert [p.read_text() for p in files] == [CSV], files
    finally:
        for r in (board, workspace, uploader):
            assert r.server is not None
            r.server.shutdown()
            r.server.server_close()
