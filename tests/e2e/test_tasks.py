"""Tool calls that run as tasks (the MCP tasks extension, SEP-2663, on the 2026-07-28 wire),
driven by the official Python client through its extension interface: the client declares
`io.modelcontextprotocol/tasks`, claims the `resultType: "task"` result, and polls `tasks/get`
until the task ends. A task polled to completion, a task cancelled (the plugin's call is
cancelled with it), a task that asks the user through `tasks/update`, a client without the
extension (served in its own request, or refused for a tool that runs only as a task), over
stdio and HTTP, each with its audit lines.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any, Literal

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Request, RequestParams, Result, TextContent
from pydantic import Field, TypeAdapter
from test_http import free_port, http_warden

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
ANY = TypeAdapter(dict[str, Any])


class CreatedTask(Result):
    """The `CreateTaskResult` a task-making `tools/call` answers with."""

    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    ttl_ms: int | None = Field(alias="ttlMs", default=None)
    poll_interval_ms: int | None = Field(alias="pollIntervalMs", default=None)


class TaskParams(RequestParams):
    task_id: str = Field(alias="taskId")


class TaskUpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class UpdateTask(Request[TaskUpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


async def get_task(session: Any, task_id: str) -> dict[str, Any]:
    return await session.send_request(GetTask(params=TaskParams(taskId=task_id)), ANY)


async def wait_for(session: Any, task_id: str, *statuses: str, timeout: float = 30) -> dict[str, Any]:
    with anyio.fail_after(timeout):
        while True:
            task = await get_task(session, task_id)
            if task["status"] in statuses:
                return task
            await anyio.sleep(0.1)


async def resolve(created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
    """Poll the task to its end, as a task-aware client does."""
    task = await wait_for(ctx.session, created.task_id, "completed", "failed", "cancelled")
    if task["status"] != "completed":
        raise RuntimeError(f"task {created.task_id} ended {task['status']}: {task.get('error')}")
    return CallToolResult.model_validate(task["result"])


class Tasks(ClientExtension):
    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=resolve)]


@pytest.fixture()
def manifest(write_manifest, helpers, conformance_wasm):
    return write_manifest(helpers.plugin_block("fixture", conformance_wasm))


@contextlib.asynccontextmanager
async def connect(
    transport: str, warden_bin, manifest, env, tasks: bool = True, **options: Any
) -> AsyncIterator[Client]:
    extensions = [Tasks()] if tasks else None
    if transport == "stdio":
        params = StdioServerParameters(
            command=str(warden_bin),
            args=["serve", "--manifest", str(manifest.path)],
            env=env,
            cwd=str(manifest.path.parent),
        )
        async with Client(params, mode=MODERN, cache=None, extensions=extensions, **options) as client:
            yield client
    else:
        port = free_port()
        with http_warden(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(url, mode=MODERN, cache=None, extensions=extensions, **options) as client:
                yield client


def text(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


def audit_lines(manifest, tool: str, timeout: float = 10) -> list[dict[str, Any]]:
    """The tool's `tool_call` lines, once there is one (a task's line comes when it ends)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in manifest.audit_lines() if line.get("tool") == tool]
        if any(line["event"] == "tool_call" for line in lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_task_is_polled_to_its_result(transport, warden_bin, warden_env, manifest):
    async with connect(transport, warden_bin, manifest, warden_env) as client:
        result = await client.call_tool("slow_compute", {"seconds": 1.5})
        assert text(result) == "Computed after 1.5 seconds"
        assert not result.is_error

        # The raw shape: a handle at once, readable at once, polled to the result.
        created = await client.session.call_tool("slow_compute", {"seconds": 1.5}, allow_claimed=True)
        assert isinstance(created, CreatedTask)
        assert created.status == "working" and created.ttl_ms and created.poll_interval_ms
        assert (await get_task(client.session, created.task_id))["status"] in ("working", "completed")
        done = await wait_for(client.session, created.task_id, "completed")
        assert "Computed after 1.5 seconds" in done["result"]["content"][0]["text"]

        # A tool error is a completed task with isError; a crash is a failed one.
        created = await client.session.call_tool("failing_job", {}, allow_claimed=True)
        done = await wait_for(client.session, created.task_id, "completed", "failed")
        assert done["status"] == "completed" and done["result"]["isError"] is True
        created = await client.session.call_tool("protocol_error_job", {}, allow_claimed=True)
        done = await wait_for(client.session, created.task_id, "completed", "failed")
        assert done["status"] == "failed" and "result" not in done
        assert done["error"]["code"] == -32603 and "crashed" in done["error"]["message"]

        # Quick calls of a task-supporting tool answer in their own request.
        quick = await client.session.call_tool("slow_compute", {"seconds": 0}, allow_claimed=True)
        assert isinstance(quick, CallToolResult)

    lines = audit_lines(manifest, "slow_compute")
    calls = [line for line in lines if line["event"] == "tool_call"]
    assert len(calls) == 3 and all(c["outcome"] == "ok" for c in calls), calls
    assert sum(1 for line in lines if line.get("capability") == "client.task") == 2, lines


async def test_a_cancelled_task_cancels_its_call(warden_bin, warden_env, manifest):
    async with connect("http", warden_bin, manifest, warden_env) as client:
        created = await client.session.call_tool("slow_compute", {"seconds": 30}, allow_claimed=True)
        started = time.monotonic()
        ack = await client.session.send_request(CancelTask(params=TaskParams(taskId=created.task_id)), ANY)
        assert ack.get("resultType") == "complete"
        task = await get_task(client.session, created.task_id)
        assert task["status"] == "cancelled" and "result" not in task
        # Cancelling again is fine; an unknown task is not.
        await client.session.send_request(CancelTask(params=TaskParams(taskId=created.task_id)), ANY)
        with pytest.raises(MCPError) as unknown:
            await get_task(client.session, "0" * 32)
        assert unknown.value.error.code == -32602
        calls = [line for line in audit_lines(manifest, "slow_compute") if line["event"] == "tool_call"]
        assert calls and calls[0]["outcome"] == "cancelled", calls
        assert time.monotonic() - started < 20, "the plugin's call was not cancelled with its task"
        # The plugin is free again: another call runs.
        assert text(await client.call_tool("greet", {"name": "Ada"})) == "Hello, Ada!"


async def never_asked(context, params):
    raise AssertionError("a task's questions come through tasks/get, not as requests to the client")


async def test_a_task_asks_the_user_through_tasks_update(warden_bin, warden_env, manifest):
    # The callback only declares elicitation; the questions arrive in tasks/get.
    async with connect("http", warden_bin, manifest, warden_env, elicitation_callback=never_asked) as client:
        created = await client.session.call_tool("multi_input", {}, allow_claimed=True)
        task = await wait_for(client.session, created.task_id, "input_required")
        assert sorted(task["inputRequests"]) == ["first", "second"]
        assert task["inputRequests"]["first"]["method"] == "elicitation/create"

        def update(responses: dict[str, Any]) -> UpdateTask:
            return UpdateTask(params=TaskUpdateParams(taskId=created.task_id, inputResponses=responses))

        with pytest.raises(MCPError) as bad:
            await client.session.send_request(update({"first": {"action": 7}}), ANY)
        assert bad.value.error.code == -32602
        await client.session.send_request(update({"second": {"action": "accept", "content": {"color": "teal"}}}), ANY)
        task = await get_task(client.session, created.task_id)
        assert task["status"] == "input_required" and sorted(task["inputRequests"]) == ["first"]
        await client.session.send_request(update({"first": {"action": "accept", "content": {"name": "Ada"}}}), ANY)
        done = await wait_for(client.session, created.task_id, "completed")
        assert done["result"]["content"][0]["text"] == "Ada likes teal"
    asked = [line for line in manifest.audit_lines() if line.get("capability") == "client.elicit"]
    assert len(asked) == 2, asked


async def test_a_client_without_tasks_is_answered_in_its_request(warden_bin, warden_env, manifest):
    async with connect("http", warden_bin, manifest, warden_env, tasks=False) as client:
        result = await client.call_tool("slow_compute", {"seconds": 1.5})
        assert text(result) == "Computed after 1.5 seconds"
        with pytest.raises(MCPError) as refused:
            await client.call_tool("failing_job", {})
        assert refused.value.error.code == -32021
        assert TASKS in str(refused.value.error.data)
        with pytest.raises(MCPError) as gated:
            await get_task(client.session, "0" * 32)
        assert gated.value.error.code == -32021
