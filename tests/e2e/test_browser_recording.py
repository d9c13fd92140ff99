"""Browser recordings ([audit] record = ["browser"], with a screencast): what the plugin was given
(snapshots, screenshots), what it did (each action, a secret by its name only), the URL over time
and frames of the viewport, linked from the audit log.

The hostile case is the console of `secret_site.py`: the plugin fills a secret, and the page's own
"show password" eye and strength meter put it on screen in large type. No recording may carry it:
every image in the recording (the screenshots the plugin received and the screencast's frames) is
read back with OCR, and every text in it is searched in every encoding the page applies. The
checks have teeth: frames before the secret was typed and after the page that held it was left
are in the recording and readable.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import anyio
import httpx2
import pytest

from browser_helpers import CHROMIUM, browser_manifest, err, ok, ref_of
from conftest import check_audit_line
from local_site import LocalSite, QuietHandler
from ops_helpers import free_port, serve
from secret_site import SECRET, carries_secret, start_console, start_drop
from test_browser_secret_doors import ocr
from test_session_binding import Raw, reply

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

ENV = {"WARDEN_TEST_ACME_PASSWORD": SECRET}


def recording_files(rec: Path) -> list[Path]:
    return sorted(rec.glob("*/*.jsonl"))


def read(path: Path) -> tuple[dict, list[list]]:
    lines = path.read_text().splitlines()
    events = []
    for line in lines[1:]:
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            # The last line of a recording still being written may be cut.
            pass
    return json.loads(lines[0]), events


async def until(rec: Path, what: str, test, timeout: float = 20) -> list[list]:
    """The recording's events once `test(events)` holds (the writer flushes each second)."""
    with anyio.fail_after(timeout):
        while True:
            files = recording_files(rec)
            # The writer flushes each second: a new file is empty for a moment.
            if files and files[0].read_text():
                _, events = read(files[0])
                if test(events):
                    return events
            await anyio.sleep(0.2)


def codes(events: list[list], code: str) -> list[dict]:
    return [e[2] for e in events if e[1] == code]


