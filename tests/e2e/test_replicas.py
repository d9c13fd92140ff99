"""Three `warden serve --http` replicas behind HAProxy with the documented configuration
(docs/src/deploy/haproxy.cfg): many concurrent MCP clients, each with a terminal session and
every fifth with a browser session on a fleet of two remote Chromiums, spread over the replicas; every request reaches the replica holding its session; one
replica killed mid-run loses only its own clients, who get a clear error, never another
replica's session; each replica's metrics agree with its own audit log. The same with
stateless 2026-07-28 clients, routed by the replica name their session handles carry."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import time

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from local_site import LocalSite
from test_approval import ALL_CAPABILITIES, modern_call, rpc_body
from test_browser_conversations import AccountPage
from test_browser_fleet import Remote
from ops_helpers import (
    audit_counts,
    free_port,
    haproxy,
    metric_counts,
    scrape,
    serve,
    server_state,
    subtract,
)

pytestmark = pytest.mark.anyio

CLIENTS = int(os.environ.get("WARDEN_REPLICA_CLIENTS", "50"))
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def replica_manifest(write_manifest, helpers, echo_wasm, i: int, echo_keys: str = "", browser: str = ""):
    body = browser + (
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'require_approval = ["terminal_close"]\n'
        'limits = { call_timeout = "60s" }\ngrants.terminal = { local = true }\n\n'
    ) + helpers.plugin_block("echo", echo_wasm, 'tools = { allow = ["echo"] }' + echo_keys)
    return write_manifest(body, name=f"r{i}.toml", audit=f"r{i}.jsonl")


def session_digest(session_id: str) -> str:
    """How the audit log names an HTTP session."""
    return "http session " + hashlib.sha256(session_id.encode()).hexdigest()[:12]


def fleet_block(remotes: list[Remote]) -> str:
    """The replicas share one fleet of remote browsers; each replica's browser plugin."""
    endpoints = ", ".join(f'"{r.http}"' for r in remotes)
    return (
        f"[browser]\nendpoints = [{endpoints}]\n\n"
        '[[plugin]]\nname = "browser"\nsource = "builtin:browser"\n'
        'limits = { call_timeout = "60s" }\ngrants.browser = { origins = ["http://127.0.0.1:*"] }\n\n'
    )


def browses(i: int) -> bool:
    """Every fifth client also has a browser session."""
    return i % 5 == 0


@pytest.mark.usefixtures("chromium")
async def test_replicas_behind_haproxy(warden_bin, warden_env, write_manifest, helpers, echo_wasm, tmp_path):
    remotes = [Remote(tmp_path / f"remote-{n}") for n in ("a", "b")]
    site = LocalSite(AccountPage)
    try:
        await replicas_behind_haproxy(
            warden_bin, warden_env, write_manifest, helpers, echo_wasm, tmp_path, remotes, site
        )
    finally:
        site.close()
        for r in remotes:
            with contextlib.suppress(Exception):
                r.kill()


