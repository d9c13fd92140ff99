"""Calls run side by side, each in an instance of its own. A slow call (a long command, a
page that takes its time, a plugin that sleeps, a user who never answers a question) never
holds up another call of the same plugin: not another client's over HTTP, and not another
call of the one local client over stdio. And an instance never serves two conversations, so
what a plugin leaves in its memory never reaches another client.

The time bounds are loose on purpose (a loaded 2-core CI machine): before calls ran
concurrently the fast call waited for the slow one (2.7 to 3.7 s); here it must come back
long before the slow one ends. docs/benchmarks.md has the measured latencies."""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

import anyio
import mcp.types as types
import pytest

from browser_helpers import CHROMIUM
from conftest import text_of
from local_site import LocalSite, QuietHandler
from ops_helpers import free_port, mcp_session, serve

# Its bounds are wall-clock times: it runs alone, after the parallel tests (tests/run).
pytestmark = [pytest.mark.anyio, pytest.mark.serial]

#: The fast call must answer within this while the slow one (3 to 5 s) still runs.
FAST = 1.5
SLOW_MS = 4000


class Timeline:
    """When each call started and ended, relative to the test's start."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.spans: dict[str, tuple[float, float]] = {}

    async def run(self, name: str, call) -> Any:
        started = time.monotonic() - self.t0
        result = await call
        self.spans[name] = (started, time.monotonic() - self.t0)
        return result

    def took(self, name: str) -> float:
        start, end = self.spans[name]
        return end - start

    def assert_fast_beside_slow(self, fast: str, slow: str) -> None:
        print({k: (round(a, 3), round(b, 3)) for k, (a, b) in self.spans.items()})
        assert self.took(fast) < FAST, f"{fast} took {self.took(fast):.2f}s beside {slow}: {self.spans}"
        assert self.spans[fast][1] < self.spans[slow][1], f"{fast} waited for {slow}: {self.spans}"


async def side_by_side(slow, fast_calls: list[tuple[str, Any]], delay: float = 0.3) -> Timeline:
    """Start `slow`, then after `delay` run each fast call in turn, all while `slow` runs."""
    line = Timeline()
    results: dict[str, Any] = {}

    async def run_slow() -> None:
        results["slow"] = await line.run("slow", slow)

    async def run_fast() -> None:
        await anyio.sleep(delay)
        for name, call in fast_calls:
            results[name] = await line.run(name, call())

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(run_slow)
            group.start_soon(run_fast)
    line.results = results  # type: ignore[attr-defined]
    return line


def ok(result) -> str:
    assert not result.is_error, text_of(result)
    return text_of(result)


@contextlib.asynccontextmanager
async def two_clients(warden_bin, warden_env, manifest, reach: dict | None = None, **session_kw):
    """alice and bob, each with a bearer token of their own, on one `serve --http`; `reach`
    (when given) gets the server's URL and each client's headers, for more sessions."""
    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    clients = '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n'
    manifest.path.write_text(manifest.path.read_text().replace("\n\n", f"\n\n{clients}\n", 1))
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    if reach is not None:
        reach["url"] = url
        reach.update({name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()})
    with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        async with (
            mcp_session(url, headers={"Authorization": f"Bearer {tokens['alice']}"}, **session_kw.get("alice", {})) as alice,
            mcp_session(url, headers={"Authorization": f"Bearer {tokens['bob']}"}, **session_kw.get("bob", {})) as bob,
        ):
            yield alice, bob


# ----------------------------------------------------------------------------- a sleep tool


async def test_a_sleeping_call_holds_up_no_other_call_over_stdio(start_warden, write_manifest, helpers, echo_wasm):
    async with start_warden(write_manifest(helpers.plugin_block("echo", echo_wasm))) as w:
        line = await side_by_side(
            w.call("sleep", {"ms": SLOW_MS}),
            [("echo", lambda: w.call("echo", {"text": "fast"})), ("count", lambda: w.call("count", {}))],
        )
        line.assert_fast_beside_slow("echo", "slow")
        line.assert_fast_beside_slow("count", "slow")
        assert ok(line.results["slow"]) == f"slept {SLOW_MS} ms"


async def test_a_sleeping_client_holds_up_no_other_client_over_http(warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    async with two_clients(warden_bin, warden_env, manifest) as (alice, bob):
        line = await side_by_side(
            alice.call_tool("sleep", {"ms": SLOW_MS}),
            [("bob", lambda: bob.call_tool("echo", {"text": "bob"}))],
        )
        line.assert_fast_beside_slow("bob", "slow")
        assert ok(line.results["bob"]) == "bob"
        # What a plugin keeps between calls is per conversation, held by the host.
        assert [ok(await alice.call_tool("count", {})) for _ in range(2)] == ["1", "2"]
        assert ok(await bob.call_tool("count", {})) == "1"


# ----------------------------------------------------------------------------- terminals


def terminal_manifest(write_manifest):
    return write_manifest(
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'limits = { call_timeout = "60s" }\ngrants.terminal = { local = true }\n'
    )


async def test_a_long_command_holds_up_no_other_terminal_over_stdio(start_warden, write_manifest):
    async with start_warden(terminal_manifest(write_manifest)) as w:
        a = (await w.call("terminal_open", {})).structured_content["id"]
        b = (await w.call("terminal_open", {})).structured_content["id"]
        line = await side_by_side(
            w.call("terminal_execute", {"session_id": a, "command": "sleep 4; echo A"}),
            [("b", lambda: w.call("terminal_execute", {"session_id": b, "command": "echo B"}))],
        )
        line.assert_fast_beside_slow("b", "slow")
        assert line.results["b"].structured_content["output"] == "B"
        assert line.results["slow"].structured_content["output"] == "A"


async def test_a_clients_long_command_holds_up_no_other_client_over_http(warden_bin, warden_env, write_manifest):
    async with two_clients(warden_bin, warden_env, terminal_manifest(write_manifest)) as (alice, bob):
        a = (await alice.call_tool("terminal_open", {})).structured_content["id"]
        b = (await bob.call_tool("terminal_open", {})).structured_content["id"]
        line = await side_by_side(
            alice.call_tool("terminal_execute", {"session_id": a, "command": "sleep 4; echo alice"}),
            [("bob", lambda: bob.call_tool("terminal_execute", {"session_id": b, "command": "echo hi"}))],
        )
        line.assert_fast_beside_slow("bob", "slow")
        assert line.results["bob"].structured_content["output"] == "hi"


# ----------------------------------------------------------------------------- the browser


class ReportsPage(QuietHandler):
    """A dashboard shell whose report panel fills in after five seconds, and an orders page."""

    def do_GET(self) -> None:  # noqa: N802
        if self.path.startswith("/reports"):
            body = """<!doctype html><title>Reports</title>
