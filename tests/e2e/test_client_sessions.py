"""Two users on one `warden serve --http`, each with a bearer token of their own: a terminal,
SSH or remote-desktop session belongs to the client that opened it. The other user cannot
list it, attach to it by id, type into it, read its scrollback resource, hear of its output
through a subscription, or name it to SFTP; its owner comes back to it from a new MCP
session. The host enforces this (the terminal plugin keeps no state of its own)."""

from __future__ import annotations

import contextlib
import os

import anyio
import mcp_types
import pytest

from conftest import text_of
from ops_helpers import free_port, mcp_session, serve
from rdp_server import rdp_server  # noqa: F401

pytestmark = [pytest.mark.anyio]


async def call(session, tool: str, args: dict | None = None) -> tuple[bool, str, dict]:
    with anyio.fail_after(90):
        result = await session.call_tool(tool, args or {})
    return bool(result.is_error), text_of(result), result.structured_content or {}


async def ok(session, tool: str, args: dict | None = None) -> tuple[str, dict]:
    failed, text, structured = await call(session, tool, args)
    assert not failed, f"{tool} failed: {text}"
    return text, structured


async def refused(session, tool: str, args: dict) -> str:
    failed, text, _ = await call(session, tool, args)
    assert failed, f"{tool} should have been refused, got: {text}"
    return text


