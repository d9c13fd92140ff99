"""Tool groups: the manifest lists a plugin's tools by group (`tools.groups`), a group whose
grants are all missing is not listed, and a client turns an offered group (`tools.offer`) on
for itself with `tool_groups`, told by notifications/tools/list_changed. A call of a tool that
is not served to the caller is refused with the group to turn on, before any plugin runs:
asserted on what a local HTTP server received and on the audit log."""

from __future__ import annotations

import contextlib
import os
import subprocess

import anyio
import mcp_types
import pytest

from conftest import text_of
from ops_helpers import free_port, mcp_session, serve

pytestmark = pytest.mark.anyio

CORE = {"browse_navigate", "browse_snapshot", "browse_find", "browse_click", "browse_tabs", "browse_dialog",
        "browse_screenshot"}
FORMS = {"browse_fill", "browse_type", "browse_select", "browse_upload"}
TERMINAL = {"terminal_open", "terminal_execute", "terminal_screen"}


def groups_manifest(echo_wasm, hosts: str = '"127.0.0.1:*"') -> str:
    return (
        '[[plugin]]\nname = "browser"\nsource = "builtin:browser"\n'
        'tools = { groups = ["core"] }\ngrants.browser = { origins = ["https://*"] }\n\n'
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n\n'
        '[[plugin]]\nname = "capture"\nsource = "builtin:capture"\n'
        'tools = { groups = ["pages"], offer = ["http"] }\n'
        f"grants.capture = {{ http_hosts = [{hosts}], origins = [\"http://127.0.0.1:*\"] }}\n\n"
        f'[[plugin]]\nname = "echo"\nsource = "{echo_wasm}"\n'
    )


