"""The experimental tasks of MCP 2025-11-25 on initialize sessions, over stdio and HTTP, with
the official Python client: the `tasks` capability and each tool's `execution.taskSupport`, a
`tools/call` with `task` answered by a `CreateTaskResult`, a task polled with `tasks/get` and
read with `tasks/result`, `tasks/list`, a task cancelled (the plugin's call is cancelled, the
audit line says so), a task that asks the user mid-run (`input_required` while the client
answers the elicitation request the task sends), a `required` tool, unknown ids, and another
HTTP client (another token, another session) that can neither see, read nor cancel the task.

`mcp` 2.3.0 types every 2025-11-25 task message (`mcp_types._v2025_11_25`) but leaves the
methods out of its session surface ("tasks/* deliberately absent"): its `send_request` would
check a task-making `tools/call` answer against `CallToolResult`. So the tests send through
the official client's own dispatcher (with the session's headers) and check every answer
against the SDK's 2025-11-25 wire models.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types._v2025_11_25 as v2025
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitResult
from test_http import free_port, http_warden

# Alone, after the parallel tests (tests/run): under a second worker's load a task that asks the
# user was once already `input_required` in the answer that created it, where the test expects
# `working`.
pytestmark = [pytest.mark.anyio, pytest.mark.serial]

RELATED = "io.modelcontextprotocol/related-task"
UNKNOWN = "0" * 32


@pytest.fixture()
def manifest(write_manifest, helpers, conformance_wasm):
    return write_manifest(helpers.plugin_block("fixture", conformance_wasm))


@contextlib.asynccontextmanager
async def session_on(transport: str, warden_bin, manifest, env, **options: Any) -> AsyncIterator[tuple]:
    """(session, initialize result, url) of a 2025-11-25 session; url is None on stdio."""
    if transport == "stdio":
        params = StdioServerParameters(
            command=str(warden_bin),
            args=["serve", "--manifest", str(manifest.path)],
            env=env,
            cwd=str(manifest.path.parent),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write, **options) as session:
            with anyio.fail_after(30):
                init = await session.initialize()
            yield session, init, None
    else:
        port = free_port()
        with http_warden(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
            url = f"http://127.0.0.1:{port}/mcp"
            async with http_session(url, **options) as (session, init):
                yield session, init, url


@contextlib.asynccontextmanager
async def http_session(url: str, headers: dict[str, str] | None = None, **options: Any):
    async with (
        create_mcp_http_client(headers=headers) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write, **options) as session,
    ):
        with anyio.fail_after(30):
            init = await session.initialize()
        yield session, init


async def raw(session: ClientSession, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Send through the client's dispatcher, stamped as the session stamps its requests."""
    data: dict[str, Any] = {"method": method, "params": params}
    opts: dict[str, Any] = {"timeout": 60}
    session._stamp(data, opts)
    return await session._dispatcher.send_raw_request(method, data["params"], opts)


async def call_as_task(session: ClientSession, name: str, arguments: dict[str, Any]) -> v2025.Task:
    answer = await raw(session, "tools/call", {"name": name, "arguments": arguments, "task": {"ttl": 60_000}})
    created = v2025.CreateTaskResult.model_validate(answer)
    assert created.task.status == "working", answer
    assert len(created.task.task_id) == 32 and created.task.ttl and created.task.poll_interval, answer
    return created.task


async def get(session: ClientSession, task_id: str) -> v2025.GetTaskResult:
    return v2025.GetTaskResult.model_validate(await raw(session, "tasks/get", {"taskId": task_id}))


async def wait_for(session: ClientSession, task_id: str, *statuses: str, timeout: float = 30) -> v2025.GetTaskResult:
    with anyio.fail_after(timeout):
        while True:
            task = await get(session, task_id)
            if task.status in statuses:
                return task
            await anyio.sleep(0.1)


async def result(session: ClientSession, task_id: str) -> v2025.CallToolResult:
    answer = await raw(session, "tasks/result", {"taskId": task_id})
    assert answer["_meta"][RELATED] == {"taskId": task_id}, answer
    return v2025.CallToolResult.model_validate(answer)


def text(result: v2025.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, v2025.TextContent))


