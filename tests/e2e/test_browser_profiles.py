"""Browser profiles with a persistent `user_data_dir`: what a session stores (cookies, local
storage) is there again in the profile's next session, after Warden restarts, and after
Warden is stopped with SIGTERM; one session at a time per profile; the profile's proxy; no
browser left running. Through the MCP server against a real Chromium (see network_site.py)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import mcp_types
import psutil
import pytest

from browser_helpers import CHROMIUM, chromium_processes, err, ok
from network_site import NetSite, start_net_site, start_proxy

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@pytest.fixture()
def site() -> Iterator[NetSite]:
    s = start_net_site()
    yield s
    s.close()


def manifest(write_manifest, site: NetSite, proxy_origin: str, origins: str = "", args: str = "") -> object:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"
args = [{args}]

[browser.profiles.crm]
user_data_dir = "profiles/crm"
proxy = "{proxy_origin}"
proxy_bypass = ["<-loopback>"]
timezone = "Asia/Tokyo"

[browser.profiles.other]
user_data_dir = "profiles/other"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"{origins}], profiles = ["crm"] }}
""")


def browsers_on(profile_dir: Path) -> list[psutil.Process]:
    """Chromium processes (of any parent) running on `profile_dir`: named on their command
    line, or mounted where their user can reach it (a profile the browser's user could not
    reach where it lies is mounted in the browser's own tree): the same directory, seen
    through the process's own mount namespace (/proc/PID/root)."""
    found = []
    want = profile_dir.stat() if profile_dir.exists() else None
    for p in psutil.process_iter(["cmdline"]):
        for arg in p.info["cmdline"] or []:
            if not arg.startswith("--user-data-dir="):
                continue
            used = arg.removeprefix("--user-data-dir=")
            if used == str(profile_dir):
                found.append(p)
            elif want is not None:
                try:
                    seen = Path(f"/proc/{p.pid}/root{used}").stat()
                except OSError:
                    continue
                if (seen.st_dev, seen.st_ino) == (want.st_dev, want.st_ino):
                    found.append(p)
    return found


