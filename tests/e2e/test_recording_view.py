"""`warden audit view`: the recordings page, opened in a real Chromium driven over the DevTools
protocol. It lists a terminal recording made by a real local session and hand-written desktop
and browser recordings, and plays them beside their audit lines; recorded `<script>` stays text.
Then the doors an attacker would try: no token, a wrong token, a rebinding Host, paths and
symlinks, and a listen address other than loopback."""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import re
import struct
import subprocess
import time
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websocket

from browser_helpers import CHROMIUM

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

DAY = "2026-11-28"
PWN = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"
SECRET = "TOP-SECRET-OUTSIDE-THE-RECORDINGS"
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def png(w: int, h: int, rgb: tuple[int, int, int]) -> str:
    """A w×h PNG of one colour, base64."""
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return base64.b64encode(data).decode()


def write_events(path: Path, kind: str, session: str, plugin: str, events: list[list[Any]]) -> None:
    header = {
        "format": "warden-recording",
        "version": 1,
        "kind": kind,
        "timestamp": 1_764_300_000,
        "width": 4,
        "height": 4,
        "warden": {"kind": kind, "session": session, "target": f"{kind}:fixture", "plugin": plugin, "client": "ops"},
        "extra": {},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(x) for x in [header, *events]) + "\n")


def audit_line(file: Path, t: float, tool: str, detail: str = "", plugin: str = "fixture") -> str:
    line = {
        "ts": "2026-11-28T10:00:00.000Z",
        "event": "capability_used",
        "plugin": plugin,
        "tool": tool,
        "outcome": "ok",
        "detail": detail,
        "recording": {"file": str(file), "t": t},
    }
    return json.dumps(line) + "\n"


class Viewer:
    """`warden audit view` on 127.0.0.1, its URL (with the token) read from stdout."""

    def __init__(self, warden_bin: Path, dir: Path, log: Path, stderr: Path) -> None:
        self.stderr_path = stderr
        self.proc = subprocess.Popen(
            [str(warden_bin), "audit", "view", "--dir", str(dir), "--log", str(log), "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            stderr=stderr.open("w"),
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64})", self.url)
        assert m, (self.url, self.stderr())
        self.port, self.token = int(m[1]), m[2]
        self.cookie = f"warden_view_{self.port}={self.token}"

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def request(self, path: str, host: str | None = "default", cookie: str | None = None) -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", f"127.0.0.1:{self.port}" if host == "default" else host)
        if cookie:
            conn.putheader("Cookie", cookie)
        conn.endheaders()
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


