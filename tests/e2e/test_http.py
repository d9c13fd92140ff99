"""MCP over streamable HTTP (`warden serve --http ADDR`) with the official Python client:
the same tools as stdio, Host/Origin checks, bearer tokens per named client, and the
client's name in the audit log."""

from __future__ import annotations

import os
import subprocess

import httpx2
import pytest
from ops_helpers import free_port, mcp_session, serve

# Alone, after the parallel tests (tests/run): a request the host refuses (401, 429) before
# reading its body can find its kept-alive connection closed by the host (hyper closes a
# connection whose request body was left unread), and a loaded machine widens that window.
pytestmark = [pytest.mark.anyio, pytest.mark.serial]

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


# The HTTP server and client helpers live with the other serving helpers; the names stay
# importable from here for the test files that use them.
http_warden = serve


async def test_tools_over_http(warden_bin, warden_env, write_manifest, helpers, echo_wasm, http_server):
    manifest = write_manifest(
        helpers.plugin_block("capture", "builtin:capture", 'grants.capture = { http_hosts = ["127.0.0.1:*"] }')
        + helpers.plugin_block("echo", echo_wasm)
    )
    port = free_port()
    with http_warden(warden_bin, manifest.path, warden_env, f"127.0.0.1:{port}"):
        async with mcp_session(f"http://127.0.0.1:{port}/mcp") as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert {"http_get", "echo", "progress"} <= names, names
            result = await session.call_tool("echo", {"text": "over http"})
            assert not result.is_error and result.structured_content == {"text": "over http"}, result

            seen: list[float] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append(progress)

            result = await session.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
            assert not result.is_error and seen == [1, 2, 3], (result, seen)

            result = await session.call_tool("http_get", {"url": http_server.url("/body")})
            assert not result.is_error, helpers.text_of(result)
            assert "HTTP 200" in helpers.text_of(result)
    calls = [line for line in manifest.audit_lines() if line["event"] == "tool_call"]
    assert len(calls) == 3 and all(line["outcome"] == "ok" for line in calls), calls


async def test_origin_and_host_checks(warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(
        '[server.http]\nallowed_origins = ["http://app.example"]\n\n' + helpers.plugin_block("echo", echo_wasm)
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with http_warden(warden_bin, manifest.path, warden_env, f"127.0.0.1:{port}"):
        async with httpx2.AsyncClient() as client:
            bad_origin = await client.post(url, json=INIT, headers={**ACCEPT, "Origin": "http://evil.example"})
            assert bad_origin.status_code == 403, bad_origin.text
            bad_host = await client.post(url, json=INIT, headers={**ACCEPT, "Host": "evil.example"})
            assert bad_host.status_code == 403, bad_host.text
            good_origin = await client.post(url, json=INIT, headers={**ACCEPT, "Origin": "http://app.example"})
            assert good_origin.status_code == 200, good_origin.text
            no_origin = await client.post(url, json=INIT, headers=ACCEPT)
            assert no_origin.status_code == 200, no_origin.text
            own_origin = await client.post(url, json=INIT, headers={**ACCEPT, "Origin": f"http://127.0.0.1:{port}"})
            assert own_origin.status_code == 200, own_origin.text
            other_local_port = await client.post(url, json=INIT, headers={**ACCEPT, "Origin": "http://127.0.0.1:1"})
            assert other_local_port.status_code == 403, other_local_port.text


async def test_bearer_tokens_name_the_client_in_the_audit_log(warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    token = "t0ken-for-alice-" + os.urandom(8).hex()
    manifest = write_manifest(
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n' + helpers.plugin_block("echo", echo_wasm)
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with http_warden(warden_bin, manifest.path, {**warden_env, "ALICE_TOKEN": token}, f"127.0.0.1:{port}"):
        async with httpx2.AsyncClient() as client:
            missing = await client.post(url, json=INIT, headers=ACCEPT)
            assert missing.status_code == 401 and "Bearer" in missing.headers.get("www-authenticate", ""), missing
            wrong = await client.post(url, json=INIT, headers={**ACCEPT, "Authorization": "Bearer nope"})
            assert wrong.status_code == 401, wrong
        async with mcp_session(url, headers={"Authorization": f"Bearer {token}"}) as session:
            result = await session.call_tool("echo", {"text": "hi"})
            assert not result.is_error
    calls = [line for line in manifest.audit_lines() if line["event"] == "tool_call"]
    assert calls and calls[-1]["client"].startswith("alice ("), calls
    assert token not in manifest.audit.read_text()


def test_non_loopback_without_a_token_is_refused(warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    env = {k: v for k, v in {**os.environ, **warden_env}.items() if k != "WARDEN_HTTP_TOKEN"}
    done = subprocess.run(
        [str(warden_bin), "serve", "--manifest", str(manifest.path), "--http", f"0.0.0.0:{free_port()}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "refusing to serve" in done.stderr and "WARDEN_HTTP_TOKEN" in done.stderr, done.stderr


