"""An MCP session belongs to the client that opened it. Two bearer clients on one
`warden serve --http`: Bob holds a valid token of his own and Alice's `Mcp-Session-Id` (a
leaked log line, a shared proxy). Whatever he sends with it, on either wire, is answered as
an unknown session: nothing of his runs in her session (the page server under the test's
control never sees his navigation), her browser tab stays hers, his DELETE does not end her
session, and each refusal leaves an audit line."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx2
import pytest

from browser_helpers import browser_manifest
from ops_helpers import free_port, serve

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

SESSION = "2025-11-25"
MODERN = "2026-07-28"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def reply(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST, whether sent as JSON or as SSE events."""
    text = response.text
    if text.startswith("data:") or "\ndata:" in text:
        frames = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return [json.loads(f) for f in frames if f][-1]
    return response.json()


def tool_text(answer: dict[str, Any]) -> str:
    assert "result" in answer, answer
    return " ".join(c.get("text", "") for c in answer["result"]["content"])


class Raw:
    """One client, speaking raw JSON-RPC over HTTP with its own bearer token."""

    def __init__(self, http: httpx2.AsyncClient, url: str, token: str) -> None:
        self.http, self.url = http, url
        self.auth = {"Authorization": f"Bearer {token}"}
        self.next_id = 1

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    async def open_session(self) -> str:
        init = {
            "jsonrpc": "2.0",
            "id": self._id(),
            "method": "initialize",
            "params": {"protocolVersion": SESSION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
        }
        response = await self.http.post(self.url, json=init, headers={**ACCEPT, **self.auth})
        assert response.status_code == 200, response.text
        sid = response.headers["mcp-session-id"]
        done = await self.session_post(sid, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert done.status_code == 202, done.text
        return sid

    async def session_post(self, sid: str, message: dict[str, Any]) -> httpx2.Response:
        headers = {**ACCEPT, **self.auth, "Mcp-Session-Id": sid, "MCP-Protocol-Version": SESSION}
        return await self.http.post(self.url, json=message, headers=headers)

    async def session_call(self, sid: str, tool: str, arguments: dict[str, Any]) -> httpx2.Response:
        message = {"jsonrpc": "2.0", "id": self._id(), "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        return await self.session_post(sid, message)

    async def modern_call(self, tool: str, arguments: dict[str, Any], sid: str | None = None) -> httpx2.Response:
        """A stateless 2026-07-28 tools/call, carrying `sid` as a session header when given."""
        body = {
            "jsonrpc": "2.0",
            "id": self._id(),
            "method": "tools/call",
            "params": {
                "name": tool,
                "arguments": arguments,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        }
        headers = {**ACCEPT, **self.auth, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool}
        if sid:
            headers["Mcp-Session-Id"] = sid
        return await self.http.post(self.url, json=body, headers=headers)


async def test_a_session_id_is_no_key_to_another_clients_session(
    warden_bin, warden_env, write_manifest, http_server, tmp_path
) -> None:
    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    m = browser_manifest(write_manifest, "http://127.0.0.1:*")
    clients = '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n'
    m.path.write_text(m.path.read_text().replace("\n\n", f"\n\n{clients}\n", 1))
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}

    with serve(warden_bin, m.path, env, f"127.0.0.1:{port}"):
        async with httpx2.AsyncClient(timeout=90) as http:
            alice, bob = Raw(http, url, tokens["alice"]), Raw(http, url, tokens["bob"])
            sid = await alice.open_session()
            opened = reply(await alice.session_call(sid, "browse_navigate", {"url": http_server.url("/alice-inbox")}))
            assert "alice-inbox" in tool_text(opened), opened

            # 2025-11-25 wire: every method with her session id is an unknown session to him.
            bob_url = http_server.url("/bob-was-here")
            for attempt in (
                bob.session_call(sid, "browse_navigate", {"url": bob_url}),
                bob.session_call(sid, "browse_snapshot", {}),
                bob.session_call(sid, "browse_tabs", {"action": "list"}),
                bob.session_post(sid, {"jsonrpc": "2.0", "id": 90, "method": "tools/list", "params": {}}),
                bob.session_post(sid, {"jsonrpc": "2.0", "id": 91, "method": "logging/setLevel", "params": {"level": "error"}}),
                bob.session_post(sid, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
            ):
                refused = await attempt
                assert refused.status_code == 404, refused.text
                assert refused.text == "Not Found: Session not found", refused.text
            stream = await http.get(url, headers={**bob.auth, "Accept": "text/event-stream", "Mcp-Session-Id": sid})
            assert stream.status_code == 404, stream.text
            ended = await http.delete(url, headers={**bob.auth, "Mcp-Session-Id": sid, "MCP-Protocol-Version": SESSION})
            assert ended.status_code == 404, ended.text

            # 2026-07-28 wire: a stateless request that carries her session header is refused
            # the same way; without the header it is his own conversation, which has no tab.
            refused = await bob.modern_call("browse_navigate", {"url": bob_url}, sid=sid)
            assert refused.status_code == 404, refused.text
            own = reply(await bob.modern_call("browse_tabs", {"action": "list"}))
            assert "alice-inbox" not in json.dumps(own), own

            # What reached the page server is the test's evidence, not Warden's word.
            assert not any("bob-was-here" in r for r in http_server.requests), http_server.requests

            # Her session is alive and still hers: her tab, her page.
            snapshot = reply(await alice.session_call(sid, "browse_snapshot", {}))
            assert "alice-inbox" in tool_text(snapshot), snapshot

            # Bob's own session works beside hers, and cannot name hers either.
            bob_sid = await bob.open_session()
            mine = reply(await bob.session_call(bob_sid, "browse_tabs", {"action": "list"}))
            assert "alice-inbox" not in json.dumps(mine), mine
            refused = await alice.session_call(bob_sid, "browse_tabs", {"action": "list"})
            assert refused.status_code == 404, refused.text

            # Her own DELETE ends her session.
            ended = await http.delete(url, headers={**alice.auth, "Mcp-Session-Id": sid, "MCP-Protocol-Version": SESSION})
            assert ended.status_code in (200, 202, 204), ended.text
            gone = await alice.session_call(sid, "browse_snapshot", {})
            assert gone.status_code == 404, gone.text

    lines = [json.loads(line) for line in m.audit.read_text().splitlines()]
    refusals = [line for line in lines if line["event"] == "session_refused"]
    # Six POSTs, the GET, the DELETE and the stateless call of Bob; one POST of Alice's.
    assert len(refusals) == 10, refusals
    assert [r["client"] for r in refusals].count("bob") == 9, refusals
    for r in refusals:
        assert r["decision"] == "denied" and r["capability"] == "http.session", r
        assert sid not in json.dumps(r) and bob_sid not in json.dumps(r), r
