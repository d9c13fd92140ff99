"""Two agents on one `warden serve --http`: each MCP session is a conversation of its own, and
the browser plugin (one instance for the whole server) keeps each one's current session,
tabs and refs apart. The host scopes browser session names and saved states by the
conversation, so one agent cannot name, switch into, close or restore the other's, not
even by guessing its names; an agent that goes away has its sessions closed."""

from __future__ import annotations

import contextlib

import anyio
import psutil
import pytest

from browser_helpers import browser_manifest, chromium_processes
from browser_helpers import ok as ok_w
from conftest import text_of
from local_site import LocalSite, QuietHandler
from ops_helpers import free_port, mcp_session, scrape, serve, total

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


class AccountPage(QuietHandler):
    """A dashboard-like page per user: a sidebar, a table and a cookie naming the user."""

    def do_GET(self) -> None:  # noqa: N802
        who = self.path.partition("who=")[2] or "nobody"
        body = (
            f"<!doctype html><title>{who}</title>"
            '<div class="layout"><div class="sidebar"><div class="nav-item">Home</div>'
            '<div class="nav-item" role="button" tabindex="0">Settings</div></div>'
            f'<div class="main"><div class="header">Dashboard of {who}</div>'
            f'<div class="table"><div class="row"><span>Balance</span><span>{len(who)}00</span></div></div>'
            '<div role="button" tabindex="0" class="btn">Transfer</div></div></div>'
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Set-Cookie", f"who={who}; Path=/")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


async def call(session, tool: str, args: dict | None = None) -> tuple[bool, str]:
    with anyio.fail_after(60):
        result = await session.call_tool(tool, args or {})
    return bool(result.is_error), text_of(result)


async def ok(session, tool: str, args: dict | None = None) -> str:
    failed, text = await call(session, tool, args)
    assert not failed, f"{tool} failed: {text}"
    return text


async def err(session, tool: str, args: dict | None = None) -> str:
    failed, text = await call(session, tool, args)
    assert failed, f"{tool} should have failed, got: {text}"
    return text


async def test_two_agents_on_one_server_never_reach_each_others_browser(
    warden_bin, warden_env, write_manifest
) -> None:
    site = LocalSite(AccountPage)
    mcp, admin = free_port(), free_port()
    m = write_manifest(
        f"""
[admin]
listen = "127.0.0.1:{admin}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["http://127.0.0.1:*"], cookies = true }}
"""
    )
    url = f"http://127.0.0.1:{mcp}/mcp"

    def browser_sessions() -> float:
        return total(scrape(f"127.0.0.1:{admin}"), "warden_sessions_active", kind="browser")

    try:
        with serve(warden_bin, m.path, warden_env, f"127.0.0.1:{mcp}", admin=f"127.0.0.1:{admin}"):
            async with mcp_session(url) as bob:
                async with mcp_session(url) as alice:
                    # Both work in "default", interleaved: each sees only its own page.
                    a = await ok(alice, "browse_navigate", {"url": site.url("/?who=alice")})
                    b = await ok(bob, "browse_navigate", {"url": site.url("/?who=bob")})
                    assert 'Page: "alice"' in a and 'Page: "bob"' in b, (a, b)
                    assert "Dashboard of alice" in await ok(alice, "browse_snapshot", {"mode": "full"})
                    assert "Dashboard of bob" in await ok(bob, "browse_snapshot", {"mode": "full"})
                    # Refs are each agent's own: alice's @e refs act on alice's page.
                    clicked = await ok(alice, "browse_click", {"ref": "@e1"})
                    assert "bob" not in clicked, clicked
                    assert "alice" in await ok(alice, "browse_cookies", {})
                    bob_cookies = await ok(bob, "browse_cookies", {})
                    assert "alice" not in bob_cookies and "bob" in bob_cookies, bob_cookies
                    assert "1 tab" in await ok(bob, "browse_tabs", {})

                    # Alice's named session and saved state are hers alone.
                    await ok(alice, "browse_session", {"action": "create", "name": "work"})
                    await ok(alice, "browse_navigate", {"url": site.url("/?who=alice-at-work")})
                    await ok(alice, "browse_session", {"action": "save_state", "state": "login"})
                    listed = await ok(bob, "browse_session", {"action": "list"})
                    assert "work" not in listed and "login" not in listed, listed
                    gone = await err(bob, "browse_session", {"action": "close", "name": "work"})
                    assert "no session named" in gone, gone
                    gone = await err(bob, "browse_session", {"action": "create", "name": "x", "state": "login"})
                    assert "no state named" in gone, gone
                    gone = await err(bob, "browse_session", {"action": "delete_state", "state": "login"})
                    assert "no state named" in gone, gone
                    # A name with the host's scope separator cannot pose as another scope's.
                    await err(bob, "browse_session", {"action": "switch", "name": "work~s0"})
                    # Bob's "work" is a new, empty session of his own.
                    await ok(bob, "browse_session", {"action": "switch", "name": "work"})
                    mine = await ok(bob, "browse_snapshot", {"mode": "full"})
                    assert "alice" not in mine, mine
                    assert "alice-at-work" in await ok(alice, "browse_snapshot", {"mode": "full"})
                    listed = await ok(alice, "browse_session", {"action": "list"})
                    assert "work (current)" in listed and "login" in listed, listed
                    assert browser_sessions() == 4

                # Alice's MCP session ended (the client deleted it): her sessions close.
                def ended() -> list[tuple[str, str]]:
                    return sorted(
                        (line["capability"], line["target"])
                        for line in m.audit_lines()
                        if line.get("detail") == "its conversation ended"
                    )

                with anyio.fail_after(20):
                    while browser_sessions() != 2 or len(ended()) < 3:
                        await anyio.sleep(0.25)
                # Each close is audited, under the agent's own names.
                assert ended() == [
                    ("browser.end_session", "default"),
                    ("browser.end_session", "work"),
                    ("browser.forget_state", "login"),
                ], ended()
                # Bob goes on where he was.
                assert "Dashboard of bob" not in await ok(bob, "browse_snapshot", {"mode": "full"})
                await ok(bob, "browse_session", {"action": "switch", "name": "default"})
                assert "Dashboard of bob" in await ok(bob, "browse_snapshot", {"mode": "full"})
    finally:
        site.close()


def _renderers(pid: int) -> int:
    count = 0
    for p in chromium_processes(pid):
        with contextlib.suppress(psutil.Error):
            count += "--type=renderer" in p.cmdline()
    return count


async def test_one_agents_concurrent_first_calls_share_one_context_and_tab(
    start_warden, write_manifest
) -> None:
    """The first calls of an agent that arrive together each found no browser context for its
    session; each made one and opened a tab in it, and all but the last were left open with
    their renderers (a hidden leak: the session lists one tab). Now one call makes the context
    and the tab, the others use them: a burst costs no more processes than one call."""
    site = LocalSite(AccountPage)
    try:
        manifest = browser_manifest(write_manifest, site.origin)
        async with start_warden(manifest) as w:
            await ok_w(w, "browse_navigate", {"url": site.url("/?who=one")})
            await anyio.sleep(1)
            one = _renderers(w.pid)
        async with start_warden(manifest) as w:
            async with anyio.create_task_group() as tg:
                for i in range(6):
                    tg.start_soon(ok_w, w, "browse_navigate", {"url": site.url(f"/?who=burst{i}")})
            await anyio.sleep(1)
            burst = _renderers(w.pid)
            tabs = await ok_w(w, "browse_tabs", {})
            assert "1 tab(s)" in tabs, tabs
        assert burst <= one + 1, f"6 concurrent first calls left {burst} renderers; one call leaves {one}"
    finally:
        site.close()