<div class="app"><div class="sidebar"><div class="nav-item">Reports</div><div class="nav-item">Orders</div></div>
<div class="main"><div id="panel" class="panel"><div class="spinner">Loading…</div></div></div></div>
<script>setTimeout(() => { document.getElementById('panel').innerHTML =
  '<div class="card"><span>Report ready</span><div role="button" tabindex="0">Download</div></div>'; }, 5000);</script>"""
        else:
            body = """<!doctype html><title>Orders</title>
<div class="app"><div class="toolbar"><div role="button" tabindex="0">New order</div>
<input placeholder="Search orders"></div><div class="grid"><div class="row">#1041 shipped</div></div></div>"""
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def reports_site():
    site = LocalSite(ReportsPage)
    yield site
    site.close()


def browser_manifest(write_manifest, origin: str):
    return write_manifest(
        f'[browser]\nexecutable = "{CHROMIUM}"\n\n[[plugin]]\nname = "browser"\nsource = "builtin:browser"\n'
        f'limits = {{ call_timeout = "60s" }}\ngrants.browser = {{ origins = ["{origin}"] }}\n'
    )


@pytest.mark.usefixtures("chromium")
async def test_a_waiting_tab_holds_up_no_other_tab_of_the_same_agent_over_stdio(start_warden, write_manifest, reports_site):
    async with start_warden(browser_manifest(write_manifest, reports_site.origin)) as w:
        ok(await w.call("browse_navigate", {"url": reports_site.url("/reports")}))
        line = await side_by_side(
            w.call("browse_wait_for", {"text": "Report ready", "timeout_ms": 15000}),
            [
                ("new_tab", lambda: w.call("browse_tabs", {"action": "new"})),
                ("navigate", lambda: w.call("browse_navigate", {"url": reports_site.url("/orders")})),
                ("snapshot", lambda: w.call("browse_snapshot", {})),
            ],
        )
        for fast in ("new_tab", "navigate", "snapshot"):
            line.assert_fast_beside_slow(fast, "slow")
        assert "New order" in ok(line.results["snapshot"])
        ok(line.results["slow"])
        # Refs taken in one tab while the other waited are still good.
        snap = ok(await w.call("browse_snapshot", {}))
        assert "#1041 shipped" in ok(await w.call("browse_snapshot", {"mode": "full"})), snap