async def test_a_revealed_secret_reaches_no_recording(start_warden, write_manifest, tmp_path) -> None:
    console, drop = start_console(), start_drop()
    rec = tmp_path / "rec"
    m = write_manifest(f"""
[audit]
record = ["browser"]
screencast = true
frame_rate = 5
dir = "{rec}"

[browser]
executable = "{CHROMIUM}"

[browser.secrets]
ACME_PASSWORD = {{ env = "WARDEN_TEST_ACME_PASSWORD", origins = ["{console.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "90s" }}
grants.browser = {{ origins = ["{console.origin}", "{drop.origin}"], secrets = ["ACME_PASSWORD"] }}
""")
    try:
        async with start_warden(m, env=ENV) as w:
            snap = await ok(w, "browse_navigate", {"url": console.url("/app/login")})
            await ok(w, "browse_screenshot", {}, timeout=60)
            # The screencast shows the login page before anything is typed.
            await until(
                rec,
                "a frame of the login page",
                lambda ev: any(e[1] == "f" and e[0] > (codes_t(ev, "u", console.origin) or 1e9) for e in ev),
            )

            await ok(w, "browse_fill", {"ref": ref_of(snap, "textbox", "Work email"), "value": "ops@acme.test"})
            await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "ACME_PASSWORD"})
            await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Show password")})
            # The page now shows the secret in its field and its meter, in 30px type. The
            # screencast ticks five times a second meanwhile: each frame must be withheld.
            await until(rec, "frames withheld", lambda ev: len(codes(ev, "w")) >= 1)
            await anyio.sleep(1.5)
            await ok(w, "browse_snapshot", {"mode": "full", "max_tokens": 8000})
            await err(w, "browse_screenshot", {}, timeout=60)

            # Leaving the page ends the hold: frames come back after the grace period.
            await ok(w, "browse_navigate", {"url": drop.url("/notes")})
            await ok(w, "browse_screenshot", {}, timeout=60)
            await until(
                rec,
                "a frame of the notes page",
                lambda ev: any(e[1] == "f" and e[0] > (codes_t(ev, "u", drop.origin) or 1e9) for e in ev),
            )
        navigations = [l for l in m.audit_lines() if l.get("capability") == "browser.navigate"]
        files = recording_files(rec)
        assert len(files) == 1, files
        path = files[0]
        assert oct(path.stat().st_mode & 0o777) == "0o600"
        header, events = read(path)
        assert header["format"] == "warden-recording" and header["kind"] == "browser", header
        assert header["warden"]["plugin"] == "browser" and header["extra"]["screencast"] is True

        # Times only grow; every navigation's audit line points into this recording.
        times = [e[0] for e in events]
        assert times == sorted(times)
        assert len(navigations) == 2, navigations
        for line in navigations:
            check_audit_line(line)
            assert line["recording"]["file"] == str(path), line
            assert 0 <= line["recording"]["t"] <= times[-1] + 1

        # What the plugin did, in order, the secret by its name only.
        actions = [(a["action"], a["args"]) for a in codes(events, "a")]
        names = [a for a, _ in actions]
        for wanted in ("navigate", "fill", "fill_secret", "click", "navigate"):
            assert wanted in names, names
        fills = [args for a, args in actions if a == "fill_secret"]
        assert fills and fills[0]["secret"] == "ACME_PASSWORD", fills
        urls = [u["url"] for u in codes(events, "u")]
        assert any(u.startswith(console.url("/app/login")) for u in urls), urls
        assert any(u.startswith(drop.url("/notes")) for u in urls), urls
        snapshots = codes(events, "s")
        assert len(snapshots) >= 2 and all(s["text"] for s in snapshots), snapshots
        assert codes(events, "w"), "the screencast never said it withheld frames"
        typed = next(e[0] for e in events if e[1] == "a" and e[2]["action"] == "fill_secret")
        left = codes_t(events, "u", drop.origin)
        assert typed < left
        kept = [e[0] for e in events if e[1] == "f" and typed < e[0] < left]
        assert not kept, f"frames kept while the page held the secret, at {kept}"
        assert [e for e in events if e[1] == "f" and e[0] < typed], "no frame before the secret"

        # No text of the recording carries the secret in any encoding the page applies.
        for e in events:
            if e[1] in ("p", "f"):
                continue
            assert not carries_secret(json.dumps(e)), e
        # No image does: OCR of each screenshot and frame. The login page's own words are read
        # back from the first frame (the OCR sees these images), the notes page's from the last.
        images = [(e[1], base64.b64decode(e[2]["data"])) for e in events if e[1] in ("p", "f")]
        assert len([c for c, _ in images if c == "p"]) == 2, "two screenshots were received"
        read_back = {f"{c}-{i}": ocr(image, tmp_path, f"{c}-{i}") for i, (c, image) in enumerate(images)}
        for name, text in read_back.items():
            assert not carries_secret(text), f"{name} shows the secret: {text!r}"
        login = codes_t(events, "u", console.origin)
        first_frame = next(f"f-{i}" for i, e in enumerate(e for e in events if e[1] in ("p", "f")) if e[1] == "f" and e[0] > login)
        assert any(w in read_back[first_frame] for w in ("Acme", "Dashboard", "Work email")), read_back[first_frame]
        last_frame = [k for k in read_back if k.startswith("f-")][-1]
        assert any(w in read_back[last_frame] for w in ("Scratch", "Save note")), read_back[last_frame]
        assert SECRET not in path.read_text()
    finally:
        console.close()
        drop.close()


def codes_t(events: list[list], code: str, prefix: str) -> float | None:
    """When the recording first names a URL starting with `prefix`."""
    for e in events:
        if e[1] == code and str(e[2].get("url", "")).startswith(prefix):
            return e[0]
    return None


async def test_nothing_is_recorded_unless_asked(start_warden, write_manifest, tmp_path) -> None:
    drop = start_drop()
    try:
        m = write_manifest(f"""
[audit]
record = ["terminal"]
dir = "{tmp_path / 'rec'}"

[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{drop.origin}"] }}
""")
        async with start_warden(m) as w:
            await ok(w, "browse_navigate", {"url": drop.url("/notes")})
        lines = [l for l in m.audit_lines() if l.get("capability") == "browser.navigate"]
        assert lines and "recording" not in lines[0], lines
        assert not recording_files(tmp_path / "rec")
    finally:
        drop.close()