def running(p: psutil.Process) -> bool:
    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_gone(profile_dir: Path, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while any(running(p) for p in browsers_on(profile_dir)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p.pid for p in browsers_on(profile_dir) if running(p)]
    assert not left, f"browsers still running on {profile_dir}: {left}"


async def visit(w, url: str) -> str:
    """Open `url`; the page's text."""
    await ok(w, "browse_navigate", {"url": url})
    return await ok(w, "browse_snapshot", {"mode": "full"})


async def remembered(w, site: NetSite) -> str:
    return await visit(w, site.url("/remember"))


async def test_a_persistent_profile_keeps_logins_across_sessions_and_restarts(
    start_warden, write_manifest, site, tmp_path
) -> None:
    proxy = start_proxy()
    profile = tmp_path / "profiles" / "crm"
    m = manifest(write_manifest, site, proxy.origin)
    try:
        async with start_warden(m) as w:
            denied = await err(w, "browse_session", {"action": "create", "name": "x", "profile": "other"})
            assert "grants.browser.profiles" in denied, denied

            out = await ok(w, "browse_session", {"action": "create", "name": "work", "profile": "crm"})
            assert 'with profile "crm"' in out, out
            assert browsers_on(profile), "the profile's session runs in a browser on its user_data_dir"
            page = await visit(w, site.url("/remember?remember=first"))
            assert "Cookies: remember=first" in page and "Stored: remember=first" in page, page
            # The profile's proxy carries its requests; its emulation applies.
            assert site.url("/remember?remember=first") in proxy.requests, proxy.requests
            tz = await visit(w, site.url("/emulate"))
            assert "TZ: Asia/Tokyo" in tz, tz
            # Only the session's own tab is listed, not the blank tab the browser started with.
            tabs = await ok(w, "browse_tabs")
            assert "about:blank" not in tabs and "/emulate" in tabs, tabs

            # One session at a time per profile; other sessions are apart from it.
            busy = await err(w, "browse_session", {"action": "create", "name": "work2", "profile": "crm"})
            assert 'in use by session "work"' in busy, busy
            assert "work" in await ok(w, "browse_session", {"action": "list"})
            await ok(w, "browse_session", {"action": "create", "name": "plain"})
            plain = await remembered(w, site)
            assert "Cookies: none" in plain and "Stored: none" in plain, plain

            # Closed and opened again (another session name): what it stored is there.
            await ok(w, "browse_session", {"action": "close", "name": "work"})
            wait_gone(profile)
            await ok(w, "browse_session", {"action": "create", "name": "again", "profile": "crm"})
            again = await remembered(w, site)
            assert "Cookies: remember=first" in again and "Stored: remember=first" in again, again
            # Stored just before Warden stops: the browser is closed cleanly, so it is kept.
            late = await visit(w, site.url("/remember?late=yes"))
            assert "late=yes" in late, late
        wait_gone(profile)

        async with start_warden(m) as w:
            await ok(w, "browse_session", {"action": "create", "name": "work", "profile": "crm"})
            restarted = await remembered(w, site)
            assert "Cookies: late=yes remember=first" in restarted, restarted
            assert "Stored: late=yes remember=first" in restarted, restarted
        wait_gone(profile)
    finally:
        proxy.close()


async def test_a_profile_held_by_another_warden_is_reported_in_use(start_warden, write_manifest, site) -> None:
    proxy = start_proxy()
    m = manifest(write_manifest, site, proxy.origin)
    try:
        async with start_warden(m) as first, start_warden(m) as second:
            await ok(first, "browse_session", {"action": "create", "name": "a", "profile": "crm"})
            held = await err(second, "browse_session", {"action": "create", "name": "b", "profile": "crm"})
            assert "in use by another browser (pid" in held and "user_data_dir" in held, held
            # The refused session left nothing behind; the first one works on.
            assert "b" not in await ok(second, "browse_session", {"action": "list"})
            assert "Remember" in await visit(first, site.url("/remember"))
    finally:
        proxy.close()


async def test_a_killed_warden_leaves_no_browser_and_no_lock(start_warden, write_manifest, site, tmp_path) -> None:
    proxy = start_proxy()
    profile = tmp_path / "profiles" / "crm"
    m = manifest(write_manifest, site, proxy.origin)
    try:
        async with start_warden(m) as w:
            await ok(w, "browse_session", {"action": "create", "name": "work", "profile": "crm"})
            await visit(w, site.url("/remember"))
            assert browsers_on(profile)
            # No clean shutdown is possible: the kernel ends the browsers with Warden.
            os.kill(w.pid, signal.SIGKILL)
            wait_gone(profile)
        # The lock the killed browser left names a dead process: the next start takes over.
        async with start_warden(m) as w:
            await ok(w, "browse_session", {"action": "create", "name": "work", "profile": "crm"})
            assert "Remember" in await remembered(w, site)
    finally:
        proxy.close()


def read_message(proc: subprocess.Popen, timeout: float = 60) -> dict:
    """The next JSON-RPC line from warden's stdout (unbuffered), or a failure after `timeout`."""
    assert proc.stdout is not None
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0 and select.select([proc.stdout], [], [], left)[0], f"no answer within {timeout} s"
        byte = proc.stdout.read(1)
        assert byte, "warden closed stdout"
        line += byte
    return json.loads(line)


def raw_call(proc: subprocess.Popen, rid: int, tool: str, arguments: dict) -> dict:
    """One tools/call over raw stdio JSON-RPC; its result."""
    assert proc.stdin is not None
    request = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    proc.stdin.write((json.dumps(request) + "\n").encode())
    proc.stdin.flush()
    while True:
        message = read_message(proc)
        if message.get("id") == rid:
            assert "result" in message, message
            return message["result"]


async def test_sigterm_closes_the_browsers_cleanly(
    start_warden, write_manifest, site, tmp_path, warden_bin, warden_env
) -> None:
    proxy = start_proxy()
    profile = tmp_path / "profiles" / "crm"
    m = manifest(write_manifest, site, proxy.origin)
    try:
        with open(tmp_path / "sigterm-stderr.log", "wb") as errlog:
            proc = subprocess.Popen(
                [str(warden_bin), "serve", "--manifest", str(m.path)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog, bufsize=0,
                env={**os.environ, **warden_env}, cwd=tmp_path,
            )
            try:
                init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "sigterm-test", "version": "1"}}}
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write((json.dumps(init) + "\n").encode())
                proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
                proc.stdin.flush()
                assert "result" in read_message(proc)
                created = raw_call(proc, 2, "browse_session", {"action": "create", "name": "w", "profile": "crm"})
                assert not created.get("isError"), created
                stored = raw_call(proc, 3, "browse_navigate", {"url": site.url("/remember?term=kept")})
                assert not stored.get("isError"), stored
                shared = raw_call(proc, 4, "browse_session", {"action": "create", "name": "shared"})
                assert not shared.get("isError"), shared
                raw_call(proc, 5, "browse_navigate", {"url": site.url("/remember")})
                children = chromium_processes(proc.pid)
                assert browsers_on(profile) and children
                proc.send_signal(signal.SIGTERM)
                assert proc.wait(timeout=30) == 0, "warden exits cleanly on SIGTERM"
            finally:
                if proc.poll() is None:
                    proc.kill()
        log = (tmp_path / "sigterm-stderr.log").read_text(errors="replace")
        assert "SIGTERM: shutting down" in log and "browser closed" in log, log[-3000:]
        # Both browsers are gone: the profile's and the shared one.
        wait_gone(profile)
        for p in children:
            assert not running(p), p

        async with start_warden(m) as w:
            await ok(w, "browse_session", {"action": "create", "name": "w", "profile": "crm"})
            page = await remembered(w, site)
            assert "Cookies: term=kept" in page and "Stored: term=kept" in page, page
    finally:
        proxy.close()


