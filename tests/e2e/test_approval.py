"""Host-enforced approvals: a tool under `require_approval` runs only after the user says yes to that
call, asked by Warden through MCP elicitation (a request to the client on 2025-11-25, an
InputRequiredResult round on 2026-07-28); the plugin cannot skip it. A client that cannot ask its user
gets a refusal that says why (-32021 on 2026-07-28). Every answer is audited."""

from __future__ import annotations

import json
import os
import subprocess

import httpx2 as httpx
import mcp.types as types
import pytest
from test_http import free_port, http_warden

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
        assert result.is_error and "did not declare the elicitation capability" in text, text


async def test_a_plugin_cannot_flood_the_user_with_questions(start_warden, write_manifest, helpers, hostile_wasm, echo_wasm):
    manifest = write_manifest(helpers.plugin_block("hostile", hostile_wasm))
    asked: list[str] = []
    async with start_warden(manifest, elicitation_callback=answering("accept", True, asked)) as w:
        result = await w.call("ask_flood", {"count": 50})
        assert not result.is_error, helpers.text_of(result)
        assert helpers.text_of(result) == "asked 10, refused 40"
    assert len(asked) == 10, len(asked)
    used = [line for line in manifest.audit_lines() if line.get("capability") == "client.elicit"]
    assert len(used) == 10, used


MODERN = "2026-07-28"
ALL_CAPABILITIES = {"elicitation": {}, "sampling": {}, "roots": {}}


async def modern_call(url: str, name: str, arguments: dict, capabilities: dict, **extra) -> httpx.Response:
    """One stateless 2026-07-28 tools/call, as a raw HTTP request."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": capabilities,
            },
            **extra,
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.post(url, json=body, headers=headers)


def rpc_body(response: httpx.Response) -> dict:
    text = response.text
    if text.startswith("data:") or "\ndata:" in text:
        frames = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return [json.loads(f) for f in frames if f][-1]
    return response.json()


async def test_a_modern_client_approves_through_an_input_round(approval_manifest, warden_bin, warden_env, helpers):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with http_warden(warden_bin, approval_manifest.path, warden_env, f"127.0.0.1:{port}"):
        first = rpc_body(await modern_call(url, "echo", {"text": "deploy"}, ALL_CAPABILITIES))
        result = first["result"]
        assert result["resultType"] == "input_required", first
        (key, request), = result["inputRequests"].items()
        assert request["method"] == "elicitation/create" and "deploy" in request["params"]["message"], request
        state = result["requestState"]

        # The answer cannot be moved to other arguments, nor the state altered.
        yes = {key: {"action": "accept", "content": {"approve": True}}}
        moved = rpc_body(await modern_call(url, "echo", {"text": "rm"}, ALL_CAPABILITIES, inputResponses=yes, requestState=state))
        assert moved["error"]["code"] == -32602, moved
        forged = rpc_body(
            await modern_call(url, "echo", {"text": "deploy"}, ALL_CAPABILITIES, inputResponses=yes, requestState=state[:-2] + "AA")
        )
        assert forged["error"]["code"] == -32602, forged
        # Nor can a client answer the approval before it is asked.
        unasked = rpc_body(await modern_call(url, "echo", {"text": "deploy"}, ALL_CAPABILITIES, inputResponses=yes))
        assert unasked["result"]["resultType"] == "input_required", unasked

        done = rpc_body(await modern_call(url, "echo", {"text": "deploy"}, ALL_CAPABILITIES, inputResponses=yes, requestState=state))
        assert done["result"].get("isError") is not True and "deploy" in str(done["result"]["content"]), done
        # One approval runs the call once: the same state again is refused.
        replayed = rpc_body(await modern_call(url, "echo", {"text": "deploy"}, ALL_CAPABILITIES, inputResponses=yes, requestState=state))
        assert replayed["error"]["code"] == -32602 and "already used" in replayed["error"]["message"], replayed

        again = rpc_body(await modern_call(url, "echo", {"text": "deploy"}, ALL_CAPABILITIES))["result"]
        no = {key: {"action": "decline"}}
        refused = rpc_body(
            await modern_call(url, "echo", {"text": "deploy"}, ALL_CAPABILITIES, inputResponses=no, requestState=again["requestState"])
        )
        assert refused["result"]["isError"] is True and "declined" in str(refused["result"]["content"]), refused

        without = await modern_call(url, "echo", {"text": "deploy"}, {"sampling": {}})
        body = rpc_body(without)
        assert without.status_code == 400 and body["error"]["code"] == -32021, body
        assert "elicitation" in body["error"]["data"]["requiredCapabilities"], body
    decisions = [(a["decision"], a.get("reason")) for a in approval_manifest.audit_lines() if a["event"] == "approval"]
    assert ("allowed", None) in decisions and any(d == "denied" and "declined" in (r or "") for d, r in decisions), decisions
    calls = [line for line in approval_manifest.audit_lines() if line["event"] == "tool_call"]
    assert sum(1 for c in calls if c["outcome"] == "ok") == 1, calls


async def test_a_remembered_approval_covers_the_same_argument_for_a_while(start_warden, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(
        helpers.plugin_block(
            "echo", echo_wasm, 'require_approval = ["echo"]\nremember_approval = { for = "10m", per = "text" }'
        )
    )
    asked: list[str] = []
    async with start_warden(manifest, elicitation_callback=answering("accept", True, asked)) as w:
        for text in ["deploy", "deploy", "rollback", "deploy"]:
            result = await w.call("echo", {"text": text})
            assert not result.is_error, helpers.text_of(result)
    # Asked for "deploy" once and for "rollback" once.
    assert len(asked) == 2, asked
    approvals = [line for line in manifest.audit_lines() if line["event"] == "approval"]
    reasons = [a.get("reason") or "" for a in approvals]
    assert [a["decision"] for a in approvals] == ["allowed"] * 4, approvals
    assert sum(1 for r in reasons if r.startswith("remembered")) == 2, reasons


async def test_remember_approval_is_checked_at_load(warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    for extra, why in [
        ('remember_approval = { for = "2d" }\nrequire_approval = ["echo"]', "at most 24h"),
        ('remember_approval = { for = "10m" }', "needs require_approval"),
    ]:
        manifest = write_manifest(helpers.plugin_block("echo", echo_wasm, extra))
        done = subprocess.run(
            [str(warden_bin), "check", "--manifest", str(manifest.path)],
            env={**os.environ, **warden_env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0 and why in done.stderr + done.stdout, (extra, done.stderr, done.stdout)
