"""Two bearer clients on one `warden serve --http`, on both wires (2025-11-25 sessions and the
stateless 2026-07-28 wire): one client's flood of calls or of kept state never starves or
erases the other's.

- alice sends more slow calls than the plugin's `limits.concurrency`; bob's one call starts
  at once, beside them, not behind alice's waiting calls: the gate server (under the test's
  control) sees bob's request while it still holds every one of alice's, and before it
  saw any of alice's waiting ones.
- bob opens 80 sessions and fills each one's kept state past what the plugin keeps in all;
  alice's kept value survives (bob's own oldest go).
- alice opens browser sessions and tabs up to her caps (`limits.browser_sessions`,
  `limits.browser_tabs`, per plugin and client) and is refused past them; bob still opens
  his own, whose pages reach the test's site.

Bob's latency beside the flood is printed (`-s`); docs/benchmarks.md has the measured
numbers."""

from __future__ import annotations

import contextlib
import http.server
import os
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from browser_helpers import CHROMIUM
from conftest import text_of
from local_site import LocalSite, QuietHandler
from ops_helpers import free_port, mcp_session, serve

pytestmark = [pytest.mark.anyio]

WIRES = ["2025-11-25", "2026-07-28"]
PLACES = 4
FLOOD = 12


class Gate:
    """Records each request as it arrives; holds `/slow/...` until released, answers
    `/fast/...` at once."""

    def __init__(self) -> None:
        self.arrived: list[tuple[str, bool]] = []
        self.changed = threading.Condition()
        self.opened = threading.Event()
        gate = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                with gate.changed:
                    gate.arrived.append((self.path, gate.opened.is_set()))
                    gate.changed.notify_all()
                if self.path.startswith("/slow/"):
                    gate.opened.wait(60)
                data = f"answered {self.path}".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.site = LocalSite(Handler)

    def paths(self) -> list[str]:
        with self.changed:
            return [path for path, _ in self.arrived]

    async def wait_for(self, count: int, prefix: str) -> None:
        def enough() -> bool:
            return sum(1 for path, _ in self.arrived if path.startswith(prefix)) >= count

        def wait() -> bool:
            with self.changed:
                return self.changed.wait_for(enough, timeout=30)

        assert await anyio.to_thread.run_sync(wait), self.paths()


@pytest.fixture()
def gate():
    g = Gate()
    yield g
    g.opened.set()
    g.site.close()


def two_client_block() -> str:
    return '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n'


@contextlib.asynccontextmanager
async def client(url: str, token: str, wire: str) -> AsyncIterator[Any]:
    """One MCP client of the bearer `token` on `wire`."""
    headers = {"Authorization": f"Bearer {token}"}
    if wire == "2025-11-25":
        async with mcp_session(url, headers=headers) as session:
            yield session
        return
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28", cache=None) as c:
            yield c


@contextlib.contextmanager
def server(warden_bin, warden_env, manifest):
    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    port = free_port()
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        yield f"http://127.0.0.1:{port}/mcp", tokens


def ok(result) -> str:
    assert not result.is_error, text_of(result)
    return text_of(result)