def tool_calls(manifest, tool: str, timeout: float = 10) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        lines = [x for x in manifest.audit_lines() if x.get("tool") == tool and x["event"] == "tool_call"]
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_task_is_polled_then_read(transport, warden_bin, warden_env, manifest):
    async with session_on(transport, warden_bin, manifest, warden_env) as (session, init, _):
        assert init.protocol_version == "2025-11-25"
        tasks = init.capabilities.tasks
        assert tasks is not None and tasks.list is not None and tasks.cancel is not None, init.capabilities
        assert tasks.requests is not None and tasks.requests.tools is not None
        support = {t.name: t.execution.task_support for t in (await session.list_tools()).tools if t.execution}
        # Absent means "forbidden": only tools that run as tasks carry `execution`.
        assert "greet" not in support, support
        assert support["slow_compute"] == "optional"
        assert support["failing_job"] == "required"

        task = await call_as_task(session, "slow_compute", {"seconds": 1.5})
        seen = await get(session, task.task_id)
        assert seen.status in ("working", "completed") and seen.created_at == task.created_at
        done = await wait_for(session, task.task_id, "completed", "failed")
        assert done.status == "completed", done
        assert text(await result(session, task.task_id)) == "Computed after 1.5 seconds"

        # tasks/result waits for the end by itself; a tool error is a failed task whose
        # result is the tool's own (isError).
        task = await call_as_task(session, "failing_job", {})
        failed = await result(session, task.task_id)
        assert failed.is_error and "the job failed" in text(failed)
        assert (await get(session, task.task_id)).status == "failed"

        # A crash has no tool result: tasks/result is the call's JSON-RPC error.
        task = await call_as_task(session, "protocol_error_job", {})
        with pytest.raises(MCPError) as crashed:
            await result(session, task.task_id)
        assert crashed.value.error.code == -32603 and "crashed" in crashed.value.error.message
        crashed_task = await get(session, task.task_id)
        assert crashed_task.status == "failed" and "crashed" in (crashed_task.status_message or "")

        # The caller's tasks, oldest first, in pages.
        listed = v2025.ListTasksResult.model_validate(await raw(session, "tasks/list", {}))
        assert len(listed.tasks) == 3 and listed.next_cursor is None, listed
        assert [t.status for t in listed.tasks] == ["completed", "failed", "failed"]
        with pytest.raises(MCPError) as bad_cursor:
            await raw(session, "tasks/list", {"cursor": "nonsense"})
        assert bad_cursor.value.error.code == -32602

        # A call without `task` is answered in its own request, as ever.
        assert not (await session.call_tool("slow_compute", {"seconds": 0})).is_error

    calls = tool_calls(manifest, "slow_compute")
    assert len(calls) == 2 and all(c["outcome"] == "ok" for c in calls), calls
    tasked = [x for x in manifest.audit_lines() if x.get("capability") == "client.task"]
    assert len(tasked) == 3, tasked


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_cancelled_task_cancels_its_call(transport, warden_bin, warden_env, manifest):
    async with session_on(transport, warden_bin, manifest, warden_env) as (session, _, _):
        task = await call_as_task(session, "slow_compute", {"seconds": 30})
        started = time.monotonic()
        await anyio.sleep(0.3)
        cancelled = v2025.CancelTaskResult.model_validate(await raw(session, "tasks/cancel", {"taskId": task.task_id}))
        assert cancelled.status == "cancelled" and cancelled.task_id == task.task_id
        assert (await get(session, task.task_id)).status == "cancelled"
        # Cancelling it again is refused (it ended), and it has no result.
        with pytest.raises(MCPError) as again:
            await raw(session, "tasks/cancel", {"taskId": task.task_id})
        assert again.value.error.code == -32602
        with pytest.raises(MCPError) as no_result:
            await raw(session, "tasks/result", {"taskId": task.task_id})
        assert no_result.value.error.code == -32602
        calls = tool_calls(manifest, "slow_compute")
        assert calls and calls[0]["outcome"] == "cancelled", calls
        assert time.monotonic() - started < 20, "the plugin's call was not cancelled with its task"
        # The plugin is free again.
        greeting = await session.call_tool("greet", {"name": "Ada"})
        assert greeting.content[0].text == "Hello, Ada!"


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_task_asks_the_user_and_is_input_required_meanwhile(transport, warden_bin, warden_env, manifest):
    release = anyio.Event()
    asked: list[tuple[str, Any]] = []

    async def user(context, params):
        asked.append((params.message, (params.meta or {}).get(RELATED)))
        await release.wait()
        if params.message == "First name?":
            return ElicitResult(action="accept", content={"name": "Ada"})
        return ElicitResult(action="accept", content={"color": "teal"})

    async with session_on(transport, warden_bin, manifest, warden_env, elicitation_callback=user) as (session, _, _):
        task = await call_as_task(session, "multi_input", {})
        waiting = await wait_for(session, task.task_id, "input_required")
        assert waiting.status_message, waiting
        release.set()
        assert text(await result(session, task.task_id)) == "Ada likes teal"
        assert (await get(session, task.task_id)).status == "completed"
    assert sorted(m for m, _ in asked) == ["Favourite colour?", "First name?"]
    assert all(related == {"taskId": task.task_id} for _, related in asked), asked
    elicited = [x for x in manifest.audit_lines() if x.get("capability") == "client.elicit"]
    assert len(elicited) == 2, elicited


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_task_support_is_enforced_and_unknown_ids_refused(transport, warden_bin, warden_env, manifest):
    async with session_on(transport, warden_bin, manifest, warden_env) as (session, _, _):
        # A tool that runs only as a task refuses a plain call: -32601, as 2025-11-25 says.
        with pytest.raises(MCPError) as required:
            await session.call_tool("failing_job", {})
        assert required.value.error.code == -32601
        # A tool that never runs as a task refuses `task`.
        with pytest.raises(MCPError) as forbidden:
            await raw(session, "tools/call", {"name": "greet", "arguments": {"name": "x"}, "task": {}})
        assert forbidden.value.error.code == -32601
        with pytest.raises(MCPError) as unknown_tool:
            await raw(session, "tools/call", {"name": "no_such_tool", "arguments": {}, "task": {}})
        assert unknown_tool.value.error.code == -32602
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            with pytest.raises(MCPError) as unknown:
                await raw(session, method, {"taskId": UNKNOWN})
            assert unknown.value.error.code == -32602, method
        with pytest.raises(MCPError) as malformed:
            await raw(session, "tasks/get", {"task": 1})
        assert malformed.value.error.code == -32602
    assert not tool_calls(manifest, "failing_job", timeout=0.5), "a refused call must not run"