async def replicas_behind_haproxy(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, tmp_path, remotes, site
) -> None:
    ports = [(free_port(), free_port()) for _ in range(3)]
    manifests = [
        replica_manifest(write_manifest, helpers, echo_wasm, i + 1, browser=fleet_block(remotes)) for i in range(3)
    ]
    lb = free_port()
    url = f"http://127.0.0.1:{lb}/mcp"
    with contextlib.ExitStack() as stack:
        procs = [
            stack.enter_context(
                serve(warden_bin, m.path, warden_env, f"127.0.0.1:{mcp}", admin=f"127.0.0.1:{admin}", log_name=f"r{i + 1}.log")
            )
            for i, (m, (mcp, admin)) in enumerate(zip(manifests, ports))
        ]
        stack.enter_context(haproxy(tmp_path, lb, ports))
        admins = [f"127.0.0.1:{admin}" for _, admin in ports]
        before = [scrape(a) for a in admins]

        opened = 0
        all_open = anyio.Event()
        killed = anyio.Event()
        sessions: dict[int, str] = {}
        after_kill: dict[int, str] = {}
        refused: list[int] = []

        async def client(i: int) -> None:
            nonlocal opened
            seen: list[str] = []

            async def remember(response) -> None:
                if sid := response.headers.get("mcp-session-id"):
                    seen.append(sid)

            http = create_mcp_http_client()
            http.event_hooks["response"].append(remember)
            try:
                async with http, streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        with anyio.fail_after(60):
                            await session.initialize()
                            sessions[i] = seen[0]
                            term = None
                            opened_term = await session.call_tool("terminal_open", {})
                            if opened_term.is_error:
                                # The anonymous client holds at most 16 terminal sessions of a
                                # plugin per replica: past that, it makes stateless calls.
                                assert "16 open terminal sessions" in helpers.text_of(opened_term)
                                refused.append(i)
                            else:
                                term = opened_term.structured_content["id"]
                            for round in range(2):
                                if term:
                                    ran = await session.call_tool(
                                        "terminal_execute", {"session_id": term, "command": f"echo client-{i}-{round}"}
                                    )
                                    assert f"client-{i}-{round}" in helpers.text_of(ran), helpers.text_of(ran)
                                echoed = await session.call_tool("echo", {"text": f"client {i}"})
                                assert echoed.structured_content == {"text": f"client {i}"}
                                if browses(i):
                                    # Clients of one replica share its browser plugin: each
                                    # sees its own page in its own "default" session.
                                    args = {"url": site.url(f"/?who=client-{i}-{round}")}
                                    shown = helpers.text_of(await session.call_tool("browse_navigate", args))
                                    assert f'Page: "client-{i}-{round}"' in shown, shown
                                    full = await session.call_tool("browse_snapshot", {"mode": "full"})
                                    assert f"Dashboard of client-{i}-{round}" in helpers.text_of(full)
                        opened += 1
                        if opened == CLIENTS:
                            all_open.set()
                        await killed.wait()
                        try:
                            with anyio.fail_after(30):
                                if term:
                                    ran = await session.call_tool(
                                        "terminal_execute", {"session_id": term, "command": f"echo after-{i}"}
                                    )
                                else:
                                    ran = await session.call_tool("echo", {"text": f"after-{i}"})
                                expect = f"after-{i}"
                                if browses(i) and expect in helpers.text_of(ran):
                                    # Its own page, still: its browser session lives on.
                                    ran = await session.call_tool("browse_snapshot", {"mode": "full"})
                                    expect = f"Dashboard of client-{i}-1"
                            after_kill[i] = "ok" if expect in helpers.text_of(ran) else helpers.text_of(ran)
                        except Exception as e:  # the transport's error, or our timeout
                            after_kill[i] = f"failed: {type(e).__name__}: {e}"
                            raise
            except Exception as e:
                if not killed.is_set():
                    raise
                after_kill.setdefault(i, f"failed: {type(e).__name__}: {e}")

        def pages() -> list[str]:
            return [u for r in remotes for u in r.pages()]

        started = time.monotonic()
        async with anyio.create_task_group() as tg:
            for i in range(CLIENTS):
                tg.start_soon(client, i)
            with anyio.fail_after(240):
                await all_open.wait()
            opened_in = time.monotonic() - started

            # Which replica holds each client: the one whose audit log names its session.
            holder: dict[int, int] = {}
            for r, m in enumerate(manifests):
                logged = {line.get("session") for line in m.audit_lines()}
                for i, sid in sessions.items():
                    if session_digest(sid) in logged:
                        assert i not in holder, f"client {i}'s session reached two replicas"
                        holder[i] = r
            assert sorted(holder) == list(range(CLIENTS)), holder
            spread = [list(holder.values()).count(r) for r in range(3)]
            assert all(n > 0 for n in spread), spread
            assert len(refused) <= max(0, CLIENTS - 48), (refused, spread)

            # Kill replica 2 as a crash would.
            procs[1].send_signal(signal.SIGKILL)
            procs[1].wait(timeout=10)
            # Its browser sessions go with its DevTools connections; the others' pages stay.
            lost = [i for i, r in holder.items() if r == 1 and browses(i)]
            kept = [i for i, r in holder.items() if r != 1 and browses(i)]
            assert lost and kept, (lost, kept)
            deadline = time.monotonic() + 15
            while any(f"who=client-{i}-" in u for i in lost for u in pages()):
                assert time.monotonic() < deadline, pages()
                await anyio.sleep(0.2)
            for i in kept:
                assert any(f"who=client-{i}-1" in u for u in pages()), (i, pages())
            killed.set()
        victims = [i for i, r in holder.items() if r == 1]
        survivors = [i for i, r in holder.items() if r != 1]
        assert all(after_kill[i] == "ok" for i in survivors), {i: after_kill[i] for i in survivors}
        assert all(after_kill[i] != "ok" for i in victims), {i: after_kill[i] for i in victims}
        # Every client has left: the sessions of the MCP sessions that ended were closed.
        deadline = time.monotonic() + 15
        while any("who=client-" in u for u in pages()):
            assert time.monotonic() < deadline, pages()
            await anyio.sleep(0.2)

        # What a victim's next request gets: a clear 503, from no other replica.
        async with httpx2.AsyncClient(timeout=30) as raw:
            gone = await raw.post(
                url,
                json={"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
                headers={**ACCEPT, "Mcp-Session-Id": sessions[victims[0]], "Mcp-Protocol-Version": "2025-11-25"},
            )
        assert gone.status_code == 503, (gone.status_code, gone.text)
        assert "replica that held this MCP session is gone" in gone.text, gone.text
        # A new session of that client is served by a live replica.
        deadline = time.monotonic() + 10
        while server_state(tmp_path).get("r2") != "DOWN":
            assert time.monotonic() < deadline, server_state(tmp_path)
            await anyio.sleep(0.1)
        async with create_mcp_http_client() as http, streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(30):
                    await session.initialize()
                    echoed = await session.call_tool("echo", {"text": "fresh"})
                    assert echoed.structured_content == {"text": "fresh"}

        after = {r: scrape(admins[r]) for r in (0, 2)}
    for r in (0, 2):
        from_audit = audit_counts(manifests[r].audit_lines())
        from_metrics = subtract(metric_counts(after[r]), metric_counts(before[r]))
        assert from_metrics == from_audit, (r, from_metrics, from_audit)
    browsing = sum(1 for i in range(CLIENTS) if browses(i))
    print(
        f"{CLIENTS} clients ({browsing} with a browser session on a fleet of 2) opened sessions over 3 replicas"
        f" {spread} in {opened_in:.1f}s; {len(victims)} lost with r2"
    )


STATELESS_CLIENTS = 12


async def modern_rpc(url: str, method: str, params: dict, name: str, headers: dict | None = None) -> httpx2.Response:
    """One stateless 2026-07-28 request other than a tool call, as raw HTTP (`name`: what
    the Mcp-Name header names, the resource's URI for resources/read)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {
            **params,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}},
        },
    }
    sent = {**ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name, **(headers or {})}
    async with httpx2.AsyncClient(timeout=30) as client:
        return await client.post(url, json=body, headers=sent)


async def test_stateless_clients_reach_the_replica_their_handles_name(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, tmp_path
):
    """2026-07-28 clients send no MCP session: HAProxy reads the replica from the session
    handle in the request body. Without that rule two calls in three would reach a replica
    that does not hold the session."""
    ports = [(free_port(), free_port()) for _ in range(3)]
    approve_echo = '\nrequire_approval = ["echo"]'
    manifests = [replica_manifest(write_manifest, helpers, echo_wasm, i + 1, approve_echo) for i in range(3)]
    lb = free_port()
    url = f"http://127.0.0.1:{lb}/mcp"

    def text(response) -> str:
        body = rpc_body(response)
        if "error" in body:
            return body["error"]["message"]
        return " ".join(c.get("text", "") for c in body["result"]["content"])

    with contextlib.ExitStack() as stack:
        procs = [
            stack.enter_context(
                serve(
                    warden_bin, m.path, warden_env, f"127.0.0.1:{mcp}", admin=f"127.0.0.1:{admin}",
                    log_name=f"r{i + 1}.log", replica=f"r{i + 1}",
                )
            )
            for i, (m, (mcp, admin)) in enumerate(zip(manifests, ports))
        ]
        stack.enter_context(haproxy(tmp_path, lb, ports))

        handles: dict[int, str] = {}

        async def client(i: int) -> None:
            opened = rpc_body(await modern_call(url, "terminal_open", {}, {}))
            handle = opened["result"]["structuredContent"]["id"]
            assert handle.split(".")[0] in {"r1", "r2", "r3"}, handle
            handles[i] = handle
            for round in range(3):
                ran = await modern_call(url, "terminal_execute", {"session_id": handle, "command": f"echo c{i}-{round}"}, {})
                assert f"c{i}-{round}" in text(ran), text(ran)

        async with anyio.create_task_group() as tg:
            for i in range(STATELESS_CLIENTS):
                tg.start_soon(client, i)
        # A session's resources route by the handle in their URI.
        for handle in handles.values():
            uri = f"sessions://{handle}/info"
            read = await modern_rpc(url, "resources/read", {"uri": uri}, uri)
            body = rpc_body(read)
            assert "result" in body and handle in str(body["result"]["contents"]), body
        spread = {r: sum(1 for h in handles.values() if h.startswith(f"{r}.")) for r in ("r1", "r2", "r3")}
        assert sum(1 for n in spread.values() if n) >= 2, spread
        # Each replica wrote only into the sessions it holds, and into each of them.
        for r, m in enumerate(manifests):
            written = {
                str(line.get("target")).rsplit(" ", 1)[-1]
                for line in m.audit_lines()
                if line.get("capability") == "terminal.write"
            }
            mine = {h for h in handles.values() if h.startswith(f"r{r + 1}.")}
            assert written == mine, (r, written, mine)

        # A replica handed another replica's handle says where it belongs, not "not found".
        direct = f"http://127.0.0.1:{ports[0][0]}/mcp"
        wrong = text(await modern_call(direct, "terminal_execute", {"session_id": "r3.pty-000001", "command": "id"}, {}))
        assert 'made by replica "r3", and this is replica "r1"' in wrong, wrong

        # Kill r2: its clients' next calls get the 503 that says what was lost; others go on.
        procs[1].send_signal(signal.SIGKILL)
        procs[1].wait(timeout=10)
        deadline = time.monotonic() + 10
        while server_state(tmp_path).get("r2") != "DOWN":
            assert time.monotonic() < deadline, server_state(tmp_path)
            await anyio.sleep(0.1)
        for i, handle in handles.items():
            ran = await modern_call(url, "terminal_execute", {"session_id": handle, "command": f"echo after-{i}"}, {})
            if handle.startswith("r2."):
                assert ran.status_code == 503, (ran.status_code, ran.text)
                assert "session or task handle" in ran.text, ran.text
            else:
                assert f"after-{i}" in text(ran), text(ran)
        # A new session goes to a live replica.
        fresh = rpc_body(await modern_call(url, "terminal_open", {}, {}))["result"]["structuredContent"]["id"]
        assert not fresh.startswith("r2."), fresh

        # Closing asks the user first (an input round): the retry carries the state sealed by
        # the replica that asked, under its name, and reaches it again.
        for handle in [h for h in handles.values() if not h.startswith("r2.")] + [fresh]:
            args = {"session_id": handle}
            asked = rpc_body(await modern_call(url, "terminal_close", args, ALL_CAPABILITIES))["result"]
            assert asked["resultType"] == "input_required", asked
            assert asked["requestState"].startswith(handle.split(".")[0] + "."), asked["requestState"][:20]
            (key, _), = asked["inputRequests"].items()
            yes = {key: {"action": "accept", "content": {"approve": True}}}
            closed = rpc_body(
                await modern_call(url, "terminal_close", args, ALL_CAPABILITIES, inputResponses=yes, requestState=asked["requestState"])
            )
            assert "error" not in closed and closed["result"].get("isError") is not True, closed
        # A call that names no session: only the state's replica name routes the retry.
        for n in range(6):
            args = {"text": f"approved {n}"}
            asked = rpc_body(await modern_call(url, "echo", args, ALL_CAPABILITIES))["result"]
            (key, _), = asked["inputRequests"].items()
            yes = {key: {"action": "accept", "content": {"approve": True}}}
            done = rpc_body(await modern_call(url, "echo", args, ALL_CAPABILITIES, inputResponses=yes, requestState=asked["requestState"]))
            assert "error" not in done and f"approved {n}" in str(done["result"]["content"]), done
    print(f"stateless: {STATELESS_CLIENTS} clients over replicas {spread}")


async def test_rate_limits_pass_through_the_load_balancer_per_client(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, tmp_path
):
    """Named clients with bearer tokens keep to one replica (HAProxy hashes the
    Authorization header), so a client's rate limit holds across the fleet; its 429 and
    Retry-After reach it unchanged, and another client is not slowed."""
    tokens = {name: f"{name}-token-{os.urandom(12).hex()}" for name in ("alice", "bob")}
    clients = (
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\nrate = "5/min"\n\n'
        '[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n'
    )
    manifests = [
        write_manifest(clients + helpers.plugin_block("echo", echo_wasm), name=f"r{i}.toml", audit=f"r{i}.jsonl")
        for i in (1, 2, 3)
    ]
    env = {**warden_env, **{f"{n.upper()}_TOKEN": t for n, t in tokens.items()}}
    ports = [(free_port(), free_port()) for _ in range(3)]
    lb = free_port()
    url = f"http://127.0.0.1:{lb}/mcp"
    with contextlib.ExitStack() as stack:
        for i, (m, (mcp, admin)) in enumerate(zip(manifests, ports)):
            stack.enter_context(
                serve(warden_bin, m.path, env, f"127.0.0.1:{mcp}", admin=f"127.0.0.1:{admin}", log_name=f"r{i + 1}.log", replica=f"r{i + 1}")
            )
        stack.enter_context(haproxy(tmp_path, lb, ports))

        async def echo(who: str, n: int) -> httpx2.Response:
            auth = {"Authorization": f"Bearer {tokens[who]}"}
            params = {"name": "echo", "arguments": {"text": f"{who} {n}"}}
            return await modern_rpc(url, "tools/call", params, "echo", auth)

        flood = [await echo("alice", n) for n in range(20)]
        statuses = [r.status_code for r in flood]
        assert statuses[:5] == [200] * 5, statuses
        limited = [r for r in flood if r.status_code == 429]
        assert len(limited) == 15, statuses
        assert all(int(r.headers["retry-after"]) >= 1 for r in limited), limited[0].headers
        assert "rate limit of 5/min" in limited[0].text, limited[0].text
        bob = [(await echo("bob", n)).status_code for n in range(10)]
        assert bob == [200] * 10, bob
    # Each client's calls were all answered by one replica.
    for who in ("alice", "bob"):
        holders = [
            i for i, m in enumerate(manifests)
            if any(line.get("event") == "tool_call" and str(line.get("client")).startswith(f"{who} ") for line in m.audit_lines())
        ]
        assert len(holders) == 1, (who, holders)