@pytest.mark.parametrize("wire", WIRES)
async def test_a_flooding_client_holds_up_no_other_clients_call(warden_bin, warden_env, write_manifest, gate, wire):
    manifest = write_manifest(
        two_client_block()
        + '[[plugin]]\nname = "capture"\nsource = "builtin:capture"\n'
        + f'limits = {{ concurrency = {PLACES}, queue_timeout = "5s" }}\n'
        + f'grants.capture = {{ http_hosts = ["127.0.0.1:{gate.site.server.server_address[1]}"] }}\n'
    )
    with server(warden_bin, warden_env, manifest) as (url, tokens):
        async with client(url, tokens["alice"], wire) as alice, client(url, tokens["bob"], wire) as bob:
            # A first call each, so the latency measured below is not the clients' warm-up.
            ok(await alice.call_tool("http_get", {"url": gate.site.url("/fast/alice")}))
            ok(await bob.call_tool("http_get", {"url": gate.site.url("/fast/bob-first")}))
            results: dict[str, Any] = {}

            async def alice_calls(i: int) -> None:
                results[f"alice-{i}"] = await alice.call_tool("http_get", {"url": gate.site.url(f"/slow/alice-{i}")})

            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:
                    for i in range(FLOOD):
                        group.start_soon(alice_calls, i)
                    # Every place is alice's, and 8 of her calls wait in her line.
                    await gate.wait_for(PLACES, "/slow/")
                    started = time.monotonic()
                    results["bob"] = await bob.call_tool("http_get", {"url": gate.site.url("/fast/bob")})
                    took = time.monotonic() - started
                    seen = gate.paths()[2:]
                    gate.opened.set()
            print(f"\n{wire}: bob's call beside {FLOOD} of alice's on {PLACES} places: {took * 1000:.0f} ms")

        # Bob's call ran, and started while every one of alice's running calls was held,
        # before any of her waiting ones.
        assert "answered /fast/bob" in ok(results["bob"])
        bob_at = seen.index("/fast/bob")
        assert bob_at == PLACES and all(p.startswith("/slow/alice-") for p in seen[:PLACES]), seen
        with gate.changed:
            arrived = dict(gate.arrived)
        assert arrived["/fast/bob"] is False, "bob's request came while alice's were all held"
        # alice loses nothing: every call of hers ran.
        for i in range(FLOOD):
            assert f"answered /slow/alice-{i}" in ok(results[f"alice-{i}"])
        assert len([p for p in gate.paths() if p.startswith("/slow/")]) == FLOOD

    lines = [
        line for line in manifest.audit_lines() if line["event"] == "tool_call" and line["tool"] == "http_get"
    ]
    assert len(lines) == FLOOD + 3 and all(line["outcome"] == "ok" for line in lines), lines


@pytest.mark.parametrize("wire", WIRES)
async def test_a_client_that_fills_state_in_80_sessions_erases_nothing_of_another(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, wire
):
    """The echo plugin keeps 4 KiB per conversation and 64 conversations' worth in all; bob
    fills 80 sessions to the brim. alice (on `wire`) kept one small value before; it is
    still there, and bob's own oldest sessions lost theirs."""
    manifest = write_manifest(two_client_block() + helpers.plugin_block("echo", echo_wasm, 'limits = { state = "4KiB" }'))
    with server(warden_bin, warden_env, manifest) as (url, tokens):
        async with client(url, tokens["alice"], wire) as alice:
            assert ok(await alice.call_tool("keep", {"key": "note", "value": "alice-kept-this"})) == "kept 15 bytes"
            with anyio.fail_after(120):
                async with contextlib.AsyncExitStack() as stack:
                    sessions = []
                    for i in range(80):
                        bob = await stack.enter_async_context(client(url, tokens["bob"], "2025-11-25"))
                        sessions.append(bob)
                        # Nearly 4 KiB: with the key, just under limits.state.
                        ok(await bob.call_tool("keep", {"key": "fill", "value": f"bob-{i}", "pad": 4000}))
                    recalled = {
                        "alice": await alice.call_tool("recall", {"key": "note"}),
                        "bob's first": await sessions[0].call_tool("recall", {"key": "fill"}),
                        "bob's last": await sessions[-1].call_tool("recall", {"key": "fill"}),
                    }
    # (Asserted once the 80 sessions are closed, so a failure reads plainly.)
    assert ok(recalled["alice"]) == "alice-kept-this"
    # The test is not blind: the pressure was real, and fell on bob himself.
    assert ok(recalled["bob's first"]) == "(nothing)"
    assert ok(recalled["bob's last"]) == "bob-79"


