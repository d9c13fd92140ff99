"""Host-enforced approvals: a tool under `require_approval` runs only after the user says yes to that
call, asked by Warden through MCP elicitation; the plugin cannot skip it. A client that cannot ask its user
gets a refusal that says why. Every answer is audited."""

from __future__ import annotations

import mcp.types as types
import pytest

pytestmark = pytest.mark.anyio


@pytest.fixture()
def approval_manifest(write_manifest, helpers, echo_wasm):
    return write_manifest(helpers.plugin_block("echo", echo_wasm, 'require_approval = ["echo"]'))


def answering(action: str, approve: bool | None, asked: list[str]):
    async def callback(context, params: types.ElicitRequestParams):
        asked.append(params.message)
        content = None if approve is None else {"approve": approve}
        return types.ElicitResult(action=action, content=content)

    return callback


async def test_the_user_approves_each_call(start_warden, approval_manifest, helpers):
    asked: list[str] = []
    async with start_warden(approval_manifest, elicitation_callback=answering("accept", True, asked)) as w:
        result = await w.call("echo", {"text": "rm -rf /tmp/x"})
        assert not result.is_error, helpers.text_of(result)
        assert "rm -rf /tmp/x" in helpers.text_of(result)
        # `count` is not listed: no question.
        result = await w.call("count", {})
        assert not result.is_error, helpers.text_of(result)
    assert len(asked) == 1, asked
    assert "plugin 'echo' wants to run echo" in asked[0] and "rm -rf /tmp/x" in asked[0], asked
    lines = approval_manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    approvals = [line for line in lines if line["event"] == "approval"]
    assert [(a["tool"], a["decision"]) for a in approvals] == [("echo", "allowed")], approvals


@pytest.mark.parametrize(
    ("action", "approve", "why"),
    [("decline", None, "declined"), ("cancel", None, "cancelled"), ("accept", False, "did not tick")],
)
async def test_a_refusal_stops_the_call(start_warden, approval_manifest, helpers, action, approve, why):
    asked: list[str] = []
    async with start_warden(approval_manifest, elicitation_callback=answering(action, approve, asked)) as w:
        result = await w.call("echo", {"text": "x"})
        text = helpers.text_of(result)
        assert result.is_error and text.startswith("access denied") and why in text, text
        assert "require_approval" in text, text
    lines = approval_manifest.audit_lines()
    assert [(line["decision"], line["outcome"]) for line in lines if line["event"] == "approval"] == [
        ("denied", "denied")
    ]
    calls = [line for line in lines if line["event"] == "tool_call"]
    assert [c["outcome"] for c in calls] == ["denied"], calls


async def test_a_client_that_cannot_ask_is_refused(start_warden, approval_manifest, helpers):
    async with start_warden(approval_manifest) as w:
        result = await w.call("echo", {"text": "x"})
        text = helpers.text_of(result)
        assert result.is_error and "cannot ask its user" in text, text
