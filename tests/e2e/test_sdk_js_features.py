"""What a JavaScript plugin can do beyond tools, against the real host with the official MCP
client on both wires (2025-11-25 sessions and the stateless 2026-07-28 wire), over stdio: ask
the user several questions at once (form mode) and send them to a page (URL mode), ask the
client's model and its roots, serve a prompt with arguments and completions, resources and a
resource template, a subscription notified by a terminal session's `watch`, progress, a task
polled to completion and a task cancelled. The replay rule shows: what the tool does before an
ask runs twice on 2026-07-28. All of it through the JS fixture (tests/guests/js-fixture)."""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import MCPError
from test_plugin_js import LIMITS, build_js
from test_protocol_modes import LEGACY, MODERN, connect
from test_tasks import ANY, CancelTask, CreatedTask, TaskParams, Tasks, get_task, wait_for

pytestmark = pytest.mark.anyio

SIGN_IN = "https://accounts.example.com/link?flow=js"
ROOT = "file:///work/project"


@pytest.fixture(scope="module")
def fixture_wasm(tmp_path_factory, warden_bin):
    return build_js(tmp_path_factory, warden_bin).fixture


def text(result: Any) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Client:
    """The user and the model behind the MCP client: what they were asked, and their answers."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    async def elicit(self, context, params):
        self.asked.append(params)
        if isinstance(params, types.ElicitRequestURLParams):
            return types.ElicitResult(action="accept")
        if "name" in params.requested_schema["properties"]:
            return types.ElicitResult(action="accept", content={"name": "Ada"})
        return types.ElicitResult(action="accept", content={"color": "teal"})

    async def sample(self, context, params):
        self.asked.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="short and sweet"), model="test-model"
        )

    async def roots(self, context):
        return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="project")])


def capabilities_used(manifest) -> list[str]:
    return [line["capability"] for line in manifest.audit_lines() if line["event"] == "capability_used"]


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_asks_prompts_resources_subscriptions_and_tasks(mode, warden_bin, warden_env, write_manifest, fixture_wasm):
    body = f'[[plugin]]\nname = "jsfx"\nsource = "{fixture_wasm}"\ntool_prefix = "js_"\n'
    body += LIMITS.replace("3s", "60s") + "\ngrants.terminal = { local = true }\n"
    manifest = write_manifest(body)
    user = Client()
    updated: list[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            updated.append(str(root.params.uri))

    options: dict[str, Any] = dict(
        elicitation_callback=user.elicit,
        sampling_callback=user.sample,
        list_roots_callback=user.roots,
        message_handler=on_message,
    )
    if mode == MODERN:
        options["extensions"] = [Tasks()]
    async with connect("stdio", mode, warden_bin, manifest, warden_env, **options) as client:
        with anyio.fail_after(60):
            caps = await client.call_tool("js_caps", {})
            assert caps.structured_content == {
                "elicitation": True,
                "elicitationUrl": True,
                "sampling": True,
                "roots": True,
            }, caps.structured_content

            # Two questions in one ask; on 2026-07-28 the call ran once to ask and once more
            # with the answers, so the count kept before the ask says 2.
            greet = await client.call_tool("js_greet", {})
            runs = 1 if mode == LEGACY else 2
            assert text(greet) == f"Ada likes teal (run {runs})", text(greet)
            # The client may answer the questions of one round in any order.
            forms = {p.message: p for p in user.asked if isinstance(p, types.ElicitRequestFormParams)}
            assert sorted(forms) == ["Favourite colour?", "Your name?"], forms
            assert forms["Your name?"].requested_schema["required"] == ["name"], forms

            link = await client.call_tool("js_link", {"url": SIGN_IN})
            assert text(link) == "link: accept", text(link)
            pages = [p for p in user.asked if isinstance(p, types.ElicitRequestURLParams)]
            assert [p.url for p in pages] == [SIGN_IN], pages
            refused = await client.call_tool("js_link", {"url": "javascript:alert(1)"})
            assert refused.is_error and "cannot send the user to this URL" in text(refused), text(refused)

            summary = await client.call_tool("js_summarize", {"text": "a long story"})
            assert text(summary) == "model said: short and sweet", text(summary)
            sampled = [p for p in user.asked if isinstance(p, types.CreateMessageRequestParams)]
            assert sampled[0].messages[0].content.text == "Summarize: a long story" and sampled[0].max_tokens == 50

            roots = await client.call_tool("js_roots", {})
            assert text(roots) == f"project={ROOT}", text(roots)

            # A prompt listed, filled in, refused without its required argument; completions.
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            review = prompts["js_review"]
            assert review.title == "Review a file" and review.description == "Ask for a review.", review
            assert [(a.name, a.required) for a in review.arguments] == [("file", True), ("tone", False)]
            got = await client.get_prompt("js_review", {"file": "main.rs", "tone": "terse"})
            assert got.description == "A review of main.rs", got
            assert [(m.role, m.content.text) for m in got.messages] == [
                ("user", "Review main.rs, terse."),
                ("assistant", "Send it over."),
            ], got.messages
            with pytest.raises(MCPError, match="needs the argument `file`"):
                await client.get_prompt("js_review", {"tone": "terse"})
            tones = await client.complete(types.PromptReference(type="ref/prompt", name="js_review"), {"name": "tone", "value": "g"})
            assert tones.completion.values == ["gentle", "grumpy"] and tones.completion.total == 2, tones
            ids = await client.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="notes://{id}"), {"name": "id", "value": "b"}
            )
            assert ids.completion.values == ["beta"], ids

            # Resources: a fixed one and a template.
            listed = [str(r.uri) for r in (await client.list_resources()).resources]
            assert "notes://index" in listed, listed
            templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            assert {"notes://{id}", "shell://{id}/scrollback"} <= set(templates), templates
            note = await client.read_resource("notes://beta")
            assert note.contents[0].text == "the note called beta", note

            # A subscription: the terminal session announces output on the plugin's URI.
            opened = await client.call_tool("js_shell_open", {})
            uri = f"shell://{opened.structured_content['id']}/scrollback"
            if mode == LEGACY:
                await client.subscribe_resource(uri)
                ran = await client.call_tool("js_shell_run", {"id": opened.structured_content["id"], "command": "echo $((6*7))-js"})
                assert "42-js" in text(ran), text(ran)
                while uri not in updated:
                    await anyio.sleep(0.05)
            else:
                async with client.listen(resource_subscriptions=[uri]) as subscription:
                    ran = await client.call_tool("js_shell_run", {"id": opened.structured_content["id"], "command": "echo $((6*7))-js"})
                    assert "42-js" in text(ran), text(ran)
                    async for event in subscription:
                        assert str(event.uri) == uri, event
                        break
            scrollback = await client.read_resource(uri)
            assert "42-js" in scrollback.contents[0].text, scrollback

            # Progress of a call in its own request; with the tasks extension (2026-07-28) the
            # client claims the task the call became and polls it to its result.
            progress: list[float] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append(done)

            slow = await client.call_tool("js_slow", {"seconds": 0.5}, progress_callback=on_progress)
            if mode == LEGACY:
                assert text(slow) == "done after 0.5 s", text(slow)
                assert progress and progress == sorted(progress), progress
            else:
                assert text(slow) == "done after 0.5 s as a task", text(slow)

            if mode == MODERN:
                # A task polled to completion, and one cancelled with its call.
                created = await client.session.call_tool("js_slow", {"seconds": 1}, allow_claimed=True)
                assert isinstance(created, CreatedTask) and created.status == "working", created
                done = await wait_for(client.session, created.task_id, "completed")
                assert done["result"]["content"][0]["text"] == "done after 1 s as a task", done
                created = await client.session.call_tool("js_slow", {"seconds": 30}, allow_claimed=True)
                await client.session.send_request(CancelTask(params=TaskParams(taskId=created.task_id)), ANY)
                assert (await get_task(client.session, created.task_id))["status"] == "cancelled"

    # One line per question, per run of the call.
    used = capabilities_used(manifest)
    asks = 1 if mode == LEGACY else 2
    assert used.count("client.elicit") == 2 * asks and used.count("client.elicit_url") == asks, used
    assert used.count("client.sample") == asks and used.count("client.roots") == asks, used
    if mode == MODERN:
        assert used.count("client.task") == 3, used
        calls = [line for line in manifest.audit_lines() if line["event"] == "tool_call" and line["tool"] == "js_slow"]
        # A cancelled task's line comes once its call has stopped.
        with anyio.fail_after(10):
            while len(calls) < 3:
                await anyio.sleep(0.1)
                calls = [line for line in manifest.audit_lines() if line["event"] == "tool_call" and line["tool"] == "js_slow"]
        assert sorted(c["outcome"] for c in calls) == ["cancelled", "ok", "ok"], calls
