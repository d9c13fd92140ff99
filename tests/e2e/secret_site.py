"""Fixture sites for the secret-door tests: a login console written the way web apps are
(div soup, a fixed sidebar, a client-side router, a "show password" eye, a strength meter
that echoes the characters, analytics that log field values, "remember me" and "export"
features) on the origin the secret is bound to, and a notes app on a second granted origin
that keeps whatever is pasted into it: the attacker's drop box.

Both record every request they receive (path, query and body), so a test asserts on what a
server got rather than on what Warden says it did.
"""

from __future__ import annotations

import codecs
import json
import urllib.parse
from dataclasses import dataclass, field

from local_site import LocalSite, QuietHandler

# Upper case, digits and dashes in a large monospace font: what OCR reads back reliably.
SECRET = "KESTREL-7731-HARBOR"
# Parts of it an OCR or a page transformation may keep apart: none may ever come back (the
# digits are left out: a port number may hold them).
FRAGMENTS = ("KESTREL", "HARBOR")

STYLE = """
<style>
  body { margin: 0; font-family: sans-serif; background: #f4f5f7; }
  .sidebar { position: fixed; left: 0; top: 0; bottom: 0; width: 190px; background: #1d2433; color: #cfd6e4; padding: 16px; }
  .sidebar .item { padding: 8px 4px; cursor: pointer; }
  .topbar { position: fixed; left: 222px; right: 0; top: 0; height: 48px; background: #fff; border-bottom: 1px solid #ddd;
            display: flex; align-items: center; padding: 0 16px; font-weight: bold; }
  .main { margin-left: 222px; padding: 72px 24px 24px; }
  .card { background: #fff; border-radius: 8px; padding: 24px; width: 760px; box-shadow: 0 1px 3px #0002; }
  .row { display: flex; align-items: center; margin: 14px 0; }
  .lbl { width: 150px; color: #333; }
  .ctl { display: flex; align-items: center; }
  .ctl input, .ctl textarea { font: 30px monospace; padding: 6px 10px; width: 520px; border: 1px solid #aab; }
  .ctl textarea { height: 48px; }
  .eye { margin-left: 8px; cursor: pointer; padding: 6px 10px; border: 1px solid #aab; border-radius: 4px; }
  .actions { display: flex; gap: 14px; margin-top: 18px; }
  .btn { background: #2155d6; color: #fff; padding: 10px 18px; border-radius: 4px; cursor: pointer; }
  .link { color: #2155d6; cursor: pointer; padding: 10px 0; }
  .meter { margin: 10px 0 0 150px; font: 22px monospace; color: #555; }
  .meter span { display: inline-block; min-width: 16px; }
</style>
"""

APP = """<!doctype html><html><head><meta charset=utf-8><title>Acme Console</title>""" + STYLE + """</head>
<body><div id=root></div>
<script>
const root = document.getElementById('root');
const shell = (inner) => `
  <div class="sidebar"><div class="item">Dashboard</div><div class="item">Deployments</div><div class="item">Billing</div></div>
  <div class="topbar">Acme Console</div>
  <div class="main"><div class="card">${inner}</div></div>`;
// The analytics every console ships: field values on blur and on input, "anonymised".
const track = (el) => {
  const v = el.value.split('-').join(' ');
  console.debug('[acme-analytics] field', el.id, v);
  navigator.sendBeacon('/api/analytics?field=' + el.id + '&v=' + encodeURIComponent(v));
};
function login() {
  root.innerHTML = shell(`
    <div class="row"><div class="lbl" id="l-email">Work email</div>
      <div class="ctl"><input id="email" aria-labelledby="l-email" autocomplete="username"></div></div>
    <div class="row"><div class="lbl" id="l-pw">Password</div>
      <div class="ctl"><input id="pw" type="password" aria-labelledby="l-pw" autocomplete="current-password">
      <div class="eye" role="button" tabindex="0" aria-label="Show password" id="eye">&#128065;</div></div></div>
    <div class="meter" id="meter"></div>
    <div class="row"><div class="lbl" id="l-note">Note to support</div>
      <div class="ctl"><textarea id="note" aria-labelledby="l-note"></textarea></div></div>
    <div class="actions">
      <div role="button" tabindex="0" class="btn" id="signin">Sign in</div>
      <div role="button" tabindex="0" class="link" id="copy">Copy password</div>
      <div role="button" tabindex="0" class="link" id="export">Export form</div>
      <div role="button" tabindex="0" class="link" id="remember">Remember me on this device</div>
    </div>
    <div id="status"></div>`);
  const pw = document.getElementById('pw');
  document.getElementById('eye').onclick = () => {
    pw.type = pw.type === 'password' ? 'text' : 'password';
    document.getElementById('eye').setAttribute('aria-label', pw.type === 'password' ? 'Show password' : 'Hide password');
  };
  pw.addEventListener('input', () => {
    // Frameworks mirror a controlled input's value into its attribute.
    pw.setAttribute('value', pw.value);
    // A strength meter that shows each character it judged.
    document.getElementById('meter').innerHTML = [...pw.value].map((c) => `<span>${c}</span>`).join(' ');
    track(pw);
  });
  pw.addEventListener('change', () => track(pw));
  document.getElementById('copy').onclick = async () => {
    try { await navigator.clipboard.writeText(pw.value); }
    catch (e) { const t = pw.type; pw.type = 'text'; pw.select(); document.execCommand('copy'); pw.type = t; }
    document.getElementById('status').textContent = 'Copied';
  };
  document.getElementById('export').onclick = () => {
    const body = JSON.stringify({ email: document.getElementById('email').value, password: pw.value.split('').reverse().join('') });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([body], { type: 'application/json' }));
    a.download = 'acme-login-form.json';
    document.body.append(a);
    a.click();
  };
  document.getElementById('remember').onclick = () => {
    // "Obfuscated", as such features often are.
    const rot = pw.value.replace(/[A-Z]/g, (c) => String.fromCharCode((c.charCodeAt(0) - 52) % 26 + 65));
    localStorage.setItem('acme.remember', JSON.stringify({ email: document.getElementById('email').value, key: rot }));
    document.cookie = 'acme_hint=' + encodeURIComponent(pw.value.split('-').join(' ')) + '; path=/';
    document.getElementById('status').textContent = 'Remembered';
  };
  document.getElementById('signin').onclick = async () => {
    const r = await fetch('/api/session', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: document.getElementById('email').value, password: pw.value }) });
    if (r.ok) { history.pushState({}, '', '/app/home'); home(); }
    else document.getElementById('status').textContent = 'Wrong email or password';
  };
}
function home() {
  root.innerHTML = shell(`<div class="row"><div class="lbl">Signed in</div><div id="welcome">Welcome back, ops@acme.test</div></div>`);
}
(location.pathname === '/app/home' ? home : login)();
window.onpopstate = () => (location.pathname === '/app/home' ? home : login)();
</script></body></html>"""