@pytest.mark.usefixtures("chromium")
async def test_an_agents_concurrent_first_navigations_share_one_tab(start_warden, write_manifest, reports_site):
    """Five calls of one agent find its session without a tab at once (its first calls, or
    after its tab closed or its browser went away): they open one tab between them, not one
    each that the session keeps open and nobody is on."""
    async with start_warden(browser_manifest(write_manifest, reports_site.origin)) as w:
        ok(await w.call("browse_navigate", {"url": reports_site.url("/orders")}))

        async def at_once(tool: str, args: dict) -> None:
            results: list = []

            async def one() -> None:
                results.append(await w.call(tool, args))

            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(one)
            for r in results:
                ok(r)

        for _ in range(3):
            ok(await w.call("browse_tabs", {"action": "close", "tab": 1}))
            # Five instances ready, so the five navigations start together.
            await at_once("browse_tabs", {})
            await at_once("browse_navigate", {"url": reports_site.url("/orders")})
            tabs = ok(await w.call("browse_tabs", {}))
            assert "1 tab(s)" in tabs, tabs
        assert "New order" in ok(await w.call("browse_snapshot", {}))


@pytest.mark.usefixtures("chromium")
async def test_a_waiting_client_holds_up_no_other_client_over_http(warden_bin, warden_env, write_manifest, reports_site):
    manifest = browser_manifest(write_manifest, reports_site.origin)
    async with two_clients(warden_bin, warden_env, manifest) as (alice, bob):
        ok(await alice.call_tool("browse_navigate", {"url": reports_site.url("/reports")}))
        line = await side_by_side(
            alice.call_tool("browse_wait_for", {"text": "Report ready", "timeout_ms": 15000}),
            [
                ("navigate", lambda: bob.call_tool("browse_navigate", {"url": reports_site.url("/orders")})),
                ("snapshot", lambda: bob.call_tool("browse_snapshot", {})),
            ],
        )
        line.assert_fast_beside_slow("navigate", "slow")
        line.assert_fast_beside_slow("snapshot", "slow")
        assert "New order" in ok(line.results["snapshot"])
        assert "Report ready" in ok(await alice.call_tool("browse_snapshot", {"mode": "full"}))


# ----------------------------------------------------------------------------- isolation


async def test_an_instance_never_shows_one_client_what_another_left_in_its_memory(
    warden_bin, warden_env, write_manifest, helpers, hostile_wasm
):
    """The hostile plugin keeps each caller's text in a global and hands back the previous
    one. An instance serves one conversation and never another: a client may read back its
    own text (its instance was reused), never the other client's, and a new session of the
    same client starts from nothing."""
    manifest = write_manifest(helpers.plugin_block("hostile", hostile_wasm))
    reach: dict = {}
    async with two_clients(warden_bin, warden_env, manifest, reach) as (alice, bob):
        seen: dict[str, list[str]] = {"alice": [], "bob": []}

        async def remember(name: str, client, text: str) -> None:
            seen[name].append(ok(await client.call_tool("remember", {"text": text})))

        for round in range(5):
            async with anyio.create_task_group() as group:
                for i in range(4):
                    group.start_soon(remember, "alice", alice, f"alice-secret-{round}-{i}")
                    group.start_soon(remember, "bob", bob, f"bob-{round}-{i}")
        for name, other in (("alice", "bob"), ("bob", "alice")):
            assert not [text for text in seen[name] if text.startswith(other)], seen
        # Sequential calls of one conversation reuse its instance: the test would be blind
        # if every call were fresh.
        assert any(text.startswith("alice") for text in seen["alice"]), seen
        assert ok(await alice.call_tool("remember", {"text": "alice-last"})) != "(nothing)"

        async with mcp_session(reach["url"], headers=reach["alice"]) as again:
            assert ok(await again.call_tool("remember", {"text": "alice-new"})) == "(nothing)"