class Pages:
    """A site of the test's own that records which page each request asked for."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        pages = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                pages.requests.append(self.path)
                data = f"<html><body><div class=app><div class=row>page {self.path}</div></div></body></html>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.site = LocalSite(Handler)


def refused(result) -> str:
    assert result.is_error, text_of(result)
    return text_of(result)


@pytest.mark.parametrize("wire", WIRES)
async def test_one_clients_browser_sessions_and_tabs_leave_another_its_own(
    warden_bin, warden_env, write_manifest, wire
):
    """Caps of 2 sessions and 4 tabs per client (a session opens with a tab): alice takes all
    of hers and is refused past them, with an audit line naming the limit and her; bob then
    opens his 2 sessions and 4 tabs, and the test's site receives the page of his tabs."""
    pages = Pages()
    manifest = write_manifest(
        two_client_block()
        + f'[browser]\nexecutable = "{CHROMIUM}"\n\n'
        + '[[plugin]]\nname = "browser"\nsource = "builtin:browser"\n'
        + 'limits = { call_timeout = "90s", browser_sessions = 2, browser_tabs = 4 }\n'
        + f'grants.browser = {{ origins = ["{pages.site.origin}"] }}\n'
    )
    try:
        with server(warden_bin, warden_env, manifest) as (url, tokens):
            async with client(url, tokens["alice"], wire) as alice, client(url, tokens["bob"], wire) as bob:
                with anyio.fail_after(180):
                    for who, c in (("alice", alice), ("bob", bob)):
                        ok(await c.call_tool("browse_session", {"action": "create", "name": f"{who}-1"}))
                        ok(await c.call_tool("browse_session", {"action": "create", "name": f"{who}-2"}))
                        third = refused(await c.call_tool("browse_session", {"action": "create", "name": f"{who}-3"}))
                        assert "limits.browser_sessions" in third and "this client" in third, third
                        ok(await c.call_tool("browse_navigate", {"url": pages.site.url(f"/{who}-tab-0")}))
                        for i in (1, 2):
                            ok(await c.call_tool("browse_tabs", {"action": "new"}))
                            ok(await c.call_tool("browse_navigate", {"url": pages.site.url(f"/{who}-tab-{i}")}))
                        fourth = refused(await c.call_tool("browse_tabs", {"action": "new"}))
                        assert "limits.browser_tabs" in fourth and "this client" in fourth, fourth
    finally:
        pages.site.close()
    # What the site received: every tab of both clients loaded its page.
    for who in ("alice", "bob"):
        for i in range(3):
            assert f"/{who}-tab-{i}" in pages.requests, pages.requests
    denied = [line for line in manifest.audit_lines() if line["event"] == "capability_denied"]
    for key in ("limits.browser_sessions", "limits.browser_tabs"):
        clients = sorted((line.get("client") or "").split(" ")[0] for line in denied if line.get("target") == key)
        assert clients == ["alice", "bob"], denied


async def test_a_server_without_tokens_says_that_its_callers_are_one_client(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm
):
    """No token: every request is the one local client. The admin reads it in the start-up
    log and in `warden check`; two anonymous stateless callers do share kept values."""
    import subprocess

    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    checked = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(manifest.path)],
        capture_output=True, text=True, timeout=120, env={**os.environ, **warden_env},
    )
    assert checked.returncode == 0, checked.stderr
    assert "http clients: none named" in checked.stdout and "share" in checked.stdout, checked.stdout
    port = free_port()
    http = f"127.0.0.1:{port}"
    with serve(warden_bin, manifest.path, warden_env, http):
        log = (manifest.path.parent / f"serve-{http.replace(':', '_')}.log").read_text()
        assert "every request is the one local client" in log, log
        url = f"http://{http}/mcp"
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with Client(streamable_http_client(url), mode="2026-07-28", cache=None) as one:
            ok(await one.call_tool("keep", {"key": "k", "value": "from-one"}))
        async with Client(streamable_http_client(url), mode="2026-07-28", cache=None) as other:
            assert ok(await other.call_tool("recall", {"key": "k"})) == "from-one"
