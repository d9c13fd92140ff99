"""What a Python plugin asks of and serves to the client, against the real host over HTTP with
the official MCP client: one `ask` with four questions and the same asked one at a time (form
and URL elicitation, sampling, roots) on both wires, prompts, completions, resources and
templates, a subscription to a resource a terminal session is tied to, progress, a
cancelled call and a task polled to completion. One server for the module; each test
connects its own client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.shared.subscriptions import ResourceUpdated
from ops_helpers import free_port, serve
from test_plugin_python import fixture_component
from test_tasks import CreatedTask, Tasks, get_task, wait_for

from conftest import Manifest, check_audit_line, plugin_block

pytestmark = pytest.mark.anyio

LEGACY = "legacy"
MODERN = "2026-07-28"
SIGN_IN = "https://accounts.example.com/link?flow=py"
ROOT = "file:///work/py-project"


class Server:
    def __init__(self, url: str, manifest: Manifest) -> None:
        self.url = url
        self.manifest = manifest

    def lines(self, **match: Any) -> list[dict[str, Any]]:
        return [a for a in self.manifest.audit_lines() if all(a.get(k) == v for k, v in match.items())]

    def settled_lines(self, count: int = 1, **match: Any) -> list[dict[str, Any]]:
        """The matching lines once there are `count` (a call's line is written as it ends)."""
        deadline = time.monotonic() + 10
        while len(found := self.lines(**match)) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path, warden_bin: Path) -> Iterator[Server]:
    wasm = fixture_component(tmp_path_factory)
    root = tmp_path_factory.mktemp("sdk-python-context")
    manifest = Manifest(root / "warden.toml", root / "audit.jsonl")
    manifest.path.write_text(
        '[server]\naudit_log = "audit.jsonl"\n\n'
        + plugin_block("py", wasm, 'limits = { call_timeout = "60s" }\ngrants.terminal = { local = true }')
    )
    env = {"WARDEN_CACHE_DIR": str(cache_dir), "XDG_STATE_HOME": str(root / "state"), "RUST_LOG": "info"}
    port = free_port()
    with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        yield Server(f"http://127.0.0.1:{port}/mcp", manifest)


async def answer_user(context: Any, params: Any) -> types.ElicitResult:
    if isinstance(params, types.ElicitRequestURLParams):
        assert params.url == SIGN_IN, params
        return types.ElicitResult(action="accept")
    assert params.message == "Your name?", params
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def answer_model(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    asked = params.messages[0].content
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"model says hi to {asked.text!r}"),
        model="fixture-model",
        stop_reason="endTurn",
    )


async def answer_roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="project")])


def client(server: Server, mode: str, **options: Any) -> Client:
    return Client(server.url, mode=mode, cache=None, **options)


def text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_asks_the_user_the_model_and_the_roots(server: Server, mode: str):
    options = {"elicitation_callback": answer_user, "sampling_callback": answer_model, "list_roots_callback": answer_roots}
    expected = {
        "capabilities": ["elicitation", "elicitation_url", "sampling", "roots"],
        "name": "Ada",
        "page": "accept",
        "model": "model says hi to 'Say hello'",
        "roots": [ROOT],
    }
    # The replay rule: on 2026-07-28 each ask ends its run and the client's retry runs the tool
    # again from the start (one ask of four questions: two runs; four asks in turn: five).
    runs = {True: 1, False: 1} if mode == LEGACY else {True: 2, False: 5}
    async with client(server, mode, **options) as c:
        with anyio.fail_after(60):
            for together in (True, False):
                before = len(server.lines(event="tool_call", tool="interview"))
                result = await c.call_tool("interview", {"together": together})
                assert not result.is_error, text(result)
                assert result.structured_content == expected, (together, result.structured_content)
                ran = server.settled_lines(before + runs[together], event="tool_call", tool="interview")[before:]
                assert len(ran) == runs[together], (together, ran)
                assert [line["outcome"] for line in ran][-1] == "ok", ran

    # Without the capabilities the plugin is told so (unsupported), as a failed call.
    async with client(server, mode) as bare:
        with anyio.fail_after(30):
            if mode == LEGACY:
                refused = await bare.call_tool("interview", {"together": False})
                assert refused.is_error and text(refused).startswith("failed: the client cannot do this: "), text(refused)
            else:
                # The stateless wire refuses with the protocol's error, naming what is missing.
                with pytest.raises(MCPError) as refused_modern:
                    await bare.call_tool("interview", {"together": False})
                assert refused_modern.value.error.code == -32021, refused_modern.value.error

    for capability in ("client.elicit", "client.elicit_url", "client.sample", "client.roots"):
        used = server.lines(capability=capability)
        assert used and all(line["plugin"] == "py" and line["tool"] == "interview" for line in used), (capability, used)
    for line in server.lines(plugin="py"):
        check_audit_line(line)


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_prompts_completions_and_resources(server: Server, mode: str):
    async with client(server, mode) as c:
        with anyio.fail_after(30):
            (prompt,) = (await c.list_prompts()).prompts
            assert (prompt.name, prompt.title, prompt.description) == ("review", "Review a topic", "Ask for a review of a topic.")
            assert [(a.name, a.required) for a in prompt.arguments] == [("topic", True), ("tone", False)], prompt
            got = await c.get_prompt("review", {"topic": "wasm", "tone": "dry"})
            assert got.description == "review of wasm", got
            assert [(m.role, m.content.text) for m in got.messages] == [
                ("user", "Review wasm."),
                ("assistant", "A dry review follows."),
            ], got

            with pytest.raises(MCPError, match="needs the argument `topic`"):
                await c.get_prompt("review", {"tone": "dry"})

            topics = await c.complete(types.PromptReference(type="ref/prompt", name="review"), {"name": "topic", "value": "py"})
            assert topics.completion.values == ["python", "pytest"], topics
            ids = await c.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="py://notes/{id}"), {"name": "id", "value": "n"}
            )
            assert (len(ids.completion.values), ids.completion.total, ids.completion.has_more) == (100, 120, True), ids

            resources = {str(r.uri): r for r in (await c.list_resources()).resources}
            assert resources["py://motd"].mime_type == "text/plain", resources
            templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
            assert {"py://notes/{id}", "py://term/{id}"} <= templates, templates
            motd = await c.read_resource("py://motd")
            assert [r.text for r in motd.contents] == ["hello from the Python fixture"], motd
            note = await c.read_resource("py://notes/n7")
            assert [(str(r.uri), r.text) for r in note.contents] == [("py://notes/n7", "note n7")], note
    events = {line["event"] for line in server.lines(plugin="py")}
    assert {"prompt_get", "completion", "resource_read"} <= events, events