class Page:
    """A headless Chromium and its one page, driven over the DevTools protocol."""

    def __init__(self, dir: Path) -> None:
        args = [
            CHROMIUM,
            "--headless=new",
            "--disable-gpu",
            "--remote-debugging-port=0",
            f"--user-data-dir={dir}",
            "--no-first-run",
            "--no-default-browser-check",
            "--window-size=1400,900",
            "about:blank",
        ]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        active = dir / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (active.exists() and len(active.read_text().split()) == 2):
            assert self.proc.poll() is None, "Chromium exited at start"
            assert time.monotonic() < deadline, "Chromium wrote no DevToolsActivePort"
            time.sleep(0.1)
        port = active.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            target = next(t for t in json.load(r) if t.get("type") == "page")
        self.ws = websocket.create_connection(target["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next = 0
        self.send("Runtime.enable")
        self.send("Page.enable")

    def send(self, method: str, **params: Any) -> dict:
        self.next += 1
        self.ws.send(json.dumps({"id": self.next, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next:
                assert "error" not in msg, msg
                return msg["result"]

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.eval(expression)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.05)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()
        self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture()
def page(tmp_path: Path) -> Iterator[Page]:
    p = Page(tmp_path / "chromium")
    try:
        yield p
    finally:
        p.close()


def nothing_ran(page: Page) -> None:
    """No recorded markup became an element, and no recorded script ran."""
    assert page.eval("window.__pwned") is None
    assert page.eval("document.scripts.length") == 2
    assert page.eval("document.querySelectorAll('img[src=\"x\"], #sessions *:not(tr):not(td), #audit li *').length") == 0


def open_row(page: Page, selector: str) -> None:
    page.eval(f"delete document.body.dataset.loaded; document.querySelector({json.dumps(selector)}).click()")
    assert page.wait("document.body.dataset.loaded"), page.eval("document.getElementById('status').textContent")


def seek_to_line(page: Page, index: int) -> float:
    """Click the audit line `index`; the player's time, afterwards."""
    page.eval(f"document.querySelectorAll('#audit li')[{index}].click()")
    return float(page.eval("document.getElementById('player').dataset.t"))


def control(page: Page, id: str, value: Any, event: str) -> None:
    """Set a control's value as a person would, and send the event the page listens to."""
    page.eval(
        f"{{ const c = document.getElementById({json.dumps(id)}); c.value = {json.dumps(str(value))};"
        f" c.dispatchEvent(new Event({json.dumps(event)})); }}"
    )


def screen(page: Page) -> str:
    return page.eval("document.getElementById('term').textContent")


async def test_viewer_lists_and_plays_recordings_beside_their_audit_lines(
    start_warden, write_manifest, helpers, warden_bin, tmp_path, page, http_server
):
    # A real local terminal session and a real browser session, recorded; the terminal's
    # output carries markup.
    manifest = write_manifest(
        '[audit]\nrecord = ["terminal", "browser"]\n\n'
        f'[browser]\nexecutable = "{CHROMIUM}"\n\n'
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\ngrants.terminal = { local = true }\n\n'
        '[[plugin]]\nname = "browser"\nsource = "builtin:browser"\n'
        f'grants.browser = {{ origins = ["http://127.0.0.1:{http_server.port}"] }}\n'
    )
    page_url = http_server.url("/body?from=inbox-for-the-viewer")
    async with start_warden(manifest) as w:
        for tool, args in (("browse_navigate", {"url": page_url}), ("browse_screenshot", {})):
            result = await w.call(tool, args, timeout=60)
            assert not result.is_error, helpers.text_of(result)
        opened = await w.call("terminal_open", {})
        assert not opened.is_error, helpers.text_of(opened)
        sid = opened.structured_content["id"]
        for command in ("echo first-$((6*7))", f"printf '%s\\n' '{PWN}'", "sleep 1; echo second-$((7*8))"):
            result = await w.call("terminal_execute", {"session_id": sid, "command": command}, timeout=60)
            assert not result.is_error, helpers.text_of(result)
        assert not (await w.call("terminal_close", {"session_id": sid})).is_error

    recordings = tmp_path / "recordings"
    cast = next(recordings.glob(f"*/{sid}.cast"))
    casts = [json.loads(x) for x in cast.read_text().splitlines()[1:]]
    term_lines = [x for x in manifest.audit_lines() if x.get("recording", {}).get("file", "").endswith(cast.name)]
    assert len(term_lines) >= 4, term_lines
    real_browser = next(p for p in recordings.glob("*/browser-*.jsonl"))

    # Hand-written desktop and browser recordings, and audit lines that name them.
    rdp = recordings / DAY / "rdp-fixture.jsonl"
    write_events(
        rdp,
        "rdp",
        "rdp-fixture",
        "desktop",
        [
            [0.0, "k", {"png": png(4, 4, (255, 0, 0)), "w": 4, "h": 4}],
            [1.0, "d", {"png": png(2, 2, (0, 0, 255)), "x": 1, "y": 1, "w": 2, "h": 2, "shot": True}],
            [1.5, "i", {"kind": "click", "x": 1, "y": 1}],
            [2.0, "k", {"png": png(4, 4, (0, 255, 0)), "w": 4, "h": 4}],
        ],
    )
    browser = recordings / DAY / "browser-fixture.jsonl"
    write_events(
        browser,
        "browser",
        "browser-fixture",
        f"shop{PWN}",
        [
            [0.0, "u", {"tab": 1, "url": "https://shop.example/"}],
            [1.0, "s", {"tab": 1, "url": "https://shop.example/", "text": f"Welcome {PWN}"}],
            [2.0, "a", {"tab": 1, "action": "click", "args": {"ref": "e5", "label": PWN}}],
            [3.0, "p", {"tab": 1, "mime": "image/png", "data": png(3, 3, (10, 20, 30))}],
            [4.0, "u", {"tab": 1, "url": f"https://shop.example/cart?q={PWN}"}],
            [5.0, "w", {"tab": 1, "why": "the page held a secret"}],
            [5.5, "zz", {"what": PWN}],
            [6.0, "m", "closed"],
        ],
    )
    with manifest.audit.open("a") as log:
        for t, tool in ((0.0, "rdp_open"), (1.0, "rdp_screenshot"), (2.0, "rdp_click")):
            log.write(audit_line(rdp.relative_to(tmp_path), t, tool))
        for t, tool in ((0.0, "browse_open"), (2.0, "browse_click"), (4.0, "browse_navigate")):
            log.write(audit_line(browser, t, tool, detail=PWN))

    viewer = Viewer(warden_bin, recordings, manifest.audit, tmp_path / "viewer.log")
    try:
        page.send("Page.navigate", url=viewer.url)
        assert page.wait("document.body && document.body.dataset.listed === '4'"), page.eval("document.body.innerText")
        # The token left the address bar for a cookie.
        assert page.eval("location.href") == f"http://127.0.0.1:{viewer.port}/"
        rows = page.eval("[...document.querySelectorAll('#sessions tr')].map(r => r.innerText)")
        assert any("terminal" in r and "local" in r for r in rows), rows
        assert any("rdp" in r and "desktop" in r for r in rows), rows
        assert any("browser" in r and "shop<script>" in r for r in rows), rows
        # Filter by plugin.
        control(page, "f-plugin", "terminal", "change")
        assert page.eval("document.querySelectorAll('#sessions tr').length") == 1
        control(page, "f-plugin", "", "change")
        assert page.eval("document.querySelectorAll('#sessions tr').length") == 4
        nothing_ran(page)

        # The terminal: each audit line, clicked, seeks to its time and is the one highlighted;
        # the screen then shows exactly the output recorded up to that time.
        open_row(page, "tr[data-kind=terminal]")
        assert page.eval("document.getElementById('term').offsetParent !== null")
        shown = page.eval("[...document.querySelectorAll('#audit li')].map(li => +li.dataset.t)")
        assert shown == sorted(x["recording"]["t"] for x in term_lines), shown
        for i, want in enumerate(shown):
            at = seek_to_line(page, i)
            assert abs(at - want) < 0.001, (at, want)
            current = page.eval("[...document.querySelectorAll('#audit li')].findIndex(li => li.className === 'current')")
            assert shown[current] == shown[i] and (current == len(shown) - 1 or shown[current + 1] > at), (i, current)
            printed = ANSI.sub("", "".join(e[2] for e in casts if e[1] == "o" and e[0] <= at))
            text = screen(page)
            for marker in ("first-42", "second-56", "<script>window.__pwned=1</script>"):
                assert (marker in text) == (marker in printed), (marker, at, text)
        # Seek with the timeline to the end, then play from the start at 16x to the end.
        end = page.eval("+document.getElementById('seek').max")
        control(page, "seek", end, "input")
        assert "first-42" in screen(page) and "second-56" in screen(page)
        control(page, "seek", 0, "input")
        assert "first-42" not in screen(page)
        control(page, "speed", 16, "change")
        page.eval("document.getElementById('play').click()")
        assert page.wait(f"+document.getElementById('player').dataset.t >= {end - 0.001}", timeout=30)
        assert "second-56" in screen(page) and page.eval("document.getElementById('play').textContent") == "play"
        nothing_ran(page)

        # The real browser session: its navigation's audit line, clicked, shows the page's URL;
        # at the end the screenshot the plugin received is on screen.
        open_row(page, f"tr[data-session='{real_browser.stem}']")
        seek_to_line(page, 0)
        assert page_url in page.eval("document.getElementById('urlbar').textContent")
        control(page, "seek", page.eval("+document.getElementById('seek').max"), "input")
        assert "inbox-for-the-viewer" in page.eval("document.getElementById('snapshot').textContent")
        assert page.eval("document.getElementById('shot').hidden") is False
        assert page.wait("document.getElementById('shot').naturalWidth > 100")
        nothing_ran(page)

        # The browser: URL bar, picture, snapshot text and actions at t, beside its lines.
        open_row(page, "tr[data-session='browser-fixture']")
        # Only the browser player is on screen.
        visible = "['term', 'desktop', 'browser'].map(id => document.getElementById(id).offsetParent !== null)"
        assert page.eval(visible) == [False, False, True]
        assert seek_to_line(page, 1) == 2.0
        assert page.eval("document.getElementById('urlbar').textContent") == "tab 1  https://shop.example/"
        assert page.eval("document.getElementById('snapshot').textContent") == f"Welcome {PWN}"
        assert page.eval("document.querySelector('#actions li.current').textContent").endswith(
            json.dumps({"ref": "e5", "label": PWN}, separators=(",", ":"))
        )
        assert page.eval("document.querySelector('#audit li.current').dataset.t") == "2"
        assert page.eval("document.getElementById('shot').hidden") is True
        assert seek_to_line(page, 2) == 4.0
        assert page.eval("document.getElementById('urlbar').textContent") == f"tab 1  https://shop.example/cart?q={PWN}"
        assert page.eval("document.getElementById('shot').hidden") is False
        assert page.eval("document.getElementById('shot').naturalWidth") == 3
        control(page, "seek", 5.2, "input")
        assert page.eval("document.getElementById('shot').hidden") is True
        assert page.eval("document.getElementById('withheld').textContent") == "frame withheld: the page held a secret"
        events = page.eval("document.getElementById('events').textContent")
        assert 'event "zz"' in events and "note  closed" in events, events
        nothing_ran(page)

        # The desktop: the last keyframe at or before t, then each change up to t.
        open_row(page, "tr[data-kind=rdp]")
        assert page.eval(visible) == [False, True, False]
        pixel = (
            "(() => { const c = document.getElementById('desktop').getContext('2d');"
            " return [[0,0],[1,1]].map(([x,y]) => [...c.getImageData(x,y,1,1).data.slice(0,3)]); })()"
        )
        for t, want in (
            (0.5, [[255, 0, 0], [255, 0, 0]]),
            (1.2, [[255, 0, 0], [0, 0, 255]]),
            (2.5, [[0, 255, 0], [0, 255, 0]]),
            (1.2, [[255, 0, 0], [0, 0, 255]]),
        ):
            control(page, "seek", t, "input")
            assert page.eval(pixel) == want, t
        assert "input" in page.eval("document.getElementById('events').textContent")
        nothing_ran(page)
    finally:
        viewer.stop()


async def test_viewer_refuses_every_door_but_the_token_on_loopback(warden_bin, tmp_path):
    recordings = tmp_path / "recordings"
    kept = recordings / DAY / "kept.jsonl"
    write_events(kept, "browser", "kept", "shop", [[0.0, "u", {"tab": 1, "url": "https://shop.example/"}]])
    log = tmp_path / "audit.jsonl"
    log.write_text(audit_line(kept, 0.0, "browse_open"))
    # Files outside the recordings directory, reached by a symlinked file and a symlinked day.
    outside = tmp_path / "outside"
    (outside / "day").mkdir(parents=True)
    (outside / "secret.cast").write_text(json.dumps({"version": 2}) + "\n" + SECRET + "\n")
    (outside / "day" / "secret.jsonl").write_text(json.dumps({"version": 2}) + "\n" + SECRET + "\n")
    (recordings / DAY / "link.cast").symlink_to(outside / "secret.cast")
    (recordings / "2026-11-27").symlink_to(outside / "day", target_is_directory=True)

    # Listening anywhere but loopback is refused before anything is bound.
    for addr in ("0.0.0.0:0", "[::]:0", "192.0.2.1:8080", "example.com:80"):
        done = subprocess.run(
            [str(warden_bin), "audit", "view", "--dir", str(recordings), "--log", str(log), "--listen", addr],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode != 0 and done.stdout == "", (addr, done.stdout)
        assert "loopback" in done.stderr or "not an address" in done.stderr, (addr, done.stderr)

    viewer = Viewer(warden_bin, recordings, log, tmp_path / "viewer.log")
    try:
        secure = ("content-security-policy", "x-content-type-options")

        def refused(status: int, headers: dict, body: bytes) -> None:
            assert status == 403, (status, body)
            assert b"kept" not in body and SECRET.encode() not in body
            assert "set-cookie" not in headers
            assert all(h in headers for h in secure), headers

        # No token, a wrong one (in the query or the cookie), a token one character short.
        wrong = ("0" if viewer.token[0] != "0" else "1") + viewer.token[1:]
        for path, cookie in (
            ("/", None),
            ("/api/sessions", None),
            ("/api/recording/0", None),
            (f"/?token={wrong}", None),
            (f"/?token={viewer.token[:-1]}", None),
            ("/api/sessions", f"warden_view_{viewer.port}={wrong}"),
            ("/api/sessions", f"warden_view_{viewer.port + 1}={viewer.token}"),
            (f"/api/sessions?token={wrong}", None),
        ):
            refused(*viewer.request(path, cookie=cookie))
        # The right token with a Host that is not loopback (DNS rebinding), or none.
        for host in (f"evil.example:{viewer.port}", f"127.0.0.1.evil.example:{viewer.port}", "0.0.0.0", None):
            refused(*viewer.request(f"/?token={viewer.token}", host=host))
            refused(*viewer.request("/api/sessions", host=host, cookie=viewer.cookie))

        # The token in the query: a cookie, and the address without it.
        status, headers, _ = viewer.request(f"/?token={viewer.token}")
        assert status == 303 and headers["location"] == "/", headers
        assert headers["set-cookie"].startswith(viewer.cookie + ";") and "HttpOnly" in headers["set-cookie"]
        status, headers, body = viewer.request("/", cookie=viewer.cookie)
        assert status == 200 and b"Warden recordings" in body
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe" not in csp, csp

        # Only what the catalog lists under the directory, by its place: neither the symlinked
        # file nor the file under a symlinked day.
        status, _, body = viewer.request("/api/sessions", cookie=viewer.cookie)
        assert status == 200
        listed = json.loads(body)
        assert [s["name"] for s in listed] == ["kept.jsonl"], listed
        status, headers, body = viewer.request(f"/api/recording/{listed[0]['id']}", cookie=viewer.cookie)
        assert status == 200 and b"shop.example" in body and SECRET.encode() not in body
        assert headers["content-type"].startswith("text/plain") and all(h in headers for h in secure)
        for path in (
            "/api/recording/..%2F..%2Foutside%2Fsecret.cast",
            "/api/recording/%2Fetc%2Fpasswd",
            "/api/recording/../../outside/secret.cast",
            "/api/recording/-1",
            "/api/recording/1",
            "/api/recording/99999",
            "/api/audit/99999",
            f"/api/recording/{DAY}%2Flink.cast",
            "/..%2F..%2Foutside%2Fsecret.cast",
            str(outside / "secret.cast"),
        ):
            status, headers, body = viewer.request(path, cookie=viewer.cookie)
            assert status in (400, 404), (path, status)
            assert SECRET.encode() not in body and b"root:" not in body, path
            assert all(h in headers for h in secure), path
        # The audit lines of a listed recording are the ones that name it.
        kept_id = next(s["id"] for s in listed if s["name"] == "kept.jsonl")
        status, _, body = viewer.request(f"/api/audit/{kept_id}", cookie=viewer.cookie)
        assert status == 200 and [x["tool"] for x in json.loads(body)["lines"]] == ["browse_open"]

        # Each refusal is on the viewer's log, the server still up.
        assert viewer.stderr().count("viewer refused") >= 16, viewer.stderr()
        assert viewer.request("/", cookie=viewer.cookie)[0] == 200
    finally:
        viewer.stop()
