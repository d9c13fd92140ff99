"""MCP servers built as components, served as plugins: one on `wasi:http/incoming-handler`
(streamable HTTP, as `wasmtime serve` runs it and wasmcp composes them) and one compiled as
a `wasi:cli/run` command (MCP's stdio transport), both without the Warden SDK. Warden speaks
MCP to each in-process; their tools, prompts and resources are listed with the plugin's
prefix beside a normal plugin's and called through the official Python client. Their
network and files pass the same grants as any plugin's, asserted on servers that receive
nothing ungranted; the host's token reaches the API and never the component's answer. The
hostile tools (a flood of messages, one endless message, no answer, not JSON-RPC) each
get a clear error within the plugin's limits, while the other plugins answer, also for a
second bearer client over HTTP while the first one's call spins."""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp import types

from api_site import start_api
from ops_helpers import free_port, serve
from test_roles import MODERN, as_, call

pytestmark = pytest.mark.anyio

WASM_DIR = Path(__file__).resolve().parents[2] / "target" / "wasm" / "wasm32-wasip2" / "wasm-component"
SERVERS = {"web": "mcp_http", "cli": "mcp_stdio"}


def component(name: str) -> Path:
    path = Path(os.environ.get(f"{name.upper()}_WASM", WASM_DIR / f"warden_guest_{name}.wasm"))
    if not path.is_file():
        pytest.fail(f"{path} does not exist; run `cargo build --release -p warden -p warden-tests` first")
    return path


def manifest_text(helpers, echo_wasm: Path, api, clients: str = "") -> str:
    blocks = [clients, f"""[credentials.api]
kind = "bearer"
env = "API_TOKEN"
origins = ["{api.origin}"]
"""]
    for prefix, name in SERVERS.items():
        blocks.append(helpers.plugin_block(
            f"{prefix}_server",
            component(name),
            f'tool_prefix = "{prefix}_"\n'
            f'grants.http = {{ origins = ["{api.origin}"], credentials = ["api"], methods = ["GET", "POST"], max_request_body = "64KiB" }}\n'
            'grants.files = [{ host = "served", guest = "/data" }]\n'
            f'grants.env = {{ vars = {{ FIXTURE_NAME = "{prefix}", PLAN = "gold" }} }}\n'
            'limits.call_timeout = "3s"\nlimits.output = "64KiB"',
        ))
    blocks.append(helpers.plugin_block("bare_server", component("mcp_http"), 'tool_prefix = "bare_"\nlimits.call_timeout = "3s"'))
    blocks.append(helpers.plugin_block("echo", echo_wasm))
    return "\n".join(blocks)


