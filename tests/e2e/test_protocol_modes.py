"""Every protocol mode of the official Python SDK client against Warden, over stdio and HTTP.

`mcp.Client(mode=...)` selects the protocol: "legacy" runs the initialize handshake at the
newest handshake revision (2025-11-25); a modern version string ("2026-07-28") speaks the
stateless per-request envelope (`_meta` protocol version, client info and capabilities, no
initialize); "auto" probes `server/discover` first. Each combination lists and calls tools,
lists and reads resources, follows progress, and cancels a running call. The raw tests pin
the revisions served: 2025-06-18 and 2025-11-25 by initialize, 2026-07-28 by server/discover.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from test_http import ACCEPT, free_port, http_warden

pytestmark = pytest.mark.anyio

LEGACY = "legacy"
MODERN = "2026-07-28"


@pytest.fixture()
def modes_manifest(write_manifest, helpers, echo_wasm, hostile_wasm):
    body = helpers.plugin_block("echo", echo_wasm)
    body += helpers.plugin_block(
        "hostile", hostile_wasm, 'tools = { allow = ["spin_checking"] }\nlimits = { call_timeout = "60s" }'
    )
    return write_manifest(body)


@contextlib.asynccontextmanager
async def connect(
    transport: str, mode: str, warden_bin: Path, manifest, env: dict[str, str], **options: Any
) -> AsyncIterator[Client]:
    if transport == "stdio":
        params = StdioServerParameters(
            command=str(warden_bin),
            args=["serve", "--manifest", str(manifest.path)],
            env=env,
            cwd=str(manifest.path.parent),
        )
        async with Client(params, mode=mode, cache=None, **options) as client:
            yield client
    else:
        port = free_port()
        with http_warden(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
            async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode, cache=None, **options) as client:
                yield client


def tool_calls(manifest, tool: str) -> list[dict[str, Any]]:
    return [line for line in manifest.audit_lines() if line["event"] == "tool_call" and line["tool"] == tool]


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_client_mode(transport, mode, warden_bin, warden_env, modes_manifest, helpers):
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    async with connect(transport, mode, warden_bin, modes_manifest, warden_env, logging_callback=on_log) as client:
        expected = "2025-11-25" if mode == LEGACY else MODERN
        assert client.protocol_version == expected

        with anyio.fail_after(30):
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"echo", "progress", "log", "count", "spin_checking"} <= names, names

            result = await client.call_tool("echo", {"text": f"{transport} {mode}"})
            assert not result.is_error, helpers.text_of(result)
            assert result.structured_content == {"text": f"{transport} {mode}"}

            uris = {str(r.uri) for r in (await client.list_resources()).resources}
            assert "echo://count" in uris, uris
            templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
            assert "echo://say/{text}" in templates, templates
            read = await client.read_resource("echo://say/hello")
            assert [c.text for c in read.contents] == ["hello"], read

            seen: list[tuple[float, float | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append((progress, total))

            result = await client.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
            assert not result.is_error and helpers.text_of(result) == "done", result
            assert seen == [(1, 3), (2, 3), (3, 3)], seen

            # Plugin logs: an initialize-era session gets info and above by default; a
            # 2026-07-28 request gets none unless its _meta asks for a level.
            result = await client.call_tool("log", {"level": "info", "message": "hello log"})
            assert not result.is_error, helpers.text_of(result)
            await anyio.sleep(0.2)
            received = [entry.data for entry in logs]
            assert received == (["hello log"] if mode == LEGACY else []), received
            if mode == MODERN:
                asked = {"io.modelcontextprotocol/logLevel": "info"}
                result = await client.call_tool("log", {"level": "info", "message": "asked"}, meta=asked)
                assert not result.is_error, helpers.text_of(result)
                await anyio.sleep(0.2)
                assert [entry.data for entry in logs] == ["asked"], logs

        # Cancel a call that runs until it notices the cancellation.
        outcome: dict[str, Any] = {}
        scope = anyio.CancelScope()

        async def run() -> None:
            with scope:
                outcome["result"] = await client.call_tool("spin_checking", {})

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await anyio.sleep(0.5)
            scope.cancel()
        assert "result" not in outcome, f"spin_checking returned before it was cancelled: {outcome}"

        lines = await helpers.wait_for(lambda: tool_calls(modes_manifest, "spin_checking"), timeout=10)
        # The guest saw the cancellation (it then returns "stopped", audited as ok) or the
        # host interrupted it; either way well before its 60 s call timeout.
        assert len(lines) == 1 and lines[0]["outcome"] in ("cancelled", "ok"), lines
        assert lines[0]["duration_ms"] < 5000, lines
        # The plugin is free again: calls into one instance are serialized.
        with anyio.fail_after(15):
            result = await client.call_tool("count", {})
        assert not result.is_error, helpers.text_of(result)


def initialize(version: str, request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }


def discover(request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }


def stdio_exchange(warden_bin: Path, manifest, env: dict[str, str], message: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [str(warden_bin), "serve", "--manifest", str(manifest.path)],
        input=json.dumps(message) + "\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert replies, f"no reply on stdout; stderr: {done.stderr[-2000:]}"
    return replies[0]


async def http_exchange(url: str, message: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    async with httpx2.AsyncClient() as client:
        response = await client.post(url, json=message, headers={**ACCEPT, **headers})
    assert response.status_code == 200, response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        replies = [json.loads(d) for d in data if d]
        return next(r for r in replies if r.get("id") == message["id"])
    return response.json()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_every_revision_is_served(transport, warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    probes = [
        (initialize("2025-06-18"), {}),
        (initialize("2025-11-25"), {}),
        (discover(), {"MCP-Protocol-Version": MODERN, "Mcp-Method": "server/discover"}),
    ]
    replies = []
    if transport == "stdio":
        replies = [stdio_exchange(warden_bin, manifest, warden_env, message) for message, _ in probes]
    else:
        port = free_port()
        with http_warden(warden_bin, manifest.path, warden_env, f"127.0.0.1:{port}"):
            for message, headers in probes:
                replies.append(await http_exchange(f"http://127.0.0.1:{port}/mcp", message, headers))

    old, current, modern = (reply.get("result") for reply in replies)
    assert old and old["protocolVersion"] == "2025-06-18", replies[0]
    assert current and current["protocolVersion"] == "2025-11-25", replies[1]
    assert modern, replies[2]
    assert MODERN in modern["supportedVersions"], modern
    assert "tools" in modern["capabilities"], modern
    assert modern.get("resultType") == "complete", modern


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_listening_modern_client_hears_of_a_reload(
    transport, warden_bin, warden_env, write_manifest, helpers, echo_wasm
):
    """2026-07-28 has no sessions to notify: a client learns of a changed tool list (a manifest
    reload) through `subscriptions/listen`."""
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    async with connect(transport, MODERN, warden_bin, manifest, warden_env) as client:
        with anyio.fail_after(30):
            assert "progress" in {t.name for t in (await client.list_tools()).tools}
            async with client.listen(tools_list_changed=True) as subscription:
                write_manifest(helpers.plugin_block("echo", echo_wasm, 'tools = { deny = ["progress"] }'))
                async for event in subscription:
                    break
                else:
                    pytest.fail("the subscription ended without an event")
            names = {t.name for t in (await client.list_tools()).tools}
            assert "progress" not in names and "echo" in names, names
