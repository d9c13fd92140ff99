"""No request Warden sends reaches a listener of Warden's own, whatever the grants say.

`warden serve --http` runs on loopback without tokens (any request there may call any tool) with an admin listener
beside it. Every door a plugin has to the network is granted every port of 127.0.0.1 and of 127.0.0.2, and each tries
a stateless `tools/call` POST to the MCP endpoint and a GET of the metrics: a page's `fetch`, beacon and frame, the
fast path (the host's own request for a page), a `wasi:http` request, `http_get` and web search. The attacks are
judged from the outside: the server's access log (`warden::access`, every request either listener received) shows
only the test's own client and probes; the probe tool, which the test calls once itself to show the trace it
leaves, never runs for an attacker; listeners of the test's own on 127.0.0.2 at Warden's ports (the same service on
another loopback spelling) receive nothing; and every refusal is a `capability_denied` line that names the
listener."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx2 as httpx
import pytest

from browser_helpers import CHROMIUM
from conftest import WASM_DIR, text_of
from local_site import LocalSite, PortRecorder, QuietHandler
from ops_helpers import free_port, mcp_session, serve

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

HTTP_WASM = Path(os.environ.get("HTTP_WASM", WASM_DIR / "warden_guest_http.wasm"))
DRIVER = "own-listeners-driver"
PROBE = "own-listeners-probe"
MODERN = "2026-07-28"
ACCESS = re.compile(r'warden::access: request received listener="(\w+)" method=(\S+) path="([^"]*)" agent="([^"]*)"')


def tools_call(text: str) -> tuple[dict, dict]:
    """A stateless 2026-07-28 `tools/call` of `echo`, as one POST: (body, headers)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "echo",
            "arguments": {"text": text},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "echo",
    }
    return body, headers


def attack_page(mcp: str, metrics: str, aliases: list[str]) -> str:
    """A dashboard whose script reaches for Warden's endpoints in every way a page can."""
    body, _ = tools_call("from a page")
    targets = json.dumps([mcp, metrics, *aliases])
    return f"""<!doctype html><html><head><meta charset=utf-8><title>Status board</title></head><body>
<div class="shell"><div class="sidebar"><div class="nav-item"><a href="/">Overview</a></div></div>
<div class="main"><div class="card"><div class="card-title">Service health</div>
<div class="card-body" id="status">checking</div></div></div></div>
<script>
const call = {json.dumps(json.dumps(body))};
const tries = {targets}.map(url => fetch(url, {{method: "POST", mode: "no-cors", body: call,
  headers: {{"Content-Type": "text/plain"}}}}).then(() => "reached", () => "refused"));
navigator.sendBeacon({json.dumps(mcp)}, call);
const frame = document.createElement("iframe");
frame.src = {json.dumps(metrics)};
document.body.appendChild(frame);
Promise.all(tries).then(r => {{ document.getElementById("status").textContent = "done: " + r.join(" "); }});
</script></body></html>"""


class Tools:
    """The MCP client of the test, over the Warden's own HTTP endpoint."""

    def __init__(self, session) -> None:
        self.session = session

    async def call(self, name: str, args: dict) -> tuple[bool, str]:
        result = await self.session.call_tool(name, args)
        return (not result.is_error), text_of(result)


def access_lines(log: Path) -> list[tuple[str, str, str, str]]:
    """(listener, method, path, agent) of every request Warden's listeners received."""
    return ACCESS.findall(log.read_text(errors="replace"))