async def test_mcp_server_components_serve_tools_prompts_and_resources_through_grants(
    tmp_path: Path, start_warden, write_manifest, helpers, echo_wasm, warden_bin, warden_env
) -> None:
    api, stray = start_api("127.0.0.1"), start_api("127.0.0.3")
    token = "tok-" + secrets.token_hex(16)
    (tmp_path / "served").mkdir()
    (tmp_path / "served" / "hello.txt").write_text("hello from a granted directory")
    manifest = write_manifest(manifest_text(helpers, echo_wasm, api))
    try:
        async with start_warden(manifest, env={"API_TOKEN": token}) as w:
            tools = {t.name: t for t in (await w.session.list_tools()).tools}
            for prefix in ("web_", "cli_", "bare_"):
                for tool in ("add", "fetch", "read_file", "progress", "spin"):
                    assert prefix + tool in tools, sorted(tools)
            assert "echo" in tools
            assert tools["web_add"].input_schema["required"] == ["a", "b"], tools["web_add"].input_schema
            assert tools["cli_add"].description == "Adds two numbers."
            prompts = {p.name for p in (await w.session.list_prompts()).prompts}
            assert {"web_greet", "cli_greet", "bare_greet"} <= prompts, prompts
            resources = {str(r.uri) for r in (await w.session.list_resources()).resources}
            assert {"fixture://web/motd", "fixture://cli/motd", "fixture://bare/motd"} <= resources, resources

            for prefix in ("web", "cli"):
                added = await w.call(f"{prefix}_add", {"a": 2, "b": 3})
                assert not added.is_error, helpers.text_of(added)
                assert helpers.text_of(added) == "5" and added.structured_content == {"sum": 5}, added
                wrong = await w.call(f"{prefix}_add", {"a": "two", "b": 3})
                assert wrong.is_error, helpers.text_of(wrong)
                failed = await w.call(f"{prefix}_fail")
                assert failed.is_error and "the weather service is down" in helpers.text_of(failed), helpers.text_of(failed)

                prompt = await w.session.get_prompt(f"{prefix}_greet", {"name": "Ada"})
                assert prompt.messages[0].content.text == "Say hello to Ada.", prompt
                read = await w.session.read_resource(f"fixture://{prefix}/motd")
                assert read.contents[0].text == "served from a component", read
                completed = await w.session.complete(
                    types.PromptReference(type="ref/prompt", name=f"{prefix}_greet"), {"name": "name", "value": "A"}
                )
                assert completed.completion.values == ["Ada", "Alan"], completed

                # Files, environment and network through the plugin's grants.
                got = await w.call(f"{prefix}_read_file", {"path": "/data/hello.txt"})
                assert helpers.text_of(got) == "hello from a granted directory", helpers.text_of(got)
                assert helpers.text_of(await w.call(f"{prefix}_env", {"name": "PLAN"})) == "gold"
                before = len(api.received)
                fetched = await w.call(f"{prefix}_fetch", {"url": api.url(f"/echo?from={prefix}")})
                fetched_text = helpers.text_of(fetched)
                assert not fetched.is_error and fetched_text.startswith("200 "), fetched_text
                got = api.received[before:]
                assert [r.path for r in got] == [f"/echo?from={prefix}"], got
                assert got[0].headers.get("authorization") == f"Bearer {token}", got[0].headers
                assert token not in fetched_text and "[credential]" in fetched_text, fetched_text
                stray_call = await w.call(f"{prefix}_fetch", {"url": stray.url("/landing")})
                assert stray_call.is_error, helpers.text_of(stray_call)
                assert f'add "{stray.origin}" to grants.http.origins' in helpers.text_of(stray_call)

                # A body streamed through raw wasi:http with no length declared: under
                # grants.http.max_request_body it arrives whole; over it the host stops it at
                # the cap, and the API never receives the body.
                small = await w.call(f"{prefix}_post_stream", {"url": api.url(f"/upload?small={prefix}"), "bytes": 1000})
                assert helpers.text_of(small) == "200 1000", helpers.text_of(small)
                big = await w.call(f"{prefix}_post_stream", {"url": api.url(f"/upload?big={prefix}"), "bytes": 1_000_000})
                big_text = helpers.text_of(big)
                assert big.is_error and "HttpRequestBodySize" in big_text, big_text
                assert not [r for r in api.received if r.path == f"/upload?big={prefix}" and len(r.body) > 64 * 1024], big_text

                # Progress and log notifications of the server reach the client.
                seen: list[float] = []

                async def on_progress(done: float, total: float | None, message: str | None) -> None:
                    seen.append(done)

                with anyio.fail_after(30):
                    done = await w.session.call_tool(f"{prefix}_progress", {}, progress_callback=on_progress)
                assert helpers.text_of(done) == "done", done
                assert seen == [1, 2, 3], seen
                # The server asks the client something; the host refuses it for the client,
                # and the server answers all the same.
                asked = await w.call(f"{prefix}_ask_first")
                assert helpers.text_of(asked) == "answered after asking", helpers.text_of(asked)

            # The same component without grants: refused, naming what to grant; nothing
            # reached the API or the directory.
            before = len(api.received)
            bare = await w.call("bare_fetch", {"url": api.url("/echo")})
            assert bare.is_error and f'add "{api.origin}" to grants.http.origins' in helpers.text_of(bare), helpers.text_of(bare)
            assert len(api.received) == before, api.received[before:]
            bare = await w.call("bare_read_file", {"path": "/data/hello.txt"})
            assert bare.is_error and "grants.files" in helpers.text_of(bare), helpers.text_of(bare)
            bare = await w.call("bare_env", {"name": "PLAN"})
            assert bare.is_error and "grants.env" in helpers.text_of(bare), helpers.text_of(bare)
            assert stray.connections == 0, stray.received
            await w.assert_echo()
            stderr = w.stderr()
    finally:
        api.close()
        stray.close()

    check = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(manifest.path)],
        capture_output=True, text=True, env={**os.environ, **warden_env, "API_TOKEN": token}, timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    web_part = check.stdout.split("plugin 'web_server'")[1].split("plugin '")[0]
    assert "served as: an MCP server component over wasi:http/incoming-handler" in web_part, web_part
    assert "wasi:http/outgoing-handler" in web_part and 'credentials = ["api"]' in web_part, web_part
    cli_part = check.stdout.split("plugin 'cli_server'")[1].split("plugin '")[0]
    assert "served as: an MCP server component over wasi:cli/run" in cli_part, cli_part
    assert "web_add" in web_part and "cli_add" in cli_part, check.stdout
    assert token not in check.stdout + check.stderr

    assert "served as an MCP server component over wasi:http/incoming-handler" in stderr, stderr[-3000:]
    assert "served as an MCP server component over wasi:cli/run" in stderr, stderr[-3000:]
    assert "halfway there" in stderr, stderr[-3000:]
    assert "fixture MCP server on stdio: ready" in stderr, stderr[-3000:]
    assert token not in stderr and token not in manifest.audit.read_text()
    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    http_denied = {(l["plugin"], l["target"]) for l in lines if l["event"] == "capability_denied" and l["capability"] == "wasi:http"}
    assert http_denied == {
        ("web_server", f"GET {stray.origin}/landing"),
        ("cli_server", f"GET {stray.origin}/landing"),
        ("bare_server", f"GET {api.origin}/echo"),
    }, http_denied
    # The streamed bodies over the cap: stopped at it, audited as such.
    stopped = [l for l in lines if l["event"] == "capability_used" and l.get("capability") == "wasi:http"
               and l.get("error") == "body_too_large"]
    assert {l["plugin"] for l in stopped} == {"web_server", "cli_server"}, stopped
    assert all(l["target"].endswith("/upload") and l.get("bytes_sent", 0) <= 64 * 1024 for l in stopped), stopped
    calls = {(l["plugin"], l["tool"]) for l in lines if l["event"] == "tool_call"}
    assert ("web_server", "web_add") in calls and ("cli_server", "cli_add") in calls, calls


