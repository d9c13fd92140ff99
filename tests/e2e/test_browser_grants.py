"""Hostile tests of the browser grants that bound what a plugin (and the agent driving it) can
do with pages it controls: secrets go only into fields of the origins the manifest binds them
to, mocked responses (plugin-written content) need the eval_js grant, and sessions and tabs
are capped per plugin. Driven through the browser plugin's own tools, as an agent would
attack, against a real Chromium and pages served here."""

from __future__ import annotations

import base64
import codecs
import http.server
import json
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from browser_helpers import CHROMIUM, chromium_processes, err, ok, ref_of
from browser_site import PASSWORD, page

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

ENV = {"WARDEN_TEST_APP_PASSWORD": PASSWORD}

# Everything a page can do to a field's value in one built-in call, all at once.
COPY_SCRIPT = """
<script>
const rot13 = (s) => s.replace(/[a-z]/gi, (c) => String.fromCharCode((c <= 'Z' ? 90 : 122) >= (c = c.charCodeAt(0) + 13) ? c : c - 26));
const pw = document.querySelector('input[type=password]');
pw.addEventListener('input', () => {
  const v = pw.value;
  document.getElementById('copy').textContent = 'Reversed: ' + [...v].reverse().join('');
  document.getElementById('rot').textContent = 'Rot13: ' + rot13(v);
  console.log('b64 ' + btoa(v) + ' json ' + JSON.stringify({ p: v }) + ' plain ' + v);
  document.title = 'T ' + encodeURIComponent(v);
  fetch('/collect?p=' + encodeURIComponent(v) + '&b=' + btoa('user=' + v));
});
</script>
"""

LOGIN = page(
    "Sign in",
    "<h1 id=copy>Reversed: none</h1><p id=rot>Rot13: none</p>"
    "<label>Password <input type=password></label>" + COPY_SCRIPT,
)

# A login field in every kind of frame whose content the plugin could have written, or whose
# origin is opaque: srcdoc, data:, blob:, sandboxed.
FRAMES = page(
    "Frames",
    """
<h1>Frames</h1>
<iframe srcdoc="<label>Srcdoc password <input type=password></label>"></iframe>
<iframe src="data:text/html,<label>Data password <input type=password></label>"></iframe>
<iframe sandbox="allow-scripts" src="/inner"></iframe>
<div id=slot></div>
<script>
const blob = new Blob(['<label>Blob password <input type=password></label>'], { type: 'text/html' });
const f = document.createElement('iframe');
f.src = URL.createObjectURL(blob);
document.getElementById('slot').append(f);
</script>
""",
)

INNER = page("Inner", "<label>Sandboxed password <input type=password></label>")

# A top-level blob: page made by a granted page: its security origin is the granted one.
TO_BLOB = page(
    "To blob",
    """
<button onclick="location = window.URL.createObjectURL(new Blob([
  '<title>Blob login</title><h1 id=copy>Reversed: none</h1><p id=rot>Rot13: none</p>'
  + '<label>Blob top password <input type=password></label><script src=/copy.js></' + 'script>'], { type: 'text/html' }))">Open blob page</button>
""",
)

# Opens 50 windows as it loads (the capture browser blocks no popups).
AUTO_FLOOD = page(
    "Auto flood",
    "<h1>Auto flood</h1><script>for (let i = 0; i < 50; i++) window.open('/popup?auto=' + i);</script>",
)

FLOOD = page(
    "Flood",
    """
<button onclick="for (let i = 0; i < 200; i++) window.open('/popup?i=' + i)">Open 200 windows</button>
""",
)

SPY = page(
    "Spy",
    "<p id=c></p><script>document.getElementById('c').textContent = 'Cookies: ' + document.cookie + ' Stored: ' + JSON.stringify(localStorage);</script>",
)

DATA_LOGIN = "data:text/html," + urllib.parse.quote(
    "<title>Data login</title><h1 id=copy>Reversed: none</h1><p id=rot>Rot13: none</p>"
    "<label>Data top password <input type=password></label>" + COPY_SCRIPT
)


