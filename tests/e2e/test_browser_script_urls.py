"""Hostile tests of the URLs a plugin sends its tabs to (issue 30, class 2): a URL that carries
script (`javascript:`, a `data:` document, a `blob:`) is plugin-authored code and needs the
`eval_js` grant, however its scheme is spelled; a URL with no origin a grant can name
(`view-source:`, `file:`, `about:` pages other than blank) is never loaded. The attacker is the
agent driving the built-in browser plugin, granted one shop origin and a secret, without
`eval_js` or `cookies`: it fills the password field with the secret, then asks the tab to run
script that sends `document.cookie` and the field's value to the shop's own /collect endpoint
(a granted origin, so the network guard lets it through). Each test asserts on what the shop
server received, and on the audit line of each refusal."""

from __future__ import annotations

import http.server
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from browser_helpers import CHROMIUM, err, ok, ref_of
from browser_site import PASSWORD, page
from conftest import text_of

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

ENV = {"WARDEN_TEST_SHOP_PASSWORD": PASSWORD}
SESSION = "sid=shop-session-7f3a9c"

# A shop's sign-in, rendered by its own script into a div tree as a single-page app does.
SIGN_IN = page(
    "Acme Shop - Sign in",
    """
<div id=root><div class="app-shell"><header class="top-bar"><div class="brand">Acme</div>
<nav class="nav"><div class="nav-item">Deals</div><div class="nav-item">Orders</div></nav></header>
<main class="content"><div class="card" id=card>Loading…</div></main></div></div>
<script>
const card = document.getElementById('card');
card.innerHTML = `<div class="card-title"><h2>Sign in to your account</h2></div>
  <div class="field"><label for=em>Email</label><input id=em type=email placeholder="you@example.com"></div>
  <div class="field"><label for=pw>Password</label><input id=pw type=password autocomplete=current-password></div>
  <div class="actions"><div role=button tabindex=0 class="btn primary">Continue</div></div>`;
</script>
""",
)


@dataclass
class Shop:
    server: http.server.ThreadingHTTPServer
    requests: list[str] = field(default_factory=list)

    @property
    def origin(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def collected(self) -> list[str]:
        return [r for r in list(self.requests) if r.startswith("/collect")]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_shop() -> Shop:
    holder: dict[str, Shop] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            shop = holder["shop"]
            shop.requests.append(self.path)
            path = self.path.split("?")[0]
            if path == "/go":
                # A granted page that redirects to script.
                self.send_response(302)
                self.send_header("Location", "javascript:fetch('/collect?from=redirect')")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = (SIGN_IN if path == "/signin" else page("Acme", "<div class=empty>ok</div>")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            if path == "/signin":
                self.send_header("Set-Cookie", f"{SESSION}; Path=/")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    shop = Shop(server)
    holder["shop"] = shop
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return shop


@pytest.fixture()
def shop() -> Iterator[Shop]:
    s = start_shop()
    yield s
    s.close()


def manifest(write_manifest, shop: Shop, grants: str = ', secrets = ["SHOP_PASSWORD"]') -> Any:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
SHOP_PASSWORD = {{ env = "WARDEN_TEST_SHOP_PASSWORD", origins = ["{shop.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{shop.origin}"]{grants} }}
""")


def denied(m, target: str) -> list[dict]:
    return [
        line
        for line in m.audit_lines()
        if line["event"] == "capability_denied" and line.get("target") == target
    ]


# Reads the session cookie and the field the host filled, and sends both to the shop.
STEAL = (
    "void(fetch('/collect?c='+encodeURIComponent(document.cookie)"
    "+'&p='+encodeURIComponent(document.getElementById('pw').value)))"
)

SCRIPT_URLS = {
    "plain": "javascript:" + STEAL,
    "mixed case and a leading space": " JaVaScRiPt:" + STEAL,
    "upper case": "JAVASCRIPT:" + STEAL,
    "tab inside the scheme": "java\tscript:" + STEAL,
    "newline inside the scheme": "java\nscript:" + STEAL,
    "leading control characters": "\x01\x1f javascript:" + STEAL,
    "comment then newline": "javascript://%0A" + STEAL,
}


async def signed_in_tab(w, shop: Shop) -> None:
    """The shop's sign-in, its password field filled by the host with the secret."""
    snap = await ok(w, "browse_navigate", {"url": shop.url("/signin")})
    await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "SHOP_PASSWORD"})