async def test_no_door_reaches_wardens_own_listeners(warden_bin, warden_env, write_manifest, helpers, echo_wasm) -> None:
    assert HTTP_WASM.is_file(), f"{HTTP_WASM} does not exist; run `cargo build --release -p warden -p warden-tests`"
    port, admin_port = free_port(), free_port()
    mcp, metrics = f"http://127.0.0.1:{port}/mcp", f"http://127.0.0.1:{admin_port}/metrics"
    # The same services on another loopback spelling, where the test listens itself.
    aliases = [f"http://127.0.0.2:{port}/mcp", f"http://127.0.0.2:{admin_port}/metrics"]
    recorders = [PortRecorder("127.0.0.2", port), PortRecorder("127.0.0.2", admin_port)]
    page = attack_page(mcp, metrics, aliases)

    class Board(QuietHandler):
        def do_GET(self) -> None:  # noqa: N802
            data = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    board = LocalSite(Board)
    loopback = '"http://127.0.0.1:*", "http://127.0.0.2:*"'
    m = write_manifest(f"""
[search]
endpoint = "{metrics}"

[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = [{loopback}] }}

[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = {{ http_hosts = ["127.0.0.1:*", "127.0.0.2:*"] }}

[[plugin]]
name = "http"
source = "{HTTP_WASM}"
grants.http = {{ origins = [{loopback}], methods = ["GET", "POST"] }}
""" + helpers.plugin_block("echo", echo_wasm))
    env = {**warden_env, "RUST_LOG": "info,warden::access=debug"}
    log = m.path.parent / "own-listeners.log"
    try:
        with serve(warden_bin, m.path, env, f"127.0.0.1:{port}", admin=f"127.0.0.1:{admin_port}", log_name=log.name):
            # What a request that reaches the server leaves behind: an access line for each, and
            # for the probe tool a `tool_call` line.
            async with httpx.AsyncClient(timeout=30, headers={"User-Agent": PROBE}) as client:
                assert (await client.get(metrics)).status_code == 200
                body, headers = tools_call("from the test")
                answer = await client.post(mcp, json=body, headers=headers)
                assert answer.status_code == 200 and "from the test" in answer.text, answer.text
            probes = [line for line in access_lines(log) if line[3] == PROBE]
            assert {(lst, path) for lst, _, path, _ in probes} == {("admin", "/metrics"), ("mcp", "/mcp")}, probes

            async with mcp_session(f"http://127.0.0.1:{port}/mcp", headers={"User-Agent": DRIVER}) as session:
                w = Tools(session)
                refusals: dict[str, str] = {}

                # A plugin's wasi:http requests.
                body, headers = tools_call("from wasi:http")
                for url in (mcp, metrics, *aliases):
                    args = {"method": "POST" if url.endswith("/mcp") else "GET", "url": url}
                    if args["method"] == "POST":
                        args |= {"headers": list(headers.items()), "body": json.dumps(body)}
                    done, text = await w.call("request", args)
                    assert not done and text.startswith("access denied"), (url, text)
                    assert "a port where Warden itself listens" in text, text
                # capture's http_get, every hop.
                for url in (mcp, metrics, aliases[1]):
                    done, refusals[f"http_get {url}"] = await w.call("http_get", {"url": url})
                    assert not done, refusals
                # The fast path: the host's own request for a page.
                for url in (metrics, mcp):
                    await w.call("browse_navigate", {"url": url})
                # A page's own requests, through the browser's network guard.
                done, text = await w.call("browse_navigate", {"url": board.url("/")})
                assert done, text
                done, text = await w.call("browse_wait_for", {"text": "done:", "timeout_ms": 20000})
                assert done, text
                done, shown = await w.call("browse_snapshot", {"mode": "full"})
                assert "done: refused refused refused refused" in shown, shown
                # Web search, whose backend the admin pointed at the metrics.
                done, refusals["search"] = await w.call("browse_search", {"query": "status"})
                assert not done, refusals

            for said in refusals.values():
                assert "Warden's own" in said and "no grant can open it" in said, refusals
    finally:
        for r in recorders:
            r.close()
        board.close()

    # Warden has exited: its access log is whole, and the guard's aggregated lines are written.
    strangers = [line for line in access_lines(log) if line[3] not in (DRIVER, PROBE)]
    assert strangers == [], strangers
    assert [r.received for r in recorders] == [[], []]
    calls = [a for a in m.audit_lines() if a["event"] == "tool_call" and a["plugin"] == "echo"]
    assert len(calls) == 1, calls
    denied = [
        a for a in m.audit_lines()
        if a["event"] == "capability_denied" and "Warden's own" in (a.get("reason") or "")
    ]
    by = lambda cap: [a for a in denied if a["capability"] == cap]  # noqa: E731
    assert len(by("wasi:http")) == 4, denied
    assert len(by("capture.http")) == 3, denied
    assert len(by("browser.search")) == 1, denied
    browser = by("browser")
    fast = [a for a in browser if "read by the host" in a["reason"]]
    assert {a["target"] for a in fast} == {f"http://127.0.0.1:{port}", f"http://127.0.0.1:{admin_port}"}, browser
    # The page's fetches and beacon (its frame is a document the guard refuses the same way).
    fetched = {a["target"] for a in browser if "fetch/xhr/beacon" in a["reason"]}
    assert fetched == {
        f"http://127.0.0.1:{port}", f"http://127.0.0.1:{admin_port}",
        f"http://127.0.0.2:{port}", f"http://127.0.0.2:{admin_port}",
    }, browser
    said = " ".join(a["reason"] for a in denied)
    assert "Warden's own MCP endpoint" in said and "Warden's own admin listener" in said, denied