@dataclass
class GrantSite:
    server: http.server.ThreadingHTTPServer
    requests: list[str] = field(default_factory=list)

    @property
    def origin(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def queries(self, path: str) -> list[dict[str, list[str]]]:
        return [
            urllib.parse.parse_qs(urllib.parse.urlparse(r).query)
            for r in list(self.requests)
            if r.split("?")[0] == path
        ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_grant_site() -> GrantSite:
    holder: dict[str, GrantSite] = {}
    pages = {"/login": LOGIN, "/frames": FRAMES, "/inner": INNER, "/toblob": TO_BLOB, "/flood": FLOOD,
             "/spy": SPY, "/autoflood": AUTO_FLOOD, "/popup": page("Popup", "<h1>Popup</h1>")}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            site = holder["site"]
            site.requests.append(self.path)
            path = self.path.split("?")[0]
            if path == "/copy.js":
                script = COPY_SCRIPT.replace("<script>", "").replace("</script>", "").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/javascript")
                self.send_header("Content-Length", str(len(script)))
                self.end_headers()
                self.wfile.write(script)
                return
            body = pages.get(path, page("Not found", "<h1>Not found</h1>")).encode()
            headers = {"Set-Cookie": "sid=c00kie-from-the-real-site; Path=/"} if path == "/login" else {}
            self.send_response(200 if path in pages else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    site = GrantSite(server)
    holder["site"] = site
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site


@pytest.fixture()
def grant_site() -> Iterator[GrantSite]:
    site = start_grant_site()
    yield site
    site.close()


def manifest(write_manifest, site: GrantSite, grants: str = ', secrets = ["APP_PASSWORD"]', limits: str = "",
             more: str = "") -> object:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
APP_PASSWORD = {{ env = "WARDEN_TEST_APP_PASSWORD", origins = ["{site.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "90s"{limits} }}
grants.browser = {{ origins = ["{site.origin}"]{grants} }}
{more}""")


def encodings(secret: str) -> list[str]:
    """The secret as the copy script writes it: everything scrubbing knows."""
    return [
        secret,
        secret[::-1],
        urllib.parse.quote(secret, safe="-_.!~*'()"),
        base64.b64encode(secret.encode()).decode(),
        json.dumps(secret)[1:-1],
    ]


def denials(m, target_part: str) -> list[dict]:
    return [l for l in m.audit_lines() if l["event"] == "capability_denied" and target_part in (l.get("target") or "")]


async def snapshot_text(w) -> str:
    return await ok(w, "browse_snapshot", {"mode": "full", "max_tokens": 8000})


# --------------------------------------------------------------------------- secrets


async def test_secret_refused_in_documents_the_plugin_could_write(start_warden, write_manifest, grant_site) -> None:
    """data:, blob:, about:srcdoc and sandboxed (opaque) frames: the fill is refused before any
    character reaches the page, whatever encoding its script would apply."""
    m = manifest(write_manifest, grant_site)
    async with start_warden(m, env=ENV) as w:
        # A top-level data: page whose script would copy the field: a document the plugin
        # wrote is script, which a plugin holding secrets never runs, so it is not even shown.
        refused = await err(w, "browse_navigate", {"url": DATA_LOGIN})
        assert "eval_js" in refused and "holds secrets" in refused, refused
        assert denials(m, "a data: URL"), m.audit_lines()

        # A top-level blob: page a granted page made: its security origin is the granted one,
        # but its content is whatever the page (or a plugin) put in the blob.
        snap = await ok(w, "browse_navigate", {"url": grant_site.url("/toblob")})
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Open blob page")})
        snap = await ok(w, "browse_snapshot")
        assert "blob:" in snap.splitlines()[0], snap
        refused = await err(w, "browse_fill", {"ref": ref_of(snap, "password", "Blob top password"),
                                               "secret": "APP_PASSWORD"})
        assert "not an http(s) page" in refused, refused
        assert "Reversed: none" in await snapshot_text(w)

        # Frames inside a granted page: srcdoc, data:, blob:, sandboxed.
        snap = await ok(w, "browse_navigate", {"url": grant_site.url("/frames")})
        for label, why in [("Srcdoc password", "not an http(s) page"), ("Data password", "not an http(s) page"),
                           ("Blob password", "not an http(s) page"), ("Sandboxed password", "opaque")]:
            refused = await err(w, "browse_fill", {"ref": ref_of(snap, "password", label), "secret": "APP_PASSWORD"})
            assert why in refused and "was not typed" in refused, (label, refused)
        # Nothing was typed anywhere: every field is still empty.
        assert "••••" not in await snapshot_text(w)
    # Five refused fills (the data: page is refused before it shows, by its own line above).
    assert len(denials(m, "secret 'APP_PASSWORD'")) >= 5, m.audit_lines()
    assert not grant_site.queries("/collect"), grant_site.requests


async def test_secret_on_its_origin_is_typed_and_withheld_from_the_plugin(start_warden, write_manifest,
                                                                          grant_site) -> None:
    """On the bound origin the secret is typed. That origin's own script can copy it anywhere:
    the admin trusted it by binding the secret to it. What the plugin reads of that page gives
    none of it, in any encoding (rot13 included): the page holds the secret, so the snapshot
    has no text and no field values, and what it logs meanwhile is withheld
    (test_browser_secret_doors.py tries every other door)."""
    m = manifest(write_manifest, grant_site)
    async with start_warden(m, env=ENV) as w:
        snap = await ok(w, "browse_navigate", {"url": grant_site.url("/login")})
        await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "APP_PASSWORD"})
        text = await snapshot_text(w)
        console = await ok(w, "browse_console")
        network = await ok(w, "browse_network")
        rot13 = codecs.encode(PASSWORD, "rot13")
        for out in (text, console, network):
            for form in [*encodings(PASSWORD), rot13]:
                assert form not in out, (form, out)
        assert "Reversed:" not in text and "Rot13:" not in text, text
        assert "withheld" in console and "b64" not in console, console
        assert "/collect" not in network and "withheld" in network, network
        # The page's own server got the value: it is the origin the secret is for.
        got = grant_site.queries("/collect")
        assert got and got[0]["p"] == [PASSWORD], grant_site.requests


async def test_secret_is_bound_to_its_origin_not_every_granted_one(start_warden, write_manifest, grant_site) -> None:
    other = start_grant_site()
    # The plugin may visit both sites; the secret is bound to the first only.
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
APP_PASSWORD = {{ env = "WARDEN_TEST_APP_PASSWORD", origins = ["{grant_site.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{grant_site.origin}", "{other.origin}"], secrets = ["APP_PASSWORD"] }}
""")
    try:
        async with start_warden(m, env=ENV) as w:
            snap = await ok(w, "browse_navigate", {"url": other.url("/login")})
            refused = await err(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "APP_PASSWORD"})
            assert f"not to {other.origin}" in refused and "[browser.secrets.APP_PASSWORD]" in refused, refused
            assert not other.queries("/collect")
    finally:
        other.close()


# --------------------------------------------------------------------------- mocks


async def test_mocks_need_eval_js_and_never_meet_secrets(start_warden, write_manifest, grant_site, warden_bin) -> None:
    # With secrets (and no eval_js): blocking works, mocking a granted origin is refused.
    m = manifest(write_manifest, grant_site)
    async with start_warden(m, env=ENV) as w:
        await ok(w, "browse_route", {"action": "block", "url": "*/img/*"})
        refused = await err(w, "browse_route", {
            "action": "mock", "url": f"{grant_site.origin}/login*", "content_type": "text/html",
            "body": "<input type=password oninput=\"document.title=this.value\">",
        })
        assert "grants.browser.eval_js" in refused, refused
        snap = await ok(w, "browse_navigate", {"url": grant_site.url("/login")})
        assert "Reversed: none" in snap or "Password" in snap, snap
        assert "/login" in [r.split("?")[0] for r in grant_site.requests]
    assert denials(m, "mocked responses"), m.audit_lines()

    # eval_js and secrets together: a load error that says why.
    both = manifest(write_manifest, grant_site, ', eval_js = true, secrets = ["APP_PASSWORD"]')
    out = subprocess.run([str(warden_bin), "check", "--manifest", str(both.path)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode != 0, out.stdout
    assert "granted both eval_js and secrets" in out.stderr + out.stdout, out.stderr


async def test_cookie_and_storage_reads_through_a_mock_need_the_grant(start_warden, write_manifest, grant_site) -> None:
    m = manifest(write_manifest, grant_site, ", cookies = false, eval_js = false")
    async with start_warden(m, env=ENV) as w:
        await ok(w, "browse_navigate", {"url": grant_site.url("/login")})
        refused = await err(w, "browse_route", {"action": "mock", "url": f"{grant_site.origin}/fake*",
                                                "content_type": "text/html", "body": SPY})
        assert "grants.browser.eval_js" in refused, refused
        snap = await ok(w, "browse_navigate", {"url": grant_site.url("/fake")})
        assert "c00kie-from-the-real-site" not in snap and "Cookies:" not in snap, snap
        assert "/fake" in [r.split("?")[0] for r in grant_site.requests], "the real site answered"
        assert "0 route(s)" in await ok(w, "browse_route")
    assert denials(m, "mocked responses"), m.audit_lines()


# --------------------------------------------------------------------------- caps


async def test_sessions_and_tabs_are_capped_per_plugin(start_warden, write_manifest, grant_site) -> None:
    other_plugin = """
[[plugin]]
name = "other"
source = "builtin:browser"
tool_prefix = "other_"
grants.browser = { origins = ["%s"] }
""" % grant_site.origin
    m = manifest(write_manifest, grant_site, "", limits=", browser_sessions = 3, browser_tabs = 4", more=other_plugin)
    async with start_warden(m, env=ENV) as w:
        # 120 sessions in a row: 3 open, every other one refused with the limit's name.
        refusals = []
        for i in range(120):
            result = await w.call("browse_session", {"action": "create", "name": f"s{i}"}, timeout=60)
            if result.is_error:
                refusals.append("".join(getattr(b, "text", "") for b in result.content))
        assert len(refusals) == 117, refusals[:3]
        assert all("limits.browser_sessions" in r for r in refusals), refusals[0]
        listed = await ok(w, "browse_session", {"action": "list"})
        assert "s0" in listed and "s2" in listed and "s3" not in listed, listed
        for name in ("s1", "s2"):
            await ok(w, "browse_session", {"action": "close", "name": name})
        await ok(w, "browse_session", {"action": "switch", "name": "s0"})

        # Tabs: at most 4 across the plugin's sessions.
        tab_refusals = []
        for _ in range(8):
            result = await w.call("browse_tabs", {"action": "new"}, timeout=60)
            if result.is_error:
                tab_refusals.append("".join(getattr(b, "text", "") for b in result.content))
        assert tab_refusals and all("limits.browser_tabs" in r for r in tab_refusals), tab_refusals
        tabs = await ok(w, "browse_tabs")
        assert tabs.count("[") <= 4 + 1, tabs

        # 200 windows opened by a page in one click: closed over the cap, audited in a few lines.
        await ok(w, "browse_navigate", {"url": grant_site.url("/flood")})
        snap = await ok(w, "browse_snapshot")
        result = await w.call("browse_click", {"ref": ref_of(snap, "button", "Open 200 windows")}, timeout=90)
        answer = "".join(getattr(b, "text", "") for b in result.content)
        if result.is_error:
            assert "limits.browser_tabs" in answer, answer
        popups = [r for r in grant_site.requests if r.startswith("/popup")]
        assert len(popups) <= 4, popups
        assert len(chromium_processes(w.pid)) < 40, [p.name() for p in chromium_processes(w.pid)]

        # Warden still answers, and another plugin's browser still works.
        assert "Flood" in await ok(w, "browse_snapshot")
        snap = await ok(w, "other_browse_navigate", {"url": grant_site.url("/login")})
        assert "Password" in snap, snap
        await ok(w, "other_browse_session", {"action": "create", "name": "mine"})
    sessions = denials(m, "limits.browser_sessions")
    assert sessions and all(l["plugin"] == "browser" for l in sessions), sessions
    tabs = denials(m, "limits.browser_tabs")
    assert tabs and len(tabs) <= len(tab_refusals) + 9, tabs


async def test_a_capture_request_has_capped_tabs(start_warden, write_manifest, grant_site, tmp_path) -> None:
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "capture"
source = "builtin:capture"
limits = {{ call_timeout = "60s", capture_tabs = 2 }}
grants.capture = {{ origins = ["{grant_site.origin}"] }}
""")
    async with start_warden(m) as w:
        result = await w.call("capture_page", {"url": grant_site.url("/autoflood"), "format": "text"}, timeout=60)
        text = "".join(getattr(b, "text", "") for b in result.content)
        assert "Auto flood" in text or "limits.capture_tabs" in text, text
        popups = [r for r in grant_site.requests if r.startswith("/popup")]
        assert len(popups) <= 1, popups
        assert len(chromium_processes(w.pid)) < 20
        again = await ok(w, "capture_page", {"url": grant_site.url("/login"), "format": "text"})
        assert "Password" in again, again
    capped = denials(m, "limits.capture_tabs")
    assert capped and len(capped) <= 7 and all(l["plugin"] == "capture" for l in capped), capped