async def test_two_bearer_clients_on_both_wires_each_get_their_own_recording(
    warden_bin, warden_env, write_manifest, http_server, tmp_path
) -> None:
    rec = tmp_path / "rec"
    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    m = browser_manifest(write_manifest, "http://127.0.0.1:*")
    extra = (
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n'
        f'[audit]\nrecord = ["browser"]\ndir = "{rec}"\n'
    )
    m.path.write_text(m.path.read_text().replace("\n\n", f"\n\n{extra}\n", 1))
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    with serve(warden_bin, m.path, env, f"127.0.0.1:{port}"):
        async with httpx2.AsyncClient(timeout=90) as http:
            alice, bob = Raw(http, url, tokens["alice"]), Raw(http, url, tokens["bob"])
            sid = await alice.open_session()
            # Alice on the session wire (2025-11-25), Bob on the stateless one (2026-07-28).
            for answer in (
                await alice.session_call(sid, "browse_navigate", {"url": http_server.url("/alice-inbox")}),
                await bob.modern_call("browse_navigate", {"url": http_server.url("/bob-reports")}),
                await alice.session_call(sid, "browse_snapshot", {}),
            ):
                assert "result" in reply(answer) and not reply(answer)["result"].get("isError"), answer.text
        await anyio.sleep(1.2)
    seen = {}
    for path in recording_files(rec):
        header, events = read(path)
        client = header["warden"]["client"]
        text = json.dumps(events)
        seen.setdefault(client.split(" ")[0], []).append(text)
        assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert sorted(seen) == ["alice", "bob"], seen
    assert all("alice-inbox" in t and "bob-reports" not in t for t in seen["alice"]), seen
    assert all("bob-reports" in t and "alice-inbox" not in t for t in seen["bob"]), seen
    assert any('"s"' in t for t in seen["alice"]), "alice's snapshot is in her recording"


TICKING = b"""<!doctype html><html><head><title>Ops board</title></head><body>
<div style="position:fixed;left:0;top:0;bottom:0;width:180px;background:#1d2433;color:#fff">Board</div>
<div style="margin-left:200px;font:40px monospace">Queue depth <span id=n>0</span></div>
<script>let n = 0; setInterval(() => { document.getElementById('n').textContent = ++n; }, 50);</script>
</body></html>"""


async def test_a_reload_that_stops_recording_browsers_stops_the_screencast(start_warden, write_manifest, tmp_path) -> None:
    class Handler(QuietHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(TICKING)))
            self.end_headers()
            self.wfile.write(TICKING)

    site = LocalSite(Handler)
    rec = tmp_path / "rec"

    def manifest(record: str) -> object:
        return write_manifest(f"""
[audit]
record = {record}
screencast = true
frame_rate = 5
dir = "{rec}"

[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{site.origin}"] }}
""")

    def frames() -> int:
        files = recording_files(rec)
        return len(codes(read(files[0])[1], "f")) if files and files[0].read_text() else 0

    try:
        async with start_warden(manifest('["browser"]')) as w:
            await ok(w, "browse_navigate", {"url": site.url("/board")})
            with anyio.fail_after(20):
                while frames() < 3:
                    await anyio.sleep(0.2)
            # The admin stops recording browsers; the page goes on ticking.
            manifest('["terminal"]')
            with anyio.fail_after(20):
                while True:
                    before = frames()
                    await anyio.sleep(1.5)
                    if frames() == before:
                        break
            # The session goes on, unrecorded.
            await ok(w, "browse_navigate", {"url": site.url("/board?after")})
            await anyio.sleep(1.2)
            after = frames()
            await anyio.sleep(1.2)
            assert frames() == after
        assert len(recording_files(rec)) == 1
        assert "after" not in recording_files(rec)[0].read_text()
    finally:
        site.close()