async def open_watched(c: Client) -> tuple[str, str]:
    """A local terminal the plugin tied to its resource py://term/{id}: (id, uri)."""
    opened = await c.call_tool("term_open", {"target": "local"})
    assert not opened.is_error, text(opened)
    return text(opened), f"py://term/{text(opened)}"


async def print_in(c: Client, sid: str) -> None:
    ran = await c.call_tool("term_run", {"id": sid, "command": "echo watched-$((6*7))"})
    assert text(ran) == "watched-42 [exit 0]", text(ran)


async def test_a_subscriber_hears_when_a_watched_session_prints(server: Server):
    updated: list[str] = []

    async def on_message(message: object) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            updated.append(str(root.params.uri))

    # 2025-11-25: resources/subscribe, heard as notifications/resources/updated.
    async with client(server, LEGACY, message_handler=on_message) as c:
        with anyio.fail_after(60):
            sid, uri = await open_watched(c)
            with pytest.warns(MCPDeprecationWarning):
                await c.subscribe_resource(uri)
            await print_in(c, sid)
            while uri not in updated:
                await anyio.sleep(0.05)
            scrollback = await c.read_resource(uri)
            assert "watched-42" in scrollback.contents[0].text, scrollback

    # 2026-07-28: a subscriptions/listen stream that names the resource.
    async with client(server, MODERN) as c:
        with anyio.fail_after(60):
            sid, uri = await open_watched(c)
            async with c.listen(resource_subscriptions=[uri]) as subscription:
                await print_in(c, sid)
                async for event in subscription:
                    if isinstance(event, ResourceUpdated) and event.uri == uri:
                        break
                else:
                    pytest.fail("the subscription ended without an update")


async def test_progress_and_cancellation(server: Server):
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with client(server, LEGACY) as c:
        with anyio.fail_after(60):
            result = await c.call_tool("crunch", {"steps": 3}, progress_callback=on_progress)
            # A 2025-11-25 call the client did not make a task stays in its request.
            assert text(result) == "crunched 3 steps (task: False)", text(result)
            assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")], seen

            started = anyio.Event()
            outcome: dict[str, Any] = {}

            async def started_once(progress: float, total: float | None, message: str | None) -> None:
                started.set()

            async def run(scope: anyio.CancelScope) -> None:
                with scope:
                    outcome["result"] = await c.call_tool("crunch", {"steps": 600}, progress_callback=started_once)

            scope = anyio.CancelScope()
            async with anyio.create_task_group() as tg:
                tg.start_soon(run, scope)
                await started.wait()
                scope.cancel()
            assert "result" not in outcome, outcome
            # The plugin serves the next call.
            again = await c.call_tool("crunch", {"steps": 1})
            assert text(again) == "crunched 1 steps (task: False)", text(again)
    calls = server.settled_lines(3, event="tool_call", tool="crunch")
    # The audit keeps the size of the arguments, not them: the cancelled call is the one of 600 steps.
    (cancelled,) = [line for line in calls if line["args_bytes"] == len('{"steps":600}')]
    # The plugin saw `cancelled()` and returned (ok), or the host stopped it; well before 30 s.
    assert cancelled["outcome"] in ("cancelled", "ok") and cancelled["duration_ms"] < 15000, calls
    assert [line["outcome"] for line in calls if line is not cancelled] == ["ok", "ok"], calls


async def test_a_task_is_polled_to_completion(server: Server):
    async with client(server, MODERN, extensions=[Tasks()]) as c:
        with anyio.fail_after(60):
            created = await c.session.call_tool("crunch", {"steps": 10}, allow_claimed=True)
            assert isinstance(created, CreatedTask), created
            assert (await get_task(c.session, created.task_id))["status"] in ("working", "completed")
            done = await wait_for(c.session, created.task_id, "completed")
            assert done["result"]["content"][0]["text"] == "crunched 10 steps (task: True)", done
    assert server.settled_lines(capability="client.task", tool="crunch"), server.lines(tool="crunch")
