"""Tool groups declared with the JavaScript and Python SDKs: each fixture (built once per
session, shared with test_plugin_js.py and test_plugin_python.py) names two groups, `basics`
(its tools listed by name, or joined by decorator) and `more` (given no tools: the rest). With
`tools = { groups = ["basics"], offer = ["more"] }` only `basics` is listed; a call of a `more`
tool is refused with the group to turn on, before the plugin runs (its state counter, asserted
afterwards, never moved); `tool_groups` turns one plugin's `more` on for the caller, with
notifications/tools/list_changed, and leaves the other plugin's off."""

from __future__ import annotations

from pathlib import Path

import mcp_types
import pytest

from conftest import text_of
from test_plugin_js import LIMITS, build_js
from test_plugin_python import FIXTURE_LIMITS, fixture_component
from test_tool_groups import anyio_wait

pytestmark = pytest.mark.anyio

GROUPS = 'tools = { groups = ["basics"], offer = ["more"] }'
BASICS = {"js_echo", "js_fail", "py_echo", "py_shape"}


async def test_sdk_groups_listed_offered_and_refused(
    tmp_path_factory: pytest.TempPathFactory, warden_bin: Path, start_warden, write_manifest, helpers
) -> None:
    js = build_js(tmp_path_factory, warden_bin).fixture
    py = fixture_component(tmp_path_factory)
    m = write_manifest(
        helpers.plugin_block("js", js, f'tool_prefix = "js_"\n{LIMITS}\n{GROUPS}')
        + helpers.plugin_block("py", py, f'tool_prefix = "py_"\n{FIXTURE_LIMITS}\n{GROUPS}')
    )
    changes: list[object] = []

    async def on_message(message: object) -> None:
        if isinstance(getattr(message, "root", message), mcp_types.ToolListChangedNotification):
            changes.append(message)

    async def listed() -> set[str]:
        return {t.name for t in (await w.session.list_tools()).tools}

    async with start_warden(m, message_handler=on_message) as w:
        names = await listed()
        assert names == BASICS | {"tool_groups"}, sorted(names)
        echoed = await w.call("py_echo", {"text": "hi"}, timeout=60)
        assert not echoed.is_error and text_of(echoed) == "hi", text_of(echoed)

        for plugin in ("js", "py"):
            refused = await w.call(f"{plugin}_count", {}, timeout=60)
            said = text_of(refused)
            assert refused.is_error and f'"{plugin}/more"' in said and "tool_groups" in said, said

        on = await w.call("tool_groups", {"enable": ["js/more"]})
        assert not on.is_error and "js/more" in text_of(on), text_of(on)
        assert await anyio_wait(lambda: changes), "no notifications/tools/list_changed after tool_groups"
        names = await listed()
        assert "js_count" in names and "js_kept" in names and not any(n.startswith("py_") and n not in BASICS for n in names), sorted(names)
        # The refused call never ran: the plugin's counter in the host's state starts at 1.
        counted = await w.call("js_count", {}, timeout=60)
        assert not counted.is_error and text_of(counted).startswith("kept 1,"), text_of(counted)
        still = await w.call("py_count", {}, timeout=60)
        assert still.is_error and '"py/more"' in text_of(still), text_of(still)

        on = await w.call("tool_groups", {"enable": ["py/more"]})
        assert not on.is_error, text_of(on)
        assert await anyio_wait(lambda: len(changes) >= 2), "no notifications/tools/list_changed for py/more"
        counted = await w.call("py_count", {}, timeout=60)
        assert not counted.is_error and text_of(counted).startswith("kept 1,"), text_of(counted)

        log = w.stderr()
        assert log.count("groups listed: basics") == 2 and log.count("tool_groups tool): more") == 2, log[-3000:]

    lines = m.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    denied = [(line["tool"], line["decision"]) for line in lines if line.get("decision") == "denied"]
    assert sorted(denied) == [("js_count", "denied"), ("py_count", "denied"), ("py_count", "denied")], denied
