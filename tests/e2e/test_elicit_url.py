"""URL-mode elicitation: a plugin sends the user to a page (a third party's sign-in) through
`context.ask`; the host checks the URL, asks the client in the shape of the session's wire
(`elicitation/create` with `mode: "url"` and an `elicitationId` on 2025-11-25, an input round
on 2026-07-28), and audits it. The answer is the user's consent, never a form's values."""

from __future__ import annotations

from typing import Any

import mcp.types as types
import pytest
from test_protocol_modes import LEGACY, MODERN, connect

pytestmark = pytest.mark.anyio

SIGN_IN = "https://accounts.example.com/link?flow=7f3a"


@pytest.fixture()
def manifest(write_manifest, helpers, conformance_wasm):
    return write_manifest(helpers.plugin_block("fixture", conformance_wasm))


def user(action: str, seen: list[Any]):
    async def callback(context, params):
        seen.append(params)
        return types.ElicitResult(action=action)

    return callback


def text(result) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_the_user_is_sent_to_a_page(transport, mode, warden_bin, warden_env, manifest):
    seen: list[Any] = []
    async with connect(transport, mode, warden_bin, manifest, warden_env, elicitation_callback=user("accept", seen)) as c:
        result = await c.call_tool("link_account", {"url": SIGN_IN})
        assert not result.is_error, text(result)
        assert text(result) == "link: action=accept, content=null", text(result)
    assert len(seen) == 1, seen
    asked = seen[0]
    assert isinstance(asked, types.ElicitRequestURLParams), asked
    assert asked.url == SIGN_IN and "Sign in" in asked.message, asked
    if mode == LEGACY:
        # The id a later notifications/elicitation/complete would name: unguessable.
        assert len(asked.elicitation_id) == 32, asked
    used = [line for line in manifest.audit_lines() if line.get("capability") == "client.elicit_url"]
    # On 2026-07-28 the call runs twice: it asks, then its retry finds the answer.
    assert len(used) == (1 if mode == LEGACY else 2), used
    assert all(line["tool"] == "link_account" for line in used), used


async def test_declined_and_refused_urls(warden_bin, warden_env, manifest):
    seen: list[Any] = []
    async with connect("stdio", LEGACY, warden_bin, manifest, warden_env, elicitation_callback=user("decline", seen)) as c:
        declined = await c.call_tool("link_account", {"url": SIGN_IN})
        assert text(declined) == "link: action=decline, content={}", text(declined)
        # Never asked: a script URL, plain http to another host, credentials in the URL, a
        # URL longer than 2 KiB.
        for bad in (
            "javascript:alert(1)",
            "http://accounts.example.com/link",
            "https://user:pw@accounts.example.com/",
            "https://accounts.example.com/" + "a" * 2100,
            "/relative/path",
        ):
            result = await c.call_tool("link_account", {"url": bad})
            assert result.is_error and "cannot send the user to this URL" in text(result), (bad, text(result))
        # A loopback sign-in helper may use plain http.
        local = await c.call_tool("link_account", {"url": "http://127.0.0.1:8765/callback"})
        assert not local.is_error, text(local)
    assert [p.url for p in seen] == [SIGN_IN, "http://127.0.0.1:8765/callback"], seen


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_a_client_without_elicitation_is_not_asked(mode, warden_bin, warden_env, manifest):
    from mcp import MCPError

    async with connect("stdio", mode, warden_bin, manifest, warden_env) as c:
        if mode == LEGACY:
            result = await c.call_tool("link_account", {"url": SIGN_IN})
            assert result.is_error and "did not declare the elicitation (url mode) capability" in text(result), text(result)
        else:
            # The protocol's answer: -32021 naming the mode the client lacks.
            with pytest.raises(MCPError) as refused:
                await c.call_tool("link_account", {"url": SIGN_IN})
            assert refused.value.error.code == -32021, refused.value.error
            assert refused.value.error.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