async def test_a_client_never_reaches_another_clients_terminal_or_desktop(
    warden_bin, warden_env, write_manifest, sshd, rdp_server, tmp_path  # noqa: F811
) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "alice.txt").write_text("alice's file\n")
    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    m = write_manifest(
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n'
        '[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n'
        + sshd.host_block()
        + rdp_server.host_block()
        + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'limits = { call_timeout = "90s" }\n'
        'grants.terminal = { ssh_hosts = ["box"], local = true }\n'
        'grants.rdp = { hosts = ["desk"] }\n\n'
        '[[plugin]]\nname = "sftp"\nsource = "builtin:sftp"\n'
        f'grants.sftp = {{ hosts = ["box"], roots = ["{root}"] }}\n'
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    heard: dict[str, list[str]] = {"alice": [], "bob": []}

    def hearing(who: str):
        async def on_message(message: object) -> None:
            root_message = getattr(message, "root", message)
            if isinstance(root_message, mcp_types.ResourceUpdatedNotification):
                heard[who].append(str(root_message.params.uri))

        return on_message

    def as_(who: str):
        return mcp_session(
            url, headers={"Authorization": f"Bearer {tokens[who]}"}, message_handler=hearing(who)
        )

    with serve(warden_bin, m.path, env, f"127.0.0.1:{port}"):
        async with as_("alice") as alice, as_("bob") as bob:
            _, ssh = await ok(alice, "terminal_open", {"host": "box"})
            _, local = await ok(alice, "terminal_open", {})
            _, desk = await ok(alice, "terminal_open", {"rdp": "desk"})
            ids = [ssh["id"], local["id"], desk["id"]]
            text, out = await ok(alice, "terminal_execute", {"session_id": ssh["id"], "command": "echo alice-$((6*7))"})
            assert out["output"] == "alice-42", text

            # Bob sees none of them, and no door takes him in: every tool, by id.
            listed, _ = await ok(bob, "terminal_list_sessions", {})
            assert not any(i in listed for i in ids), listed
            for sid in ids:
                size = {"width": 800, "height": 600} if sid == desk["id"] else {"cols": 100, "rows": 30}
                for tool, args in (
                    ("terminal_execute", {"command": "echo bob-was-here"}),
                    ("terminal_write", {"text": "echo bob-was-here\n"}),
                    ("terminal_read", {}),
                    ("terminal_screen", {}),
                    ("terminal_resize", size),
                    ("terminal_close", {}),
                ):
                    answer = await refused(bob, tool, {"session_id": sid, **args})
                    assert "no session" in answer or "no remote desktop session" in answer, (tool, answer)
                    assert "alice" not in answer, answer
            for tool, args in (
                ("terminal_screenshot", {}),
                ("terminal_mouse", {"action": "click", "x": 10, "y": 10}),
                ("terminal_wait", {"until": "change", "timeout_ms": 100}),
            ):
                answer = await refused(bob, tool, {"session_id": desk["id"], **args})
                assert "no remote desktop session" in answer, (tool, answer)

            # SFTP by session id: Bob cannot borrow Alice's SSH session's host either.
            answer = await refused(bob, "sftp_read", {"session": ssh["id"], "path": "alice.txt"})
            assert "no open terminal session" in answer, answer
            text, _ = await ok(alice, "sftp_read", {"session": ssh["id"], "path": "alice.txt"})
            assert "alice's file" in text, text

            # The resources that show a session: not listed, not readable.
            listing = await bob.read_resource("sessions://list")
            assert not any(i in listing.contents[0].text for i in ids), listing
            for sid in ids:
                for uri in (f"sessions://{sid}/info", f"sessions://{sid}/scrollback"):
                    with pytest.raises(Exception, match="no (remote desktop )?session"):
                        await bob.read_resource(uri)

            # Both subscribe to Alice's scrollback: only Alice hears it change.
            uri = f"sessions://{ssh['id']}/scrollback"
            await alice.subscribe_resource(uri)
            await bob.subscribe_resource(uri)
            await ok(alice, "terminal_execute", {"session_id": ssh["id"], "command": "seq 1 50"})
            with anyio.fail_after(10):
                while uri not in heard["alice"]:
                    await anyio.sleep(0.1)
            await anyio.sleep(0.6)
            assert heard["bob"] == [], heard

            # Bob's own sessions are his, beside Alice's, and he hears of his own output.
            _, mine = await ok(bob, "terminal_open", {})
            listed, _ = await ok(bob, "terminal_list_sessions", {})
            assert mine["id"] in listed and not any(i in listed for i in ids), listed
            own = f"sessions://{mine['id']}/scrollback"
            await bob.subscribe_resource(own)
            await ok(bob, "terminal_execute", {"session_id": mine["id"], "command": "echo bob"})
            with anyio.fail_after(10):
                while own not in heard["bob"]:
                    await anyio.sleep(0.1)
            assert uri not in heard["bob"], heard
            answer = await refused(alice, "terminal_execute", {"session_id": mine["id"], "command": "id"})
            assert "no session" in answer, answer

        # Alice comes back in a new MCP session: her sessions are still hers, and untouched.
        async with as_("alice") as alice:
            listed, _ = await ok(alice, "terminal_list_sessions", {})
            assert all(i in listed for i in ids), listed
            _, out = await ok(alice, "terminal_execute", {"session_id": ssh["id"], "command": "history | tail -n 3"})
            assert "bob-was-here" not in out["output"], out
            for sid in ids:
                await ok(alice, "terminal_close", {"session_id": sid})


async def test_on_the_stateless_wire_a_listen_stream_hears_only_its_clients_sessions(
    warden_bin, warden_env, write_manifest
) -> None:
    """2026-07-28: no MCP sessions, one request per call. The sessions still belong to the
    client, and a `subscriptions/listen` stream for another client's scrollback stays silent."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    m = write_manifest(
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n'
        '[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n'
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        "grants.terminal = { local = true }\n"
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}

    @contextlib.asynccontextmanager
    async def as_(who: str):
        headers = {"Authorization": f"Bearer {tokens[who]}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28", cache=None) as c:
                yield c

    heard: dict[str, list[object]] = {"alice": [], "bob": []}

    async def listen(client, who: str, uri: str, ready: anyio.Event) -> None:
        async with client.listen(resource_subscriptions=[uri]) as subscription:
            ready.set()
            async for event in subscription:
                heard[who].append(event)

    with serve(warden_bin, m.path, env, f"127.0.0.1:{port}"):
        async with as_("alice") as alice, as_("bob") as bob:
            _, opened = await ok(alice, "terminal_open", {})
            sid = opened["id"]
            listed, _ = await ok(bob, "terminal_list_sessions", {})
            assert sid not in listed, listed
            answer = await refused(bob, "terminal_execute", {"session_id": sid, "command": "id"})
            assert "no session" in answer, answer

            uri = f"sessions://{sid}/scrollback"
            async with anyio.create_task_group() as group:
                ready = {"alice": anyio.Event(), "bob": anyio.Event()}
                group.start_soon(listen, alice, "alice", uri, ready["alice"])
                group.start_soon(listen, bob, "bob", uri, ready["bob"])
                with anyio.fail_after(10):
                    await ready["alice"].wait()
                    await ready["bob"].wait()
                await ok(alice, "terminal_execute", {"session_id": sid, "command": "seq 1 50"})
                with anyio.fail_after(10):
                    while not heard["alice"]:
                        await anyio.sleep(0.1)
                await anyio.sleep(0.6)
                group.cancel_scope.cancel()
            assert heard["bob"] == [], heard