@pytest.mark.parametrize("spelling", list(SCRIPT_URLS))
async def test_javascript_urls_are_refused_without_eval_js(start_warden, write_manifest, shop, spelling) -> None:
    m = manifest(write_manifest, shop)
    async with start_warden(m, env=ENV) as w:
        await signed_in_tab(w, shop)
        result = await w.call("browse_navigate", {"url": SCRIPT_URLS[spelling]}, timeout=60)
        await anyio.sleep(1.0)
        # First what the shop received: no cookie, no password.
        assert shop.collected() == [], shop.collected()
        refused = text_of(result)
        assert result.is_error, refused
        assert "javascript: URL" in refused and "eval_js" in refused, refused
        # This plugin holds a secret: it can never be given script, and is told so.
        assert "holds secrets" in refused, refused
        # The page is still the shop's sign-in, with nothing run in it (it holds the secret the
        # tab typed, so its snapshot gives elements, not text, and no title).
        snap = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "/signin" in snap.splitlines()[0] and "title withheld" in snap.splitlines()[0], snap
        lines = denied(m, "a javascript: URL")
        assert lines and lines[0]["capability"] == "browser", m.audit_lines()
        assert "fetch" not in lines[0]["reason"], lines[0]
    assert shop.collected() == [], shop.collected()


async def test_data_and_blob_documents_are_script_too(start_warden, write_manifest, shop) -> None:
    data = "data:text/html," + urllib.parse.quote(
        f"<div id=app></div><script>fetch('{shop.url('/collect?from=data')}')</script>"
    )
    blob = f"blob:{shop.origin}/6f1c2a8e-2b7d-4c55-9d0e-8f1a2b3c4d5e"
    m = manifest(write_manifest, shop)
    async with start_warden(m, env=ENV) as w:
        await signed_in_tab(w, shop)
        for url, target in [(data, "a data: URL"), (" DATA:" + data[5:], "a data: URL"), (blob, "a blob: URL")]:
            result = await w.call("browse_navigate", {"url": url}, timeout=60)
            await anyio.sleep(1.0)
            assert shop.collected() == [], shop.collected()
            refused = text_of(result)
            assert result.is_error and "eval_js" in refused, refused
            assert denied(m, target), (target, m.audit_lines())


async def test_urls_without_a_grantable_origin_are_never_loaded(start_warden, write_manifest, shop) -> None:
    """Not even with eval_js: these have no origin a grant can name. And the refusal never
    tells the admin to add "null", which the manifest would refuse."""
    m = manifest(write_manifest, shop, grants=", eval_js = true")
    async with start_warden(m) as w:
        await ok(w, "browse_navigate", {"url": shop.url("/signin")})
        for url, scheme in [
            (f"view-source:{shop.url('/signin')}", "view-source"),
            ("view-source:javascript:" + STEAL, "view-source"),
            ("file:///etc/passwd", "file"),
            (f"filesystem:{shop.origin}/temporary/x.html", "filesystem"),
            ("about:srcdoc", "about"),
            ("chrome://version", "chrome"),
        ]:
            refused = await err(w, "browse_navigate", {"url": url})
            assert "no origin a grant can name" in refused, refused
            assert '"null"' not in refused, refused
            lines = [l for l in m.audit_lines() if l["event"] == "capability_denied"]
            assert any(scheme in (l.get("target") or "") for l in lines), (url, lines)
        snap = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "root:x:0:0" not in snap, snap


async def test_a_redirect_to_script_runs_nothing(start_warden, write_manifest, shop) -> None:
    """A granted page answering with `Location: javascript:...`: the browser refuses unsafe
    redirects itself; nothing reaches /collect."""
    m = manifest(write_manifest, shop)
    async with start_warden(m, env=ENV) as w:
        await signed_in_tab(w, shop)
        await w.call("browse_navigate", {"url": shop.url("/go")}, timeout=60)
        await anyio.sleep(1.0)
    assert "/go" in shop.requests, shop.requests
    assert shop.collected() == [], shop.collected()


async def test_with_eval_js_a_javascript_url_is_evaluation(start_warden, write_manifest, shop) -> None:
    """The same URL runs for a plugin granted script (and no secrets): the refusal above is the
    grant, not a broken URL."""
    m = manifest(write_manifest, shop, grants=", eval_js = true")
    async with start_warden(m) as w:
        await ok(w, "browse_navigate", {"url": shop.url("/signin")})
        await w.call("browse_navigate", {"url": " JaVaScRiPt:" + STEAL}, timeout=60)
        for _ in range(50):
            if shop.collected():
                break
            await anyio.sleep(0.1)
    assert shop.collected(), shop.requests
    assert urllib.parse.quote(SESSION.split("=")[1]) in shop.collected()[0], shop.collected()


async def test_capture_loads_only_pages(start_warden, write_manifest, shop, tmp_path) -> None:
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "capture"
source = "builtin:capture"
limits = {{ call_timeout = "60s" }}
grants.capture = {{ origins = ["{shop.origin}"] }}
""")
    async with start_warden(m) as w:
        for url, target in [
            ("javascript:" + STEAL, "a javascript: URL"),
            ("data:text/html,<script>fetch('" + shop.url("/collect?from=capture") + "')</script>", "a data: URL"),
            (f"view-source:{shop.url('/signin')}", "a view-source: URL"),
        ]:
            refused = await err(w, "capture_page", {"url": url})
            assert "only http and https pages" in refused, refused
            lines = denied(m, target)
            assert lines and lines[0]["capability"] == "capture.page", m.audit_lines()
        await anyio.sleep(0.5)
    assert shop.collected() == [], shop.collected()
