"""Fixture site for the browser's console, network, route, emulation and storage tests,
served on 127.0.0.1 by the tests themselves. `start_net_site()` records every request path."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from html import escape as html_escape

from browser_site import page

ITEMS = [{"name": "Real apple"}, {"name": "Real pear"}]
SESSION_COOKIE_VALUE = "c00kie-value-never-logged"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

CONSOLE = page(
    "Console",
    """
<h1>Console</h1>
<img src="/missing.png" alt="missing">
<button onclick="console.log('clicked ' + document.title)">Log more</button>
<label>Password <input type=password oninput="console.log('typed ' + this.value)"></label>
<script>
console.log("hello from the page", 42);
console.warn("careful: low disk");
console.error("something broke");
console.debug("debug detail");
setTimeout(() => { throw new Error("boom in timeout"); }, 0);
</script>
""",
)

NET = page(
    "Shop",
    """
<h1>Shop</h1>
<img src="/img/logo.png" alt="logo">
<ul id=items></ul>
<p id=status>loading</p>
<a href="/net?from=popup" target=_blank>Open shop in a new tab</a>
<script>
fetch('/api/items', { headers: { Authorization: 'Bearer t0ken-never-logged' } })
  .then(r => r.json())
  .then(items => {
    for (const i of items) {
      const li = document.createElement('li');
      li.textContent = 'Item: ' + i.name;
      document.getElementById('items').appendChild(li);
    }
    document.getElementById('status').textContent = 'Loaded ' + items.length + ' item(s)';
  })
  .catch(e => { document.getElementById('status').textContent = 'Fetch failed'; });
</script>
""",
)

EMULATE = page(
    "Emulate",
    """
<h1>Environment</h1>
<p id=ua></p><p id=tz></p><p id=lang></p><p id=scheme></p><p id=size></p><p id=online></p>
<p id=geo>Geo: waiting</p><p id=fetched>Fetch: waiting</p>
<button onclick="show()">Refresh</button>
<script>
function show() {
  const set = (id, text) => { document.getElementById(id).textContent = text; };
  set('ua', 'UA: ' + navigator.userAgent);
  set('tz', 'TZ: ' + Intl.DateTimeFormat().resolvedOptions().timeZone);
  set('lang', 'Lang: ' + navigator.language);
  set('scheme', 'Scheme: ' + (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  set('size', 'Size: ' + innerWidth + 'x' + innerHeight + ' dpr ' + devicePixelRatio);
  set('online', 'Online: ' + navigator.onLine);
  set('fetched', 'Fetch: waiting');
  fetch('/api/ping?' + Date.now()).then(r => r.text()).then(t => set('fetched', 'Fetch: ' + t))
    .catch(() => set('fetched', 'Fetch: failed'));
  navigator.geolocation.getCurrentPosition(
    p => set('geo', 'Geo: ' + p.coords.latitude.toFixed(2) + ',' + p.coords.longitude.toFixed(2)),
    e => set('geo', 'Geo: error ' + e.code), { timeout: 5000 });
}
show();
</script>
""",
    '<meta name=viewport content="width=device-width, initial-scale=1">',
)

STORAGE = page(
    "Storage",
    """
<h1>Storage</h1>
<p id=greeting></p>
<label>Password <input type=password oninput="localStorage.setItem('typed', this.value)"></label>
<script>
localStorage.setItem('theme', 'dark');
sessionStorage.setItem('tab', 'one');
document.getElementById('greeting').textContent = 'Greeting: ' + (localStorage.getItem('greeting') || 'none');
</script>
""",
)


REMEMBER = """
<h1>What this profile remembers</h1>
<p id=cookies></p><p id=stored></p>
<script>
/*STORE*/
const keys = Object.keys(localStorage).sort();
document.getElementById('cookies').textContent = 'Cookies: ' + (document.cookie.split('; ').sort().join(' ') || 'none');
document.getElementById('stored').textContent = 'Stored: ' + (keys.map(k => k + '=' + localStorage.getItem(k)).join(' ') || 'none');
</script>
"""


@dataclass
class NetSite:
    server: http.server.ThreadingHTTPServer
    requests: list[str] = field(default_factory=list)

    @property
    def origin(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def paths(self) -> list[str]:
        return [r.split("?")[0] for r in list(self.requests)]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def render(self, path: str) -> tuple[int, str, dict[str, str], bytes]:
        p = path.split("?")[0]
        html = "text/html; charset=utf-8"
        pages = {"/console": CONSOLE, "/net": NET, "/emulate": EMULATE, "/storage": STORAGE}
        if p in pages:
            headers = {"Set-Cookie": f"sid={SESSION_COOKIE_VALUE}; Path=/"} if p == "/net" else {}
            return 200, html, headers, pages[p].encode()
        if p == "/remember":
            # ?k=v: a persistent cookie and a localStorage item k=v; without a query, only shows
            # what the profile remembers.
            query = urllib.parse.parse_qsl(urllib.parse.urlparse(path).query)
            headers = {"Set-Cookie": f"{k}={v}; Max-Age=86400; Path=/" for k, v in query[:1]}
            store = "".join(f"localStorage.setItem({json.dumps(k)}, {json.dumps(v)});" for k, v in query)
            return 200, html, headers, page("Remember", REMEMBER.replace("/*STORE*/", store)).encode()
        if p == "/jump":
            # A link to any URL (given as ?to=), for navigations the page itself starts.
            to = urllib.parse.parse_qs(urllib.parse.urlparse(path).query).get("to", [""])[0]
            return 200, html, {}, page("Jump", f'<a href="{html_escape(to)}">Leave</a>').encode()
        if p == "/api/items":
            return 200, "application/json", {}, json.dumps(ITEMS).encode()
        if p == "/api/ping":
            return 200, "text/plain", {}, b"pong"
        if p == "/img/logo.png":
            return 200, "image/png", {}, PNG
        if p == "/evil":
            return 200, html, {}, page("Evil", "<h1>You should never see this</h1>").encode()
        return 404, html, {}, page("Not found", "<h1>Not found</h1>").encode()


def start_net_site() -> NetSite:
    holder: dict[str, NetSite] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            site = holder["site"]
            site.requests.append(self.path)
            status, mime, headers, body = site.render(self.path)
            self.send_response(status)
            self.send_header("Content-Type", mime)
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
    site = NetSite(server)
    holder["site"] = site
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site


@dataclass
class Proxy:
    """A forward HTTP proxy that records every URL it is asked for."""

    server: http.server.ThreadingHTTPServer
    requests: list[str] = field(default_factory=list)

    @property
    def origin(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_proxy() -> Proxy:
    import urllib.error
    import urllib.request

    holder: dict[str, Proxy] = {}
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    hop_by_hop = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "content-length"}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            holder["proxy"].requests.append(self.path)
            try:
                resp = direct.open(self.path, timeout=10)
                status, headers, body = resp.status, resp.headers, resp.read()
            except urllib.error.HTTPError as e:
                status, headers, body = e.code, e.headers, e.read()
            self.send_response(status)
            for k, v in headers.items():
                if k.lower() not in hop_by_hop:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    proxy = Proxy(server)
    holder["proxy"] = proxy
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return proxy