async def test_hostile_mcp_servers_stay_within_their_limits_while_others_answer(
    tmp_path: Path, start_warden, write_manifest, helpers, echo_wasm
) -> None:
    api = start_api("127.0.0.1")
    (tmp_path / "served").mkdir()
    manifest = write_manifest(manifest_text(helpers, echo_wasm, api))
    try:
        async with start_warden(manifest, env={"API_TOKEN": "t"}) as w:
            rss_before = w.process().memory_info().rss
            expected = {
                "flood": "four times its limits.output",
                "flood_one": "a message of more than 131072 bytes",
                "spin": "exceeded its call_timeout of 3s",
                "garbage": "not a JSON-RPC message",
            }
            for prefix in ("web", "cli"):
                for tool, said in expected.items():
                    result = await w.call(f"{prefix}_{tool}")
                    text = helpers.text_of(result)
                    assert result.is_error and said in text, (prefix, tool, text)
                    await w.assert_echo()
                    added = await w.call(f"{prefix}_add", {"a": 1, "b": 1})
                    assert helpers.text_of(added) == "2", helpers.text_of(added)

            # A spinning call of each server holds its own instance; the other plugins, and
            # other calls of the same servers, answer meanwhile.
            answered: dict[str, float] = {}
            async with anyio.create_task_group() as tg:
                start = time.monotonic()
                for prefix in ("web", "cli"):
                    tg.start_soon(w.call, f"{prefix}_spin")
                await anyio.sleep(0.3)
                await w.assert_echo()
                answered["echo"] = time.monotonic() - start
                for prefix in ("web", "cli"):
                    added = await w.call(f"{prefix}_add", {"a": 2, "b": 2})
                    assert helpers.text_of(added) == "4"
                    answered[prefix] = time.monotonic() - start
            assert max(answered.values()) < 3, answered
            growth = w.process().memory_info().rss - rss_before
            assert growth < 200 * 1024 * 1024, f"warden grew by {growth} bytes"
    finally:
        api.close()
    outcomes = [(l["plugin"], l["tool"], l["outcome"]) for l in manifest.audit_lines() if l["event"] == "tool_call"]
    assert ("web_server", "web_spin", "timeout") in outcomes and ("cli_server", "cli_spin", "timeout") in outcomes, outcomes


async def test_two_bearer_clients_over_http_one_spinning_one_answered(
    tmp_path: Path, write_manifest, helpers, echo_wasm, warden_bin, warden_env
) -> None:
    api = start_api("127.0.0.1")
    (tmp_path / "served").mkdir()
    clients = """[server.http.clients.alice]
token_env = "ALICE_TOKEN"

[server.http.clients.bob]
token_env = "BOB_TOKEN"
"""
    manifest = write_manifest(manifest_text(helpers, echo_wasm, api, clients))
    tokens = {name: f"{name}-{os.urandom(12).hex()}" for name in ("alice", "bob")}
    env = {**warden_env, "API_TOKEN": "t", "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    port = free_port()
    w = {"url": f"http://127.0.0.1:{port}/mcp", "tokens": tokens}
    try:
        with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
            async with as_(w, "alice", MODERN) as alice, as_(w, "bob", MODERN) as bob:
                spins: list[tuple[bool, str]] = []

                async def spin(prefix: str) -> None:
                    spins.append(await call(alice, f"{prefix}_spin"))

                async with anyio.create_task_group() as tg:
                    start = time.monotonic()
                    for prefix in ("web", "cli"):
                        tg.start_soon(spin, prefix)
                    await anyio.sleep(0.3)
                    for prefix in ("web", "cli"):
                        failed, text = await call(bob, f"{prefix}_add", {"a": 20, "b": 22})
                        assert not failed and text == "42", text
                    assert time.monotonic() - start < 3
                assert all(failed and "call_timeout" in text for failed, text in spins), spins
    finally:
        api.close()
    by_client = {(l.get("client", "").split(" ")[0], l["tool"], l["outcome"]) for l in manifest.audit_lines() if l["event"] == "tool_call"}
    assert {("alice", "web_spin", "timeout"), ("alice", "cli_spin", "timeout"), ("bob", "web_add", "ok"), ("bob", "cli_add", "ok")} <= by_client, by_client
