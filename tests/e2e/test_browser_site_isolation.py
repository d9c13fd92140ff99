"""Site isolation: a frame of another site runs in a renderer of its own (Chromium's
site-per-process), and Warden reads and drives it as it does a frame in the page's process.

A shop on `127.0.0.1` embeds two widgets of other sites, as checkout pages embed SSO and
payment widgets: a sign-in widget on `localhost` (the origin the secret is bound to) and a
newsletter widget on `127.0.0.2` (granted, no secret bound). `127.0.0.1`, `localhost` and
`127.0.0.2` are three sites, so the page runs in three renderers. Each widget's server records
what it is sent: the assertions are on what the servers received and on the renderer
processes read from `/proc`, not on Warden's word.
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

from browser_helpers import CHROMIUM, chromium_processes, err, ok, ref_of
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