async def test_groups_per_plugin_and_a_group_turned_on_over_stdio(
    start_warden, write_manifest, echo_wasm, http_server, warden_bin, warden_env, helpers
) -> None:
    m = write_manifest(groups_manifest(echo_wasm))
    changes: list[object] = []

    async def on_message(message: object) -> None:
        if isinstance(getattr(message, "root", message), mcp_types.ToolListChangedNotification):
            changes.append(message)

    url = http_server.url("/stdio")
    async with start_warden(m, message_handler=on_message) as w:
        names = {t.name for t in (await w.session.list_tools()).tools}
        # browser: core listed, forms not chosen; terminal: no grant; capture: pages listed,
        # http offered; echo declares no groups (one group, listed).
        assert CORE <= names and not FORMS & names and not TERMINAL & names, sorted(names)
        assert {"capture_page", "echo", "tool_groups"} <= names and "http_get" not in names, sorted(names)

        fill = await w.call("browse_fill", {"ref": 1, "value": "x"})
        assert fill.is_error and '"forms"' in text_of(fill) and "tools.groups" in text_of(fill), text_of(fill)
        shell = await w.call("terminal_open", {})
        assert shell.is_error and text_of(shell).startswith("access denied") and "grants.terminal.local" in text_of(shell), \
        text_of(shell)
        off = await w.call("http_get", {"url": url})
        assert off.is_error and "capture/http" in text_of(off) and "tool_groups" in text_of(off), text_of(off)
        assert http_server.requests == [], "a refused call reached the server"

        bad = await w.call("tool_groups", {"enable": ["browser/forms"]})
        assert bad.is_error and "capture/http" in text_of(bad), text_of(bad)
        assert not changes
        on = await w.call("tool_groups", {"enable": ["capture/http"]})
        assert not on.is_error and "capture/http" in text_of(on), text_of(on)
        assert await anyio_wait(lambda: changes), "no notifications/tools/list_changed after tool_groups"
        assert "http_get" in {t.name for t in (await w.session.list_tools()).tools}
        got = await w.call("http_get", {"url": url})
        assert not got.is_error, text_of(got)
        assert http_server.requests == ["/stdio"], http_server.requests

        again = await w.call("tool_groups", {"disable": ["capture/http"]})
        assert not again.is_error, text_of(again)
        assert "http_get" not in {t.name for t in (await w.session.list_tools()).tools}
        refused_again = await w.call("http_get", {"url": url})
        assert refused_again.is_error, text_of(refused_again)
        assert http_server.requests == ["/stdio"], http_server.requests

        log = w.stderr()
        assert "group forms not listed" in log and "grants.terminal.local or grants.terminal.ssh_hosts or grants.rdp.hosts would list it" in log, log[-3000:]

    lines = m.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    calls = [line for line in lines if line["tool"] != "tool_groups"]
    denials = [line for line in calls if line["decision"] == "denied"]
    assert {d["tool"] for d in denials} == {"browse_fill", "terminal_open", "http_get"}, denials
    assert all(d["outcome"] == "denied" and d["event"] == "tool_call" for d in denials), denials
    turned = [line for line in lines if line["tool"] == "tool_groups"]
    assert [t["decision"] for t in turned] == ["denied", "allowed", "allowed"], turned
    assert "capture/http" in turned[1]["reason"] and turned[2]["reason"] == "turned on: none", turned

    # `warden check` names what is not listed and what would list it.
    check = subprocess.run([str(warden_bin), "check", "--manifest", str(m.path)], env={**os.environ, **warden_env},
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    assert "group forms not listed" in check.stdout and "grants.terminal.local or grants.terminal.ssh_hosts or grants.rdp.hosts would list it" in check.stdout, check.stdout
    assert "groups offered" in check.stdout and "http" in check.stdout, check.stdout

    # A group the plugin does not have is a load error that names the real ones.
    bad = write_manifest(groups_manifest(echo_wasm).replace('groups = ["core"]', 'groups = ["core", "flow"]'),
                         name="bad.toml")
    check = subprocess.run([str(warden_bin), "check", "--manifest", str(bad.path)], env={**os.environ, **warden_env},
                           capture_output=True, text=True, timeout=120)
    said = check.stdout + check.stderr
    assert check.returncode != 0
    assert '"flow" is not a tool group of plugin \'browser\'' in said and "flows (" in said, said


async def anyio_wait(predicate, timeout: float = 10.0) -> bool:
    with anyio.move_on_after(timeout):
        while not predicate():
            await anyio.sleep(0.02)
    return bool(predicate())


async def test_a_group_turned_on_serves_only_the_client_that_did_it(
    warden_bin, warden_env, write_manifest, echo_wasm, http_server
) -> None:
    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    m = write_manifest(
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n'
        '[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n' + groups_manifest(echo_wasm)
    )
    port = free_port()
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    heard: dict[str, list[object]] = {"alice": [], "bob": []}

    def as_(who: str):
        async def on_message(message: object) -> None:
            if isinstance(getattr(message, "root", message), mcp_types.ToolListChangedNotification):
                heard[who].append(message)

        return mcp_session(f"http://127.0.0.1:{port}/mcp", headers={"Authorization": f"Bearer {tokens[who]}"},
                           message_handler=on_message)

    with serve(warden_bin, m.path, env, f"127.0.0.1:{port}"):
        async with as_("alice") as alice, as_("bob") as bob:
            on = await alice.call_tool("tool_groups", {"enable": ["capture/http"]})
            assert not on.is_error, text_of(on)
            assert await anyio_wait(lambda: heard["alice"]), "alice was not told her tool list changed"

            got = await alice.call_tool("http_get", {"url": http_server.url("/alice")})
            assert not got.is_error, text_of(got)
            assert "http_get" in {t.name for t in (await alice.list_tools()).tools}

            # Bob's list and calls are his own: alice's choice changes neither, nor is he told.
            assert "http_get" not in {t.name for t in (await bob.list_tools()).tools}
            refused = await bob.call_tool("http_get", {"url": http_server.url("/bob")})
            assert refused.is_error and "tool_groups" in text_of(refused), text_of(refused)
            assert not heard["bob"], heard["bob"]

        # A new session of alice starts with the manifest's list again.
        async with as_("alice") as alice_again:
            assert "http_get" not in {t.name for t in (await alice_again.list_tools()).tools}

        # The stateless wire (2026-07-28) has no session to notify: a client hears of its own
        # list's change on its `subscriptions/listen` streams, and another client's stay silent.
        async with stateless(port, tokens["alice"]) as alice, stateless(port, tokens["bob"]) as bob:
            events: dict[str, list[object]] = {"alice": [], "bob": []}

            async def listen(client, who: str, ready: anyio.Event) -> None:
                async with client.listen(tools_list_changed=True) as subscription:
                    ready.set()
                    async for event in subscription:
                        events[who].append(event)

            async with anyio.create_task_group() as group:
                ready = {"alice": anyio.Event(), "bob": anyio.Event()}
                for who, client in (("alice", alice), ("bob", bob)):
                    group.start_soon(listen, client, who, ready[who])
                with anyio.fail_after(10):
                    await ready["alice"].wait()
                    await ready["bob"].wait()
                on = await alice.call_tool("tool_groups", {"enable": ["capture/http"]})
                assert not on.is_error, text_of(on)
                assert await anyio_wait(lambda: events["alice"]), "alice's listen stream was not told"
                assert "http_get" in {t.name for t in (await alice.list_tools()).tools}
                assert "http_get" not in {t.name for t in (await bob.list_tools()).tools}
                await anyio.sleep(0.5)
                group.cancel_scope.cancel()
            assert events["bob"] == [], events["bob"]
            off = await alice.call_tool("tool_groups", {"disable": ["capture/http"]})
            assert not off.is_error, text_of(off)

    assert http_server.requests == ["/alice"], http_server.requests
    denied = [line for line in m.audit_lines() if line.get("tool") == "http_get" and line.get("decision") == "denied"]
    assert len(denied) == 1 and "bob" in (denied[0].get("client") or ""), denied


@contextlib.asynccontextmanager
async def stateless(port: int, token: str):
    """A 2026-07-28 client (one request per call, no session) with a bearer token."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28", cache=None) as client:
            yield client


def test_the_built_in_default_lists_browsing_and_hides_what_it_does_not_grant(warden_bin, warden_env, tmp_path) -> None:
    out = subprocess.run([str(warden_bin), "check"], env={**os.environ, **warden_env}, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    tools_lines = [line for line in text.splitlines() if line.strip().startswith("tools:")]
    listed = {name.strip() for line in tools_lines for name in line.split(":", 1)[1].split(",")}
    assert CORE | FORMS <= listed, sorted(listed)
    assert not TERMINAL & listed and not {"sftp_read", "capture_page", "browse_eval_js"} & listed, sorted(listed)
    assert "grants.terminal.local or grants.terminal.ssh_hosts or grants.rdp.hosts would list it" in text and "grants.sftp.hosts would list it" in text, text
    assert "groups offered" in text, text