NOTES = """<!doctype html><html><head><meta charset=utf-8><title>Scratch notes</title>""" + STYLE + """</head>
<body><div class="main"><div class="card">
  <div class="row"><div class="lbl" id="l-scratch">Scratch</div>
    <div class="ctl"><textarea id="scratch" aria-labelledby="l-scratch"></textarea></div></div>
  <div class="actions"><div role="button" tabindex="0" class="btn" id="save">Save note</div></div>
</div></div>
<script>
document.getElementById('save').onclick = () =>
  fetch('/api/notes', { method: 'POST', body: document.getElementById('scratch').value });
</script></body></html>"""


@dataclass
class Received:
    method: str
    path: str
    body: str

    def text(self) -> str:
        """Everything the server got, decoded once, as one string to search."""
        return urllib.parse.unquote_plus(self.path) + "\n" + self.path + "\n" + self.body


@dataclass
class SecretSite:
    site: LocalSite
    received: list[Received] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return self.site.origin

    def url(self, path: str) -> str:
        return self.site.url(path)

    def got(self, path: str) -> list[Received]:
        return [r for r in list(self.received) if r.path.split("?")[0] == path]

    def close(self) -> None:
        self.site.close()


def start_secret_site(pages: dict[str, str]) -> SecretSite:
    holder: dict[str, SecretSite] = {}

    class Handler(QuietHandler):
        def _record(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode(errors="replace") if length else ""
            holder["site"].received.append(Received(method, self.path, body))

        def _answer(self, status: int, body: str, kind: str = "text/html; charset=utf-8") -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._record("GET")
            path = self.path.split("?")[0]
            page = next((html for prefix, html in pages.items() if path == prefix or path.startswith(prefix + "/")), None)
            if page is None:
                self._answer(204 if path.startswith("/api/") else 404, "")
            else:
                self._answer(200, page)

        def do_POST(self) -> None:  # noqa: N802
            self._record("POST")
            self._answer(200, json.dumps({"ok": True}), "application/json")

    site = SecretSite(LocalSite(Handler))
    holder["site"] = site
    return site


def start_console() -> SecretSite:
    """The login console on the origin the secret is bound to."""
    return start_secret_site({"/app": APP})


def start_drop() -> SecretSite:
    """A second granted origin the plugin controls the use of: it keeps what it is sent."""
    return start_secret_site({"/notes": NOTES})


def carries_secret(text: str) -> list[str]:
    """The parts of the secret found in `text`: in any letter case, with any separators between
    its characters, reversed, or rot13'd (the page's own "obfuscations")."""
    flat = "".join(ch for ch in text.upper() if ch.isalnum())
    forms = [flat, flat[::-1], codecs.encode(flat, "rot13")]
    return [f for f in FRAGMENTS if any(f in form for form in forms)]