async def test_reload_keeps_browser_sessions_under_the_new_grants(
    start_warden, write_manifest, site, tmp_path, helpers
) -> None:
    proxy, other = start_proxy(), start_net_site()
    profile = tmp_path / "profiles" / "crm"
    changes: list[object] = []

    async def on_message(message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changes.append(message)

    async def reloaded(count: int) -> None:
        assert await helpers.wait_for(lambda: len(changes) >= count, timeout=15), "no reload"

    m = manifest(write_manifest, site, proxy.origin, origins=f', "{other.origin}"')
    try:
        async with start_warden(m, message_handler=on_message) as w:
            await ok(w, "browse_session", {"action": "create", "name": "work", "profile": "crm"})
            assert "reload=kept" in await visit(w, site.url("/remember?reload=kept"))
            await ok(w, "browse_session", {"action": "switch", "name": "default"})
            assert "Remember" in await visit(w, other.url("/remember"))
            # The browsers themselves (Warden's children), not their renderers, which come and
            # go with site isolation.
            browsers = [p for p in chromium_processes(w.pid) if p.ppid() == w.pid]
            assert browsers, "the browsers run"

            # The admin narrows the origins; [browser] is unchanged, so the browsers stay.
            manifest(write_manifest, site, proxy.origin)
            await reloaded(1)
            # The plugin restarted with the new manifest; the page it was on is still there.
            still = await ok(w, "browse_snapshot", {"mode": "full"})
            assert other.url("/remember") in still, still
            assert all(running(p) for p in browsers), "the browsers were restarted"
            # ...under the new grants: the origin dropped from the grant is refused now.
            blocked = await err(w, "browse_navigate", {"url": other.url("/remember?again")})
            assert "grants.browser.origins" in blocked, blocked
            sessions = await ok(w, "browse_session", {"action": "list"})
            assert "work" in sessions, sessions
            await ok(w, "browse_session", {"action": "switch", "name": "work"})
            assert "reload=kept" in await ok(w, "browse_snapshot", {"mode": "full"})

            # A changed [browser] section: the browsers are closed cleanly, the profile kept.
            manifest(write_manifest, site, proxy.origin, args='"--lang=en-US"')
            await reloaded(2)
            wait_gone(profile)
            assert await helpers.wait_for(lambda: not any(running(p) for p in browsers), timeout=15)
            await ok(w, "browse_session", {"action": "create", "name": "work", "profile": "crm"})
            again = await remembered(w, site)
            assert "Cookies: reload=kept" in again and "Stored: reload=kept" in again, again
    finally:
        proxy.close()
        other.close()
