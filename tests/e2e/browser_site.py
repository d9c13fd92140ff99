"""Fixture web sites for the browser tests, served on 127.0.0.1 by the tests themselves.

`Site(name)` starts a threaded HTTP server on a free port and records every request path.
Pages are written for the behaviours the browser issue must show: a login behind a cookie
banner, a JS-rendered list, a form that enables its button when valid, tabs, frames,
dialogs, a 3,000-row table, redirects and pages that change under a ref.
"""

from __future__ import annotations

import http.server
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

PASSWORD = "correct horse battery staple 42"
SESSION_COOKIE = "sid=s3ss10n-token"


def page(title: str, body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>{head}</head><body>{body}</body></html>"


LOGIN = page(
    "Sign in",
    """
<h1>Sign in</h1>
<form method=post action=/login>
  <label>Email <input name=email type=email placeholder="you@example.com"></label>
  <label>Password <input name=password type=password></label>
  <button type=submit>Sign in</button>
</form>
<div class=why style="margin-top:24px">""" + "".join(
    f"<p>Members get saved carts, order tracking and faster checkout; benefit {i} of many.</p>" for i in range(1, 25)
) + """</div>
<div id=cookie-banner style="position:fixed;bottom:0;left:0;right:0;height:140px;background:#eee;z-index:1000">
  <p>We use cookies to make this site work.</p>
  <button onclick="document.getElementById('cookie-banner').remove()">Accept all</button>
  <button onclick="document.getElementById('cookie-banner').remove()">Reject</button>
</div>
""",
)

# A login page that "the user" completes by themselves half a second after it loads: the
# capture tests wait for the login without driving the page.
LOGIN_AUTO = page(
    "Sign in (auto)",
    f"""
<form id=f method=post action=/login>
  <input name=email value="user@example.com"><input name=password type=password value="{PASSWORD}">
</form>
<script>setTimeout(() => document.getElementById("f").submit(), 500)</script>
""",
)

LIST = page(
    "List",
    """
<h1>Items</h1><ul id=items></ul>
<script>
setTimeout(() => {
  const ul = document.getElementById('items');
  for (let i = 1; i <= 5; i++) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.textContent = 'Item ' + i;
    b.onclick = () => { document.getElementById('picked').textContent = 'Picked item ' + i; };
    li.appendChild(b); ul.appendChild(li);
  }
}, 400);
</script>
<p id=picked></p>
""",
)

FORM = page(
    "Order",
    """
<h1>Order</h1>
<form id=f onsubmit="event.preventDefault(); document.getElementById('out').textContent =
  'Submitted: ' + [name.value, country.value, plan.value, terms.checked].join(' / ');">
  <label>Name <input id=name name=name required></label>
  <label>Country <select id=country name=country>
    <option value="">Choose…</option><option value=de>Germany</option><option value=fr>France</option>
  </select></label>
  <fieldset><legend>Plan</legend>
    <label><input type=radio name=plan value=basic checked> Basic</label>
    <label><input type=radio name=plan value=pro> Pro</label>
  </fieldset>
  <label><input type=checkbox id=terms> I accept the terms</label>
  <button id=submit type=submit disabled>Place order</button>
</form>
<p id=out></p>
<script>
const f = document.getElementById('f');
const check = () => {
  document.getElementById('submit').disabled = !(f.name.value && f.country.value && f.terms.checked);
};
f.addEventListener('input', check); f.addEventListener('change', check);
</script>
""",
)

DIALOGS = page(
    "Dialogs",
    """
<button onclick="alert('Hello there'); document.getElementById('r').textContent='alert done'">Alert</button>
<button onclick="document.getElementById('r').textContent = confirm('Really delete?') ? 'confirmed' : 'cancelled'">Confirm</button>
<button onclick="document.getElementById('r').textContent = 'name: ' + prompt('Your name?', 'anon')">Prompt</button>
<p id=r></p>
""",
)

STALE = page(
    "Stale",
    """
<div id=box><button id=old>Old button</button></div>
<button onclick="document.getElementById('box').innerHTML = '<button>New button</button>'">Replace</button>
""",
)


def news_page() -> str:
    """A page shaped like a typical site: navigation, teasers, a sidebar and a footer."""
    nav = "".join(f'<li><a href="/section/{n.lower()}">{n}</a></li>' for n in
                  ["Home", "World", "Business", "Technology", "Science", "Health", "Sports", "Culture", "Opinion"])
    teasers = "".join(
        f"""<article><h2><a href="/story/{i}">Story {i}: markets, weather and the week ahead</a></h2>
<p>Summary of story {i}. Analysts expect changes in several sectors while regional officials prepare new plans
for the coming months; readers share their views in the comments.</p>
<div class=meta><span>By Reporter {i}</span> · <time>2 hours ago</time> · <a href="/story/{i}#comments">{i * 3} comments</a>
<button aria-label="Save story {i}">☆</button><button aria-label="Share story {i}">⤴</button></div></article>"""
        for i in range(1, 21)
    )
    side = "".join(f'<li><a href="/popular/{i}">Most read {i}</a></li>' for i in range(1, 11))
    footer = "".join(f'<a href="/about/{n}">{n}</a> ' for n in ["About", "Contact", "Careers", "Privacy", "Terms", "Ads"])
    return page(
        "Daily News",
        f"""<header><a href="/">Daily News</a><nav><ul>{nav}</ul></nav>
<form role=search action=/search><input type=search name=q placeholder="Search news"><button>Search</button></form>
<a href="/login">Sign in</a></header>
<main>{teasers}</main><aside><h2>Most read</h2><ol>{side}</ol>
<form><label>Newsletter <input type=email placeholder="Email address"></label><button>Subscribe</button></form></aside>
<footer>{footer}<p>© Daily News</p></footer>""",
    )


def big_page(rows: int) -> str:
    body = ["<h1>Big table</h1><table>"]
    for i in range(1, rows + 1):
        body.append(
            f"<tr><td>Row {i}</td><td><button onclick=\"document.title='edited {i}'\">Edit row {i}</button></td></tr>"
        )
    body.append("</table>")
    return page("Big", "".join(body))


@dataclass
class Site:
    """One fixture site. `other` is filled in by the test with the URL of a second site."""

    server: http.server.ThreadingHTTPServer
    requests: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    # Extra pages a test adds: path -> full HTML document.
    pages: dict[str, str] = field(default_factory=dict)

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

    def render(self, path: str, cookies: str) -> tuple[int, dict[str, str], str]:
        other = self.links.get("other", "")
        blocked = self.links.get("blocked", "")
        parsed = urllib.parse.urlparse(path)
        p = parsed.path
        if p in self.pages:
            return 200, {}, self.pages[p]
        if p == "/login":
            return 200, {}, LOGIN
        if p == "/login-auto":
            return 200, {}, LOGIN_AUTO
        if p == "/prefs":
            return 200, {"Set-Cookie": "theme=dark; Path=/"}, page("Preferences", "<h1>Preferences saved</h1>")
        if p == "/dashboard":
            if SESSION_COOKIE not in cookies:
                return 302, {"Location": "/login"}, ""
            return 200, {}, page("Dashboard", "<h1>Welcome back, user@example.com</h1><a href=/login>Sign out</a>")
        if p == "/wrong":
            return 200, {}, page("Wrong", "<h1>Wrong password</h1><a href=/login>Try again</a>")
        if p == "/list":
            return 200, {}, LIST
        if p == "/form":
            return 200, {}, FORM
        if p == "/dialogs":
            return 200, {}, DIALOGS
        if p == "/stale":
            return 200, {}, STALE
        if p == "/upload":
            return 200, {}, page(
                "Upload",
                """<label>Attachment <input type=file id=f onchange="document.getElementById('o').textContent =
  Array.from(this.files).map(f => f.name + ' ' + f.size + ' bytes').join(', ')"></label><p id=o></p>""",
            )
        if p == "/news":
            return 200, {}, news_page()
        if p == "/big":
            return 200, {}, big_page(3000)
        if p == "/tabs":
            return 200, {}, page(
                "Tabs",
                f"""<a href="/popup" target=_blank>Open help</a>
<button onclick="window.open('{blocked}/evil')">Open partner site</button>
<a href="{blocked}/evil">Partner link</a>""",
            )
        if p == "/popup":
            return 200, {}, page("Help", "<h1>Help page</h1><button>Close help</button>")
        if p == "/frames":
            return 200, {}, page(
                "Frames",
                f"""<h1>Frames</h1><button>Top button</button>
<iframe name=same src="/inner?who=same" width=400 height=120></iframe>
<iframe name=cross src="{other}/inner?who=cross" width=400 height=120></iframe>""",
            )
        if p == "/inner":
            who = urllib.parse.parse_qs(parsed.query).get("who", ["?"])[0]
            return 200, {}, page(
                "Inner",
                f"""<button onclick="this.textContent='{who} clicked'">{who} frame button</button>""",
            )
        if p == "/redirect-out":
            return 302, {"Location": f"{blocked}/evil"}, ""
        if p == "/meta-out":
            return 200, {}, page("Meta", "<p>Leaving</p>", f'<meta http-equiv=refresh content="0;url={blocked}/evil">')
        if p == "/evil":
            return 200, {}, page("Evil", "<h1>You should never see this</h1>")
        return 404, {}, page("Not found", "<h1>Not found</h1>")

    def login(self, body: str) -> tuple[int, dict[str, str], str]:
        form = urllib.parse.parse_qs(body)
        if form.get("password", [""])[0] == PASSWORD and form.get("email", [""])[0]:
            # "Remember me": a cookie with an expiry, which a persistent profile keeps.
            cookie = f"{SESSION_COOKIE}; Path=/; HttpOnly; Max-Age=86400"
            return 302, {"Location": "/dashboard", "Set-Cookie": cookie}, ""
        return 302, {"Location": "/wrong"}, ""


def start_site() -> Site:
    holder: dict[str, Site] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, status: int, headers: dict[str, str], body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            site = holder["site"]
            site.requests.append(self.path)
            self._answer(*site.render(self.path, self.headers.get("Cookie", "")))

        def do_POST(self) -> None:  # noqa: N802
            site = holder["site"]
            site.requests.append("POST " + self.path)
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode()
            self._answer(*site.login(body))

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    site = Site(server)
    holder["site"] = site
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site