async def test_another_http_client_cannot_touch_a_task(warden_bin, warden_env, write_manifest, helpers, conformance_wasm):
    alice, bob = "alice-" + os.urandom(8).hex(), "bob-" + os.urandom(8).hex()
    manifest = write_manifest(
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n'
        '[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n' + helpers.plugin_block("fixture", conformance_wasm)
    )
    env = {**warden_env, "ALICE_TOKEN": alice, "BOB_TOKEN": bob}
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with http_warden(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        as_alice = {"Authorization": f"Bearer {alice}"}
        async with http_session(url, headers=as_alice) as (session, _):
            task = await call_as_task(session, "slow_compute", {"seconds": 30})
            for headers in ({"Authorization": f"Bearer {bob}"}, as_alice):
                # Bob, and Alice's own other session, get what an unknown id gets.
                async with http_session(url, headers=headers) as (other, _):
                    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
                        with pytest.raises(MCPError) as refused:
                            await raw(other, method, {"taskId": task.task_id})
                        assert refused.value.error.code == -32602, method
                        assert task.task_id in refused.value.error.message
                    listed = v2025.ListTasksResult.model_validate(await raw(other, "tasks/list", {}))
                    assert listed.tasks == []
            # Still running, and still Alice's.
            assert (await get(session, task.task_id)).status == "working"
            await raw(session, "tasks/cancel", {"taskId": task.task_id})
    assert alice not in manifest.audit.read_text() and bob not in manifest.audit.read_text()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_2026_request_cannot_reach_these_methods(transport, warden_bin, warden_env, manifest):
    # The 2026-07-28 wire has the tasks extension only; neither the 2025-11-25 methods nor
    # their internal names answer there.
    from test_tasks import connect

    async with connect(transport, warden_bin, manifest, warden_env) as client:
        for method in ("tasks/result", "tasks/list", "warden/2025-11-25/tasks/get", "warden/2025-11-25/tools/call"):
            with pytest.raises(MCPError) as refused:
                await raw(client.session, method, {"taskId": UNKNOWN, "name": "slow_compute", "task": {}})
            assert refused.value.error.code == -32601, method