async def test_a_pending_question_holds_up_no_other_clients_call_of_the_same_tool(
    warden_bin, warden_env, write_manifest, helpers, conformance_wasm
):
    """2025-11-25: the plugin asks alice (elicitation) and her client does not answer; bob
    calls the same tool meanwhile and is answered at once."""
    answer_alice = anyio.Event()

    async def alice_thinks(context, params) -> Any:
        await answer_alice.wait()
        return types.ElicitResult(action="decline")

    async def bob_answers(context, params) -> Any:
        return types.ElicitResult(action="accept", content={"username": "bob", "email": "bob@example.com"})

    manifest = write_manifest(helpers.plugin_block("conformance", conformance_wasm))
    async with two_clients(
        warden_bin,
        warden_env,
        manifest,
        alice={"elicitation_callback": alice_thinks},
        bob={"elicitation_callback": bob_answers},
    ) as (alice, bob):
        line = Timeline()
        results: dict[str, Any] = {}

        async def alice_asks() -> None:
            results["alice"] = await line.run("slow", alice.call_tool("test_elicitation", {"message": "Who are you?"}))

        async def bob_asks() -> None:
            await anyio.sleep(0.5)
            results["bob"] = await line.run("bob", bob.call_tool("test_elicitation", {"message": "Who are you?"}))
            answer_alice.set()

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(alice_asks)
                group.start_soon(bob_asks)
        line.assert_fast_beside_slow("bob", "slow")
        assert "bob" in ok(results["bob"]), results["bob"]


# ----------------------------------------------------------------------------- the limit


async def test_calls_over_the_concurrency_limit_wait_in_line_then_are_refused(
    start_warden, write_manifest, helpers, echo_wasm
):
    """`limits.concurrency = 1`: a second call waits for the place (the metrics show it
    queued), and one that waits past `limits.queue_timeout` is refused, naming the key;
    nothing piles up without bound, and the place is free again afterwards."""
    from ops_helpers import scrape, total

    admin = f"127.0.0.1:{free_port()}"
    manifest = write_manifest(
        f'[admin]\nlisten = "{admin}"\n\n'
        + helpers.plugin_block("echo", echo_wasm, 'limits = { concurrency = 1, queue_timeout = "1s" }')
    )
    async with start_warden(manifest) as w:
        results: dict[str, Any] = {}
        seen: dict[str, float] = {}

        async def hold() -> None:
            results["slow"] = await w.call("sleep", {"ms": 2500})

        async def wait_in_line() -> None:
            await anyio.sleep(0.3)
            started = time.monotonic()
            results["queued"] = await w.call("echo", {"text": "late"})
            seen["queued"] = time.monotonic() - started

        async def look() -> None:
            await anyio.sleep(0.7)
            samples = scrape(admin)
            seen["in_flight"] = total(samples, "warden_plugin_calls_in_flight", plugin="echo")
            seen["waiting"] = total(samples, "warden_plugin_calls_queued", plugin="echo")

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(hold)
                group.start_soon(wait_in_line)
                group.start_soon(look)
        assert seen["in_flight"] == 1 and seen["waiting"] == 1, seen
        refused = text_of(results["queued"])
        assert results["queued"].is_error and refused.startswith("limit reached"), refused
        assert "limits.concurrency" in refused and "limits.queue_timeout" in refused, refused
        assert 0.9 < seen["queued"] < 2.4, seen
        assert ok(results["slow"]) == "slept 2500 ms"
        # The place is free again, and a call that waits less than the timeout gets it.
        assert ok(await w.call("echo", {"text": "again"})) == "again"
        samples = scrape(admin)
        assert total(samples, "warden_limit_hits_total", limit="plugin_concurrency", scope="echo") == 1

    lines = [line for line in manifest.audit_lines() if line["event"] == "tool_call" and line["tool"] == "echo"]
    assert [(line["decision"], line["outcome"]) for line in lines] == [("denied", "denied"), ("allowed", "ok")], lines
    assert lines[0]["reason"] == "limits.concurrency", lines[0]
