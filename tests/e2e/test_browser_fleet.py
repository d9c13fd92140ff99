"""A fleet of remote browsers (`[browser] endpoints`): two Chromiums started here with
`--remote-debugging-port`, as an operator would run them on other machines. Each plugin
session gets a connection of its own to the least-loaded healthy one; the network guard and
the DevTools-endpoint rule still hold there; a member that dies loses only its own sessions,
reported by name, and the next session goes to a member that answers. A member is a server
like any other: what its `/json/version` sends is bounded, its redirects are not followed,
and an endpoint's user, password and query never reach a message, a log or an audit line."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from browser_helpers import CHROMIUM, err, ok
from local_site import LocalSite, QuietHandler
from ops_helpers import free_port, scrape, total

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

# The browser plugin every test here serves, on whichever fleet its manifest names.
BROWSER_PLUGIN = (
    '[[plugin]]\nname = "browser"\nsource = "builtin:browser"\n'
    'limits = { call_timeout = "60s" }\ngrants.browser = { origins = ["http://127.0.0.1:*"] }\n'
)


class Remote:
    """A Chromium with its DevTools on a TCP port, like a fleet member on another machine."""

    def __init__(self, dir: Path) -> None:
        dir.mkdir(parents=True)
        args = [
            CHROMIUM,
            "--headless=new",
            "--disable-gpu",
            "--remote-debugging-port=0",
            f"--user-data-dir={dir}",
            "--no-first-run",
            "--no-default-browser-check",
            "about:blank",
        ]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        active = dir / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (active.exists() and len(active.read_text().split()) == 2):
            assert self.proc.poll() is None, "the remote Chromium exited at start"
            assert time.monotonic() < deadline, "the remote Chromium wrote no DevToolsActivePort"
            time.sleep(0.1)
        port, path = active.read_text().split()
        self.port = int(port)
        self.http = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}{path}"

    def pages(self) -> list[str]:
        with urllib.request.urlopen(f"{self.http}/json/list", timeout=10) as r:
            return [t["url"] for t in json.load(r) if t.get("type") == "page"]

    def holds(self, tag: str) -> bool:
        return any(f"tag={tag}" in url for url in self.pages())

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture()
def remotes(tmp_path: Path) -> Iterator[list[Remote]]:
    started: list[Remote] = []
    try:
        for name in ("a", "b"):
            started.append(Remote(tmp_path / f"remote-{name}"))
        yield started
    finally:
        for r in started:
            with contextlib.suppress(Exception):
                r.kill()


class Hits:
    paths: list[str] = []


def pages_handler(other: str) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:  # noqa: N802
            tag = self.path.partition("tag=")[2]
            body = (
                f"<!doctype html><title>{tag}</title><div class=app><div>Page of {tag}</div>"
                f'<img src="{other}/pixel?from={tag}"></div>'
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


class OtherHandler(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802
        Hits.paths.append(self.path)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()


async def test_sessions_spread_over_the_fleet_under_the_guard_and_a_dead_member_loses_only_its_own(
    start_warden, write_manifest, remotes
) -> None:
    a, b = remotes
    other = LocalSite(OtherHandler)
    # The other origin is the same server by another name: not granted.
    other_origin = other.origin.replace("127.0.0.1", "localhost")
    site = LocalSite(pages_handler(other_origin))
    admin = f"127.0.0.1:{free_port()}"
    # A member that never answers: placement passes over it.
    nobody = f"http://127.0.0.1:{free_port()}"
    # Every 127.0.0.1 port is granted, the members' DevTools ports included: the guard must
    # still keep pages away from them.
    m = write_manifest(
        f'[admin]\nlisten = "{admin}"\n\n[browser]\nendpoints = ["{nobody}", "{a.http}", "{b.ws}"]\n\n' + BROWSER_PLUGIN
    )
    try:
        async with start_warden(m) as w:
            # s1 on the first member that answers, s2 on the least loaded (the other), s3 back
            # on the first.
            for tag in ("s1", "s2", "s3"):
                await ok(w, "browse_session", {"action": "create", "name": tag})
                snap = await ok(w, "browse_navigate", {"url": site.url(f"/?tag={tag}")})
                assert f'Page: "{tag}"' in snap, snap
            assert a.holds("s1") and b.holds("s2") and a.holds("s3"), (a.pages(), b.pages())
            assert not b.holds("s1") and not a.holds("s2")

            # The guard holds on a remote member: no request to an origin not granted ...
            assert Hits.paths == [], Hits.paths
            # ... and no page reaches a member's DevTools endpoint, granted port or not.
            for endpoint in (a.http, b.http):
                await ok(w, "browse_navigate", {"url": f"{endpoint}/json/version"})
                shown = await ok(w, "browse_snapshot", {"mode": "full"})
                assert "is the browser's own control endpoint" in shown, shown
                assert "webSocketDebuggerUrl" not in shown, shown

            # Member a dies: its sessions are reported lost by its name; b's are untouched.
            a.kill()
            await ok(w, "browse_session", {"action": "switch", "name": "s1"})
            lost = await err(w, "browse_snapshot")
            assert "was lost" in lost and a.http in lost, lost
            await ok(w, "browse_session", {"action": "switch", "name": "s2"})
            assert "Page of s2" in await ok(w, "browse_snapshot", {"mode": "full"})

            # The lost session starts again on the member that answers.
            await ok(w, "browse_session", {"action": "switch", "name": "s1"})
            snap = await ok(w, "browse_navigate", {"url": site.url("/?tag=s1-again")})
            assert 'Page: "s1-again"' in snap, snap
            assert b.holds("s1-again")

            # The health checks mark a down within their interval.
            with anyio.fail_after(20):
                while total(scrape(admin), "warden_browser_fleet_members", state="down") != 2:
                    await anyio.sleep(0.5)
            samples = scrape(admin)
            assert total(samples, "warden_browser_fleet_members", state="healthy") == 1

            # Closing a session closes its context on the member.
            await ok(w, "browse_session", {"action": "close", "name": "s2"})
            assert not b.holds("s2"), b.pages()
            listed = await ok(w, "browse_session", {"action": "list"})
            assert "s2" not in listed, listed

        # Each placement is audited with the member and the session; so is each member that
        # did not take one (the one that never answers; the dead one, if tried before a check
        # marked it down).
        lines = [line for line in m.audit_lines() if line.get("capability") == "browser.place"]
        placed = [(line["target"], line["detail"]) for line in lines if line["outcome"] == "ok"]
        assert placed == [
            (a.http + "/", "session s1"),
            (b.ws, "session s2"),
            (a.http + "/", "session s3"),
            (b.ws, "session s1"),
        ], placed
        passed_over = {line["target"] for line in lines if line["outcome"] != "ok"}
        assert nobody + "/" in passed_over and passed_over <= {nobody + "/", a.http + "/"}, lines
    finally:
        site.close()
        other.close()


def proxied(guard: tuple[str, int], source: str, url: str) -> bytes:
    """A proxy request to the guard from the local address `source`: what comes back."""
    import socket

    with socket.socket() as s:
        s.bind((source, 0))
        s.settimeout(10)
        s.connect(guard)
        host = url.split("/")[2]
        s.sendall(f"GET {url} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):
                answer += chunk
        return answer


async def test_a_guard_on_another_address_serves_only_its_member(start_warden, write_manifest, tmp_path) -> None:
    """`guard_address`: a member on another machine reaches its sessions' guards there; the
    guard serves that member's address only, so it is no proxy for the rest of the network.
    Here the member is 127.0.0.1 and the guard listens on 127.0.0.3; a neighbour is 127.0.0.5."""
    import psutil

    from test_browser_conversations import AccountPage

    a = Remote(tmp_path / "remote-a")
    site = LocalSite(AccountPage)
    m = write_manifest(f'[browser]\nendpoints = ["{a.http}"]\nguard_address = "127.0.0.3"\n\n' + BROWSER_PLUGIN)
    try:
        async with start_warden(m) as w:
            snap = await ok(w, "browse_navigate", {"url": site.url("/?who=member")})
            assert 'Page: "member"' in snap, snap
            assert w.pid is not None
            guards = [
                c.laddr
                for c in psutil.Process(w.pid).net_connections(kind="tcp")
                if c.status == psutil.CONN_LISTEN and c.laddr.ip == "127.0.0.3"
            ]
            assert guards, "no network guard listens on the guard_address"
            guard = (guards[0].ip, guards[0].port)
            # The member's address is served, under the grants ...
            assert b"Dashboard of member-again" in proxied(guard, "127.0.0.1", site.url("/?who=member-again"))
            # ... a neighbour's is closed unanswered, granted origin or not.
            assert proxied(guard, "127.0.0.5", site.url("/?who=neighbour")) == b""
            assert "refused a connection from an address it does not serve" in w.stderr()
    finally:
        site.close()
        a.kill()


class Devtools(QuietHandler):
    """A DevTools endpoint that lies, by the server's `mode`: `endless` (a `/json/version`
    of 400 MiB with no length), `redirect` (to the server's `to`), `echo` (a 500 whose body
    echoes the request, credentials and all, for 8 MiB). `sent`: what each endless answer wrote before
    the client hung up."""

    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:  # noqa: N802
        server = self.server
        server.asked.append(self.path)
        if server.mode == "redirect":
            self.send_response(307)
            self.send_header("Location", server.to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if server.mode == "echo":
            line = f"{self.path} {self.headers.get('Authorization', '')}\n".encode()
            body = line * (8 * 1024 * 1024 // len(line))
            self.send_response(500)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        chunk = b'{"webSocketDebuggerUrl": "ws://x/' + b"a" * (1024 * 1024 - 34) + b'"'
        sent = 0
        try:
            for _ in range(400):
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass
        server.sent.append(sent)


def devtools(mode: str, to: str = "") -> LocalSite:
    site = LocalSite(Devtools)
    site.server.mode, site.server.to, site.server.asked, site.server.sent = mode, to, [], []
    return site


async def test_a_member_that_lies_is_read_within_bounds_and_its_secrets_stay_out(
    start_warden, write_manifest
) -> None:
    from hostile_registry import Recorder

    recorder = Recorder("127.0.0.2")
    endless, redirect, echo = devtools("endless"), devtools("redirect", f"{recorder.origin}/json/version"), devtools("echo")
    password, token = "pw-s3cret-of-the-fleet", "tok-s3cret-of-the-fleet"
    with_secrets = echo.origin.replace("http://", f"http://ops:{password}@") + f"/?token={token}"
    m = write_manifest(
        f'[browser]\nendpoints = ["{endless.origin}", "{redirect.origin}", "{with_secrets}"]\n\n' + BROWSER_PLUGIN
    )
    try:
        async with start_warden(m, env={"RUST_LOG": "debug"}) as w:
            refused = await err(w, "browse_navigate", {"url": "http://127.0.0.1:9/"})
            assert "no browser of the fleet" in refused, refused
            assert "answered more than 65536 bytes" in refused and "answered HTTP 307" in refused, refused
            assert "answered HTTP 500" in refused and f"{echo.origin}/?…" in refused, refused
            stderr = w.stderr()
        # What the members saw: the endless one was hung up on, the redirect led nowhere.
        assert endless.server.sent and max(endless.server.sent) < 32 * 1024 * 1024, endless.server.sent
        assert recorder.heard_nothing(), recorder.requests
        # The endpoint's credentials went to its own server only ...
        assert echo.server.asked, "the member was never asked"
        # ... and reached no message, log or audit line.
        audit = m.audit.read_text()
        for where, text in [("the tool error", refused), ("stderr", stderr), ("the audit log", audit)]:
            assert password not in text and token not in text, f"a secret in {where}"
            longest = max((len(line) for line in text.splitlines()), default=0)
            assert longest < 8192, f"a {longest}-byte line in {where}"
        # Each member that did not take the session is audited.
        placed = [line for line in m.audit_lines() if line.get("capability") == "browser.place"]
        assert {line["target"] for line in placed} >= {f"{endless.origin}/", f"{redirect.origin}/", f"{echo.origin}/?…"}, placed
        assert all(line["outcome"] == "tool_error" and "not placed" in line["detail"] for line in placed), placed
    finally:
        for site in (endless, redirect, echo):
            site.close()
        recorder.stop()
